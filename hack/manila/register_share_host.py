"""Registers a share service host in an availability zone, as a starting manila-share does.

The API-only Manila of the test world has no share service, so Manila lists no availability zone
(GET /availability-zones shows a zone while an enabled service is in it). This writes the service
record a real `manila-share` on HOST with `storage_availability_zone = ZONE` writes when it starts,
through Manila's own database API (`service_create`, which also creates the zone record), and
nothing else: no process runs for it. Registering a host again moves it to ZONE and enables it.
Disabling it, which makes its zone vanish from the list, is done through the admin API
(PUT /v2/services/disable), as an operator of the cloud would.

Usage: /usr/bin/python3 register_share_host.py manila.conf HOST ZONE
"""

import sys

from oslo_config import cfg

from manila.common import config  # noqa: F401  registers the options
from manila import context
from manila import db
from manila import exception

BINARY = 'manila-share'


def main():
    conf_file, host, zone = sys.argv[1:4]
    cfg.CONF(['--config-file', conf_file], project='manila')
    ctx = context.get_admin_context()
    try:
        svc = db.service_get_by_args(ctx, host, BINARY)
    except exception.NotFound:
        db.service_create(ctx, {'host': host, 'binary': BINARY, 'topic': 'manila-share',
                                'report_count': 0, 'availability_zone': zone})
        return
    db.service_update(ctx, svc['id'], {'availability_zone': zone, 'disabled': False})


if __name__ == '__main__':
    main()
