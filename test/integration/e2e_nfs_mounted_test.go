package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

const (
	nfsMountedNamespace = "e2e-nfs-mounted"
	// nfsElsewhere is the one client the refused class's shares admit: not this machine.
	nfsElsewhere = "192.0.2.55"
	// nfsMachineNetwork is the test world's machine network: the nodes' addresses are all 127.0.0.1.
	nfsMachineNetwork = "127.0.0.0/8"
	// nfsRealNode is the address and name of the test's real node.
	nfsRealNode = "127.0.0.4"
)

// NFS share types of the real Ceph behind Manila's cephfs_nfs backend: the operator's class of the first
// takes its NFS access default (machineNetwork), the second's class admits only nfsElsewhere.
var (
	nfsType          = nfsShareType("cephnfs")
	nfsElsewhereType = nfsShareType("cephnfs_elsewhere")
)

func nfsShareType(name string) framework.ShareTypeSpec {
	return framework.ShareTypeSpec{Name: name, ExtraSpecs: map[string]string{
		"share_backend_name": framework.CephFSNFSBackend, "snapshot_support": "True", "create_share_from_snapshot_support": "True"}}
}

// NFS for real, mounted: a claim on the operator's class for an NFS share type becomes a CephFS
// subvolume exported by a real NFS-Ganesha, which Manila's own CephFS driver manages over D-Bus; on a
// stand-in node and for pods on a real node (its kubelet, as on a cluster) the real manila-csi-plugin
// forwards to the real csi-driver-nfs, whose `mount -t nfs` mounts it (NFSv3 through FUSE); a file
// written through one node's mount is read through the other's and through Ceph. A snapshot and a
// claim restored from it carry the data into a pod. The operator's NFS access default (the machine
// network) admits the nodes; a class whose nfs-shareClient excludes them gets the server's refusal in
// the pod's FailedMount event and no mount, and a class the admin makes with the machine network
// mounts. The mount outlives the node plugin's process, and a change of the cluster's CA bundle and
// proxy rolls the Manila node plugin's pod, leaves the NFS node plugin's, and a pod's mount from
// before reads after it. Unpublishing leaves no mount; deleting the claim removes the export and the
// subvolume.
func TestE2ENFSMounted(t *testing.T) {
	ceph, err := framework.StartCeph()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ceph.Stop) // last: Ganesha and Manila, its clients, stop first
	ganesha, err := framework.StartGanesha(ceph)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ganesha.Stop)
	t.Logf("Ganesha on 127.0.0.1:%d (MOUNT %d) for Ceph's file system %s", ganesha.NFSPort, ganesha.MountPort, ceph.FS)

	w := shareWorldWith(t, framework.OpenStackOptions{ShareService: true, Ceph: ceph, NFS: ganesha})
	ctx := context.Background()
	if _, err := w.OpenStack.CreateShareTypes(ctx, []framework.ShareTypeSpec{nfsType, nfsElsewhereType}); err != nil {
		t.Fatal(err)
	}
	w.WriteInstallConfig(t, installConfig("  machineNetwork:\n  - cidr: "+nfsMachineNetwork+"\n"))
	// The world's client speaks NFSv3 only and no portmapper answers: the classes name the version
	// and Ganesha's ports (docs/test-world.md).
	w.WriteOperatorConfig(t, `storageClasses:
  defaults:
    nfs-shareClient: machineNetwork
    mountOptions: [`+strings.Join(ganesha.MountOptions(), ", ")+`]
  shareTypes:
    `+nfsElsewhereType.Name+`:
      nfs-shareClient: `+nfsElsewhere+"\n")
	w.CreateClusterCSIDriver(t, operatorv1.Managed)
	w.RunOperator(t)
	class := w.WaitForClassOfShareType(t, nfsType.Name)
	elsewhereClass := w.WaitForClassOfShareType(t, nfsElsewhereType.Name)
	if got := class.Parameters["nfs-shareClient"]; got != nfsMachineNetwork {
		t.Fatalf("class %s nfs-shareClient %q; want the machine network %s", class.Name, got, nfsMachineNetwork)
	}
	w.WaitForDaemonSet(t, framework.NodeDaemonSet, nil)
	w.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, nil)
	prov := w.StartProvisioning(t)
	prov.RequireSnapshots(t)
	t.Cleanup(func() {
		// A failed step leaves its claims: they go first, so that their volumes and shares do too.
		if err := w.Kube.CoreV1().PersistentVolumeClaims(nfsMountedNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Errorf("deleting the claims left: %v", err)
		}
		waitForNoVolumeClaimedIn(t, w, nfsMountedNamespace)
	})

	claim := w.CreateClaim(t, nfsMountedNamespace, "shared", class.Name, "1Gi")
	pv := w.WaitForClaimBound(t, claim)
	shareID := pv.Spec.CSI.VolumeHandle
	share := w.WaitForShareAvailable(t, shareID)
	if share.ShareProto != "NFS" || share.ShareTypeName != nfsType.Name {
		t.Fatalf("share %+v; want an NFS share of type %s", share, nfsType.Name)
	}
	exportPath := checkGaneshaExport(t, w, ceph, ganesha, shareID)

	// A stand-in node (TheMountOutlivesTheNodePlugin says why it stays) and a real one, on which the
	// claims are used by pods. The stand-in has no Node object: the DaemonSet controller would place
	// pods there that never start, and a roll of the node DaemonSets would wait on them for good.
	nodeA := w.StartNode(t, framework.NodeOptions{NFS: true, Name: "e2e-nfs-a"})
	kA := nfsKubelet(t, w, nodeA)
	targetA := nfsMountOn(t, nodeA, kA, pv, "pod-a", exportPath)
	checkShareRulesAre(t, w, shareID, nfsMachineNetwork)
	real := realNodeClaim{
		Node: nfsRealNode, Images: framework.OperandNodeImages(),
		Relay:      []int{w.OpenStack.KeystonePort, w.OpenStack.ManilaPort, ganesha.NFSPort, ganesha.MountPort},
		DaemonSets: []string{framework.NodeDaemonSet, framework.NFSNodeDaemonSet},
		Drivers:    []string{names.CSIDriverName},
		Claim:      claim, PV: pv, Other: targetA, MountType: "fuse.fuse-nfs",
		InCeph: func(name string) (string, error) { return ceph.ReadFile(filepath.Join(exportPath, name)) },
	}
	node := real.start(t, w)

	// Two nodes and Ceph: the pod on the real node writes, the stand-in node and Ceph read it; the
	// stand-in node writes, the pod reads it.
	t.Run("SharedBetweenTwoNodesAndCeph", func(t *testing.T) {
		real.mountInAPod(t, w, node)
		t.Run("TheUpstreamStorageSuite", func(t *testing.T) {
			upstreamSuite{Manifest: "manila-nfs.yaml", Focus: nfsSuiteFocus, Node: nfsRealNode}.run(t, w)
		})
	})

	t.Run("SnapshotAndRestoreCarryTheData", func(t *testing.T) {
		const before = "written before the snapshot\n"
		writeFile(t, filepath.Join(targetA, "hello.txt"), before)
		w.CreateVolumeSnapshot(t, nfsMountedNamespace, "shared-snap", claim.Name, framework.SnapshotClass)
		w.WaitForVolumeSnapshotReady(t, nfsMountedNamespace, "shared-snap")
		// Written after the snapshot: the restored volume must not have it.
		writeFile(t, filepath.Join(targetA, "after-snapshot.txt"), "later\n")
		restored := createClaimFromSnapshot(t, w, nfsMountedNamespace, "restored", class.Name, "shared-snap", "1Gi")
		rpv := w.WaitForClaimBound(t, restored)
		rshare := w.WaitForShareAvailable(t, rpv.Spec.CSI.VolumeHandle)
		checkGaneshaExport(t, w, ceph, ganesha, rshare.ID)
		real.readsRestored(t, w, node, restored.Name, before)
		deleteClaimAndWaitForShareGone(t, w, nfsMountedNamespace, restored.Name, rshare.ID)
		w.DeleteVolumeSnapshot(t, nfsMountedNamespace, "shared-snap")
		waitForVolumeSnapshotGone(t, w, nfsMountedNamespace, "shared-snap")
	})

	t.Run("AClassThatExcludesTheNodesIsRefused", func(t *testing.T) {
		refusedClaim := w.CreateClaim(t, nfsMountedNamespace, "elsewhere", elsewhereClass.Name, "1Gi")
		rpv := w.WaitForClaimBound(t, refusedClaim)
		rshare := w.WaitForShareAvailable(t, rpv.Spec.CSI.VolumeHandle)
		// The operator said so before the mount: the class, its rule and the nodes it shuts out.
		excluded := w.WaitForConditionNaming(t, framework.DefaultTimeout, storageclasses.ConditionNodesExcluded, operatorv1.ConditionTrue,
			"StorageClass "+elsewhereClass.Name+" ")
		for _, want := range []string{"nfs-shareClient " + nfsElsewhere, "node(s) " + nfsRealNode + "."} {
			if !strings.Contains(excluded.Message, want) {
				t.Errorf("%s message %q does not name %s", excluded.Type, excluded.Message, want)
			}
		}
		if strings.Contains(excluded.Message, "StorageClass "+class.Name+" ") {
			t.Errorf("%s message %q names class %s, whose machine network admits the nodes", excluded.Type, excluded.Message, class.Name)
		}
		t.Logf("%s: %s", excluded.Type, excluded.Message)
		// The kubelet's publish meets the server's refusal, says so in the pod's events, and the pod
		// never starts.
		refused := real.startPod(t, w, "pod-refused", refusedClaim.Name, "echo started > /dev/termination-log")
		failed := waitForPodEvent(t, w, refused, "FailedMount", "MNT3ERR_ACCES")
		t.Logf("publish of claim %s (class %s, nfs-shareClient %s) refused: %s", refusedClaim.Name, elsewhereClass.Name, nfsElsewhere, failed.Message)
		checkShareRulesAre(t, w, rshare.ID, nfsElsewhere)
		if p, err := w.Kube.CoreV1().Pods(refused.Namespace).Get(ctx, refused.Name, metav1.GetOptions{}); err != nil || p.Status.Phase != corev1.PodPending {
			t.Fatalf("pod %s: %v, %v; want Pending, its volume refused", refused.Name, p.Status.Phase, err)
		}
		podDir := "/var/lib/kubelet/pods/" + string(refused.UID)
		mounts, err := node.Mounts(podDir)
		if err != nil {
			t.Fatal(err)
		}
		if len(mounts) > 0 {
			t.Fatalf("a refused publish left mounts in %s: %v", podDir, mounts)
		}
		deletePodAndWait(t, refused.Namespace, refused.Name)
		// The admin's fix: a class of their own with the same type and the machine network.
		fixed := elsewhereClass.DeepCopy()
		fixed.ObjectMeta = metav1.ObjectMeta{Name: "admin-" + elsewhereClass.Name}
		fixed.Parameters["nfs-shareClient"] = nfsMachineNetwork
		if _, err := w.Kube.StorageV1().StorageClasses().Create(ctx, fixed, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = w.Kube.StorageV1().StorageClasses().Delete(context.Background(), fixed.Name, metav1.DeleteOptions{})
		})
		fixedClaim := w.CreateClaim(t, nfsMountedNamespace, "admin-fixed", fixed.Name, "1Gi")
		fpv := w.WaitForClaimBound(t, fixedClaim)
		fshare := w.WaitForShareAvailable(t, fpv.Spec.CSI.VolumeHandle)
		fexport := checkGaneshaExport(t, w, ceph, ganesha, fshare.ID)
		pod := real.startPod(t, w, "pod-fixed", fixedClaim.Name, "echo mounted > /shared/ok.txt && cat /shared/ok.txt > /dev/termination-log")
		succeededWith(t, w, pod, "mounted")
		if got, err := ceph.ReadFile(filepath.Join(fexport, "ok.txt")); err != nil || got != "mounted\n" {
			t.Fatalf("ok.txt through Ceph %q, %v; want what pod %s wrote", got, err, pod.Name)
		}
		real.waitForUnmounted(t, node)
		deletePodAndWait(t, pod.Namespace, pod.Name)
		deleteClaimAndWaitForShareGone(t, w, nfsMountedNamespace, fixedClaim.Name, fshare.ID)
		deleteClaimAndWaitForShareGone(t, w, nfsMountedNamespace, refusedClaim.Name, rshare.ID)
	})

	// The node plugin's pod restarts (an image change rolls it): the mount it made is served by its
	// own process, which outlives the plugin's, as the kernel client's mount outlives the process that
	// asked for it. On the stand-in node: on the real node fuse-nfs runs in the plugin's container
	// (the client of its image, as the issue asks), so stopping that container stops it too, which a
	// kernel client's mount would outlive (docs/test-world.md).
	t.Run("TheMountOutlivesTheNodePlugin", func(t *testing.T) {
		want := "written before the node plugin's restart\n"
		writeFile(t, filepath.Join(targetA, "hello.txt"), want)
		nodeA.RestartNFSPlugin(t)
		if got := readFile(t, filepath.Join(targetA, "hello.txt")); got != want {
			t.Fatalf("after the node plugin's restart, hello.txt reads %q through e2e-nfs-a; want %q", got, want)
		}
	})

	// The cluster's trusted CA bundle and proxy change: the Manila node plugin, which calls Keystone and
	// Manila, rolls; csi-driver-nfs's DaemonSet does not, so its pods and the mounts they made stay:
	// a pod on the real node that mounted the volume before the change reads through it after the
	// Manila node plugin's pod there was replaced, and then the kubelet unpublishes through the new one.
	t.Run("ACAAndProxyChangeLeaveTheMount", func(t *testing.T) {
		real.mountOutlivesCAAndProxyChange(t, w, node, framework.NodeDaemonSet, framework.NFSNodeDaemonSet)
	})

	t.Run("UnpublishAndDelete", func(t *testing.T) {
		if err := kA.UnmountForPod(ctx, pv, "pod-a"); err != nil {
			t.Fatal(err)
		}
		if mounted := nfsMountsOf(t, nodeA, targetA); len(mounted) > 0 {
			t.Fatalf("unpublish left %v", mounted)
		}
		subvolume := strings.Split(strings.TrimPrefix(exportPath, "/"), "/")[2]
		deleteClaimAndWaitForShareGone(t, w, nfsMountedNamespace, claim.Name, shareID)
		framework.Eventually(t, framework.ProvisioningTimeout, "the export and the subvolume of share "+shareID+" gone", func(context.Context) error {
			exports, err := ganesha.Exports()
			if err != nil {
				return err
			}
			if slices.Contains(exports, exportPath) {
				return fmt.Errorf("Ganesha still exports %s", exportPath)
			}
			subvolumes, err := ceph.Subvolumes()
			if err != nil {
				return err
			}
			if slices.Contains(subvolumes, subvolume) {
				return fmt.Errorf("subvolume %s still there", subvolume)
			}
			return nil
		})
	})
}

