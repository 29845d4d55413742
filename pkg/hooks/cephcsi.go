package hooks

import (
	"fmt"

	opv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivernodeservicecontroller"
	dc "github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// CephCSIImage fills the ceph-csi image of the CephFS instance's workloads from the operator config's
// cephfs.image (validated there: a known-bad release never gets this far). While the config names
// none (CephFS turned off, but volumes keep the instance running: pkg/controllers/cephfs), the
// image the cluster runs now stays: InUse gives it, "" when there is none.
type CephCSIImage struct {
	Config *operatorconfig.Source
	InUse  func() string
}

func (h CephCSIImage) fill(spec *corev1.PodSpec) error {
	image := ""
	if cfg, _ := h.Config.Current(); cfg != nil {
		image = cfg.CephFS.Image
	}
	if image == "" && h.InUse != nil {
		image = h.InUse()
	}
	for i := range spec.Containers {
		if spec.Containers[i].Image != assets.CephCSIImagePlaceholder {
			continue
		}
		if image == "" {
			return fmt.Errorf("no ceph-csi image for container %s: set cephfs.image in ConfigMap %s", spec.Containers[i].Name, operatorconfig.ConfigMapName)
		}
		spec.Containers[i].Image = image
	}
	return nil
}

// Deployment is the hook for the CephFS controller Deployment.
func (h CephCSIImage) Deployment() dc.DeploymentHookFunc {
	return func(_ *opv1.OperatorSpec, d *appsv1.Deployment) error { return h.fill(&d.Spec.Template.Spec) }
}

// DaemonSet is the hook for the ceph-csi node DaemonSet.
func (h CephCSIImage) DaemonSet() csidrivernodeservicecontroller.DaemonSetHookFunc {
	return func(_ *opv1.OperatorSpec, ds *appsv1.DaemonSet) error { return h.fill(&ds.Spec.Template.Spec) }
}

// ImageOf returns the image of the named container in spec, "" when absent.
func ImageOf(spec *corev1.PodSpec, container string) string {
	for _, c := range spec.Containers {
		if c.Name == container {
			return c.Image
		}
	}
	return ""
}
