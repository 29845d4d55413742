package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// csoHostedNamespace is the HCP namespace of TestCSOHostedImageSwap: its own, so that no Role or
// RoleBinding of manifests/hosted left by another hosted test (the HCP namespace outlives its test)
// grants the operator anything.
const csoHostedNamespace = "clusters-manila-cso"

// TestCSOHostedImageSwap is this operator deployed as cluster-storage-operator deploys it in a hosted
// control plane: the hosted CSO stand-in (framework.StartCSOHostedStandIn: CSO's hypershift/mgmt
// Deployment, Role, RoleBinding, ServiceAccount, Service and config ConfigMap in the HCP namespace,
// with our image; its guest ClusterRole, ClusterRoleBinding and ClusterCSIDriver; ClusterOperator
// storage in the guest from the guest ClusterCSIDriver's conditions), with the Secrets HyperShift
// writes (manila-cloud-credentials and openstack-cloud-credentials). The operator's pod runs the built
// binary through a pod runner, as ServiceAccount manila-csi-driver-operator of the HCP namespace with
// CSO's Role only; the real kube-controller-manager rolls the Deployments (management) and DaemonSets
// (guest), and idle processes stand in for the operand's images so that they become available. It
// shows: the operator runs under CSO's hosted Deployment and Role (no binding of manifests/hosted), a
// ReadWriteMany claim in the guest binds through the controller the operator rendered in the HCP
// namespace (the provisioning world, as TestHostedE2EClaim) and deleting it deletes the share, the
// guest's ClusterOperator storage becomes Available=True and is never Degraded=True, and nothing in
// the operator's log says "forbidden".
func TestCSOHostedImageSwap(t *testing.T) {
	began := time.Now()
	t.Cleanup(func() { t.Logf("TestCSOHostedImageSwap took %s", time.Since(began).Round(time.Millisecond)) })
	ctx := context.Background()
	w := shareWorld(t)
	if _, err := w.OpenStack.CreateShareType(ctx, framework.ShareTypeSpec{Name: "default"}); err != nil {
		t.Fatal(err)
	}
	hw := w.StartHosted(t, framework.HostedOptions{HCPNamespace: csoHostedNamespace})
	guest := &framework.World{ControlPlane: hw.Guest, OpenStack: w.OpenStack}

	// CSO's Deployment names no namespace: in a pod, controllercmd reads the ServiceAccount's.
	bin := t.TempDir()
	oursExec, err := framework.InPodNamespace(bin, operatorBinary(t), hw.HCPNamespace)
	if err != nil {
		t.Fatal(err)
	}
	idle, err := framework.IdleContainer(bin)
	if err != nil {
		t.Fatal(err)
	}

	storage := watchClusterOperatorIn(t, hw.Guest.ConfigV1)
	cso := hw.StartCSOHostedStandIn(t, framework.CSOHostedStandInOptions{OperatorImage: framework.ImageOurOperator})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the guest's ClusterOperator storage as the hosted CSO stand-in wrote it:\n%s", strings.Join(cso.History(), "\n"))
		}
	})

	// The management cluster's node for the control plane's pods (the operator's and the controller's),
	// and a guest worker for the node DaemonSets' pods.
	mgmtNode := map[string]string{"node-role.kubernetes.io/master": "", "kubernetes.io/os": "linux",
		"hypershift.openshift.io/control-plane": "true", "hypershift.openshift.io/cluster": hw.HCPNamespace}
	runner := hw.StartPodRunner(t, framework.PodRunnerOptions{
		Namespace: hw.HCPNamespace, Selector: "name=" + framework.CSOManilaDeployment,
		Images: map[string]string{framework.ImageOurOperator: oursExec}, NodeName: "podrunner-hcp-0", NodeLabels: mgmtNode,
	})
	operandImages := map[string]string{}
	for _, img := range framework.CSOHostedStandInImages() {
		operandImages[img] = idle
	}
	hw.StartPodRunner(t, framework.PodRunnerOptions{Namespace: hw.HCPNamespace, Selector: "app=openstack-manila-csi",
		Images: operandImages, NodeName: "podrunner-hcp-0", NodeLabels: mgmtNode})
	guest.StartPodRunner(t, framework.PodRunnerOptions{Namespace: names.OperandNamespace, Selector: "app=openstack-manila-csi",
		Images: operandImages, NodeName: "guest-worker-0", NodeLabels: map[string]string{"node-role.kubernetes.io/worker": "", "kubernetes.io/os": "linux"}})
	hw.StartKubeControllers(t, "deployment-controller", "replicaset-controller")
	guest.StartKubeControllers(t, "daemonset-controller")
	t.Cleanup(func() {
		for _, rec := range runner.Records() {
			var refused []string
			for _, line := range strings.Split(runner.Log(rec.Name), "\n") {
				if strings.Contains(strings.ToLower(line), "forbidden") {
					refused = append(refused, line)
				}
			}
			if len(refused) > 0 {
				t.Errorf("the operator (pod %s) was refused %d requests under CSO's hosted RBAC, e.g.:\n%s", rec.Name, len(refused), strings.Join(refused[:min(len(refused), 3)], "\n"))
			}
		}
	})

	// The operator runs in CSO's Deployment, as its ServiceAccount, with CSO's Role only.
	pod := waitForHostedCSOOperatorPod(t, hw)
	waitForPodLog(t, runner, pod.Name, "successfully acquired lease", 1)
	t.Logf("the operator runs in pod %s/%s (%s after the start)", pod.Namespace, pod.Name, time.Since(began).Round(time.Millisecond))
	operatorRunsAsCSODeploysIt(t, hw, pod)

	// A guest claim binds through the controller the operator rendered in the HCP namespace.
	class := guest.WaitForClassOfShareType(t, "default")
	framework.Eventually(t, framework.DefaultTimeout, "the controller Deployment in "+hw.HCPNamespace, func(ctx context.Context) error {
		_, err := hw.Kube.AppsV1().Deployments(hw.HCPNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		return err
	})
	if d, err := hw.Kube.AppsV1().Deployments(hw.HCPNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{}); err == nil {
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == framework.DriverContainer {
				// CSO gives DRIVER_CONTROL_PLANE_IMAGE for the management cluster's nodes; told, not
				// asserted: which image the hosted controller should run is not settled here.
				t.Logf("the controller's %s container runs %s (DRIVER_CONTROL_PLANE_IMAGE is %s)", c.Name, c.Image, framework.CSOHostedDriverControlPlaneImage)
			}
		}
	}
	prov := guest.StartProvisioningWith(t, framework.ProvisioningOptions{Controller: hw.ControlPlane, ControllerNamespace: hw.HCPNamespace})
	claim := guest.CreateClaim(t, "cso-hosted", "data", class.Name, "1Gi")
	pv := guest.WaitForClaimBound(t, claim)
	share := guest.WaitForShareAvailable(t, pv.Spec.CSI.VolumeHandle)
	t.Logf("claim %s/%s bound to share %s (%s after the start)", claim.Namespace, claim.Name, share.ID, time.Since(began).Round(time.Millisecond))

	// The guest's ClusterOperator storage, as CSO hosted writes it, becomes Available.
	framework.Eventually(t, csoSwapTimeout, "the guest's ClusterOperator storage Available=True", func(ctx context.Context) error {
		co, err := cso.ClusterOperator(ctx)
		if err != nil {
			return err
		}
		for _, c := range co.Status.Conditions {
			if c.Type == configv1.OperatorAvailable {
				if c.Status != configv1.ConditionTrue {
					return fmt.Errorf("Available=%s (%s): %s", c.Status, c.Reason, c.Message)
				}
				return nil
			}
		}
		return fmt.Errorf("no Available condition yet: %v", co.Status.Conditions)
	})
	t.Logf("the guest's storage Available (%s after the start)", time.Since(began).Round(time.Millisecond))

	deleteClaimAndWaitForShareGone(t, guest, claim.Namespace, claim.Name, share.ID)
	noSecretInLogs(t, guest, prov)
	if got := storage(); len(got) > 0 {
		t.Errorf("the guest's ClusterOperator storage was Degraded:\n%s", strings.Join(got, "\n"))
	}
}

