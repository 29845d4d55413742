package integration

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The test backend's two export locations of every share (docs/test-world.md).
const (
	preferredExportAddress = "127.0.0.1"
	storageExportAddress   = "192.0.2.10"
)

// exportLocationsConfig is the node path's operator config with exportLocations.network set, or
// unset for "".
func exportLocationsConfig(network string) string {
	if network == "" {
		return nodePathConfig
	}
	return nodePathConfig + "exportLocations:\n  network: " + network + "\n"
}

// exportLocations.network on the node side, through the real manila-csi-plugin: unset, the NodeStage
// that reaches the NFS plugin carries the share's preferred export location (127.0.0.1); set to a CIDR
// of the backend's storage network, the node DaemonSet's hash of the runtime config changes, and a node
// plugin pod of the rolled DaemonSet stages from 192.0.2.10; machineNetwork, resolved from an install
// config whose single machine network holds 192.0.2.10, does the same; a CIDR that matches neither
// location fails the NodeStage with the driver's InvalidArgument naming the filter, and nothing reaches
// the NFS plugin (no silent mount of the wrong location).
func TestE2EExportLocationSelection(t *testing.T) {
	w := shareWorld(t)
	ctx := context.Background()
	if _, err := w.OpenStack.CreateShareType(ctx, framework.ShareTypeSpec{Name: "default"}); err != nil {
		t.Fatal(err)
	}
	w.DeleteInstallConfig(t)
	w.WriteOperatorConfig(t, exportLocationsConfig(""))
	w.CreateClusterCSIDriver(t, operatorv1.Managed)
	w.RunOperator(t)
	class := w.WaitForClassOfShareType(t, "default")
	w.WaitForDeployment(t, nil)
	w.WaitForDaemonSet(t, framework.NodeDaemonSet, nil)
	w.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, nil)
	w.StartProvisioning(t)

	claim := w.CreateClaim(t, "e2e-exportlocations", "data", class.Name, "1Gi")
	pv := w.WaitForClaimBound(t, claim)
	share := w.WaitForShareAvailable(t, pv.Spec.CSI.VolumeHandle)
	// Registered after the provisioning world, so it runs before the provisioner stops.
	t.Cleanup(func() {
		deleteClaimAndWaitForShareGone(t, w, claim.Namespace, claim.Name, share.ID)
	})
	preferred := exportLocationAt(t, w, share.ID, preferredExportAddress)
	storage := exportLocationAt(t, w, share.ID, storageExportAddress)
	if want := wantVolumeContext(t, w, share.ID); !maps.Equal(want, preferred) {
		t.Fatalf("the backend's preferred export location is %v, not %v", want, preferred)
	}

	unsetHash := runtimeConfigIs(t, `{}`)
	node := w.StartNode(t, framework.NodeOptions{StageUnstage: true})
	t.Run("unset: the preferred location", func(t *testing.T) {
		stageUses(t, w, node, pv, preferred)
	})

	// Each step changes the runtime config, so the node DaemonSet's pod template changes (library-go's
	// hash of the ConfigMap) and rolls; the node world then starts a pod of the new DaemonSet, whose
	// volumes hold the new runtime config.
	hash := unsetHash
	roll := func(t *testing.T, network, runtimeConfig string) {
		t.Helper()
		w.WriteOperatorConfig(t, exportLocationsConfig(network))
		next := runtimeConfigIs(t, runtimeConfig)
		if next == hash {
			t.Fatalf("exportLocations.network %s: the node DaemonSet's hash %s of the runtime config did not change", network, next)
		}
		hash = next
		node.Stop(t)
		node = w.StartNode(t, framework.NodeOptions{StageUnstage: true})
	}

	t.Run("a CIDR of the storage network", func(t *testing.T) {
		roll(t, "192.0.2.0/24", `{"nfs":{"matchExportLocationAddress":"192.0.2.0/24"}}`)
		stageUses(t, w, node, pv, storage)
	})
	// A machine network other than the CIDR above, so that the runtime config, and with it the pod
	// template, changes again; it holds the storage location's address.
	t.Run("machineNetwork", func(t *testing.T) {
		w.WriteInstallConfig(t, installConfig("  machineNetwork:\n  - cidr: 192.0.2.0/25\n"))
		roll(t, "machineNetwork", `{"nfs":{"matchExportLocationAddress":"192.0.2.0/25"}}`)
		stageUses(t, w, node, pv, storage)
	})
	t.Run("a CIDR matching no location is the driver's InvalidArgument", func(t *testing.T) {
		const network = "198.51.100.0/24"
		roll(t, network, `{"nfs":{"matchExportLocationAddress":"`+network+`"}}`)
		k, err := node.Kubelet(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		before, err := node.Calls()
		if err != nil {
			t.Fatal(err)
		}
		err = k.NodeStage(ctx, pv)
		var callErr *framework.NodeCallError
		if !errors.As(err, &callErr) || !strings.HasPrefix(callErr.Status, "InvalidArgument") ||
			!strings.Contains(callErr.Status, "matchExportLocationAddress filter '"+network+"': no match") {
			t.Fatalf("NodeStage with a filter matching no export location: %v; want InvalidArgument naming the filter %s", err, network)
		}
		t.Logf("the kubelet sees: %s", callErr.Status)
		if after, err := node.Calls(); err != nil || len(after) != len(before) {
			t.Fatalf("a NodeStage the driver refused reached the NFS plugin (%d calls, then %d; %v)", len(before), len(after), err)
		}
	})

	// Back to unset for the tests after this one: the first hash, and the preferred location again.
	t.Run("unset again", func(t *testing.T) {
		w.WriteOperatorConfig(t, exportLocationsConfig(""))
		if got := runtimeConfigIs(t, `{}`); got != unsetHash {
			t.Errorf("hash %s, want %s as at first", got, unsetHash)
		}
		hash = unsetHash
		node.Stop(t)
		node = w.StartNode(t, framework.NodeOptions{StageUnstage: true})
		stageUses(t, w, node, pv, preferred)
	})
	node.Stop(t)
	w.DeleteInstallConfig(t)
}

