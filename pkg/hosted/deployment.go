package hosted

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// AvailabilityPolicy is a HostedControlPlane's spec.controllerAvailabilityPolicy.
type AvailabilityPolicy string

// HyperShift's two policies.
const (
	SingleReplica      AvailabilityPolicy = "SingleReplica"
	HighlyAvailable    AvailabilityPolicy = "HighlyAvailable"
	proxyAnnotation                       = "config.openshift.io/inject-proxy"
	guestKubeconfigKey                    = "kubeconfig"
)

// Replicas is the controller's replica count under policy: the standalone operator counts the
// guest's control-plane nodes, which a hosted cluster does not have. Two replicas keep a standby of
// every leader-elected sidecar, and the PDB (maxUnavailable 1) lets a management node drain.
func Replicas(policy AvailabilityPolicy) (int32, error) {
	switch policy {
	case SingleReplica:
		return 1, nil
	case HighlyAvailable:
		return 2, nil
	}
	return 0, fmt.Errorf("unknown controllerAvailabilityPolicy %q (want %s or %s)", policy, SingleReplica, HighlyAvailable)
}

// rollout is how the controller of replicas rolls with at least one Ready pod throughout: one
// replica surges (the new pod is Ready before the old one stops; nothing binds a host port and the
// replicas only prefer other nodes, so both fit), more lose one at a time. A controller with no
// available pod is library-go's ControllerServiceControllerAvailable=False, which cluster-storage-
// operator reports as the driver, and ClusterOperator storage, unavailable.
func rollout(replicas int32) appsv1.DeploymentStrategy {
	surge, unavailable := intstr.FromInt32(0), intstr.FromInt32(1)
	if replicas == 1 {
		surge, unavailable = intstr.FromInt32(1), intstr.FromInt32(0)
	}
	return appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}}
}

// GuestSidecars are the controller's containers that act on the guest's API objects (claims,
// volumes, snapshots, their leases); every other container talks to the CSI socket, to OpenStack or
// serves metrics.
var GuestSidecars = []string{"csi-provisioner", "csi-resizer", "csi-snapshotter"}

// ControlPlane is the hosted control plane the operator serves.
type ControlPlane struct {
	// Namespace is the HCP namespace on the management cluster.
	Namespace string
	// Availability is the HostedControlPlane's controllerAvailabilityPolicy.
	Availability AvailabilityPolicy
	// NodeSelector and Tolerations are the HostedControlPlane's spec.nodeSelector and spec.tolerations,
	// which HyperShift gives every pod of the control plane.
	NodeSelector map[string]string
	Tolerations  []corev1.Toleration
}

// Validate refuses what no transform can place.
func (cp ControlPlane) Validate() error {
	if cp.Namespace == "" {
		return fmt.Errorf("the hosted control plane's namespace is empty")
	}
	if cp.Namespace == names.OperandNamespace || cp.Namespace == names.OperatorNamespace {
		return fmt.Errorf("the hosted control plane's namespace %q is a namespace of the guest's operand", cp.Namespace)
	}
	_, err := Replicas(cp.Availability)
	return err
}

// ToManagement moves a namespaced object of the operand namespace into the HCP namespace.
func (cp ControlPlane) ToManagement(obj metav1.Object) error {
	if obj.GetNamespace() != names.OperandNamespace {
		return fmt.Errorf("%s: namespace %q, want the operand namespace %s", obj.GetName(), obj.GetNamespace(), names.OperandNamespace)
	}
	obj.SetNamespace(cp.Namespace)
	return nil
}

