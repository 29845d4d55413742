package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/cloudcredentials"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// nodePathClients is what the operator config asks of the default class's shares.
const nodePathClients = "10.20.0.0/16"

const nodePathConfig = `storageClasses:
  shareTypes:
    default:
      nfs-shareClient: ` + nodePathClients + "\n"

// The node side of a bound claim through the real manila-csi-plugin in node mode, run as the
// operator's node DaemonSet renders it, forwarding to the NFS stand-in: the kubelet stand-in's
// NodeStage reaches the NFS plugin with the share's export location (the driver's default choice of
// the test backend's two) for a share open to the class's clients; NodePublish, NodeUnpublish and
// NodeUnstage reach it too; without STAGE_UNSTAGE (as csi-driver-nfs) the publish carries it; a
// password rotated in Keystone and the cloud credentials reaches the next NodeStage through the driver
// Secret; and with Keystone and Manila behind TLS with a private CA, the node side works with the CA
// the operator mounts into the node pods.
func TestE2ENodePath(t *testing.T) {
	w := shareWorld(t)
	ctx := context.Background()
	if _, err := w.OpenStack.CreateShareType(ctx, framework.ShareTypeSpec{Name: "default"}); err != nil {
		t.Fatal(err)
	}
	w.WriteOperatorConfig(t, nodePathConfig)
	w.CreateClusterCSIDriver(t, operatorv1.Managed)
	op := w.RunOperator(t)
	class := w.WaitForClassOfShareType(t, "default")
	w.WaitForDeployment(t, nil)
	w.WaitForDaemonSet(t, framework.NodeDaemonSet, nil)
	w.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, nil)
	prov := w.StartProvisioning(t)

	claim := w.CreateClaim(t, "e2e-nodepath", "data", class.Name, "1Gi")
	pv := w.WaitForClaimBound(t, claim)
	share := w.WaitForShareAvailable(t, pv.Spec.CSI.VolumeHandle)
	checkShareRules(t, w, share, class)
	checkAccessIDs(t, w, pv, nodePathClients)

	node := w.StartNode(t, framework.NodeOptions{StageUnstage: true})
	kubelet, err := node.Kubelet(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if !kubelet.Stages {
		t.Fatal("manila-csi-plugin does not report STAGE_UNSTAGE_VOLUME although the NFS stand-in does")
	}

	t.Run("stage-publish-unpublish-unstage", func(t *testing.T) {
		mountAndUnmount(t, w, node, kubelet, pv, "pod-1")
	})

	// As with csi-driver-nfs itself: the driver proxies the NFS plugin's capabilities, so the kubelet
	// only publishes, and the publish carries what the stage would have.
	t.Run("publish-only", func(t *testing.T) {
		plain := w.StartNode(t, framework.NodeOptions{})
		k, err := plain.Kubelet(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		if k.Stages {
			t.Fatal("manila-csi-plugin reports STAGE_UNSTAGE_VOLUME although the NFS stand-in does not")
		}
		mountAndUnmount(t, w, plain, k, pv, "pod-2")
		if _, err := plain.LastCall("NodeStageVolume", pv.Spec.CSI.VolumeHandle); err == nil {
			t.Error("a NodeStage reached the NFS plugin although the driver does not stage")
		}
		plain.Stop(t)
	})

	passwords := []string{framework.SentinelPassword(), framework.SentinelPassword()}
	var clouds []byte
	t.Run("rotation", func(t *testing.T) {
		clouds = nodeRotation(t, w, node, kubelet, pv, passwords[0], passwords[1])
	})
	if clouds == nil {
		t.Fatal("no rotated credentials to go on with")
	}
	node.Stop(t)

	t.Run("private-ca", func(t *testing.T) { nodePrivateCA(t, w, pv, clouds) })

	// Back to plain HTTP and no CA: the claim's share goes with the claim through the controller side.
	restorePlainOpenStack(t, w, clouds)
	deleteClaimAndWaitForShareGone(t, w, claim.Namespace, claim.Name, share.ID)

	noSecretInLogs(t, w, prov, passwords...)
	noSecretInNodeWorld(t, w, node, passwords...)
	for _, p := range passwords {
		if strings.Contains(op.Logs.String(), p) {
			t.Error("the operator's log shows a rotated password")
		}
	}
}

// checkAccessIDs: the PV hands the node plugin (volume attribute shareAccessIDs) the IDs of the
// share's access rules, which are the active rules for the class's clients. For NFS the node plugin
// forwards no access rule to the NFS plugin (manila-csi-plugin's NFS adapter builds no stage or
// publish secret): the rule lives in Manila, where the NFS server enforces it.
func checkAccessIDs(t *testing.T, w *framework.World, pv *corev1.PersistentVolume, clients string) {
	t.Helper()
	ids := strings.Split(pv.Spec.CSI.VolumeAttributes["shareAccessIDs"], ",")
	rules, err := w.OpenStack.AccessRules(context.Background(), pv.Spec.CSI.VolumeHandle)
	if err != nil {
		t.Fatal(err)
	}
	var to []string
	for _, r := range rules {
		if slices.Contains(ids, r.ID) && r.State == "active" && r.AccessLevel == "rw" && r.AccessType == "ip" {
			to = append(to, r.AccessTo)
		}
	}
	slices.Sort(to)
	want := strings.Split(clients, ",")
	slices.Sort(want)
	if !slices.Equal(to, want) {
		t.Errorf("the PV's shareAccessIDs %v name active rules for %v; want the class's %v (rules %+v)", ids, to, want, rules)
	}
}

// mountAndUnmount makes the kubelet's calls for a pod using the volume, then those after the pod is
// gone, and checks what reached the NFS plugin: the share's preferred export location as server and
// share, the PV's mount options, the kubelet's paths, no secrets.
func mountAndUnmount(t *testing.T, w *framework.World, node *framework.NodeWorld, k *framework.Kubelet, pv *corev1.PersistentVolume, podUID string) {
	t.Helper()
	ctx := context.Background()
	id := pv.Spec.CSI.VolumeHandle
	// As the kubelet, retry a failed mount: a user's first token right after a credential change can
	// be refused by Manila for a moment.
	framework.Eventually(t, framework.DefaultTimeout, "the kubelet's mount for pod "+podUID, func(ctx context.Context) error {
		return k.MountForPod(ctx, pv, podUID)
	})
	want := wantVolumeContext(t, w, id)
	var got []framework.NodeCall
	if k.Stages {
		stage, err := node.LastCall("NodeStageVolume", id)
		if err != nil {
			t.Fatal(err)
		}
		if stage.StagingTargetPath != k.StagingPath(pv) {
			t.Errorf("NodeStage staging path %q, want the kubelet's %q", stage.StagingTargetPath, k.StagingPath(pv))
		}
		got = append(got, stage)
	}
	publish, err := node.LastCall("NodePublishVolume", id)
	if err != nil {
		t.Fatal(err)
	}
	if publish.TargetPath != k.TargetPath(pv, podUID) {
		t.Errorf("NodePublish target %q, want the kubelet's %q", publish.TargetPath, k.TargetPath(pv, podUID))
	}
	got = append(got, publish)
	for _, c := range got {
		if !maps.Equal(c.VolumeContext, want) {
			t.Errorf("%s reached the NFS plugin with volume context %v; want %v", c.Method, c.VolumeContext, want)
		}
		if !slices.Equal(c.MountFlags, pv.Spec.MountOptions) {
			t.Errorf("%s mount flags %v; want the PV's mount options %v", c.Method, c.MountFlags, pv.Spec.MountOptions)
		}
		if len(c.SecretKeys) > 0 {
			t.Errorf("%s passed secrets %v to the NFS plugin; manila-csi-plugin's NFS adapter passes none", c.Method, c.SecretKeys)
		}
	}

	if err := k.UnmountForPod(ctx, pv, podUID); err != nil {
		t.Fatalf("unmounting for the pod: %v", err)
	}
	unpublish, err := node.LastCall("NodeUnpublishVolume", id)
	if err != nil {
		t.Fatal(err)
	}
	if unpublish.TargetPath != k.TargetPath(pv, podUID) {
		t.Errorf("NodeUnpublish target %q, want %q", unpublish.TargetPath, k.TargetPath(pv, podUID))
	}
	if k.Stages {
		unstage, err := node.LastCall("NodeUnstageVolume", id)
		if err != nil {
			t.Fatal(err)
		}
		if unstage.StagingTargetPath != k.StagingPath(pv) {
			t.Errorf("NodeUnstage staging path %q, want %q", unstage.StagingTargetPath, k.StagingPath(pv))
		}
	}
}

// wantVolumeContext is the volume context the NFS plugin must get for the share: with no runtime
// config, manila-csi-plugin takes the first preferred export location. The test backend exports
// each share on two networks; which one the driver chose shows in the test log.
func wantVolumeContext(t *testing.T, w *framework.World, shareID string) map[string]string {
	t.Helper()
	locations, err := w.OpenStack.ExportLocations(context.Background(), shareID)
	if err != nil {
		t.Fatal(err)
	}
	if len(locations) != 2 {
		t.Fatalf("share %s has export locations %+v; the test backend exports each share on two networks", shareID, locations)
	}
	i := slices.IndexFunc(locations, func(l framework.ExportLocation) bool { return l.Preferred && !l.IsAdminOnly })
	if i < 0 {
		t.Fatalf("share %s has no preferred export location: %+v", shareID, locations)
	}
	server, path, _ := strings.Cut(locations[i].Path, ":")
	t.Logf("export locations %+v; without a runtime config the driver's choice is %s", locations, locations[i].Path)
	return map[string]string{"server": server, "share": path}
}

// nodeRotation switches the credentials to a user of their own, mounts with them, then changes the
// password in Keystone: while the driver Secret still holds the old one, a NodeStage fails to log in
// (the node plugin logs in with the secrets of each call) and reaches nothing; once the new
// clouds.yaml is synced into the driver Secret, the next NodeStage reaches the NFS plugin. It returns
// the rotated clouds.yaml.
func nodeRotation(t *testing.T, w *framework.World, node *framework.NodeWorld, k *framework.Kubelet, pv *corev1.PersistentVolume, first, second string) []byte {
	ctx := context.Background()
	const user = "node-rotator"
	clouds, err := w.OpenStack.CreateProjectUser(ctx, user, first, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteCloudCredentials(ctx, clouds); err != nil {
		t.Fatal(err)
	}
	waitDriverSecret(t, "the node rotator's first password", func(data map[string][]byte) error {
		if string(data["os-userName"]) != user || string(data["os-password"]) != first {
			return fmt.Errorf("os-userName %q, not the rotator's first password", data["os-userName"])
		}
		return nil
	})
	mountAndUnmount(t, w, node, k, pv, "pod-3")

	if err := w.OpenStack.SetUserPassword(ctx, user, second); err != nil {
		t.Fatal(err)
	}
	before, err := node.Calls()
	if err != nil {
		t.Fatal(err)
	}
	var callErr *framework.NodeCallError
	if err := k.NodeStage(ctx, pv); !errors.As(err, &callErr) || !strings.HasPrefix(callErr.Status, "Unauthenticated") {
		t.Fatalf("NodeStage with the old password in the driver Secret: %v; want Unauthenticated", err)
	}
	if after, err := node.Calls(); err != nil || len(after) != len(before) {
		t.Fatalf("a NodeStage that could not log in reached the NFS plugin (%d calls, then %d; %v)", len(before), len(after), err)
	}

	rotated := bytes.Replace(clouds, []byte(first), []byte(second), 1)
	if err := w.WriteCloudCredentials(ctx, rotated); err != nil {
		t.Fatal(err)
	}
	waitDriverSecret(t, "the rotated password", func(data map[string][]byte) error {
		if string(data["os-password"]) != second {
			return fmt.Errorf("os-password not rotated yet")
		}
		return nil
	})
	mountAndUnmount(t, w, node, k, pv, "pod-4")
	return rotated
}

// nodePrivateCA puts Keystone and Manila behind TLS with a CA of the test's own, gives the operator
// the CA as an admin does (openshift-config/cloud-provider-config) and waits until the driver Secret
// points at it and the node DaemonSet mounts it; a node pod of that DaemonSet then stages and
// publishes: its Keystone login and Manila calls trust the private CA.
func nodePrivateCA(t *testing.T, w *framework.World, pv *corev1.PersistentVolume, clouds []byte) {
	ctx := context.Background()
	o := w.OpenStack
	proxy := framework.StartTLSProxy(t, fmt.Sprintf("http://127.0.0.1:%d", o.KeystonePort))
	manilaTLS := proxy.Serve(t, fmt.Sprintf("http://127.0.0.1:%d", o.ManilaPort))
	if err := o.RemoveManilaFromCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	if err := o.RegisterManilaAtURL(ctx, manilaTLS); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: names.CloudConfigMap, Namespace: names.CloudConfigNamespace},
		Data: map[string]string{names.CABundleKey: string(proxy.CAPEM), "config": "[Global]\n"}}
	if _, err := w.Kube.CoreV1().ConfigMaps(names.CloudConfigNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = w.Kube.CoreV1().ConfigMaps(names.CloudConfigNamespace).Delete(context.Background(), names.CloudConfigMap, metav1.DeleteOptions{})
	})
	authURL := proxy.URL + "/v3"
	if err := w.WriteCloudCredentials(ctx, bytes.Replace(clouds, []byte(o.AuthURL()), []byte(authURL), 1)); err != nil {
		t.Fatal(err)
	}
	waitDriverSecret(t, "CA path and TLS auth URL", func(data map[string][]byte) error {
		if string(data["os-certAuthorityPath"]) != cloudcredentials.CAPath || string(data["os-authURL"]) != authURL {
			return fmt.Errorf("os-certAuthorityPath %q, os-authURL %q", data["os-certAuthorityPath"], data["os-authURL"])
		}
		return nil
	})
	caDir := filepath.Dir(cloudcredentials.CAPath)
	w.WaitForDaemonSet(t, framework.NodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		return wantMounts(ds.Spec.Template.Spec, map[string]string{"openstack-ca": caDir})
	})

	// The DaemonSet's new pod, with the CA volume.
	node := w.StartNode(t, framework.NodeOptions{StageUnstage: true})
	k, err := node.Kubelet(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	mountAndUnmount(t, w, node, k, pv, "pod-5")
	node.Stop(t)
}

