"""Manila share drivers for the test world: shares exist only in Manila's database.

The machines that run the tests have no LVM, no device-mapper, no kernel NFS server and no Ceph, and
Manila's own "dummy" test driver is not packaged by Debian. These drivers answer every call the
provisioning path makes (create, delete, access rules, extend, snapshots, shares from snapshots)
without touching the host, with fake export locations, so the real scheduler, share manager,
access-rule state machine and API run around them. There is no data path: nothing can mount these.

Loaded through manila.conf (`share_driver = manila_testbackend.NFSTestDriver` or
`manila_testbackend.CephFSTestDriver` in a backend section with `driver_handles_share_servers = False`)
and PYTHONPATH; see hack/openstack-peer.sh.

NFSTestDriver: every share has two export locations on two networks, as a backend serving a cluster
network and a storage network does:
  1. 127.0.0.1:/exports/share-<id>, preferred: what manila-csi-plugin picks without a runtime config
     (it takes the first preferred location), and what the tests always saw;
  2. <test_storage_export_address>:/exports/share-<id>, not preferred: the storage network, which
     only a runtime config (nfs.matchExportLocationAddress) selects. The address is an option of the
     backend section, default 192.0.2.10 (TEST-NET-1, never routed: nothing could mount it anyway).

CephFSTestDriver: native CephFS as Manila's CephFS driver serves it
(manila/share/drivers/cephfs/driver.py, NativeProtocolHelper, Zed 15.1.0):
  - storage_protocol CEPHFS; a share of another protocol is refused at creation, as the real one does;
  - ONE export location per share, `<mon>,<mon>:/volumes/_nogroup/<share id>` (monitors before the
    last colon, the root path after it; metadata {} as the real driver: not preferred), the monitors
    from option test_cephfs_monitors (default 192.0.2.21:6789,192.0.2.22:6789, TEST-NET-1);
  - access rules of type cephx only. update_access answers {access_id: {'access_key': <key>}} for each
    rule it grants (the share manager stores the key, then moves the rule from applying to active) and
    {access_id: {'state': 'error'}} for a rule it refuses, with a user message as the real one leaves:
    a rule of another type ("unsupported client access"), and a cephx rule for an ID of
    test_cephx_refused_ids (default admin,manila: the real driver refuses its own cephfs_auth_id,
    default manila, and Ceph's mgr refuses IDs it did not create, such as admin) ("forbidden client
    access"). With test_cephx_support = False every cephx rule is refused as unsupported: a CephFS
    backend that cannot grant cephx access, for negative tests;
  - the key of an ID is a cephx key (base64 of a 28-byte CryptoKey, 40 characters, "AQ..."), one per
    ID per backend as in a Ceph cluster, the same on every share and across restarts of the service
    (derived from a random seed kept in Manila's state_path); with no add or delete rules (the share
    manager's recovery after a restart) every rule is granted again and its key returned, as the real
    driver re-authorizes them.
"""

import base64
import hashlib
import hmac
import os
import struct

from oslo_config import cfg
from oslo_log import log

from manila import exception
from manila.message import api as message_api
from manila.message import message_field
from manila.share import driver

LOG = log.getLogger(__name__)
CONF = cfg.CONF

# Large enough that the capacity filter never refuses a test's share.
CAPACITY_GB = 10000

# The address of the second export location: the "storage network".
STORAGE_EXPORT_ADDRESS = '192.0.2.10'

# The Ceph monitors of the CephFS export locations (TEST-NET-1: nothing could mount them anyway).
CEPHFS_MONITORS = ['192.0.2.21:6789', '192.0.2.22:6789']

CEPHX_ACCESS_TYPE = 'cephx'

test_backend_opts = [
    cfg.StrOpt('test_storage_export_address', default=STORAGE_EXPORT_ADDRESS,
               help='Address of the second, not preferred, export location of every share.'),
]

test_cephfs_opts = [
    cfg.ListOpt('test_cephfs_monitors', default=CEPHFS_MONITORS,
                help='Ceph monitors (address:port) of every CephFS export location.'),
    cfg.ListOpt('test_cephx_refused_ids', default=['admin', 'manila'],
                help='cephx IDs whose access rules go to error, as the backend\'s own identities.'),
    cfg.BoolOpt('test_cephx_support', default=True,
                help='False: every cephx access rule goes to error (a backend without cephx).'),
]


class _TestDriver(driver.ShareDriver):
    """What both test drivers share: no share servers, shares and snapshots only in Manila's database."""

    protocol = None  # storage_protocol of the stats
    default_backend_name = None

    def __init__(self, *args, **kwargs):
        super().__init__(False, *args, **kwargs)

    def do_setup(self, context):
        LOG.info("test backend %s ready", self.backend_name)

    def check_for_setup_error(self):
        pass

    @property
    def backend_name(self):
        return self.configuration.safe_get('share_backend_name') or self.default_backend_name

    def _export(self, share):
        raise NotImplementedError()

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
            'storage_protocol': self.protocol,
            'total_capacity_gb': CAPACITY_GB,
            'free_capacity_gb': CAPACITY_GB,
            # Said outright rather than left to the base class's guess from which methods this class
            # overrides: share types with these extra specs (the snapshot tests') schedule here.
            'snapshot_support': True,
            'create_share_from_snapshot_support': True,
            'revert_to_snapshot_support': False,
            'mount_snapshot_support': False,
        })