// ControllerDeployment turns the standalone controller Deployment, after every standalone hook, into
// the hosted one in place:
//   - into the HCP namespace, with replicas from the availability policy;
//   - placed as HyperShift places control-plane pods: labelled with the HCP namespace, on the
//     management nodes reserved for control planes (tolerating their taints, preferring this hosted
//     cluster's own and its other control-plane pods' nodes), spread over nodes, at HyperShift's
//     priority; the standalone master selector and tolerations are dropped (the management cluster's
//     masters are not for hosted control planes);
//   - the guest kubeconfig Secret mounted read-only into the provisioner, resizer and snapshotter,
//     which use it (--kubeconfig) and take their leases in the guest's operand namespace
//     (--leader-election-namespace), where the standalone sidecars take them;
//   - the proxy injected into the driver only: the sidecars reach the guest's kube-apiserver on the
//     management cluster's service network, which no proxy carries.
//
// The driver container is untouched: it talks to OpenStack only. Running it twice gives the same result.
func (cp ControlPlane) ControllerDeployment(d *appsv1.Deployment) error {
	if err := cp.Validate(); err != nil {
		return err
	}
	// Already in the HCP namespace when transformed before.
	if err := cp.ToManagement(d); err != nil && d.Namespace != cp.Namespace {
		return err
	}
	replicas, _ := Replicas(cp.Availability)
	d.Spec.Replicas = &replicas
	d.Spec.Strategy = rollout(replicas)
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[proxyAnnotation] = "csi-driver"

	pod := &d.Spec.Template
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[LabelHostedControlPlane] = cp.Namespace
	spec := &pod.Spec
	spec.NodeSelector = nil
	if len(cp.NodeSelector) > 0 {
		spec.NodeSelector = maps.Clone(cp.NodeSelector)
	}
	spec.PriorityClassName = PriorityClass
	spec.Tolerations = append([]corev1.Toleration{
		{Key: LabelControlPlaneNode, Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule},
		{Key: LabelClusterNode, Operator: corev1.TolerationOpEqual, Value: cp.Namespace, Effect: corev1.TaintEffectNoSchedule},
	}, cp.Tolerations...)
	spec.Affinity = cp.affinity(d.Spec.Selector)

	spec.Volumes = slices.DeleteFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == GuestKubeconfigVolume })
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: GuestKubeconfigVolume, VolumeSource: corev1.VolumeSource{
		Secret: &corev1.SecretVolumeSource{SecretName: GuestKubeconfigSecret}}})
	for _, name := range GuestSidecars {
		i := slices.IndexFunc(spec.Containers, func(c corev1.Container) bool { return c.Name == name })
		if i < 0 {
			return fmt.Errorf("Deployment %s has no container %s", d.Name, name)
		}
		guestSidecar(&spec.Containers[i])
	}
	return nil
}

func guestSidecar(c *corev1.Container) {
	c.Args = slices.DeleteFunc(c.Args, func(a string) bool {
		return strings.HasPrefix(a, "--kubeconfig=") || strings.HasPrefix(a, "--leader-election-namespace=")
	})
	c.Args = append(c.Args, "--kubeconfig="+path.Join(GuestKubeconfigDir, guestKubeconfigKey),
		"--leader-election-namespace="+names.OperandNamespace)
	c.VolumeMounts = slices.DeleteFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == GuestKubeconfigVolume })
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: GuestKubeconfigVolume, MountPath: GuestKubeconfigDir, ReadOnly: true})
}

// affinity prefers, as HyperShift's own control-plane pods do, this hosted cluster's nodes (100) over
// any control-plane node (50), the nodes of this control plane's other pods, and one replica a node.
func (cp ControlPlane) affinity(selector *metav1.LabelSelector) *corev1.Affinity {
	prefer := func(key, value string, weight int32) corev1.PreferredSchedulingTerm {
		return corev1.PreferredSchedulingTerm{Weight: weight, Preference: corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{value}}}}}
	}
	a := &corev1.Affinity{
		NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
			prefer(LabelControlPlaneNode, "true", 50), prefer(LabelClusterNode, cp.Namespace, 100)}},
		PodAffinity: &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelHostedControlPlane: cp.Namespace}}}}}},
	}
	if selector != nil {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname, LabelSelector: selector.DeepCopy()}}}}
	}
	return a
}

// ManagementAssets renders, from the standalone assets, their management-side copies: the same
// object in the HCP namespace. It refuses an asset that is not namespaced in the operand namespace.
func (cp ControlPlane) ManagementAssets(render func(string) ([]byte, error)) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		data, err := render(name)
		if err != nil {
			return nil, err
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &obj.Object); err != nil {
			return nil, fmt.Errorf("asset %s: %w", name, err)
		}
		if err := cp.ToManagement(obj); err != nil {
			return nil, fmt.Errorf("asset %s: %w", name, err)
		}
		return yaml.Marshal(obj.Object)
	}
}
