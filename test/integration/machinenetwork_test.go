package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// installConfig is an install config as the installer keeps it in kube-system/cluster-config-v1,
// with the given networking section.
func installConfig(networking string) string {
	return "apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: mn\nplatform:\n  openstack:\n    cloud: openstack\n" +
		"networking:\n  networkType: OVNKubernetes\n  clusterNetwork:\n  - cidr: 10.128.0.0/14\n    hostPrefix: 23\n  serviceNetwork:\n  - 172.30.0.0/16\n" + networking
}

// shareClients checks a class's nfs-shareClient and returns it with its UID.
func shareClients(want string) func(*storagev1.StorageClass) error {
	return func(sc *storagev1.StorageClass) error {
		if got, ok := sc.Parameters["nfs-shareClient"]; !ok || got != want {
			return fmt.Errorf("nfs-shareClient %q (set: %v), want %q", got, ok, want)
		}
		return nil
	}
}

// Classes open to any host, by default or explicitly, are named in a warning event and a condition
// that is not Degraded. machineNetwork then resolves from the install config (dual-stack), in the
// defaults and inside a per-type list; a change of the install config (an older install's
// machineCIDR) recreates the classes with the new list, and the warning goes.
func TestMachineNetworkFromInstallConfig(t *testing.T) {
	world.WriteInstallConfig(t, installConfig("  machineNetwork:\n  - cidr: fd00:10::/64\n  - cidr: 10.0.0.0/16\n"))
	startOperator(t, "storageClasses:\n  shareTypes:\n    mn-open:\n      nfs-shareClient: 10.0.0.0/8, 0.0.0.0/0\n",
		framework.ShareTypeSpec{Name: "mn-gold"}, framework.ShareTypeSpec{Name: "mn-open"})
	world.WaitForStorageClass(t, "csi-manila-mn-gold", nil)
	cond := world.WaitForCondition(t, storageclasses.ConditionOpenNFSAccess, operatorv1.ConditionTrue)
	if !strings.Contains(cond.Message, "csi-manila-mn-gold, csi-manila-mn-open") || !strings.Contains(cond.Message, "nfs-shareClient: machineNetwork") {
		t.Errorf("condition %s: %q does not name both classes and the remedy", cond.Type, cond.Message)
	}
	waitForEvent(t, "StorageClassOpenToAnyHost", "csi-manila-mn-gold, csi-manila-mn-open")
	world.WaitForCondition(t, storageclasses.ConditionDegraded, operatorv1.ConditionFalse)

	world.WriteOperatorConfig(t, `storageClasses:
  defaults:
    nfs-shareClient: machineNetwork
  shareTypes:
    mn-open:
      nfs-shareClient: 192.168.7.0/24,machineNetwork
`)
	gold := world.WaitForStorageClass(t, "csi-manila-mn-gold", shareClients("10.0.0.0/16,fd00:10::/64"))
	world.WaitForStorageClass(t, "csi-manila-mn-open", shareClients("192.168.7.0/24,10.0.0.0/16,fd00:10::/64"))
	world.WaitForNoCondition(t, storageclasses.ConditionOpenNFSAccess)
	waitForEvent(t, "MachineNetworkResolved", "10.0.0.0/16,fd00:10::/64 (from ConfigMap kube-system/cluster-config-v1)")

	world.WriteInstallConfig(t, installConfig("  machineCIDR: 10.1.0.0/16\n"))
	world.WaitForStorageClass(t, "csi-manila-mn-gold", func(sc *storagev1.StorageClass) error {
		if sc.UID == gold.UID {
			return fmt.Errorf("not recreated yet")
		}
		return shareClients("10.1.0.0/16")(sc)
	})
	world.WaitForStorageClass(t, "csi-manila-mn-open", shareClients("192.168.7.0/24,10.1.0.0/16"))
	waitForEvent(t, "StorageClassRecreated", "csi-manila-mn-gold")
	if c := world.Condition(t, storageclasses.ConditionProgressing); c == nil || c.Status != operatorv1.ConditionFalse {
		t.Errorf("%s is %+v, want False", storageclasses.ConditionProgressing, c)
	}
}

// Without an install config machineNetwork is the nodes' InternalIPs: with no node yet the class is
// not created (Progressing says why); nodes appear and it is; a new address recreates it; a
// malformed install config falls back to the nodes and says so; without nodes the last list stays.
func TestMachineNetworkFromNodes(t *testing.T) {
	world.DeleteInstallConfig(t)
	startOperator(t, "storageClasses:\n  defaults:\n    nfs-shareClient: machineNetwork\n",
		framework.ShareTypeSpec{Name: "mn-nodes"})
	cond := world.WaitForCondition(t, storageclasses.ConditionProgressing, operatorv1.ConditionTrue)
	if cond.Reason != "WaitingForMachineNetwork" || !strings.Contains(cond.Message, "csi-manila-mn-nodes") {
		t.Errorf("condition %s: %s %q", cond.Type, cond.Reason, cond.Message)
	}
	framework.Consistently(t, 2*time.Second, "no class with an empty access list", func(ctx context.Context) error {
		if _, err := world.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-mn-nodes", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the class exists (err=%v)", err)
		}
		return nil
	})

	world.CreateNode(t, "mn-node-0", framework.InternalIP("10.0.0.11"), framework.ExternalIP("203.0.113.11"),
		corev1.NodeAddress{Type: corev1.NodeHostName, Address: "mn-node-0"}, framework.InternalIP("fd00::11"))
	first := world.WaitForStorageClass(t, "csi-manila-mn-nodes", shareClients("10.0.0.11/32,fd00::11/128"))
	world.WaitForCondition(t, storageclasses.ConditionProgressing, operatorv1.ConditionFalse)

	world.CreateNode(t, "mn-node-1", framework.InternalIP("10.0.0.9"))
	second := world.WaitForStorageClass(t, "csi-manila-mn-nodes", shareClients("10.0.0.9/32,10.0.0.11/32,fd00::11/128"))
	if second.UID == first.UID {
		t.Errorf("the class was not recreated")
	}
	world.SetNodeAddresses(t, "mn-node-1", framework.InternalIP("10.0.0.10"))
	world.WaitForStorageClass(t, "csi-manila-mn-nodes", shareClients("10.0.0.10/32,10.0.0.11/32,fd00::11/128"))

	world.WriteInstallConfig(t, "networking: [\n")
	waitForEvent(t, "MachineNetworkFallback", "ConfigMap kube-system/cluster-config-v1 key install-config: not a valid install config")
	world.WriteInstallConfig(t, installConfig("  machineNetwork:\n  - cidr: 10.0.0.0/24\n"))
	third := world.WaitForStorageClass(t, "csi-manila-mn-nodes", shareClients("10.0.0.0/24"))

	unchanged := func(ctx context.Context) error {
		sc, err := world.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-mn-nodes", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if sc.UID != third.UID {
			return fmt.Errorf("the class was recreated")
		}
		return shareClients("10.0.0.0/24")(sc)
	}
	// Nodes do not count while the install config gives the network; without both, the last list stays.
	world.DeleteNode(t, "mn-node-0")
	world.DeleteNode(t, "mn-node-1")
	framework.Consistently(t, 2*time.Second, "the install config still rules", unchanged)
	world.DeleteInstallConfig(t)
	world.WaitForCondition(t, storageclasses.ConditionProgressing, operatorv1.ConditionTrue)
	framework.Consistently(t, 2*time.Second, "the class keeps its last list", unchanged)
}