// restorePlainOpenStack puts Manila back in the catalog over plain HTTP, writes the credentials with
// Keystone's plain URL and waits until the driver Secret names no CA: the rest of the test, and the
// tests after it, use the world's plain OpenStack.
func restorePlainOpenStack(t *testing.T, w *framework.World, clouds []byte) {
	t.Helper()
	ctx := context.Background()
	if err := w.Kube.CoreV1().ConfigMaps(names.CloudConfigNamespace).Delete(ctx, names.CloudConfigMap, metav1.DeleteOptions{}); err != nil {
		t.Logf("deleting the CA ConfigMap: %v", err)
	}
	if err := w.OpenStack.RemoveManilaFromCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.OpenStack.RegisterManilaInCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteCloudCredentials(ctx, clouds); err != nil {
		t.Fatal(err)
	}
	waitDriverSecret(t, "plain HTTP without a CA", func(data map[string][]byte) error {
		if _, ok := data["os-certAuthorityPath"]; ok || string(data["os-authURL"]) != w.OpenStack.AuthURL() {
			return fmt.Errorf("os-certAuthorityPath %q, os-authURL %q", data["os-certAuthorityPath"], data["os-authURL"])
		}
		return nil
	})
}

// noSecretInNodeWorld checks that the world's secrets and the others given show in none of the node
// world's logs nor in what the NFS stand-in recorded.
func noSecretInNodeWorld(t *testing.T, w *framework.World, node *framework.NodeWorld, others ...string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(node.LogDir, "*.log"))
	for _, path := range append(files, node.RecordPath) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, sentinel := range append(w.OpenStack.Sentinels(), others...) {
			if strings.Contains(string(b), sentinel) {
				t.Errorf("%s shows one of the world's secrets", filepath.Base(path))
			}
		}
	}
}
