package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/csoview"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/predecessor"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// csoHostedNamespace is the HCP namespace of TestCSOHostedImageSwap: its own, so that no Role or
// RoleBinding of manifests/hosted left by another hosted test (the HCP namespace outlives its test)
// grants the operator anything.
const csoHostedNamespace = "clusters-manila-cso"

// TestRealCSOHostedImageSwap is the release swap of the Manila operator in a hosted control plane,
// all of it real but Cinder's operator: the real cluster-storage-operator of main in its HyperShift mode
// (framework.StartCSOHosted) applies csi-operator's hosted Deployment in the HCP namespace, whose pod
// runs the real csi-operator (4.18+) with the guest kubeconfig HyperShift mounts; a release's swap is
// CSO restarted with this operator's image, and then with csi-operator's again. The operator's pods run
// through a pod runner as ServiceAccount manila-csi-driver-operator of the HCP namespace with CSO's Role
// only; the real kube-controller-manager rolls the Deployments (management) and DaemonSets (guest), and
// idle processes stand in for the operand's images and for Cinder's operator (CSO.StandInForCinder). It
// shows, over every version of the guest's ClusterOperator storage from a healthy one written from
// csi-operator's conditions: never Available=False nor Degraded=True; this operator takes over
// csi-operator's class in place and runs under CSO's hosted Deployment and Role (nothing in its log
// says "forbidden"); a ReadWriteMany claim in the guest binds through the controller it rendered in the
// HCP namespace and deleting it deletes the share; CSO's Storage CR never reads the installed driver as
// disabled after the takeover; the two operators' writes never interleave, in the HCP namespace nor in
// the guest (the audit logs); one PodDisruptionBudget selects the controller's pods after each swap;
// after the swap back csi-operator leads and no condition is left on the guest's
// ClusterCSIDriver that it does not write; nothing of the operand's nor a class is deleted in the guest.
func TestRealCSOHostedImageSwap(t *testing.T) {
	ctx := context.Background()
	clock := newPhaseClock()
	t.Cleanup(func() { t.Logf("where the time went:\n%s", clock.String()) })
	w := shareWorld(t)
	if _, err := w.OpenStack.CreateShareType(ctx, framework.ShareTypeSpec{Name: "default"}); err != nil {
		t.Fatal(err)
	}
	hw := w.StartHosted(t, framework.HostedOptions{HCPNamespace: csoHostedNamespace})
	guest := &framework.World{ControlPlane: hw.Guest, OpenStack: w.OpenStack}
	g := predecessorGeneration(framework.Predecessor418)

	// CSO's Deployments name no namespace: in a pod, controllercmd reads the ServiceAccount's.
	bin := t.TempDir()
	oursExec, err := framework.InPodNamespace(bin, operatorBinary(t), hw.HCPNamespace)
	if err != nil {
		t.Fatal(err)
	}
	predBinary := framework.RealPredecessorBinary(t, framework.Predecessor418)
	predExec, err := framework.InPodNamespace(bin, predBinary, hw.HCPNamespace)
	if err != nil {
		t.Fatal(err)
	}
	idle, err := framework.IdleContainer(bin)
	if err != nil {
		t.Fatal(err)
	}

	storageRec := watchStorageIn(t, hw.Guest, false)
	cso := hw.StartCSOHosted(t, framework.CSOOptions{})
	predImage := cso.OperatorImage()

	// The management cluster's node for the control plane's pods (the operators', the controller's,
	// Cinder's operator's), and guest workers for the node DaemonSets' pods.
	mgmtNode := map[string]string{"node-role.kubernetes.io/master": "", "kubernetes.io/os": "linux",
		"hypershift.openshift.io/control-plane": "true", "hypershift.openshift.io/cluster": hw.HCPNamespace}
	runner := hw.StartPodRunner(t, framework.PodRunnerOptions{
		Namespace: hw.HCPNamespace, Selector: "name=" + framework.CSOManilaDeployment,
		Images:   map[string]string{predImage: predExec, framework.ImageOurOperator: oursExec},
		NodeName: "podrunner-hcp-0", NodeLabels: mgmtNode,
	})
	dumpOperatorLogsOnFailure(t, runner)
	cso.StandInForCinder(t, idle, "podrunner-hcp-0", mgmtNode)
	operandImages := map[string]string{}
	for _, img := range cso.OperandImages() {
		operandImages[img] = idle
	}
	hw.StartPodRunner(t, framework.PodRunnerOptions{Namespace: hw.HCPNamespace, Selector: "app=openstack-manila-csi",
		Images: operandImages, NodeName: "podrunner-hcp-0", NodeLabels: mgmtNode})
	// Three workers, as a guest has at least two: a DaemonSet's rolling update (at most one node's pod
	// unavailable) leaves the others serving, so the driver stays Available while it rolls.
	for i := range 3 {
		guest.StartPodRunner(t, framework.PodRunnerOptions{Namespace: names.OperandNamespace, Selector: "app=openstack-manila-csi",
			Images: operandImages, NodeName: fmt.Sprintf("guest-worker-%d", i), NodeLabels: map[string]string{"node-role.kubernetes.io/worker": "", "kubernetes.io/os": "linux"}})
	}
	hw.StartKubeControllers(t, "deployment-controller", "replicaset-controller")
	guest.StartKubeControllers(t, "daemonset-controller")
	t.Cleanup(func() { noForbiddenInLogs(t, runner, framework.ImageOurOperator) })

	// csi-operator leads under hosted CSO.
	runStart := time.Now()
	predPod := waitForOperatorPod(t, hw.Kube, hw.HCPNamespace, predImage, "").Name
	waitForHostedPredecessorLeads(t, hw, cso, g)
	clock.mark("csi-operator leads under hosted CSO")
	t.Logf("csi-operator leads in pod %s", predPod)
	predClass := framework.PredecessorClassName("default")
	classBefore, err := hw.Guest.Kube.StorageV1().StorageClasses().Get(ctx, predClass, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	manilaView := watchCSOManilaIn(t, hw.Guest)
	ours := watchOursIn(t, hw.Guest, g)
	deletions := watchDeletionsIn(t, hw.Guest.Kube)
	t.Cleanup(func() {
		t.Logf("CSO's Manila conditions in the guest's Storage CR, every version:\n%s", strings.Join(manilaView.Timeline(), "\n"))
	})
	storage := storageRec.fromHealthy(t)
	clock.mark("the guest's storage healthy")

	// The release: hosted CSO with this operator's image.
	cso.SetOperatorImage(t, framework.ImageOurOperator)
	clock.mark("CSO restarted with this operator's image")
	pod := waitForOperatorPod(t, hw.Kube, hw.HCPNamespace, framework.ImageOurOperator, "")
	waitForOnlyOperatorPods(t, hw.Kube, hw.HCPNamespace, framework.ImageOurOperator)
	waitForPodLog(t, runner, pod.Name, "successfully acquired lease", 1)
	clock.mark("this operator holds its lease")
	operatorRunsAsCSODeploysIt(t, hw, pod)
	waitForHostedTakeover(t, hw, cso)
	manilaFrom := len(manilaView.Lines())
	clock.mark("this operator leads")
	if sc, err := hw.Guest.Kube.StorageV1().StorageClasses().Get(ctx, predClass, metav1.GetOptions{}); err != nil {
		t.Errorf("csi-operator's class after the takeover: %v", err)
	} else if sc.UID != classBefore.UID || !classplan.Owned(sc) {
		t.Errorf("csi-operator's class %s not adopted in place (UID %s -> %s, labels %v)", predClass, classBefore.UID, sc.UID, sc.Labels)
	}

	// A guest claim binds through the controller this operator rendered in the HCP namespace.
	prov := guest.StartProvisioningWith(t, framework.ProvisioningOptions{Controller: hw.ControlPlane, ControllerNamespace: hw.HCPNamespace})
	claim := guest.CreateClaim(t, "cso-hosted", "data", predClass, "1Gi")
	pv := guest.WaitForClaimBound(t, claim)
	share := guest.WaitForShareAvailable(t, pv.Spec.CSI.VolumeHandle)
	t.Logf("claim %s/%s bound to share %s", claim.Namespace, claim.Name, share.ID)
	deleteClaimAndWaitForShareGone(t, guest, claim.Namespace, claim.Name, share.ID)
	noSecretInLogs(t, guest, prov)
	clock.mark("a guest claim bound and deleted through this operator's controller")
	oneHostedPDB(t, hw, "after the takeover")

	// The rollback: hosted CSO with csi-operator's image again.
	cso.SetOperatorImage(t, predImage)
	clock.mark("CSO restarted with csi-operator's image")
	predPod = waitForOperatorPod(t, hw.Kube, hw.HCPNamespace, predImage, "").Name
	waitForOnlyOperatorPods(t, hw.Kube, hw.HCPNamespace, predImage)
	oursExited := lastExit(runner, framework.ImageOurOperator)
	waitForPodLog(t, runner, predPod, "successfully acquired lease", 1)
	clock.mark("csi-operator holds its lease")
	waitForHostedPredecessorLeads(t, hw, cso, g)
	waitForOnlyPredecessorConditions(t, hw.Guest, g)
	clock.mark("csi-operator leads again, nothing of ours left")
	oneHostedPDB(t, hw, "after the rollback")

	// This operator's part ends with its last condition on the ClusterCSIDriver, or its process.
	// csi-operator then rolls its controller Deployment of one replica without a surge, and may report
	// it deploying (its own defect, as on every rollout of it): after this operator's part, only that
	// may show.
	ends := ourPartEnds(ours, oursExited)
	if got := storage.UnhealthyBefore(ends); len(got) > 0 {
		t.Errorf("the guest's ClusterOperator storage was unavailable or degraded before this operator's part ended (%s):\n%s", ends.Format("15:04:05.000"), strings.Join(got, "\n"))
	}
	for _, l := range storage.UnhealthySince(ends) {
		if !predecessorsOwnStart(l, g) {
			t.Errorf("after this operator's part ended, the guest's ClusterOperator storage read other than csi-operator's own start: %s", l)
		}
	}
	if got := storage.UnhealthySince(ends); len(got) > 0 {
		t.Logf("csi-operator's own start after this operator's part ended (%s; its process exited at %s), as the guest's storage read it:\n%s",
			ends.Format("15:04:05.000"), oursExited.Format("15:04:05.000"), strings.Join(got, "\n"))
	}
	versions := manilaView.Timeline()
	from := readsTakeover(versions, manilaFrom)
	if from == len(versions) {
		t.Errorf("CSO never read the driver Available after the takeover")
	}
	for _, v := range versions[from:] {
		if strings.Contains(v, "Available=True (DriverDisabled)") {
			t.Errorf("CSO read the installed driver as disabled: %s", v)
		}
	}
	if got := deletions(); len(got) > 0 {
		t.Errorf("deleted in the guest during the swaps: %v", got)
	}
	// In the HCP namespace each operator's pod-bound token names its pod; in the guest both use the
	// one identity of service-network-admin-kubeconfig, and each request's user agent names the
	// program that sent it.
	oneOperatorActingOn(t, runner, runStart, predImage, func(ref framework.AuditObjectRef) bool {
		return ref.Namespace == hw.HCPNamespace && ref.Resource != "events" && ref.Resource != "leases"
	})
	programs := map[string]string{filepath.Base(predBinary): "the predecessor", filepath.Base(operatorBinary(t)): "this operator"}
	// Both write there in a hosted swap with Manila (the node DaemonSet, the class): three turns.
	if turns := oneSideAtATime(t, hw.Guest.AuditLogPath(), runStart, bothManage,
		func(e framework.AuditEvent) string { return programs[e.Program()] }); len(turns) != 3 {
		t.Errorf("the operators' writes in the guest came in %d turns, want 3 (csi-operator's, ours, csi-operator's)", len(turns))
	}
	if sc, err := hw.Guest.Kube.StorageV1().StorageClasses().Get(ctx, predClass, metav1.GetOptions{}); err != nil || sc.UID != classBefore.UID {
		t.Errorf("csi-operator's class after the swaps: %v (UID %s, was %s)", err, ptrUID(sc), classBefore.UID)
	}
}

// oneHostedPDB checks that exactly one PodDisruptionBudget of the HCP namespace selects the controller's
// pods (two would refuse every eviction, a management node's drain stuck). Nothing is evicted: the
// hosted controller has one replica (SingleReplica), so an eviction leaves no controller until the
// next pod is up, as a drain does to any one-replica control-plane component.
func oneHostedPDB(t *testing.T, hw *framework.HostedWorld, when string) {
	t.Helper()
	var selecting []policyv1.PodDisruptionBudget
	framework.Eventually(t, csoSwapTimeout, "a PodDisruptionBudget of the controller "+when, func(ctx context.Context) (err error) {
		if selecting, err = budgetsSelecting(ctx, hw.Kube, hw.HCPNamespace, framework.PredecessorControllerLabels); err == nil && len(selecting) == 0 {
			err = fmt.Errorf("no PodDisruptionBudget selects the controller's pods")
		}
		return err
	})
	if len(selecting) > 1 {
		t.Errorf("%s: %d PodDisruptionBudgets select the controller's pods: %v", when, len(selecting), budgetNames(selecting))
	}
}

// ptrUID is sc's UID, or none.
func ptrUID(sc *storagev1.StorageClass) string {
	if sc == nil {
		return "none"
	}
	return string(sc.UID)
}

// noForbiddenInLogs fails the test where a pod of image logged a refusal ("forbidden").
func noForbiddenInLogs(t *testing.T, runner *framework.PodRunner, image string) {
	for _, rec := range runner.Records() {
		if rec.Image != image {
			continue
		}
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
}

// waitForHostedPredecessorLeads waits until csi-operator (generation g) holds its lease in the HCP
// namespace, its controller's and nodes' Available conditions are True on the guest's ClusterCSIDriver,
// its class of the share type is in the guest, and hosted CSO reads Manila as Available.
func waitForHostedPredecessorLeads(t *testing.T, hw *framework.HostedWorld, cso *framework.CSO, g predecessor.Generation) {
	t.Helper()
	framework.Eventually(t, csoSwapTimeout, g.Name+" leading", func(ctx context.Context) error {
		lease, err := hw.Kube.CoordinationV1().Leases(hw.HCPNamespace).Get(ctx, g.Lease, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
			return fmt.Errorf("lease %s has no holder", lease.Name)
		}
		cr, err := hw.Guest.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range g.Types {
			if strings.HasSuffix(c, "ServiceControllerAvailable") && !v1helpers.IsOperatorConditionTrue(cr.Status.Conditions, c) {
				return fmt.Errorf("%s is not True: %v", c, cr.Status.Conditions)
			}
		}
		if _, err := hw.Guest.Kube.StorageV1().StorageClasses().Get(ctx, framework.PredecessorClassName("default"), metav1.GetOptions{}); err != nil {
			return err
		}
		if err := csoReadsManilaAvailable(ctx, cso); err != nil {
			return err
		}
		return nil
	})
}

// waitForHostedTakeover waits until this operator has taken over from csi-operator in the guest: no
// condition left that only csi-operator writes, the ClusterCSIDriver reads Available, its controllers
// Available, the class adopted, and hosted CSO reads Manila as Available.
func waitForHostedTakeover(t *testing.T, hw *framework.HostedWorld, cso *framework.CSO) {
	t.Helper()
	framework.Eventually(t, csoSwapTimeout, "this operator leading in the guest", func(ctx context.Context) error {
		cr, err := hw.Guest.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if stale := predecessor.StaleAfterTakeover(cr.Status.Conditions, ourConditions); len(stale) > 0 {
			return fmt.Errorf("csi-operator's conditions are still there: %v", stale)
		}
		if !csoview.Available(cr.Status.Conditions) {
			return fmt.Errorf("the ClusterCSIDriver reads unavailable: %v", cr.Status.Conditions)
		}
		for _, c := range []string{"ManilaDriverControllerServiceControllerAvailable", "ManilaDriverNodeServiceControllerAvailable", "NFSDriverNodeServiceControllerAvailable"} {
			if !v1helpers.IsOperatorConditionTrue(cr.Status.Conditions, c) {
				return fmt.Errorf("%s is not True", c)
			}
		}
		sc, err := hw.Guest.Kube.StorageV1().StorageClasses().Get(ctx, framework.PredecessorClassName("default"), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !classplan.Owned(sc) {
			return fmt.Errorf("StorageClass %s not adopted yet: labels %v", sc.Name, sc.Labels)
		}
		if err := csoReadsManilaAvailable(ctx, cso); err != nil {
			return err
		}
		return nil
	})
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
