package hooks

import (
	"slices"

	opv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivernodeservicecontroller"
	dc "github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

const (
	// driverContainer is the manila-csi-plugin container of the controller and node workloads.
	driverContainer = "csi-driver"
	// withTopologyArg makes the driver topology-aware: the node plugin then reports its node's compute
	// zone, read from the OpenStack metadata service (the driver ignores --nodeaz since v1.31), under
	// topology.manila.csi.openstack.org/zone, and the controller plugin honours the claim's topology.
	withTopologyArg = "--with-topology"
)

// Topology runs the Manila driver with topology while the last valid operator config sets
// topology.mode Zonal. Its hooks re-run on the operator ConfigMap's informer, which the workloads'
// controllers already watch for extraMounts.
type Topology struct {
	Config *operatorconfig.Source
}

func (t Topology) zonal() bool {
	if t.Config == nil {
		return false
	}
	cfg, _ := t.Config.Current()
	return cfg != nil && cfg.Topology.Zonal()
}

// Deployment is the hook for the controller Deployment.
func (t Topology) Deployment() dc.DeploymentHookFunc {
	return func(_ *opv1.OperatorSpec, d *appsv1.Deployment) error {
		SetTopology(&d.Spec.Template.Spec, t.zonal())
		return nil
	}
}

// DaemonSet is the hook for the node DaemonSet.
func (t Topology) DaemonSet() csidrivernodeservicecontroller.DaemonSetHookFunc {
	return func(_ *opv1.OperatorSpec, ds *appsv1.DaemonSet) error {
		SetTopology(&ds.Spec.Template.Spec, t.zonal())
		return nil
	}
}

// SetTopology adds --with-topology to the driver container when zonal, and removes it otherwise.
func SetTopology(spec *corev1.PodSpec, zonal bool) {
	for i := range spec.Containers {
		c := &spec.Containers[i]
		if c.Name != driverContainer {
			continue
		}
		c.Args = slices.DeleteFunc(c.Args, func(a string) bool { return a == withTopologyArg })
		if zonal {
			c.Args = append(c.Args, withTopologyArg)
		}
	}
}
