"""A Manila share driver for the test world: shares exist only in Manila's database.

The machines that run the tests have no LVM, no device-mapper and no kernel NFS server, and
Manila's own "dummy" test driver is not packaged by Debian. This driver answers every call the
provisioning path makes (create, delete, access rules, extend, snapshots, shares from snapshots)
without touching the host, with a fake NFS export location, so the real scheduler, share manager,
access-rule state machine and API run around it. There is no data path: nothing can mount these exports.

Loaded through manila.conf (`share_driver = manila_testbackend.NFSTestDriver` in a backend section
with `driver_handles_share_servers = False`) and PYTHONPATH; see hack/openstack-peer.sh.

Every share has two export locations on two networks, as a backend serving a cluster network and a
storage network does:
  1. 127.0.0.1:/exports/share-<id>, preferred: what manila-csi-plugin picks without a runtime config
     (it takes the first preferred location), and what the tests always saw;
  2. <test_storage_export_address>:/exports/share-<id>, not preferred: the storage network, which
     only a runtime config (nfs.matchExportLocationAddress) selects. The address is an option of the
     backend section, default 192.0.2.10 (TEST-NET-1, never routed: nothing could mount it anyway).
"""

from oslo_config import cfg
from oslo_log import log

from manila.share import driver

LOG = log.getLogger(__name__)

# Large enough that the capacity filter never refuses a test's share.
CAPACITY_GB = 10000

# The address of the second export location: the "storage network".
STORAGE_EXPORT_ADDRESS = '192.0.2.10'

test_backend_opts = [
    cfg.StrOpt('test_storage_export_address', default=STORAGE_EXPORT_ADDRESS,
               help='Address of the second, not preferred, export location of every share.'),
]


class NFSTestDriver(driver.ShareDriver):
    """No share servers; every share is exported at 127.0.0.1:/exports/share-<id> (preferred) and
    at the storage network's address."""

    def __init__(self, *args, **kwargs):
        super().__init__(False, *args, **kwargs)
        self.configuration.append_config_values(test_backend_opts)

    def do_setup(self, context):
        LOG.info("test backend %s ready", self.backend_name)

    def check_for_setup_error(self):
        pass

    @property
    def backend_name(self):
        return self.configuration.safe_get('share_backend_name') or 'testnfs'

    def _export(self, share):
        path = '/exports/share-%s' % (share.get('share_id') or share['id'])
        storage = self.configuration.safe_get('test_storage_export_address') or STORAGE_EXPORT_ADDRESS
        return [{
            'path': '127.0.0.1:' + path,
            'is_admin_only': False,
            'metadata': {'preferred': True},
        }, {
            'path': storage + ':' + path,
            'is_admin_only': False,
            'metadata': {'preferred': False},
        }]

    def create_share(self, context, share, share_server=None):
        LOG.info("create share %s (%s GB, %s)", share['id'], share['size'], share['share_proto'])
        return self._export(share)

    def create_share_from_snapshot(self, context, share, snapshot, share_server=None,
                                   parent_share=None):
        LOG.info("create share %s from snapshot %s", share['id'], snapshot['id'])
        return self._export(share)

    def delete_share(self, context, share, share_server=None):
        LOG.info("delete share %s", share['id'])

    def ensure_share(self, context, share, share_server=None):
        return self._export(share)

    def update_access(self, context, share, access_rules, add_rules, delete_rules,
                      share_server=None):
        LOG.info("share %s: access rules %s (+%d -%d)", share['id'],
                 [r['access_to'] for r in access_rules], len(add_rules), len(delete_rules))
        return None  # every rule is applied as asked

    def extend_share(self, share, new_size, share_server=None):
        LOG.info("extend share %s to %s GB", share['id'], new_size)

    def shrink_share(self, share, new_size, share_server=None):
        LOG.info("shrink share %s to %s GB", share['id'], new_size)

    def create_snapshot(self, context, snapshot, share_server=None):
        # None: the snapshot is available as asked, with no provider location and, since the backend
        # reports no mount_snapshot_support, no export locations of its own.
        LOG.info("create snapshot %s of share %s", snapshot['id'], snapshot['share_id'])
        return None

    def delete_snapshot(self, context, snapshot, share_server=None):
        LOG.info("delete snapshot %s", snapshot['id'])

    def get_network_allocations_number(self):
        return 0

    def _update_share_stats(self, data=None):
        super()._update_share_stats({
            'share_backend_name': self.backend_name,
            'vendor_name': 'manila-csi-driver-operator tests',
            'driver_version': '1.0',
            # Both protocols, as Manila's generic drivers report it.
            'storage_protocol': 'NFS_CIFS',
            'total_capacity_gb': CAPACITY_GB,
            'free_capacity_gb': CAPACITY_GB,
            # Said outright rather than left to the base class's guess from which methods this class
            # overrides: share types with these extra specs (the snapshot tests') schedule here.
            'snapshot_support': True,
            'create_share_from_snapshot_support': True,
            'revert_to_snapshot_support': False,
            'mount_snapshot_support': False,
        })
