// Package names holds the fixed names that admins, docs and cluster-storage-operator rely on.
package names

const (
	// CSIDriverName is the CSI driver name and the name of the ClusterCSIDriver the operator serves.
	CSIDriverName = "manila.csi.openstack.org"
	// CephFSDriverName is the CSI driver name of the driver's CephFS instance
	// (--share-protocol-selector=CEPHFS), the provisioner of the CephFS StorageClasses.
	CephFSDriverName = "cephfs.manila.csi.openstack.org"
	// CephCSIDriverName is the driver name (--drivername) of the CephFS instance's ceph-csi, which
	// manila-csi-plugin forwards the node calls to. It is the instance's own so that it never meets
	// another ceph-csi on the node: ceph-csi's own manifests and Helm chart run it as
	// cephfs.csi.ceph.com, with its socket and its ceph-fuse mountinfo records under that name's plugin
	// directory. Never registered with the kubelet; a CSI driver name has at most 63 characters.
	CephCSIDriverName = "ceph-csi." + CephFSDriverName
	// CephCSIPluginDir is the host directory of CephCSIDriverName's socket (csi.sock), shared by the
	// ceph-csi node plugin and the CephFS instance's node plugin that forwards to it.
	CephCSIPluginDir = "/var/lib/kubelet/plugins/" + CephCSIDriverName
	// OperatorName is the component name used for events, leases and field managers.
	OperatorName = "manila-csi-driver-operator"
	// OwnerLabel (= OwnerLabelValue) marks the objects the operator owns where an informer selects them
	// by label: its StorageClasses and cluster-scoped operand objects, and hosted its ConfigMaps in the
	// HCP namespace.
	OwnerLabel      = "manila.csi.openstack.org/owned-by"
	OwnerLabelValue = OperatorName
	OwnerSelector   = OwnerLabel + "=" + OwnerLabelValue
	// OperatorNamespace is where the operator runs and where its input secret lives.
	OperatorNamespace = "openshift-cluster-csi-drivers"
	// OperandNamespace is where the driver's workloads run.
	OperandNamespace = "openshift-manila-csi-driver"

	// CloudCredentialsSecret is written by the cloud-credential-operator in OperatorNamespace.
	CloudCredentialsSecret = "manila-cloud-credentials"
	// CloudsYAMLKey is the key of CloudCredentialsSecret that holds clouds.yaml.
	CloudsYAMLKey = "clouds.yaml"
	// CloudName is the entry of clouds.yaml the operator uses.
	CloudName = "openstack"
)

const (
	// CloudConfigNamespace holds the cluster's cloud provider config.
	CloudConfigNamespace = "openshift-config"
	// CloudConfigMap carries the OpenStack CA bundle, if the cloud uses a private CA.
	CloudConfigMap = "cloud-provider-config"
	// CABundleKey is the key of CloudConfigMap with the PEM bundle.
	CABundleKey = "ca-bundle.pem"
)

const (
	// DriverSecret is the driver's credentials secret in OperandNamespace.
	DriverSecret = "csi-manila-secrets"
	// CloudCAConfigMap is the operand namespace's copy of the OpenStack CA bundle.
	CloudCAConfigMap = "manila-csi-driver-cloud-ca"
)
