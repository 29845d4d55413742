package integration

import (
	"context"
	"fmt"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// Hosted as standalone: the guest's class from the predecessor is adopted in place; a restarted
// operator keeps the promise of its state ConfigMap (in the HCP namespace) with OpenStack down; and an
// Unmanaged set by the guest's admin does not hold (HyperShift sets it back to Managed) and the
// operator goes on managing the guest's operand.
func TestHostedTakeoverRestartAndUnmanaged(t *testing.T) {
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	hw := world.StartHosted(t, framework.HostedOptions{})
	ctx := context.Background()
	predecessor, err := hw.Guest.Kube.StorageV1().StorageClasses().Create(ctx, framework.PredecessorClass(framework.Predecessor418, "default"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts, counter := framework.OperatorOptions()
	op := hw.RunHostedOperator(t, opts, counter)

	hw.Guest.WaitForStorageClass(t, predecessor.Name, func(sc *storagev1.StorageClass) error {
		if sc.UID != predecessor.UID {
			return fmt.Errorf("recreated (uid %s, was %s): want it adopted in place", sc.UID, predecessor.UID)
		}
		if sc.Labels[classplan.OwnerLabel] != classplan.OwnerLabelValue {
			return fmt.Errorf("labels %v: not adopted yet", sc.Labels)
		}
		return nil
	})
	hw.Guest.WaitForDaemonSet(t, framework.NodeDaemonSet, nil)
	framework.Eventually(t, framework.DefaultTimeout, "Manila found, in the HCP namespace's state", func(ctx context.Context) error {
		cm, err := hw.Kube.CoreV1().ConfigMaps(hw.HCPNamespace).Get(ctx, state.ConfigMapName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Data[state.ManilaFoundKey] == "" {
			return fmt.Errorf("no %s yet", state.ManilaFoundKey)
		}
		return nil
	})

	// Restarted while Keystone is down: the operand is kept from the state alone.
	op.Stop()
	if err := world.OpenStack.StopKeystone(); err != nil {
		t.Fatal(err)
	}
	keystoneUp := false
	t.Cleanup(func() {
		if !keystoneUp {
			_ = world.OpenStack.StartKeystone()
		}
	})
	if err := hw.Guest.Kube.AppsV1().DaemonSets("openshift-manila-csi-driver").Delete(ctx, framework.NodeDaemonSet, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	hw.RunHostedOperator(t, opts, counter)
	hw.Guest.WaitForDaemonSet(t, framework.NodeDaemonSet, nil)
	if err := world.OpenStack.StartKeystone(); err != nil {
		t.Fatal(err)
	}
	keystoneUp = true

	// Unmanaged cannot be kept in a hosted cluster: HyperShift's hosted-cluster-config-operator sets the
	// guest's ClusterCSIDriver back to Managed, and the operator goes on managing the guest's operand (a
	// deleted DaemonSet comes back).
	hw.Guest.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) { d.Spec.ManagementState = operatorv1.Unmanaged })
	framework.Eventually(t, framework.DefaultTimeout, "the guest's ClusterCSIDriver Managed again (the hosted-cluster-config-operator)", func(ctx context.Context) error {
		cr, err := hw.Guest.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cr.Spec.ManagementState != operatorv1.Managed {
			return fmt.Errorf("managementState %q", cr.Spec.ManagementState)
		}
		return nil
	})
	if err := hw.Guest.Kube.AppsV1().DaemonSets("openshift-manila-csi-driver").Delete(ctx, framework.NFSNodeDaemonSet, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	hw.Guest.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, func(*appsv1.DaemonSet) error { return nil })
}