class NFSTestDriver(_TestDriver):
    """No share servers; every share is exported at 127.0.0.1:/exports/share-<id> (preferred) and
    at the storage network's address."""

    # Both protocols, as Manila's generic drivers report it.
    protocol = 'NFS_CIFS'
    default_backend_name = 'testnfs'

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.configuration.append_config_values(test_backend_opts)

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

    def update_access(self, context, share, access_rules, add_rules, delete_rules,
                      share_server=None):
        LOG.info("share %s: access rules %s (+%d -%d)", share['id'],
                 [r['access_to'] for r in access_rules], len(add_rules), len(delete_rules))
        return None  # every rule is applied as asked


class CephFSTestDriver(_TestDriver):
    """Native CephFS, as Manila's CephFS driver with cephfs_protocol_helper_type = CEPHFS: one export
    location <monitors>:/volumes/_nogroup/<share id>, cephx access rules answered with keys."""

    protocol = 'CEPHFS'
    default_backend_name = 'cephfs'

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.configuration.append_config_values(test_cephfs_opts)
        self.message_api = message_api.API()
        self._seed = None
        self._created = 0

    def do_setup(self, context):
        self._load_seed()
        super().do_setup(context)

    def _load_seed(self):
        """The random seed of this backend's cephx keys, kept in Manila's state_path so a key survives
        a restart of the share service, as a key survives in a Ceph cluster."""
        path = os.path.join(CONF.state_path, 'test-cephx-%s.seed' % self.backend_name)
        if not os.path.exists(path):
            tmp = path + '.new'
            with open(tmp, 'wb') as f:
                f.write(os.urandom(32))
            os.replace(tmp, path)
        with open(path, 'rb') as f:
            self._seed = f.read()
        self._created = int(os.stat(path).st_mtime)

    def _cephx_key(self, auth_id):
        """A cephx key as `ceph auth get-key` prints it: base64 of type (1: AES), created (seconds,
        nanoseconds), length (16) and the 16-byte secret; one per ID on this backend."""
        if self._seed is None:
            self._load_seed()
        secret = hmac.new(self._seed, auth_id.encode('utf-8'), hashlib.sha256).digest()[:16]
        raw = struct.pack('<HIIH', 1, self._created, 0, len(secret)) + secret
        return base64.b64encode(raw).decode('ascii')

    def _export(self, share):
        monitors = self.configuration.safe_get('test_cephfs_monitors') or CEPHFS_MONITORS
        path = '%s:/volumes/_nogroup/%s' % (','.join(monitors), share.get('share_id') or share['id'])
        # A dict, as the real driver returns it; no "preferred" (its metadata is empty).
        return {'path': path, 'is_admin_only': False, 'metadata': {}}

    def _check_protocol(self, share):
        # As the real driver: a share of another protocol (a type with storage_protocol left out) fails.
        if share['share_proto'].upper() != self.protocol:
            raise exception.ShareBackendException(
                msg="Share protocol %s is not supported." % share['share_proto'])

    def create_share(self, context, share, share_server=None):
        self._check_protocol(share)
        return super().create_share(context, share, share_server)

    def create_share_from_snapshot(self, context, share, snapshot, share_server=None,
                                   parent_share=None):
        # The real driver clones the snapshot and answers a model update with the clone's status;
        # this clone is complete at once. (A bare export location, dict or list, is not accepted here:
        # the share manager takes a dict for a model update and fails it without a status.)
        self._check_protocol(share)
        LOG.info("create share %s from snapshot %s", share['id'], snapshot['id'])
        return {'status': 'available', 'progress': '100%', 'export_locations': self._export(share)}

    def _allow_access(self, rule):
        """The key of the rule's cephx ID, or the exception the real driver raises."""
        if rule['access_type'] != CEPHX_ACCESS_TYPE or not self.configuration.safe_get('test_cephx_support'):
            raise exception.InvalidShareAccessType(type=rule['access_type'])
        refused = self.configuration.safe_get('test_cephx_refused_ids') or []
        if rule['access_to'] in refused:
            raise exception.InvalidShareAccess(
                reason='Ceph authentication ID %s must be different than the one the Manila service '
                       'uses.' % rule['access_to'])
        return self._cephx_key(rule['access_to'])

    def update_access(self, context, share, access_rules, add_rules, delete_rules,
                      share_server=None):
        LOG.info("share %s: access rules %s (+%d -%d)", share['id'],
                 [r['access_to'] for r in access_rules], len(add_rules), len(delete_rules))
        if not (add_rules or delete_rules):  # recovery: grant every rule again, as the real driver
            add_rules = access_rules
        updates = {}
        for rule in add_rules:
            try:
                key = self._allow_access(rule)
            except (exception.InvalidShareAccessType, exception.InvalidShareAccess) as e:
                detail = (message_field.Detail.FORBIDDEN_CLIENT_ACCESS
                          if isinstance(e, exception.InvalidShareAccess)
                          else message_field.Detail.UNSUPPORTED_CLIENT_ACCESS)
                self.message_api.create(
                    context, message_field.Action.UPDATE_ACCESS_RULES, share['project_id'],
                    resource_type=message_field.Resource.SHARE, resource_id=share['share_id'],
                    detail=detail)
                LOG.warning("refused %s access to %s %s (rule %s): %s", rule['access_level'],
                            rule['access_type'], rule['access_to'], rule['access_id'], e)
                updates[rule['access_id']] = {'state': 'error'}
            else:
                updates[rule['access_id']] = {'access_key': key}
        return updates