// exportLocationAt is the volume context (server, share) of the share's export location at the address.
func exportLocationAt(t *testing.T, w *framework.World, shareID, address string) map[string]string {
	t.Helper()
	locations, err := w.OpenStack.ExportLocations(context.Background(), shareID)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range locations {
		if server, path, _ := strings.Cut(l.Path, ":"); server == address {
			return map[string]string{"server": server, "share": path}
		}
	}
	t.Fatalf("share %s has no export location at %s: %+v", shareID, address, locations)
	return nil
}

// stageUses stages the volume as the kubelet does on the node world's driver and checks that the
// NodeStage reaching the NFS plugin carries the export location want; then it unstages.
func stageUses(t *testing.T, w *framework.World, node *framework.NodeWorld, pv *corev1.PersistentVolume, want map[string]string) {
	t.Helper()
	ctx := context.Background()
	k, err := node.Kubelet(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if !k.Stages {
		t.Fatal("manila-csi-plugin does not report STAGE_UNSTAGE_VOLUME although the NFS stand-in does")
	}
	// As the kubelet, retry a failed stage (a first token can be refused by Manila for a moment).
	framework.Eventually(t, framework.DefaultTimeout, "the kubelet's NodeStage", func(ctx context.Context) error {
		return k.NodeStage(ctx, pv)
	})
	stage, err := node.LastCall("NodeStageVolume", pv.Spec.CSI.VolumeHandle)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(stage.VolumeContext, want) {
		t.Errorf("NodeStage reached the NFS plugin with volume context %v; want %v", stage.VolumeContext, want)
	}
	if err := k.NodeUnstage(ctx, pv); err != nil {
		t.Errorf("NodeUnstage: %v", err)
	}
}
