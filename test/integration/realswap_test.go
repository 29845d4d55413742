package integration

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/csoview"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/predecessor"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// realSwapShape is a cloud on which the real swap runs: what it sets up before CSO starts, what it
// does right before the swap to this operator (and undoes once this operator leads), and what
// "leading" means on it.
type realSwapShape struct {
	name string
	// manila: the catalog names Manila and the cloud has NFS share types, so each operator makes
	// classes and runs the operand; otherwise each reports the driver Disabled.
	manila bool
	// cephFS: this operator's config turns the CephFS instance on with a ceph-csi image no node can
	// pull; its own Degraded may reach storage, nothing else of it.
	cephFS bool
	// before runs before CSO starts; atSwap right before the image swap to this operator and returns
	// what undoes it, run once this operator leads.
	before func(t *testing.T)
	atSwap func(t *testing.T) (undo func())
	// killedHolder: the predecessor's process is killed (SIGKILL) right before the swap, so its lease
	// still names a holder that will never renew nor release it, and the release is rolled back while
	// this operator waits for that lease to run out: this operator never leads.
	killedHolder bool
	// atRollback runs right before the rollback to the predecessor and returns what undoes it, run
	// once this operator's pod is gone.
	atRollback func(t *testing.T) (undo func())
}

// The real image swap (realImageSwap) is a release swapping OpenShift's Manila operator for this one
// and back, all of it real: cluster-storage-operator (each generation) applies the Manila operator's
// Deployment; a release's swap is CSO restarted with another MANILA_DRIVER_OPERATOR_IMAGE, as a new CSO
// pod is rolled with it; the pod runner runs the Deployment's pods, the real predecessor binary for
// its image (its clouds.yaml at /etc/openstack, where its container has it) and this operator's built
// binary for ours; the real kube-controller-manager rolls the Deployment. Under CSO main this
// operator's pod is also deleted once (a graceful restart: the new pod takes the released lease); the
// operand namespace's network policies are applied as CSO's Role allows (4.17's grants none: a
// condition names the missing verbs). Throughout, ClusterOperator storage (read whole: a stand-in
// keeps Cinder's part healthy) is never Available=False nor Degraded=True (CSO's own inertia applies;
// with CephFS, a Degraded of the CephFS instance's own may show); no workload, claim, volume,
// snapshot or CSIDriver is deleted; one PDB; and after the swap back the predecessor leads and no
// condition is left that it does not write. The time each phase took is printed (where the swap's
// minutes go), not asserted. Each cloud shape is a test of its own, so that the shards can balance
// them.

// TestRealCSOImageSwapNFS: Manila with NFS types, under CSO main and csi-operator 4.18; a bound claim,
// a VolumeSnapshot and an admin's default class on the predecessor's classes.
func TestRealCSOImageSwapNFS(t *testing.T) {
	realImageSwap(t, framework.CSOMain, framework.Predecessor418, realSwapShape{name: "Manila with NFS types", manila: true})
}

// TestRealCSOImageSwapKeystoneDown: Keystone unreachable (refusing connections) from right before
// the swap to this operator until it reports, under CSO 4.17 and its own predecessor.
func TestRealCSOImageSwapKeystoneDown(t *testing.T) {
	realImageSwap(t, framework.CSO417, framework.Predecessor417, realSwapShape{name: "Keystone unreachable at the swap", manila: true,
		atSwap: func(t *testing.T) func() {
			if err := world.OpenStack.StopKeystone(); err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := world.OpenStack.StartKeystone(); err != nil {
					t.Errorf("starting Keystone again: %v", err)
				}
			}
		}})
}

// TestRealCSOImageSwapNoManila: no Manila in the catalog, under CSO 4.20 and csi-operator 4.18: each
// operator reports the driver Disabled.
func TestRealCSOImageSwapNoManila(t *testing.T) {
	realImageSwap(t, framework.CSO420, framework.Predecessor418, realSwapShape{name: "no Manila in the catalog", before: withoutManilaInCatalog})
}

// TestRealCSOImageSwapCephFSWrongImage: this operator's CephFS instance on with a ceph-csi image no
// node can pull, under CSO main and csi-operator 4.18.
func TestRealCSOImageSwapCephFSWrongImage(t *testing.T) {
	realImageSwap(t, framework.CSOMain, framework.Predecessor418, realSwapShape{name: "CephFS on with a wrong image", manila: true, cephFS: true,
		before: func(t *testing.T) { world.WriteOperatorConfig(t, cephFSConfig(unpullableCephCSI)) }})
}

// TestRealCSOImageSwapKeystoneHangs: Keystone accepts connections and never answers from right before
// the swap to this operator until it reports (a hung API, a firewall dropping the replies), under CSO
// 4.20 and csi-operator 4.18: every request of this operator's waits for its own timeout (30 s), not
// for a refusal.
func TestRealCSOImageSwapKeystoneHangs(t *testing.T) {
	realImageSwap(t, framework.CSO420, framework.Predecessor418, realSwapShape{name: "Keystone hangs at the swap", manila: true,
		atSwap: func(t *testing.T) func() {
			if err := world.OpenStack.HangKeystone(); err != nil {
				t.Fatal(err)
			}
			resumed := false
			t.Cleanup(func() {
				if !resumed {
					_ = world.OpenStack.ResumeKeystone()
				}
			})
			return func() {
				resumed = true
				if err := world.OpenStack.ResumeKeystone(); err != nil {
					t.Errorf("resuming Keystone: %v", err)
				}
			}
		}})
}