// checkGaneshaExport checks that the share's one export location is the Ganesha's address and the
// path of the share's subvolume, and waits until the Ganesha exports that path; it returns the path.
func checkGaneshaExport(t *testing.T, w *framework.World, ceph *framework.Ceph, g *framework.Ganesha, shareID string) string {
	t.Helper()
	locations, err := w.OpenStack.ExportLocations(context.Background(), shareID)
	if err != nil {
		t.Fatal(err)
	}
	if len(locations) != 1 {
		t.Fatalf("export locations %+v; want one", locations)
	}
	host, path, ok := strings.Cut(locations[0].Path, ":")
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if !ok || host != "127.0.0.1" || len(parts) != 4 || parts[0] != "volumes" || parts[1] != "_nogroup" {
		t.Fatalf("export location %s; want 127.0.0.1:/volumes/_nogroup/<subvolume>/<uuid>", locations[0].Path)
	}
	if subvolumePath, err := ceph.SubvolumePath(parts[2]); err != nil || subvolumePath != path {
		t.Fatalf("subvolume %s at %q (%v); want the export's path %s", parts[2], subvolumePath, err, path)
	}
	// Manila's helper adds the export with the share's first access rule.
	framework.Eventually(t, framework.ProvisioningTimeout, "Ganesha exporting "+path, func(context.Context) error {
		exports, err := g.Exports()
		if err != nil {
			return err
		}
		if !slices.Contains(exports, path) {
			return fmt.Errorf("Ganesha exports %v", exports)
		}
		return nil
	})
	t.Logf("share %s: export location %s, exported by Ganesha", shareID, locations[0].Path)
	return path
}

