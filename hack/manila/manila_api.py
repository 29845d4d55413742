"""Runs Manila's API alone in ONE process (oslo.service's ServiceLauncher).

Debian's `manila-api` always starts a ProcessLauncher: a parent that forks the API worker and then
checks on its children 100 times a second (`wait_interval = 0.01`), about 2% of a core while
the API is idle. The test world runs one such API per OpenStack, several side by side on two cores;
the API itself is the same WSGIService either way.

Usage: /usr/bin/python3 manila_api.py --config-file manila.conf
"""

import eventlet
eventlet.monkey_patch()
# As Manila's own entry points do (https://bugs.launchpad.net/bugs/1863021).
import __original_module_threading as orig_threading  # noqa: E402
import threading  # noqa: E402
orig_threading.current_thread.__globals__['_active'] = threading._active

import sys  # noqa: E402

from oslo_config import cfg  # noqa: E402
from oslo_log import log  # noqa: E402
from oslo_service import service as oslo_service  # noqa: E402

from manila.common import config  # noqa: E402  registers the options
from manila import service  # noqa: E402
from manila import utils  # noqa: E402
from manila import version  # noqa: E402

CONF = cfg.CONF


def main():
    log.register_options(CONF)
    CONF(sys.argv[1:], project='manila', version=version.version_string())
    config.verify_share_protocols()
    log.setup(CONF, 'manila')
    utils.monkey_patch()
    launcher = oslo_service.ServiceLauncher(CONF, restart_method='mutate')
    launcher.launch_service(service.WSGIService('osapi_share'), workers=1)
    launcher.wait()


if __name__ == '__main__':
    main()