// TestRealCSOImageSwapKeystoneHangsAtRollback: Keystone accepts connections and never answers from
// right before the rollback to csi-operator 4.18, under CSO main, until this operator's pod is gone:
// this operator hands back what it can while it is stopped (its conditions removed once its grace
// runs out, whether or not the predecessor has written its own), and from the end of its part on (its
// last condition gone, or its process's exit) CSO may read only what the predecessor's own start on a
// hanging cloud shows (no Available of its yet).
func TestRealCSOImageSwapKeystoneHangsAtRollback(t *testing.T) {
	realImageSwap(t, framework.CSOMain, framework.Predecessor418, realSwapShape{name: "Keystone hangs at the rollback", manila: true,
		atRollback: func(t *testing.T) func() {
			if err := world.OpenStack.HangKeystone(); err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := world.OpenStack.ResumeKeystone(); err != nil {
					t.Errorf("resuming Keystone: %v", err)
				}
			}
		}})
}

// predecessorsOwnStart says whether an unhealthy version of ClusterOperator storage (a line of
// storageWindow) is what predecessor g's own start shows: Available=False only because CSO waits for
// its first conditions, or because Available conditions that g writes say their workloads are
// deploying (its rollout of them); never Degraded=True.
func predecessorsOwnStart(line string, g predecessor.Generation) bool {
	const prefix = "Available=False (" + framework.CSOManilaConditionPfx + "_"
	i := strings.Index(line, prefix)
	if i < 0 || strings.Contains(line, "Degraded=True") {
		return false
	}
	reason, _, _ := strings.Cut(line[i+len(prefix):], ")")
	for _, part := range strings.Split(reason, "::") {
		part = strings.TrimPrefix(part, framework.CSOManilaConditionPfx+"_")
		controller, why, _ := strings.Cut(part, "_")
		if part != "WaitForOperator" && (why != "Deploying" || !g.Writes(controller+"Available")) {
			return false
		}
	}
	return true
}

// watchOursIn records, of every version of cp's ClusterCSIDriver, this operator's conditions that
// generation g does not write ("none" when there is none).
func watchOursIn(t *testing.T, cp *framework.ControlPlane, g predecessor.Generation) *framework.Changes {
	return framework.WatchChanges(t, framework.OneObject(cp.Operator.OperatorV1().RESTClient(), "clustercsidrivers", "", names.CSIDriverName),
		func(d *operatorv1.ClusterCSIDriver) string {
			var ours []string
			for _, c := range d.Status.Conditions {
				if ourConditions.Has(c.Type) && !g.Writes(c.Type) {
					ours = append(ours, c.Type)
				}
			}
			if len(ours) == 0 {
				return noneOfOurs
			}
			return strings.Join(ours, ",")
		})
}

const noneOfOurs = "none"

// ourPartEnds is when this operator's part in what cluster-storage-operator reads ended at a
// rollback: the version of the ClusterCSIDriver from which on no condition of its own showed (CSO
// then reads only the predecessor's), or its process's exit, whichever came first.
func ourPartEnds(ours *framework.Changes, exited time.Time) time.Time {
	if at, ok := ours.SettledSince(func(l string) bool { return l == noneOfOurs }); ok && at.Before(exited) {
		return at
	}
	return exited
}

// lastExit is when the last pod of image the runner ran had all its processes exit after SIGTERM
// (zero when none has).
func lastExit(runner *framework.PodRunner, image string) time.Time {
	var last time.Time
	for _, r := range runner.Records() {
		if r.Image == image && r.ExitedAt.After(last) {
			last = r.ExitedAt
		}
	}
	return last
}

// TestRealCSOImageSwapKilledHolder: csi-operator 4.18 killed (SIGKILL) right before the swap to this
// operator, under CSO 4.20, and the release rolled back while its lease, still naming the killed
// holder, runs out: this operator waits without writing, then hands back from waiting; csi-operator's
// next pod leads once the lease has run out (library-go's 137 s), and CSO reads the killed leader's
// conditions meanwhile.
func TestRealCSOImageSwapKilledHolder(t *testing.T) {
	realImageSwap(t, framework.CSO420, framework.Predecessor418, realSwapShape{name: "the predecessor killed at the swap", manila: true, killedHolder: true})
}

