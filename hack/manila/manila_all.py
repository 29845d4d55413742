"""Runs Manila's API, scheduler and share service in ONE process.

With `transport_url = fake://` oslo.messaging delivers RPC in memory, so the three services can talk
only when they share a process. That is chosen over RabbitMQ on purpose: no broker to install and
start (about 8 s and 140 MB), and nothing listening beyond the API's 127.0.0.1 port (the Erlang
distribution port of RabbitMQ binds every interface). Debian's `manila-all` entry point is broken
(manila.cmd.all is not packaged), hence this launcher.

Order matters: the scheduler's RPC server must listen before the share service sends its first
capability report, or that report is dropped and the backend only shows up on a later periodic
report. The API starts last, so a listening API means the other two are running.

Usage: /usr/bin/python3 manila_all.py [--api-only] --config-file manila.conf   (PYTHONPATH must reach the driver)
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
    # --api-only: the API alone, still in one process (Debian's manila-api adds a parent that polls
    # its worker 100 times a second, about 2% of a core while idle).
    api_only = '--api-only' in sys.argv
    args = [a for a in sys.argv[1:] if a != '--api-only']
    log.register_options(CONF)
    CONF(args, project='manila', version=version.version_string())
    config.verify_share_protocols()
    log.setup(CONF, 'manila')
    utils.monkey_patch()
    launcher = oslo_service.ServiceLauncher(CONF, restart_method='mutate')
    if api_only:
        launcher.launch_service(service.WSGIService('osapi_share'), workers=1)
        launcher.wait()
        return

    scheduler = service.Service.create(binary='manila-scheduler')
    launcher.launch_service(scheduler)
    while getattr(scheduler, 'rpcserver', None) is None:
        eventlet.sleep(0.05)

    for backend in CONF.enabled_share_backends:
        launcher.launch_service(service.Service.create(
            host='%s@%s' % (CONF.host, backend), service_name=backend,
            binary='manila-share', coordination=True))

    launcher.launch_service(service.WSGIService('osapi_share'), workers=1)
    launcher.wait()


if __name__ == '__main__':
    main()
