// Package assets holds the operand's manifests, one object per file, and renders the operator's own
// placeholders in them. library-go's controllers replace the image, log level, TLS, cluster ID and
// leader election placeholders themselves, so Render leaves those untouched.
package assets

import (
	"bytes"
	"embed"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

//go:embed *.yaml
var files embed.FS

// Names of the assets.
const (
	Namespace                  = "namespace.yaml"
	ControllerServiceAccount   = "controller_sa.yaml"
	NodeServiceAccount         = "node_sa.yaml"
	ControllerRole             = "controller_role.yaml"
	ControllerBinding          = "controller_binding.yaml"
	ControllerNamespaceRole    = "controller_namespace_role.yaml"
	ControllerNamespaceBinding = "controller_namespace_binding.yaml"
	PrometheusRole             = "prometheus_role.yaml"
	PrometheusBinding          = "prometheus_binding.yaml"
	NodeRole                   = "node_role.yaml"
	NodeBinding                = "node_binding.yaml"
	MetricsService             = "service.yaml"
	TrustedCABundle            = "cabundle_cm.yaml"
	ControllerPDB              = "pdb.yaml"
	NetworkPolicyDefaultDeny   = "networkpolicy_default_deny.yaml"
	NetworkPolicyAPIServer     = "networkpolicy_allow_egress_to_api_server.yaml"
	NetworkPolicyDNS           = "networkpolicy_allow_to_dns.yaml"
	NetworkPolicyAllEgress     = "networkpolicy_allow_all_egress.yaml"
	NetworkPolicyMetrics       = "networkpolicy_allow_ingress_to_metrics.yaml"
	NetworkPolicyProbes        = "networkpolicy_allow_ingress_to_probes.yaml"

	CSIDriver            = "csidriver.yaml"
	ControllerDeployment = "controller.yaml"
	NodeDaemonSet        = "node.yaml"
	NFSNodeDaemonSet     = "node_nfs.yaml"
	VolumeSnapshotClass  = "volumesnapshotclass.yaml"
	ServiceMonitor       = "servicemonitor.yaml"

	// The CephFS instance (operator config cephfs.enabled): its static objects and workloads.
	CephFSCSIDriver            = "cephfs_csidriver.yaml"
	CephFSCephConfig           = "cephfs_ceph_config_cm.yaml"
	CephFSCephCSIConfig        = "cephfs_ceph_csi_config_cm.yaml"
	CephFSVolumeSnapshotClass  = "cephfs_volumesnapshotclass.yaml"
	CephFSControllerDeployment = "cephfs_controller.yaml"
	CephFSMetricsService       = "cephfs_service.yaml"
	CephFSServiceMonitor       = "cephfs_servicemonitor.yaml"
	CephFSNodeDaemonSet        = "cephfs_node.yaml"
	CephCSINodeDaemonSet       = "cephfs_cephcsi_node.yaml"
)

// Placeholders of the CephFS instance's ceph-csi names, replaced by every Render: the names are
// written once, in pkg/names, and the assets follow them.
const (
	CephCSIDriverNamePlaceholder = "${CEPHCSI_DRIVER_NAME}" // names.CephCSIDriverName
	CephCSIPluginDirPlaceholder  = "${CEPHCSI_PLUGIN_DIR}"  // names.CephCSIPluginDir
)

// CephCSIImagePlaceholder stands for the ceph-csi image, which comes from the operator config
// (cephfs.image), not the operator's environment: pkg/hooks fills it after the decode.
const CephCSIImagePlaceholder = "${CEPHCSI_IMAGE}"

// CephFSStaticResources are the CephFS instance's static objects, in apply order.
func CephFSStaticResources() []string {
	return []string{CephFSCephConfig, CephFSCephCSIConfig, CephFSMetricsService, CephFSCSIDriver}
}

// StaticResources lists the assets applied by the static-resources controller, in apply order:
// namespace, service accounts, RBAC, Service, ConfigMap, PDB.
func StaticResources() []string {
	return []string{
		Namespace,
		ControllerServiceAccount, NodeServiceAccount,
		ControllerRole, ControllerBinding,
		ControllerNamespaceRole, ControllerNamespaceBinding,
		PrometheusRole, PrometheusBinding,
		NodeRole, NodeBinding,
		MetricsService,
		TrustedCABundle,
		ControllerPDB,
	}
}

// NetworkPolicies lists the operand namespace's network policies, the default-deny first. They are
// applied by a controller of their own: cluster-storage-operator's RBAC before 5.0 does not let the
// operator write network policies.
func NetworkPolicies() []string {
	return []string{NetworkPolicyDefaultDeny, NetworkPolicyAPIServer, NetworkPolicyDNS, NetworkPolicyAllEgress,
		NetworkPolicyMetrics, NetworkPolicyProbes}
}

// Names lists every asset: the static resources followed by those other controllers apply.
func Names() []string {
	return append(append(StaticResources(), NetworkPolicies()...),
		CSIDriver, ControllerDeployment, NodeDaemonSet, NFSNodeDaemonSet, VolumeSnapshotClass, ServiceMonitor,
		CephFSCephConfig, CephFSCephCSIConfig, CephFSCSIDriver, CephFSVolumeSnapshotClass,
		CephFSControllerDeployment, CephFSNodeDaemonSet, CephCSINodeDaemonSet, CephFSMetricsService, CephFSServiceMonitor)
}

// Vars are the operator's own placeholders. library-go itself replaces ${DRIVER_IMAGE},
// ${PROVISIONER_IMAGE}, ${RESIZER_IMAGE}, ${SNAPSHOTTER_IMAGE}, ${NODE_DRIVER_REGISTRAR_IMAGE},
// ${LIVENESS_PROBE_IMAGE}, ${KUBE_RBAC_PROXY_IMAGE}, ${LOG_LEVEL} and ${LEADER_ELECTION_*} in
// Deployments/DaemonSets, and pkg/hooks ClusterValues fills ${INFRASTRUCTURE_NAME} and
// ${OBSERVED_TLS_*} after the decode (values from the cluster, never taken as text), so Render leaves
// those untouched.
type Vars struct {
	// Images maps an image environment variable to its value; ${NAME} is replaced for each entry, so
	// the images used are exactly those the operator validated at start (library-go would otherwise
	// read its own environment).
	Images        map[string]string
	FSGroupPolicy string // replaces ${FSGROUP_POLICY}
}

// Render returns the named asset with the Vars placeholders and the ceph-csi names replaced; an
// unknown name is an error. Empty Vars are substituted as empty strings.
func (v Vars) Render(name string) ([]byte, error) {
	if !known(name) {
		return nil, fmt.Errorf("unknown asset %q", name)
	}
	data, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("asset %q: %w", name, err)
	}
	for env, image := range v.Images {
		data = bytes.ReplaceAll(data, []byte("${"+env+"}"), []byte(image))
	}
	data = bytes.ReplaceAll(data, []byte("${FSGROUP_POLICY}"), []byte(v.FSGroupPolicy))
	data = bytes.ReplaceAll(data, []byte(CephCSIDriverNamePlaceholder), []byte(names.CephCSIDriverName))
	data = bytes.ReplaceAll(data, []byte(CephCSIPluginDirPlaceholder), []byte(names.CephCSIPluginDir))
	return data, nil
}

