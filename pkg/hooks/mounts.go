package hooks

import (
	"path"

	opv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivernodeservicecontroller"
	dc "github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/cloudcredentials"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/extramounts"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// TrustedCAConfigMap is filled by the network operator with the cluster's trusted CA bundle (named in
// its asset).
var TrustedCAConfigMap = assets.ObjectName(assets.TrustedCABundle)

// BuiltinMounts are the operator's own extraMounts entries: when in use, the OpenStack CA for the
// Manila driver's containers (both instances, controller and node) at the path the driver secret names. The cluster's trusted CA bundle is not one of them:
// library-go's CA-bundle hooks mount it at /etc/pki/ca-trust/extracted/pem once the network operator
// has filled it, and a second mount at that path would make the workload invalid.
func BuiltinMounts(openStackCA bool) []extramounts.Entry {
	if !openStackCA {
		return nil
	}
	return []extramounts.Entry{{Source: "built-in OpenStack CA", VolMounts: extramounts.VolMounts{
		Propagation: []extramounts.PropagationType{extramounts.ControllerPlugin, extramounts.NodePlugin,
			extramounts.CephFSControllerPlugin, extramounts.CephFSNodePlugin},
		Volumes: []corev1.Volume{{Name: "openstack-ca", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: names.CloudCAConfigMap},
		}}}},
		Mounts: []corev1.VolumeMount{{Name: "openstack-ca", MountPath: path.Dir(cloudcredentials.CAPath), ReadOnly: true}},
	}}}
}

// Mounts computes the entries for the workloads: the built-in ones, then the admin's from the last
// valid operator config (global before per-workload).
type Mounts struct {
	Config      *operatorconfig.Source
	OpenStackCA func() bool
	Informers   []factory.Informer
}

func (m Mounts) entries() []extramounts.Entry {
	entries := BuiltinMounts(m.OpenStackCA())
	if cfg, _ := m.Config.Current(); cfg != nil {
		entries = append(entries, cfg.MountEntries()...)
	}
	return entries
}

// Deployment returns the hook for a Deployment target, with the informers that should re-trigger it.
func (m Mounts) Deployment(target extramounts.Target) (dc.DeploymentHookFunc, []factory.Informer) {
	return func(_ *opv1.OperatorSpec, d *appsv1.Deployment) error {
		return extramounts.Apply(&d.Spec.Template.Spec, target, m.entries())
	}, m.Informers
}

// DaemonSet returns the hook for a DaemonSet target, with the informers that should re-trigger it.
func (m Mounts) DaemonSet(target extramounts.Target) (csidrivernodeservicecontroller.DaemonSetHookFunc, []factory.Informer) {
	return func(_ *opv1.OperatorSpec, ds *appsv1.DaemonSet) error {
		return extramounts.Apply(&ds.Spec.Template.Spec, target, m.entries())
	}, m.Informers
}
