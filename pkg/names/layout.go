package names

// Layout says where the operator's own inputs and the controller's objects live. Standalone, all
// are in the one cluster; hosted (HyperShift), they are in the hosted control plane's namespace of
// the management cluster, while everything the guest's users touch stays in the guest's standard
// namespaces (docs/hosted.md).
type Layout struct {
	// CredentialsNamespace holds Secret manila-cloud-credentials; hosted, when that one is absent, the
	// credentials are read from Secret OtherCredentialsSecret there.
	CredentialsNamespace   string
	OtherCredentialsSecret string
	// CloudConfigNamespace and CloudConfigName are the ConfigMap whose key ca-bundle.pem is the
	// OpenStack CA.
	CloudConfigNamespace, CloudConfigName string
	// StateNamespace holds the operator's state ConfigMap.
	StateNamespace string
	// ControllerNamespace holds the controller Deployment and the objects beside it (its
	// ServiceAccount, PDB, metrics Service, trusted CA bundle and OpenStack CA copy).
	ControllerNamespace string
	// Hosted is true when ControllerNamespace is in another cluster than the guest's objects.
	Hosted bool
}

// Standalone is the layout of an ordinary OpenShift cluster.
func Standalone() Layout {
	return Layout{
		CredentialsNamespace: OperatorNamespace,
		CloudConfigNamespace: CloudConfigNamespace, CloudConfigName: CloudConfigMap,
		StateNamespace:      OperatorNamespace,
		ControllerNamespace: OperandNamespace,
	}
}

// HostedCloudConfigMap is HyperShift's ConfigMap of the OpenStack cloud config in the HCP namespace,
// the hosted counterpart of openshift-config/cloud-provider-config (same key ca-bundle.pem).
const HostedCloudConfigMap = "openstack-cloud-config"

// HostedOpenStackCredentialsSecret is HyperShift's other Secret of the same OpenStack credentials in the
// HCP namespace (beside manila-cloud-credentials): the one cluster-storage-operator's hosted Deployment
// mounts into the Manila operator's pod.
const HostedOpenStackCredentialsSecret = "openstack-cloud-credentials"

// Hosted is the layout of a hosted control plane whose namespace on the management cluster is hcp.
func Hosted(hcp string) Layout {
	return Layout{
		CredentialsNamespace: hcp, OtherCredentialsSecret: HostedOpenStackCredentialsSecret,
		CloudConfigNamespace: hcp, CloudConfigName: HostedCloudConfigMap,
		StateNamespace:      hcp,
		ControllerNamespace: hcp,
		Hosted:              true,
	}
}

// OrStandalone returns l, or the standalone layout when l is the zero Layout.
func (l Layout) OrStandalone() Layout {
	if l == (Layout{}) {
		return Standalone()
	}
	return l
}