// AssetFunc adapts Render to library-go's resourceapply.AssetFunc.
func (v Vars) AssetFunc() func(string) ([]byte, error) {
	return v.Render
}

func known(name string) bool {
	for _, n := range Names() {
		if n == name {
			return true
		}
	}
	return false
}

// ServingCertSecret is the Secret service-ca writes the serving certificate of the named Service asset
// into (its service.beta.openshift.io/serving-cert-secret-name annotation), written once, in the asset.
// An unknown asset or one without the annotation panics: the assets are compiled in.
func ServingCertSecret(name string) string {
	secret := objectMeta(name).Annotations[servingCertAnnotation]
	if secret == "" {
		panic(fmt.Sprintf("asset %q has no %s annotation", name, servingCertAnnotation))
	}
	return secret
}

const servingCertAnnotation = "service.beta.openshift.io/serving-cert-secret-name"

type assetMeta struct {
	Name        string            `json:"name"`
	Annotations map[string]string `json:"annotations"`
}

func objectMeta(name string) assetMeta {
	data, err := Vars{}.Render(name)
	if err != nil {
		panic(err)
	}
	var obj struct {
		Metadata assetMeta `json:"metadata"`
	}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		panic(fmt.Sprintf("asset %q: %v", name, err))
	}
	return obj.Metadata
}

// ObjectName is the metadata.name of the named asset's object (written once, in the asset), for
// what must know it before anything is rendered (e.g. an informer of that one object). An unknown
// asset or one without a name panics: the assets are compiled in.
func ObjectName(name string) string {
	n := objectMeta(name).Name
	if n == "" {
		panic(fmt.Sprintf("asset %q has no metadata.name", name))
	}
	return n
}