// waitForHostedCSOOperatorPod waits for a Ready pod of CSO's operator Deployment in the HCP namespace.
func waitForHostedCSOOperatorPod(t *testing.T, hw *framework.HostedWorld) *corev1.Pod {
	t.Helper()
	var found *corev1.Pod
	framework.Eventually(t, csoSwapTimeout, "a Ready operator pod in "+hw.HCPNamespace, func(ctx context.Context) error {
		pods, err := hw.Kube.CoreV1().Pods(hw.HCPNamespace).List(ctx, metav1.ListOptions{LabelSelector: "name=" + framework.CSOManilaDeployment})
		if err != nil {
			return err
		}
		var seen []string
		for i, p := range pods.Items {
			seen = append(seen, fmt.Sprintf("%s (%s)", p.Name, p.Status.Phase))
			if p.DeletionTimestamp == nil && p.Spec.Containers[0].Image == framework.ImageOurOperator && podIsReady(&p) {
				found = &pods.Items[i]
				return nil
			}
		}
		return fmt.Errorf("pods: %v", seen)
	})
	return found
}

// operatorRunsAsCSODeploysIt checks that pod is of CSO's hosted Deployment (through its ReplicaSet),
// runs as the HCP namespace's ServiceAccount manila-csi-driver-operator with CSO's args, and that only
// CSO's RoleBinding grants that ServiceAccount anything in the management cluster.
func operatorRunsAsCSODeploysIt(t *testing.T, hw *framework.HostedWorld, pod *corev1.Pod) {
	t.Helper()
	ctx := context.Background()
	owner := metav1.GetControllerOf(pod)
	if owner == nil || owner.Kind != "ReplicaSet" {
		t.Fatalf("pod %s has no ReplicaSet owner: %v", pod.Name, pod.OwnerReferences)
	}
	rs, err := hw.Kube.AppsV1().ReplicaSets(hw.HCPNamespace).Get(ctx, owner.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o := metav1.GetControllerOf(rs); o == nil || o.Kind != "Deployment" || o.Name != framework.CSOManilaDeployment {
		t.Errorf("ReplicaSet %s is not of Deployment %s: %v", rs.Name, framework.CSOManilaDeployment, rs.OwnerReferences)
	}
	d, err := hw.Kube.AppsV1().Deployments(hw.HCPNamespace).Get(ctx, framework.CSOManilaDeployment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Labels["hypershift.openshift.io/managed-by"] != "cluster-storage-operator" {
		t.Errorf("Deployment %s labels %v: not CSO's", d.Name, d.Labels)
	}
	if pod.Spec.ServiceAccountName != names.OperatorName {
		t.Errorf("pod %s runs as ServiceAccount %q", pod.Name, pod.Spec.ServiceAccountName)
	}
	args := pod.Spec.Containers[0].Args
	for _, want := range []string{"--guest-kubeconfig=/etc/guest-kubeconfig/kubeconfig", "--config=/var/run/configmaps/config/config.yaml"} {
		if !slices.Contains(args, want) {
			t.Errorf("pod %s args %v lack %s", pod.Name, args, want)
		}
	}
	isOurs := func(subjects []rbacSubject) bool {
		for _, s := range subjects {
			if s.Kind == "ServiceAccount" && s.Name == names.OperatorName && s.Namespace == hw.HCPNamespace {
				return true
			}
		}
		return false
	}
	rbs, err := hw.Kube.RbacV1().RoleBindings(hw.HCPNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var bindings []string
	for _, rb := range rbs.Items {
		var subjects []rbacSubject
		for _, s := range rb.Subjects {
			subjects = append(subjects, rbacSubject{s.Kind, s.Name, s.Namespace})
		}
		if isOurs(subjects) {
			bindings = append(bindings, "RoleBinding "+rb.Name+" -> "+rb.RoleRef.Kind+" "+rb.RoleRef.Name)
		}
	}
	crbs, err := hw.Kube.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, crb := range crbs.Items {
		var subjects []rbacSubject
		for _, s := range crb.Subjects {
			subjects = append(subjects, rbacSubject{s.Kind, s.Name, s.Namespace})
		}
		if isOurs(subjects) {
			bindings = append(bindings, "ClusterRoleBinding "+crb.Name+" -> "+crb.RoleRef.Kind+" "+crb.RoleRef.Name)
		}
	}
	want := []string{"RoleBinding manila-csi-driver-operator-rolebinding -> Role manila-csi-driver-operator-role"}
	if !slices.Equal(bindings, want) {
		t.Errorf("the operator's ServiceAccount is bound by %v, want only CSO's %v", bindings, want)
	}
}

type rbacSubject struct{ Kind, Name, Namespace string }

// watchClusterOperatorIn records every Degraded=True that ClusterOperator storage of the cluster of
// client shows until the test ends; a watch that ends early is recorded too.
func watchClusterOperatorIn(t *testing.T, client configclient.Interface) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := client.ConfigV1().ClusterOperators().Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + framework.CSOClusterOperator})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			co, ok := ev.Object.(*configv1.ClusterOperator)
			if !ok {
				continue
			}
			for _, c := range co.Status.Conditions {
				if c.Type == configv1.OperatorDegraded && c.Status == configv1.ConditionTrue {
					mu.Lock()
					seen = append(seen, fmt.Sprintf("%s %s=%s (%s): %s", time.Now().Format("15:04:05.000"), c.Type, c.Status, c.Reason, c.Message))
					mu.Unlock()
				}
			}
		}
		if ctx.Err() == nil {
			mu.Lock()
			seen = append(seen, time.Now().Format("15:04:05.000")+" the watch of ClusterOperator storage ended early")
			mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); w.Stop(); <-done })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string{}, seen...)
	}
}