func realImageSwap(t *testing.T, gen framework.CSOGeneration, p framework.Predecessor, shape realSwapShape) {
	ctx := context.Background()
	clock := newPhaseClock()
	bin := t.TempDir()
	oursExec, err := framework.InPodNamespace(bin, operatorBinary(t), names.OperatorNamespace)
	if err != nil {
		t.Fatal(err)
	}
	predExec, err := framework.InPodNamespace(bin, framework.RealPredecessorBinary(t, p), names.OperatorNamespace)
	if err != nil {
		t.Fatal(err)
	}
	idle, err := framework.IdleContainer(bin)
	if err != nil {
		t.Fatal(err)
	}
	g := predecessorGeneration(p)

	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	removeOperand(t)
	// A cluster that only ever ran the predecessor: no state of this operator's.
	if err := world.Kube.CoreV1().ConfigMaps(names.OperatorNamespace).Delete(ctx, state.ConfigMapName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	sfx := "_real" + strings.ReplaceAll(string(gen)+string(p), ".", "")
	var types []string
	if shape.manila {
		types = []string{"default" + sfx, "gold_nfs" + sfx}
		for _, name := range types {
			createShareType(t, framework.ShareTypeSpec{Name: name})
		}
	}
	if shape.before != nil {
		shape.before(t)
	}

	cso := world.StartCSO(t, framework.CSOOptions{Generation: gen})
	predImage := cso.OperatorImage()
	masters := map[string]string{"node-role.kubernetes.io/master": "", "kubernetes.io/os": "linux"}
	runner := world.StartPodRunner(t, framework.PodRunnerOptions{
		Namespace: names.OperatorNamespace, Selector: "name=" + framework.CSOManilaDeployment,
		Images:   map[string]string{predImage: predExec, framework.ImageOurOperator: oursExec},
		NodeName: "podrunner-master-0", NodeLabels: masters,
	})
	dumpOperatorLogsOnFailure(t, runner)
	cso.StandInForCinder(t, idle, "podrunner-master-0", masters)
	operandImages := map[string]string{}
	for _, img := range cso.OperandImages() {
		operandImages[img] = idle
	}
	for i := range 3 {
		world.StartPodRunner(t, framework.PodRunnerOptions{Namespace: names.OperandNamespace, Selector: "app=openstack-manila-csi",
			Images: operandImages, NodeName: fmt.Sprintf("podrunner-master-%d", i), NodeLabels: masters})
	}
	world.StartKubeControllers(t, "deployment-controller", "replicaset-controller", "daemonset-controller", "disruption-controller",
		"persistentvolume-binder-controller", "persistentvolumeclaim-protection-controller", "persistentvolume-protection-controller")

	// The predecessor leads under CSO.
	runStart := time.Now()
	predPod := waitForCSOOperatorPod(t, predImage, "")
	waitForRealPredecessorLeads(t, cso, g, shape.manila, types)
	clock.mark("the predecessor leads under CSO " + string(gen))
	t.Logf("the predecessor %s leads in pod %s", p, predPod)

	ns := "real-swap-" + strings.ReplaceAll(string(gen)+"-"+string(p), ".", "-")
	var pvName, claimName, snapshot string
	before := map[string]uid{}
	if shape.manila {
		// What the cluster holds under the predecessor: an admin's default class, a bound claim on
		// another class, a snapshot.
		setDefaultClass(t, framework.PredecessorClassName("default"+sfx))
		pv, claim := boundVolume(t, world, ns, framework.PredecessorClassName("gold_nfs"+sfx))
		pvName, claimName = pv.Name, claim.Name
		snapshot = realPredecessorSnapshot(t, ns, claimName)
		t.Cleanup(func() { deleteSwapVolume(t, ns, claimName, pvName, snapshot) })
		world.WaitForClaimBound(t, claim)
		waitForSteadyOperand(t, "under the predecessor", false)
		before = predecessorUIDs(t, world)
	}

	manilaView := watchCSOManila(t)
	operandView := watchOperandDeployment(t)
	storageRec := watchStorage(t, shape.cephFS)
	ours := watchOursIn(t, world.ControlPlane, g)
	deletions := watchDeletions(t)
	volumeDeletions := watchVolumeDeletions(t, ns)
	// What the run saw, told before the checks at its end (their errors then close the test's output)
	// or, where it ends before them, at cleanup.
	var narrateOnce sync.Once
	narrate := func() {
		narrateOnce.Do(func() {
			t.Logf("CSO's Manila conditions in its Storage CR, every version:\n%s", strings.Join(manilaView.Timeline(), "\n"))
			t.Logf("the controller Deployment, every version:\n%s", strings.Join(operandView.Timeline(), "\n"))
			t.Logf("where the time went:\n%s", clock.String())
		})
	}
	t.Cleanup(narrate)

	// The release: CSO with our image, from a storage seen healthy.
	storage := storageRec.fromHealthy(t)
	// The first of the Storage CR's versions recorded after this operator's takeover was seen complete
	// on the ClusterCSIDriver: the check of CSO's reading starts at the first of them that reads the
	// takeover (readsTakeover). Before, the predecessor may itself have written a Disabled as the
	// shape's outage began, and CSO's copy of it may come late.
	manilaFrom := -1
	undo := func() {}
	if shape.atSwap != nil {
		// Undone once: in the swap's course, or at the end of a test that failed before (the next
		// shape shares the world).
		var once sync.Once
		restore := shape.atSwap(t)
		undo = func() { once.Do(restore) }
		t.Cleanup(undo)
	}
	var killedLease *coordinationv1.Lease
	if shape.killedHolder {
		if err := runner.Kill(predPod); err != nil {
			t.Fatal(err)
		}
		lease, err := world.Kube.CoordinationV1().Leases(names.OperatorNamespace).Get(ctx, g.Lease, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		killedLease = lease
		clock.mark("the predecessor killed, its lease held by " + ptr.Deref(lease.Spec.HolderIdentity, ""))
	}
	cso.SetOperatorImage(t, framework.ImageOurOperator)
	clock.mark("CSO restarted with this operator's image")
	oursPod := waitForCSOOperatorPod(t, framework.ImageOurOperator, "")
	clock.mark("this operator's pod Ready")
	waitForOnlyCSOOperatorPods(t, framework.ImageOurOperator)
	clock.mark("the predecessor's pod gone")
	waitForPodLog(t, runner, oursPod, "successfully acquired lease", 1)
	clock.mark("this operator holds its lease")
	if shape.killedHolder {
		waitsForKilledHolder(t, killedLease)
		clock.mark("this operator waits for the killed holder's lease; the rollback comes now")
	} else {
		manilaFrom = realTakeover(t, realTakeoverRun{cso: cso, p: p, gen: gen, shape: shape, types: types, before: before,
			manilaView: manilaView, oursPod: oursPod, runner: runner, clock: clock, undo: undo})
	}

	// The rollback: CSO with the predecessor's image again.
	undoAtRollback := func() {}
	if shape.atRollback != nil {
		var once sync.Once
		restore := shape.atRollback(t)
		undoAtRollback = func() { once.Do(restore) }
		t.Cleanup(undoAtRollback)
	}
	cso.SetOperatorImage(t, predImage)
	clock.mark("CSO restarted with the predecessor's image")
	predPod = waitForCSOOperatorPod(t, predImage, "")
	clock.mark("the predecessor's pod Ready")
	waitForOnlyCSOOperatorPods(t, predImage)
	oursExited := lastExit(runner, framework.ImageOurOperator)
	clock.mark("this operator's pod gone (its process exited at " + oursExited.Format("15:04:05.000") + ")")
	undoAtRollback()
	leads := csoSwapTimeout
	if shape.killedHolder {
		leads = leaseRunOutTimeout // the killed holder's lease runs out first
	}
	waitForPodLogWithin(t, runner, predPod, "successfully acquired lease", 1, leads)
	clock.mark("the predecessor holds its lease")
	waitForRealPredecessorLeads(t, cso, g, shape.manila, types)
	waitForOnlyPredecessorConditions(t, world.ControlPlane, g)
	clock.mark("the predecessor leads again, nothing of ours left")
	if shape.manila {
		onePDBAndEviction(t, "after the rollback")
	}

	narrate()
	oneOperatorActing(t, runner, runStart, predImage)
	if shape.manila && !shape.killedHolder {
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
	}
	if shape.atRollback == nil {
		if got := storage.Unhealthy(); len(got) > 0 {
			t.Errorf("ClusterOperator storage was unavailable or degraded during the swaps:\n%s", strings.Join(got, "\n"))
		}
	} else {
		// This operator's part ends with its last condition on the ClusterCSIDriver, or its process:
		// before, storage is healthy; after, only the predecessor's own start on the shape's cloud may
		// show (CSO waiting for its first conditions).
		ends := ourPartEnds(ours, oursExited)
		if got := storage.UnhealthyBefore(ends); len(got) > 0 {
			t.Errorf("ClusterOperator storage was unavailable or degraded before this operator's part ended (%s):\n%s", ends.Format("15:04:05.000"), strings.Join(got, "\n"))
		}
		for _, l := range storage.UnhealthySince(ends) {
			if !predecessorsOwnStart(l, g) {
				t.Errorf("after this operator's part ended, ClusterOperator storage read other than the predecessor's own start: %s", l)
			}
		}
		t.Logf("this operator's part ended at %s (its process exited at %s); ClusterOperator storage from then on as the predecessor started on the shape's cloud:\n%s",
			ends.Format("15:04:05.000"), oursExited.Format("15:04:05.000"), strings.Join(storage.UnhealthySince(ends), "\n"))
	}
	for _, d := range deletions() {
		if !strings.HasPrefix(d, "StorageClass/") || p != framework.Predecessor417 {
			t.Errorf("%s was deleted during the swaps", d)
		}
	}
	if got := volumeDeletions(); len(got) > 0 {
		t.Errorf("deleted during the swaps: %v", got)
	}
	for _, name := range types {
		if _, err := world.Kube.StorageV1().StorageClasses().Get(ctx, framework.PredecessorClassName(name), metav1.GetOptions{}); err != nil {
			t.Errorf("StorageClass %s after the swaps: %v", framework.PredecessorClassName(name), err)
		}
	}
	if shape.manila {
		if defaults := defaultClasses(t, world); !slices.Equal(defaults, []string{framework.PredecessorClassName("default" + sfx)}) {
			t.Errorf("default classes %v, want only the admin's", defaults)
		}
	}
}

// realTakeoverRun is what realTakeover needs of realImageSwap's run.
type realTakeoverRun struct {
	cso        *framework.CSO
	p          framework.Predecessor
	gen        framework.CSOGeneration
	shape      realSwapShape
	types      []string
	before     map[string]uid
	manilaView *framework.Changes
	oursPod    string
	runner     *framework.PodRunner
	clock      *phaseClock
	undo       func()
}

// realTakeover waits until this operator has taken over (through the shape's outage, undone once it
// reports), checks what it adopted and, under CSO main, restarts its pod gracefully once; it returns
// the index of the first of the Storage CR's versions recorded once the takeover was seen complete.
func realTakeover(t *testing.T, r realTakeoverRun) int {
	t.Helper()
	ctx := context.Background()
	manilaFrom := -1
	if r.shape.atSwap != nil {
		// The predecessor's installed driver says Manila was found: kept and reported Available while
		// OpenStack cannot be asked (no classes adopted: they need Manila's share types).
		waitForRealTakeover(t, r.cso, r.p, r.shape.manila, nil)
		manilaFrom = len(r.manilaView.Lines())
		r.clock.mark("this operator reports while the shape lasts")
		r.undo()
	}
	waitForRealTakeover(t, r.cso, r.p, r.shape.manila, r.types)
	if manilaFrom < 0 {
		manilaFrom = len(r.manilaView.Lines())
	}
	r.clock.mark("this operator leads")
	if r.shape.manila {
		for key, id := range predecessorUIDs(t, world) {
			if r.before[key] != id {
				t.Errorf("%s was recreated by the takeover (UID %s -> %s)", key, r.before[key], id)
			}
		}
		waitForSteadyOperand(t, "after the takeover", false)
		onePDBAndEviction(t, "after the takeover")
		r.clock.mark("the operand steady, one PDB")
	}
	if r.shape.manila { // the operand's controllers run once Manila is found
		networkPoliciesAsCSOAllows(t, r.gen)
	}
	if r.gen == framework.CSOMain && !r.shape.cephFS {
		// A graceful restart: the pod deleted, the ReplicaSet's new pod takes the released lease.
		if err := world.Kube.CoreV1().Pods(names.OperatorNamespace).Delete(ctx, r.oursPod, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		restarted := waitForCSOOperatorPod(t, framework.ImageOurOperator, r.oursPod)
		waitForOnlyCSOOperatorPods(t, framework.ImageOurOperator)
		waitForPodLog(t, r.runner, restarted, "successfully acquired lease", 1)
		waitForRealTakeover(t, r.cso, r.p, r.shape.manila, r.types)
		r.clock.mark("a graceful restart of this operator's pod")
	}
	if r.shape.cephFS {
		// The CephFS instance runs (its pods wait for the image) and says so in its own Degraded;
		// NFS stays Available.
		world.WaitForCondition(t, "ManilaCephFSDriverControllerServiceControllerUnavailableDegraded", operatorv1.ConditionTrue)
		cr, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !v1helpers.IsOperatorConditionTrue(cr.Status.Conditions, "NFSDriverNodeServiceControllerAvailable") || !csoview.Available(cr.Status.Conditions) {
			t.Errorf("NFS or the driver is not Available while CephFS cannot run: %v", cr.Status.Conditions)
		}
		r.clock.mark("the CephFS instance reports its image unavailable")
	}

	return manilaFrom
}

// waitsForKilledHolder checks that this operator, holding its own lease, waits while the killed
// predecessor's lease still names its holder: the lease unchanged, no condition of this operator's on
// the ClusterCSIDriver.
func waitsForKilledHolder(t *testing.T, killed *coordinationv1.Lease) {
	t.Helper()
	ctx := context.Background()
	lease, err := world.Kube.CoordinationV1().Leases(names.OperatorNamespace).Get(ctx, killed.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(lease.Spec.HolderIdentity, "") != ptr.Deref(killed.Spec.HolderIdentity, "") || !lease.Spec.RenewTime.Equal(killed.Spec.RenewTime) {
		t.Fatalf("the killed holder's lease %s changed before it ran out (holder %q, renewed %v): the shape needs it held", lease.Name,
			ptr.Deref(lease.Spec.HolderIdentity, ""), lease.Spec.RenewTime)
	}
	cr, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cr.Status.Conditions {
		// A type both write cannot tell who wrote it.
		if ourConditions.Has(c.Type) && !slices.ContainsFunc(predecessor.All, func(g predecessor.Generation) bool { return g.Writes(c.Type) }) {
			t.Errorf("this operator wrote %s=%s while a predecessor's lease was held", c.Type, c.Status)
		}
	}
}

// waitForOnlyPredecessorConditions waits until the ClusterCSIDriver of cp holds only conditions that
// predecessor g writes: nothing of this operator's is left after a rollback.
func waitForOnlyPredecessorConditions(t *testing.T, cp *framework.ControlPlane, g predecessor.Generation) {
	t.Helper()
	since, waited := time.Now().Add(-time.Minute), false
	defer func() {
		if !waited {
			logStatusWriters(t, cp, since)
		}
	}()
	framework.Eventually(t, csoSwapTimeout, g.Name+"'s conditions only", func(ctx context.Context) error {
		cr, err := cp.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var extra []string
		for _, c := range cr.Status.Conditions {
			if !g.Writes(c.Type) {
				extra = append(extra, fmt.Sprintf("%s=%s", c.Type, c.Status))
			}
		}
		if len(extra) > 0 {
			return fmt.Errorf("conditions %s does not write are left: %v", g.Name, extra)
		}
		return nil
	})
	waited = true
}

// logStatusWriters logs who wrote the ClusterCSIDriver of cp since then, from its audit log: where a
// condition nobody should write any more came from.
func logStatusWriters(t *testing.T, cp *framework.ControlPlane, since time.Time) {
	t.Helper()
	events, err := framework.ReadAudit(cp.AuditLogPath(), since)
	if err != nil {
		t.Logf("reading the audit log: %v", err)
		return
	}
	var lines []string
	for _, e := range events {
		switch {
		case e.ObjectRef == nil || e.ObjectRef.Resource != "clustercsidrivers":
		case e.Write():
			lines = append(lines, e.String())
		case e.RefusedWrite():
			lines = append(lines, fmt.Sprintf("%s: refused, %d %s", e, e.ResponseStatus.Code, e.ResponseStatus.Reason))
		}
	}
	t.Logf("writes to ClusterCSIDriver %s since %s:\n%s", names.CSIDriverName, since.Format("15:04:05.000"), strings.Join(lines, "\n"))
	cr, err := cp.Operator.OperatorV1().ClusterCSIDrivers().Get(context.Background(), names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		t.Logf("reading ClusterCSIDriver %s: %v", names.CSIDriverName, err)
		return
	}
	var owners []string
	for _, m := range cr.ManagedFields {
		var owned []string
		for _, c := range cr.Status.Conditions {
			// A key of a list of type map, as the fields are stored: "k:{\"type\":\"X\"}".
			if m.FieldsV1 != nil && strings.Contains(string(m.FieldsV1.Raw), `\"type\":\"`+c.Type+`\"`) {
				owned = append(owned, c.Type)
			}
		}
		if len(owned) > 0 {
			owners = append(owners, fmt.Sprintf("%s (%s %s at %s): %v", m.Manager, m.Operation, m.Subresource, m.Time.Format("15:04:05"), owned))
		}
	}
	t.Logf("who owns each condition of ClusterCSIDriver %s now:\n%s", names.CSIDriverName, strings.Join(owners, "\n"))
}

// csoReadsManilaAvailable is nil when CSO's Storage CR reads the Manila driver Available.
func csoReadsManilaAvailable(ctx context.Context, cso *framework.CSO) error {
	c, err := cso.StorageCondition(ctx, framework.CSOManilaConditionPfx+"Available")
	if err != nil {
		return err
	}
	if c.Status != operatorv1.ConditionTrue {
		return fmt.Errorf("CSO's %s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message)
	}
	return nil
}

// readsTakeover is the index of the first of the Storage CR's versions, from the one current when
// seen versions had been recorded on, in which CSO reads the driver Available from its conditions
// (not from a Disabled): where CSO has read this operator's takeover (CSO may have read it before the
// test saw it complete). len(versions) when none does.
func readsTakeover(versions []string, seen int) int {
	from := max(seen-1, 0)
	for i := from; i < len(versions); i++ {
		if strings.Contains(versions[i], "CRAvailable=True (AsExpected)") {
			return i
		}
	}
	return len(versions)
}

// oneOperatorActing checks from the audit log that the two operators never acted at once: every
// write since runStart by an operator pod (its pod-bound token) to what both manage (bothManage) is
// the predecessor's, then this operator's, then the predecessor's again, each in one uninterrupted run.
func oneOperatorActing(t *testing.T, runner *framework.PodRunner, runStart time.Time, predImage string) {
	t.Helper()
	oneOperatorActingOn(t, runner, runStart, predImage, bothManage)
}

// bothManage is whether ref is an object that either operator writes while it leads: the operand
// namespace's objects, StorageClasses, the CSIDriver, VolumeSnapshotClasses; not the ClusterCSIDriver,
// leases or events.
func bothManage(ref framework.AuditObjectRef) bool {
	switch {
	case ref.Namespace == names.OperandNamespace:
		return ref.Resource != "events"
	case ref.Namespace == "":
		return slices.Contains([]string{"storageclasses", "csidrivers", "volumesnapshotclasses"}, ref.Resource)
	}
	return false
}

// oneOperatorActingOn is oneOperatorActing over the objects shared says both operators manage, in
// the management cluster's audit log, each write's side told by the pod its bound token names.
func oneOperatorActingOn(t *testing.T, runner *framework.PodRunner, runStart time.Time, predImage string, shared func(framework.AuditObjectRef) bool) {
	t.Helper()
	side := map[string]string{}
	for _, r := range runner.Records() {
		switch r.Image {
		case predImage:
			side[r.Name] = "the predecessor"
		case framework.ImageOurOperator:
			side[r.Name] = "this operator"
		}
	}
	oneSideAtATime(t, world.AuditLogPath(), runStart, shared, func(e framework.AuditEvent) string { return side[e.Pod()] })
}

// oneSideAtATime checks the audit log at path from runStart: the writes to what shared selects, each
// of the side sideOf names ("" for neither operator), come in at most three turns, the predecessor's,
// this operator's and the predecessor's again (fewer where a side wrote nothing in the run: no
// Manila, no operand). It returns the turns.
func oneSideAtATime(t *testing.T, path string, runStart time.Time, shared func(framework.AuditObjectRef) bool, sideOf func(framework.AuditEvent) string) []framework.Turn {
	t.Helper()
	events, err := framework.ReadAudit(path, runStart)
	if err != nil {
		t.Fatal(err)
	}
	turns := framework.Turns(events, func(e framework.AuditEvent) string {
		if !e.Write() || !shared(*e.ObjectRef) {
			return ""
		}
		return sideOf(e)
	})
	var lines []string
	for _, turn := range turns {
		lines = append(lines, turn.String())
	}
	if len(turns) > 3 || len(turns) == 3 && turns[0].Side != "the predecessor" {
		t.Errorf("the operators' writes to what both manage interleave (want the predecessor's, then ours, then the predecessor's):\n%s", strings.Join(lines, "\n"))
		return turns
	}
	t.Logf("writes to what both operators manage, by turn:\n%s", strings.Join(lines, "\n"))
	return turns
}

func predecessorGeneration(p framework.Predecessor) predecessor.Generation {
	if p == framework.Predecessor417 {
		return predecessor.CSIDriverManilaOperator
	}
	return predecessor.CSIOperator
}

// waitForRealPredecessorLeads waits until generation g holds its lease and CSO reads Manila as
// Available: with Manila, its controller's Available conditions True and its class of each share type
// there; without, its Disabled.
func waitForRealPredecessorLeads(t *testing.T, cso *framework.CSO, g predecessor.Generation, withManila bool, types []string) {
	t.Helper()
	framework.Eventually(t, csoSwapTimeout, g.Name+" leading", func(ctx context.Context) error {
		lease, err := world.Kube.CoordinationV1().Leases(names.OperatorNamespace).Get(ctx, g.Lease, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
			return fmt.Errorf("lease %s has no holder", lease.Name)
		}
		cr, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var want []string
		for _, c := range g.Types {
			if withManila && strings.HasSuffix(c, "ServiceControllerAvailable") || !withManila && strings.HasSuffix(c, "Disabled") {
				want = append(want, c)
			}
		}
		for _, c := range want {
			if v1helpers.FindOperatorCondition(cr.Status.Conditions, c) == nil {
				continue // 4.17 writes ManilaControllerDisabled=False once Manila is found: either is its own
			}
			if !v1helpers.IsOperatorConditionTrue(cr.Status.Conditions, c) && withManila {
				return fmt.Errorf("%s is not True", c)
			}
		}
		if !slices.ContainsFunc(cr.Status.Conditions, func(c operatorv1.OperatorCondition) bool {
			return slices.Contains(want, c.Type) && c.Status == operatorv1.ConditionTrue
		}) {
			return fmt.Errorf("none of %v is True", want)
		}
		for _, name := range types {
			if _, err := world.Kube.StorageV1().StorageClasses().Get(ctx, framework.PredecessorClassName(name), metav1.GetOptions{}); err != nil {
				return err
			}
		}
		if err := csoReadsManilaAvailable(ctx, cso); err != nil {
			return err
		}
		return nil
	})
}

// waitForRealTakeover waits until this operator has taken over from predecessor p: no condition left
// that only the predecessor writes, CSO reads Manila as Available, and with Manila its controllers
// Available, the controller Deployment rendered with CSO's driver image and every class adopted;
// without, its ManilaControllerDisabled True.
func waitForRealTakeover(t *testing.T, cso *framework.CSO, p framework.Predecessor, withManila bool, types []string) {
	t.Helper()
	driverImage := ""
	for _, img := range cso.OperandImages() {
		if strings.Contains(img, "/csi-driver-manila:") {
			driverImage = img
		}
	}
	framework.Eventually(t, csoSwapTimeout, "this operator leading", func(ctx context.Context) error {
		cr, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if stale := predecessor.StaleAfterTakeover(cr.Status.Conditions, ourConditions); len(stale) > 0 {
			return fmt.Errorf("the predecessor's conditions are still there: %v", stale)
		}
		if !csoview.Available(cr.Status.Conditions) {
			return fmt.Errorf("the ClusterCSIDriver reads unavailable: %v", cr.Status.Conditions)
		}
		if err := csoReadsManilaAvailable(ctx, cso); err != nil {
			return err
		}
		if d := v1helpers.FindOperatorCondition(cr.Status.Conditions, manila.ConditionDisabled); withManila && d != nil && d.Status == operatorv1.ConditionTrue {
			return fmt.Errorf("the installed driver reads as disabled: %+v", d)
		}
		if !withManila {
			// 4.17 writes the same type (reason NoManila); a failed first poll leaves a Disabled that
			// already says why, so the reason may still be the predecessor's.
			if d := v1helpers.FindOperatorCondition(cr.Status.Conditions, manila.ConditionDisabled); d == nil || d.Status != operatorv1.ConditionTrue {
				return fmt.Errorf("%s: %+v, want True", manila.ConditionDisabled, d)
			}
			return nil
		}
		for _, c := range []string{"ManilaDriverControllerServiceControllerAvailable", "ManilaDriverNodeServiceControllerAvailable", "NFSDriverNodeServiceControllerAvailable"} {
			if !v1helpers.IsOperatorConditionTrue(cr.Status.Conditions, c) {
				return fmt.Errorf("%s is not True", c)
			}
		}
		// The classes' controller writes once Manila listed the share types; types is nil while
		// OpenStack cannot be asked.
		if types != nil && v1helpers.FindOperatorCondition(cr.Status.Conditions, "StorageClassControllerDegraded") == nil {
			return fmt.Errorf("no StorageClassControllerDegraded: this operator's controllers do not run yet")
		}
		d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(d.Spec.Template.Spec.Containers, func(c corev1.Container) bool { return c.Image == driverImage }) {
			return fmt.Errorf("the controller Deployment is not rendered with %s yet", driverImage)
		}
		for _, name := range types {
			sc, err := world.Kube.StorageV1().StorageClasses().Get(ctx, framework.PredecessorClassName(name), metav1.GetOptions{})
			if err != nil {
				return err
			}
			if !adopted(sc) {
				return fmt.Errorf("StorageClass %s not adopted yet: labels %v, parameters %v", sc.Name, sc.Labels, sc.Parameters)
			}
		}
		return nil
	})
}

// unpullableCephCSI is a ceph-csi release the operator accepts and no node here can pull.
const unpullableCephCSI = "quay.io/cephcsi/cephcsi:v3.15.1"

// cephFSDegraded matches a line of storage's Degraded message that comes from the CephFS instance's own
// conditions.
var cephFSDegraded = regexp.MustCompile(`^ManilaCSIDriverOperatorCRDegraded: (ManilaCephFSDriver|CephCSIDriver)[A-Za-z]*Degraded: `)

// watchStorage records every version of ClusterOperator storage from now on. Its result's
// fromHealthy waits until the latest version is healthy (both conditions written, Available=True,
// Degraded=False: storage read whole, Cinder's part included, CSO.StandInForCinder) and returns a
// function giving each later version whose Available is not True or whose Degraded is True. With
// cephFS, a Degraded whose lines all come from the CephFS instance's own conditions is that
// instance's failure, which storage is meant to show. The swap starts from that healthy version: what
// the predecessor's own start shows before it (its operand still rolling, CSO's status controller not
// yet written) is not the swap's.
func watchStorage(t *testing.T, cephFS bool) storageRecord {
	return watchStorageIn(t, world.ControlPlane, cephFS)
}

// watchStorageIn is watchStorage of the cluster cp (a hosted cluster's guest).
func watchStorageIn(t *testing.T, cp *framework.ControlPlane, cephFS bool) storageRecord {
	changes := framework.WatchChanges(t, framework.OneObject(cp.ConfigV1.ConfigV1().RESTClient(), "clusteroperators", "", framework.CSOClusterOperator),
		func(co *configv1.ClusterOperator) string { return storageUnhealthy(co, cephFS) })
	t.Cleanup(func() {
		t.Logf("ClusterOperator storage's Available and Degraded, every version:\n%s", strings.Join(changes.Timeline(), "\n"))
	})
	return storageRecord{changes}
}

type storageRecord struct{ changes *framework.Changes }

func (r storageRecord) fromHealthy(t *testing.T) storageWindow {
	t.Helper()
	var from int
	framework.Eventually(t, csoSwapTimeout, "ClusterOperator storage healthy, written from the predecessor's and Cinder's conditions", func(context.Context) error {
		lines := r.changes.Lines()
		if len(lines) == 0 || lines[len(lines)-1] != storageHealthy {
			return fmt.Errorf("versions so far: %v", lines)
		}
		from = len(lines) - 1
		return nil
	})
	return storageWindow{r.changes, from}
}

// storageWindow is ClusterOperator storage's versions from a healthy one on.
type storageWindow struct {
	changes *framework.Changes
	from    int
}

// Unhealthy is every version of the window whose Available is not True or whose Degraded is True.
func (w storageWindow) Unhealthy() []string { return w.unhealthy(w.from, -1) }

// UnhealthyBefore is Unhealthy of the versions seen before when.
func (w storageWindow) UnhealthyBefore(when time.Time) []string {
	return w.unhealthy(w.from, max(w.from, w.changes.Since(when)))
}

// UnhealthySince is Unhealthy of the versions seen at or after when.
func (w storageWindow) UnhealthySince(when time.Time) []string {
	return w.unhealthy(max(w.from, w.changes.Since(when)), -1)
}

func (w storageWindow) unhealthy(from, to int) []string {
	timeline := w.changes.Timeline()
	if to < 0 || to > len(timeline) {
		to = len(timeline)
	}
	var out []string
	for _, l := range timeline[from:to] {
		line := l[strings.Index(l, " ")+1:]
		if line != storageHealthy && !strings.HasPrefix(line, storageUnwritten) {
			out = append(out, l)
		}
	}
	return out
}

// storageHealthy and storageUnwritten are storageUnhealthy's lines for a healthy storage, and for one
// without Available or Degraded (not yet written, or a CSO that restarts).
const (
	storageHealthy   = "healthy"
	storageUnwritten = "unwritten"
)

// storageUnhealthy is what is wrong of ClusterOperator storage's Available and Degraded (see
// watchStorage).
func storageUnhealthy(co *configv1.ClusterOperator, cephFS bool) string {
	var bad []string
	for _, ct := range []configv1.ClusterStatusConditionType{configv1.OperatorAvailable, configv1.OperatorDegraded} {
		c := findClusterOperatorCondition(co, ct)
		if c == nil {
			return storageUnwritten + ": no " + string(ct)
		}
		wrong := (ct == configv1.OperatorAvailable) != (c.Status == configv1.ConditionTrue)
		if wrong && ct == configv1.OperatorDegraded && cephFS && onlyCephFSLines(c.Message) {
			continue
		}
		if wrong {
			bad = append(bad, fmt.Sprintf("%s=%s (%s): %s", c.Type, c.Status, c.Reason, c.Message))
		}
	}
	if len(bad) == 0 {
		return storageHealthy
	}
	return strings.Join(bad, "; ")
}

// watchOperandDeployment records every version of the operand's controller Deployment: its
// generation, replicas and pod template hash against its status, to tell from the printed timeline
// who rolled or scaled it when CSO's view of Manila changes.
func watchOperandDeployment(t *testing.T) *framework.Changes {
	return framework.WatchChanges(t, framework.OneObject(world.Kube.AppsV1().RESTClient(), "deployments", names.OperandNamespace, framework.ControllerDeployment),
		func(d *appsv1.Deployment) string {
			s := d.Status
			return fmt.Sprintf("generation %d (observed %d), replicas %d: %d, updated %d, ready %d, available %d, uid %s",
				d.Generation, s.ObservedGeneration, ptr.Deref(d.Spec.Replicas, 1), s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas, d.UID)
		})
}

// onlyCephFSLines says whether every line of a union message comes from the CephFS instance's own
// conditions.
func onlyCephFSLines(message string) bool {
	for _, l := range strings.Split(message, "\n") {
		if l != "" && !cephFSDegraded.MatchString(l) {
			return false
		}
	}
	return true
}

// setDefaultClass marks a class default, as an admin does.
func setDefaultClass(t *testing.T, name string) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "StorageClass "+name+" marked default", func(ctx context.Context) error {
		sc, err := world.Kube.StorageV1().StorageClasses().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if sc.Annotations == nil {
			sc.Annotations = map[string]string{}
		}
		sc.Annotations[classplan.DefaultClassAnnotation] = "true"
		_, err = world.Kube.StorageV1().StorageClasses().Update(ctx, sc, metav1.UpdateOptions{})
		return err
	})
}

// realPredecessorSnapshot creates a VolumeSnapshot of the claim on the snapshot class the predecessor
// made.
func realPredecessorSnapshot(t *testing.T, ns, claim string) string {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "the predecessor's VolumeSnapshotClass", func(ctx context.Context) error {
		_, err := world.Dynamic.Resource(snapshotClassGVR).Get(ctx, framework.SnapshotClass, metav1.GetOptions{})
		return err
	})
	return volumeSnapshot(t, world, ns, claim)
}

// removeOperand deletes, after world.ResetOperand removed the workloads, what earlier tests of the
// shard left of their ReplicaSets, ControllerRevisions and pods, and of an operator Deployment's pods,
// as the garbage collector (none runs) would: the predecessor then makes its operand from scratch, as
// on a cluster that only ever ran it. The pods go at once (no kubelet is left to finish a graceful
// deletion).
func removeOperand(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	now := int64(0)
	gone := metav1.DeleteOptions{GracePeriodSeconds: &now}
	for ns, selector := range map[string]string{names.OperandNamespace: "app=openstack-manila-csi",
		names.OperatorNamespace: "name=" + framework.CSOManilaDeployment} {
		list := metav1.ListOptions{LabelSelector: selector}
		for _, err := range []error{
			world.Kube.AppsV1().ReplicaSets(ns).DeleteCollection(ctx, gone, list),
			world.Kube.AppsV1().ControllerRevisions(ns).DeleteCollection(ctx, gone, list),
			world.Kube.CoreV1().Pods(ns).DeleteCollection(ctx, gone, list),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// phaseClock records when each phase of a test ended, for a closing "where the time went".
type phaseClock struct {
	start, last time.Time
	lines       []string
}

func newPhaseClock() *phaseClock {
	now := time.Now()
	return &phaseClock{start: now, last: now}
}

func (c *phaseClock) mark(phase string) {
	now := time.Now()
	c.lines = append(c.lines, fmt.Sprintf("%7.1fs %+7.1fs  %s", now.Sub(c.start).Seconds(), now.Sub(c.last).Seconds(), phase))
	c.last = now
}

func (c *phaseClock) String() string { return strings.Join(c.lines, "\n") }
