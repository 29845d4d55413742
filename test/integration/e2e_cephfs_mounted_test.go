package integration

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/cephfs"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/cephxrefusal"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The share types of the real Ceph behind Manila's cephfs_native backend: one whose class names no
// cephx ID, so each volume gets its own (the PV's name), one whose class names an ID Ceph already has
// and refuses to hand over.
var (
	cephNativeType  = framework.CephFSShareType("cephnative", framework.CephFSNativeBackend, true)
	cephForeignType = framework.CephFSShareType("cephforeign", framework.CephFSNativeBackend, false)
)

const (
	cephForeignClientID = "ocp-foreign"
	mountedNamespace    = "e2e-cephfs-mounted"
	// fsOpTimeout bounds one read or write on a mount: a CephFS operation that needs the MDS blocks
	// while it is down, and the test must not block with it.
	fsOpTimeout = 20 * time.Second
	// cephFSRealNode is the address and name of the test's real node.
	cephFSRealNode = "127.0.0.5"
)

// CephFS for real, mounted: a claim on the operator's CephFS class becomes a CephFS subvolume of a
// real Ceph through Manila's own CephFS driver; on a stand-in node and for a pod on a real node the
// real manila-csi-plugin stages and publishes it through the real ceph-csi with ceph-fuse, and a file
// written through one node is read through the other and through Ceph, both ways. A snapshot and a
// claim restored from it carry the data into a pod. While mounted the MDS stops: an operation that
// needs it does not complete, the operator stays quiet (no condition changes), and once the MDS is
// back the mount works again. A change of the cluster's CA bundle and proxy rolls the Manila node
// plugin's pod and leaves ceph-csi's, and a pod's mount from before reads after it.
// ceph-csi restarted on a node mounts its broken fuse stage again at the next publish. A class whose
// cephx ID Ceph already holds gives the claim the operator's CephxAccessRefused event naming the ID,
// beside csi-provisioner's timeout, and the rule an error.
// Unmounting ends the ceph-fuse mounts; deleting the claim deletes the share and its subvolume.
func TestE2ECephFSMounted(t *testing.T) {
	ceph, err := framework.StartCeph()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ceph.Stop) // last: Manila, its client, stops first
	version, _ := framework.CephVersion()
	t.Logf("Ceph %s: mon %s, file system %s", version, ceph.Monitor, ceph.FS)
	// An ID Ceph holds and its mgr did not make: `fs subvolume authorize` refuses to take it over.
	if _, err := ceph.Admin("auth", "get-or-create", "client."+cephForeignClientID, "mon", "allow r"); err != nil {
		t.Fatal(err)
	}

	w := shareWorldWith(t, framework.OpenStackOptions{ShareService: true, Ceph: ceph})
	ctx := context.Background()
	if _, err := w.OpenStack.CreateShareTypes(ctx, []framework.ShareTypeSpec{cephNativeType, cephForeignType}); err != nil {
		t.Fatal(err)
	}
	w.WriteOperatorConfig(t, cephFSConfig(goodCephCSI)+`storageClasses:
  shareTypes:
    `+cephNativeType.Name+`:
      cephfs-mounter: fuse
    `+cephForeignType.Name+`:
      cephfs-mounter: fuse
      cephfs-clientID: `+cephForeignClientID+`
`)
	w.CreateClusterCSIDriver(t, operatorv1.Managed)
	w.RunOperator(t)
	class := waitForCephFSClass(t, w, cephNativeType.Name)
	foreignClass := waitForCephFSClass(t, w, cephForeignType.Name)
	w.WaitForCondition(t, "ManilaCephFSDriverControllerServiceControllerDegraded", operatorv1.ConditionFalse)
	prov := w.StartProvisioningWith(t, framework.ProvisioningOptions{CephFS: true})
	prov.RequireSnapshots(t)
	t.Cleanup(func() {
		// A failed step leaves its claims: they go first, so that their volumes and shares do too.
		_ = w.Kube.CoreV1().PersistentVolumeClaims(mountedNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		waitForNoVolumeOf(t, w, cephfs.DriverName)
	})

	claim := w.CreateClaim(t, mountedNamespace, "shared", class.Name, "1Gi")
	// Early, as it takes csi-provisioner's timeout to fail; checked at the end.
	foreign := w.CreateClaim(t, mountedNamespace, "foreign-id", foreignClass.Name, "1Gi")
	pv := w.WaitForClaimBound(t, claim)
	shareID := pv.Spec.CSI.VolumeHandle
	share := w.WaitForShareAvailable(t, shareID)
	if share.ShareProto != "CEPHFS" || share.ShareTypeName != cephNativeType.Name {
		t.Fatalf("share %+v; want a CEPHFS share of type %s", share, cephNativeType.Name)
	}
	subvolume, rootPath := checkShareIsSubvolume(t, w, ceph, shareID)
	// Without cephfs-clientID the driver names the cephx ID after the volume.
	cephxID := pv.Name
	waitForCephxKey(t, w, shareID, cephxID)
	caps, err := ceph.Admin("auth", "get", "client."+cephxID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(caps, "path="+rootPath) {
		t.Fatalf("Ceph's caps of client.%s do not name the subvolume's path %s", cephxID, rootPath)
	}
	t.Logf("share %s: Ceph subvolume %s at %s, cephx user client.%s", shareID, subvolume, rootPath, cephxID)

	// A stand-in node (FuseStageRecoveredAfterCephCSIRestart and MDSDownWhileMounted say why it stays)
	// and a real one, on which the claims are used by pods.
	nodeA := w.StartNode(t, framework.NodeOptions{CephFS: true, CephCSI: true, Name: "e2e-worker-a"})
	kA := nodeKubelet(t, w, nodeA)
	targetA := mountOn(t, nodeA, kA, pv, "pod-a")
	cephPorts, err := ceph.ListeningPorts()
	if err != nil {
		t.Fatal(err)
	}
	images := framework.OperandNodeImages()
	images[goodCephCSI] = framework.CephCSINodeImage()
	real := realNodeClaim{
		Node: cephFSRealNode, Images: images,
		Relay:      append([]int{w.OpenStack.KeystonePort, w.OpenStack.ManilaPort}, cephPorts...),
		DaemonSets: []string{framework.NodeDaemonSet, framework.NFSNodeDaemonSet, framework.CephFSNodeDaemonSet, framework.CephCSINodeDaemonSet},
		Drivers:    []string{names.CSIDriverName, cephfs.DriverName},
		Claim:      claim, PV: pv, Other: targetA, MountType: "fuse.ceph-fuse",
		InCeph: func(name string) (string, error) { return ceph.ReadFile(filepath.Join(rootPath, name)) },
	}
	node := real.start(t, w)

	// Two nodes and Ceph: the pod on the real node writes, the stand-in node and Ceph read it; the
	// stand-in node writes, the pod reads it.
	t.Run("SharedBetweenTwoNodes", func(t *testing.T) {
		real.mountInAPod(t, w, node)
		t.Run("TheUpstreamStorageSuite", func(t *testing.T) {
			upstreamSuite{Manifest: "manila-cephfs.yaml", Focus: cephFSSuiteFocus, Node: cephFSRealNode}.run(t, w)
		})
	})

	t.Run("SnapshotAndRestoreCarryTheData", func(t *testing.T) {
		const before = "written before the snapshot\n"
		writeFile(t, filepath.Join(targetA, "hello.txt"), before)
		w.CreateVolumeSnapshot(t, mountedNamespace, "shared-snap", claim.Name, framework.CephFSSnapshotClass)
		handle := w.WaitForVolumeSnapshotReady(t, mountedNamespace, "shared-snap").SnapshotHandle
		snaps, err := ceph.Admin("fs", "subvolume", "snapshot", "ls", ceph.FS, subvolume, "--format", "json")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(snaps, handle) {
			t.Fatalf("Ceph's snapshots of subvolume %s: %s; want Manila's snapshot %s", subvolume, snaps, handle)
		}
		// Written after the snapshot: the restored volume must not have it.
		writeFile(t, filepath.Join(targetA, "after-snapshot.txt"), "later\n")
		restored := createClaimFromSnapshot(t, w, mountedNamespace, "restored", class.Name, "shared-snap", "1Gi")
		rpv := w.WaitForClaimBound(t, restored)
		rshare := w.WaitForShareAvailable(t, rpv.Spec.CSI.VolumeHandle)
		if rshare.SnapshotID != handle {
			t.Errorf("restored share %+v; want a share from snapshot %s", rshare, handle)
		}
		checkShareIsSubvolume(t, w, ceph, rshare.ID)
		real.readsRestored(t, w, node, restored.Name, before)
		deleteClaimAndWaitForShareGone(t, w, mountedNamespace, restored.Name, rshare.ID)
		w.DeleteVolumeSnapshot(t, mountedNamespace, "shared-snap")
		waitForVolumeSnapshotGone(t, w, mountedNamespace, "shared-snap")
	})

	// On the stand-in node, whose mount the test reads and writes directly: what a pod's process sees of
	// the outage is the same through the real node's ceph-fuse.
	t.Run("MDSDownWhileMounted", func(t *testing.T) {
		before := conditionStates(t, w)
		if err := ceph.StopMDS(); err != nil {
			t.Fatal(err)
		}
		if out, err := fsOp("touch", filepath.Join(targetA, "during-outage")); err == nil {
			t.Errorf("a file was created with no MDS (%s)", out)
		} else {
			t.Logf("with the MDS down, a create through %s: %v", targetA, err)
		}
		if err := ceph.StartMDS(); err != nil {
			t.Fatalf("%v\n%s", err, ceph.Log("mds.a", 30))
		}
		framework.Eventually(t, 3*time.Minute, "the mount working again", func(context.Context) error {
			if out, err := fsOp("sh", "-c", "echo recovered > "+filepath.Join(targetA, "after-outage.txt")); err != nil {
				return fmt.Errorf("%v: %s", err, out)
			}
			out, err := ceph.ReadFile(filepath.Join(rootPath, "after-outage.txt"))
			if err != nil || out != "recovered\n" {
				return fmt.Errorf("read through Ceph: %q, %v", out, err)
			}
			return nil
		})
		if after := conditionStates(t, w); after != before {
			t.Errorf("the operator's conditions changed while the MDS was down:\nbefore %s\nafter  %s", before, after)
		}
	})

	// The cluster's trusted CA bundle and proxy change: the CephFS instance's Manila node plugin rolls;
	// ceph-csi's DaemonSet does not, so the ceph-fuse mounts its pods serve stay (a roll would end them):
	// a pod on the real node that mounted the volume before the change reads through it after the
	// Manila node plugin's pod there was replaced, and then the kubelet unpublishes and unstages
	// through the new one.
	t.Run("ACAAndProxyChangeLeaveTheMount", func(t *testing.T) {
		real.mountOutlivesCAAndProxyChange(t, w, node, framework.CephFSNodeDaemonSet, framework.CephCSINodeDaemonSet)
	})

	// ceph-csi's pod restarts on node A (an image change rolls it): its ceph-fuse daemons end with it
	// and leave the stage broken. The next publish on that node mounts the stage again from the record
	// ceph-csi keeps in the instance's mountinfo directory, with the data.
	t.Run("FuseStageRecoveredAfterCephCSIRestart", func(t *testing.T) {
		nodeA.RestartCephCSI(t)
		if _, err := fsOp("cat", filepath.Join(targetA, "hello.txt")); err == nil {
			t.Fatal("the stage still answers after its ceph-fuse ended")
		}
		// A new pod of the volume on a node where it is staged: the kubelet only publishes.
		target := publishOn(t, nodeA, kA, pv, "pod-a2")
		if got, want := readFile(t, filepath.Join(target, "reply.txt")), afterTheChange; got != want {
			t.Fatalf("read through the recovered stage %q; want %q", got, want)
		}
		t.Logf("after ceph-csi's restart, %s reads the volume through a new ceph-fuse", target)
	})

	t.Run("CephRefusesAForeignID", func(t *testing.T) {
		framework.Eventually(t, 4*time.Minute, "the driver's error on claim "+foreign.Name, func(ctx context.Context) error {
			// csi-provisioner's event says only that the call timed out; the operator's says why.
			events := w.ClaimEvents(ctx, foreign)
			if !strings.Contains(events, "ProvisioningFailed") {
				return fmt.Errorf("no ProvisioningFailed event yet: %s", events)
			}
			if !strings.Contains(events, cephxrefusal.EventReason+": ") || !strings.Contains(events, `"`+cephForeignClientID+`"`) {
				return fmt.Errorf("no %s event naming %s yet: %s", cephxrefusal.EventReason, cephForeignClientID, events)
			}
			shares, err := w.OpenStack.SharesByMetadata(ctx, map[string]string{
				"csi.storage.k8s.io/pvc/namespace": mountedNamespace, "csi.storage.k8s.io/pvc/name": foreign.Name})
			if err != nil || len(shares) == 0 {
				return fmt.Errorf("no share of the claim in Manila (%v)", err)
			}
			rules, err := w.OpenStack.AccessRules(ctx, shares[0].ID)
			if err != nil {
				return err
			}
			if len(rules) != 1 || rules[0].AccessTo != cephForeignClientID || rules[0].State != "error" || rules[0].AccessKey != "" {
				return fmt.Errorf("access rules %+v; want one cephx rule for %s in error, without a key", rules, cephForeignClientID)
			}
			return nil
		})
		t.Logf("claim %s: %s", foreign.Name, w.ClaimEvents(ctx, foreign))
		if err := w.Kube.CoreV1().PersistentVolumeClaims(mountedNamespace).Delete(ctx, foreign.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("UnmountAndDelete", func(t *testing.T) {
		// pod-a2 goes first: the kubelet unstages only once no pod of the node uses the volume.
		if err := kA.NodeUnpublish(ctx, pv, "pod-a2"); err != nil {
			t.Fatal(err)
		}
		if err := kA.UnmountForPod(ctx, pv, "pod-a"); err != nil {
			t.Fatal(err)
		}
		mounts, err := nodeA.Mounts()
		if err != nil {
			t.Fatal(err)
		}
		for point, m := range mounts {
			if strings.Contains(m.FSType, "ceph") {
				t.Errorf("%s still mounted at %s after unpublish and unstage", m.FSType, point)
			}
		}
		deleteClaimAndWaitForShareGone(t, w, mountedNamespace, claim.Name, shareID)
		framework.Eventually(t, framework.ProvisioningTimeout, "subvolume "+subvolume+" deleted", func(context.Context) error {
			names, err := ceph.Subvolumes()
			if err != nil {
				return err
			}
			for _, n := range names {
				if n == subvolume {
					return fmt.Errorf("still among %v", names)
				}
			}
			return nil
		})
	})
}

// checkShareIsSubvolume checks that the share's one export location names the real mon and the path
// of a subvolume Manila's driver made (/volumes/_nogroup/<subvolume>/<uuid>; the subvolume is named
// after the share's instance), and returns the subvolume and that path.
func checkShareIsSubvolume(t *testing.T, w *framework.World, ceph *framework.Ceph, shareID string) (string, string) {
	t.Helper()
	locations, err := w.OpenStack.ExportLocations(context.Background(), shareID)
	if err != nil {
		t.Fatal(err)
	}
	if len(locations) != 1 {
		t.Fatalf("export locations %+v; want one", locations)
	}
	monitors, rootPath, err := framework.SplitCephFSExportLocation(locations[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(strings.TrimPrefix(rootPath, "/"), "/")
	if len(parts) != 4 || parts[0] != "volumes" || parts[1] != "_nogroup" {
		t.Fatalf("export location %s does not name a subvolume outside any group", locations[0].Path)
	}
	subvolume := parts[2]
	path, err := ceph.SubvolumePath(subvolume)
	if err != nil {
		t.Fatal(err)
	}
	if monitors != ceph.Monitor || rootPath != path {
		t.Fatalf("export location %s; want the mon %s and the subvolume's path %s", locations[0].Path, ceph.Monitor, path)
	}
	return subvolume, path
}

// nodeKubelet is the node's kubelet stand-in; the CephFS driver stages (ceph-csi always does).
func nodeKubelet(t *testing.T, w *framework.World, n *framework.NodeWorld) *framework.Kubelet {
	t.Helper()
	k, err := n.Kubelet(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	if !k.Stages {
		t.Fatal("the CephFS node plugin does not report STAGE_UNSTAGE_VOLUME")
	}
	return k
}

// mountOn stages and publishes the volume for a pod on the node, checks that ceph-fuse serves both
// paths, and returns the publish target.
func mountOn(t *testing.T, n *framework.NodeWorld, k *framework.Kubelet, pv *corev1.PersistentVolume, pod string) string {
	t.Helper()
	return checkedMount(t, n, k, pv, pod, k.MountForPod(context.Background(), pv, pod))
}

// publishOn publishes the staged volume for another pod on the node, as mountOn checks it.
func publishOn(t *testing.T, n *framework.NodeWorld, k *framework.Kubelet, pv *corev1.PersistentVolume, pod string) string {
	t.Helper()
	return checkedMount(t, n, k, pv, pod, k.NodePublish(context.Background(), pv, pod))
}

func checkedMount(t *testing.T, n *framework.NodeWorld, k *framework.Kubelet, pv *corev1.PersistentVolume, pod string, err error) string {
	t.Helper()
	if err != nil {
		t.Fatalf("mount for %s: %v\nmanila-csi-plugin:\n%s\ncephcsi:\n%s", pod, err, n.Log("manila-csi-plugin", 30), n.Log("cephcsi", 40))
	}
	target := k.TargetPath(pv, pod)
	mounts, err := n.Mounts()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{k.StagingPath(pv), target} {
		if mounts[p].FSType != "fuse.ceph-fuse" {
			t.Fatalf("%s is mounted as %+v; want fuse.ceph-fuse (mounts %v)", p, mounts[p], mounts)
		}
	}
	t.Logf("%s: staged at %s and published at %s, both %s from %s", pod, k.StagingPath(pv), target,
		mounts[target].FSType, mounts[target].Source)
	return target
}

// fsOp runs a command on a mount in its own process and gives up on it after fsOpTimeout. A FUSE
// request the file system cannot answer (its MDS is down) holds the process in uninterruptible
// sleep, where not even SIGKILL ends it: the test then leaves it behind, to finish or die once the
// mount answers, instead of waiting for it.
func fsOp(name string, args ...string) (string, error) {
	return fsOpWithInput("", name, args...)
}

func fsOpWithInput(input, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(input), &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(fsOpTimeout):
		_ = cmd.Process.Kill()
		return "", fmt.Errorf("%s did not complete in %s", name, fsOpTimeout)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if out, err := fsOpWithInput(content, "sh", "-c", `cat > "$1"`, "sh", path); err != nil {
		t.Fatalf("writing %s: %v: %s", path, err, out)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	out, err := fsOp("cat", path)
	if err != nil {
		t.Fatalf("reading %s: %v: %s", path, err, out)
	}
	return out
}

// conditionStates is the ClusterCSIDriver's conditions as "type=status" in order, to tell whether
// any changed.
func conditionStates(t *testing.T, w *framework.World) string {
	t.Helper()
	driver, err := w.Operator.OperatorV1().ClusterCSIDrivers().Get(context.Background(), names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, c := range driver.Status.Conditions {
		states = append(states, c.Type+"="+string(c.Status))
	}
	return strings.Join(states, " ")
}

// waitForNoVolumeOf waits until no PersistentVolume of the driver is left, so that none keeps a later
// test's CephFS instance running.
func waitForNoVolumeOf(t *testing.T, w *framework.World, driver string) {
	framework.Eventually(t, framework.ProvisioningTimeout, "no volume of "+driver+" left", func(ctx context.Context) error {
		pvs, err := w.Kube.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, pv := range pvs.Items {
			if pv.Spec.CSI != nil && pv.Spec.CSI.Driver == driver {
				return fmt.Errorf("PersistentVolume %s is %s", pv.Name, pv.Status.Phase)
			}
		}
		return nil
	})
}