// checkShareRulesAre waits until the share's access rules are exactly one active rw rule of type ip
// for clients: manila-csi-plugin grants it at the share's first publish.
func checkShareRulesAre(t *testing.T, w *framework.World, shareID, clients string) {
	t.Helper()
	framework.Eventually(t, framework.ProvisioningTimeout, "share "+shareID+"'s access rule for "+clients, func(ctx context.Context) error {
		rules, err := w.OpenStack.AccessRules(ctx, shareID)
		if err != nil {
			return err
		}
		if len(rules) != 1 || rules[0].AccessType != "ip" || rules[0].AccessTo != clients || rules[0].AccessLevel != "rw" || rules[0].State != "active" {
			return fmt.Errorf("access rules %+v", rules)
		}
		return nil
	})
}

// nfsKubelet is the node's kubelet stand-in; csi-driver-nfs does not stage, so neither does the driver.
func nfsKubelet(t *testing.T, w *framework.World, n *framework.NodeWorld) *framework.Kubelet {
	t.Helper()
	k, err := n.Kubelet(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	if k.Stages {
		t.Fatal("the NFS node plugin reports STAGE_UNSTAGE_VOLUME; csi-driver-nfs does not stage")
	}
	return k
}

// nfsMountOn publishes the volume for a pod on the node, checks that fuse-nfs serves the target
// from the Ganesha's export, and returns the target.
func nfsMountOn(t *testing.T, n *framework.NodeWorld, k *framework.Kubelet, pv *corev1.PersistentVolume, pod, exportPath string) string {
	t.Helper()
	if err := k.MountForPod(context.Background(), pv, pod); err != nil {
		t.Fatalf("mount for %s: %v\nmanila-csi-plugin:\n%s\nnfsplugin:\n%s", pod, err, n.Log("manila-csi-plugin", 30), n.Log("nfsplugin", 40))
	}
	target := k.TargetPath(pv, pod)
	mounted := nfsMountsOf(t, n, target)
	if len(mounted) != 1 || mounted[0].FSType != "fuse.fuse-nfs" || !strings.HasPrefix(mounted[0].Source, "nfs://127.0.0.1"+exportPath+"?") {
		t.Fatalf("%s is mounted as %+v; want one fuse.fuse-nfs mount of nfs://127.0.0.1%s", target, mounted, exportPath)
	}
	t.Logf("%s: published at %s, %s from %s", pod, target, mounted[0].FSType, mounted[0].Source)
	return target
}

// nfsMountsOf is the node's mounts at target.
func nfsMountsOf(t *testing.T, n *framework.NodeWorld, target string) []framework.Mount {
	t.Helper()
	mounts, err := n.MountsAt(target)
	if err != nil {
		t.Fatal(err)
	}
	return mounts
}

// readBackOn waits until path reads want: FUSE caches what it read for a second (fuse-nfs's attribute
// timeout), so a file another node wrote can show late.
func readBackOn(t *testing.T, path, want string) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "reading "+path, func(context.Context) error {
		got, err := fsOp("cat", path)
		if err != nil || got != want {
			return fmt.Errorf("read %q, %v; want %q", got, err, want)
		}
		return nil
	})
}

// waitForNoVolumeClaimedIn waits until no PersistentVolume is left that a claim of namespace bound:
// the driver's volumes of other tests in the shard's world are not this test's to wait for.
func waitForNoVolumeClaimedIn(t *testing.T, w *framework.World, namespace string) {
	t.Helper()
	framework.Eventually(t, framework.ProvisioningTimeout, "no volume of namespace "+namespace+" left", func(ctx context.Context) error {
		pvs, err := w.Kube.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, pv := range pvs.Items {
			if ref := pv.Spec.ClaimRef; ref != nil && ref.Namespace == namespace {
				return fmt.Errorf("PersistentVolume %s of claim %s is %s", pv.Name, ref.Name, pv.Status.Phase)
			}
		}
		return nil
	})
}
