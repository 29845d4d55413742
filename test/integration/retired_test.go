package integration

import (
	"context"
	"fmt"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

const (
	// retiredPDB is the controller's PDB as an earlier release of this operator named it.
	retiredPDB = "manila-csi-driver-controller-pdb"
	// currentPDB is the one it applies now, under the predecessors' name.
	currentPDB = "openstack-manila-csi-controllerplugin-pdb"
)

// The PDB an earlier release named is deleted, whether it is there when the operator starts or made
// again while it runs (an old pod's last apply during a rollout): two PDBs selecting the controller's
// pods would block every node drain. The current PDB is applied and stays.
func TestRetiredPDBIsDeleted(t *testing.T) {
	world.ResetOperand(t)
	createShareType(t, framework.ShareTypeSpec{Name: "retired_pdb"}) // the operand starts once Manila has one
	pdbs := world.Kube.PolicyV1().PodDisruptionBudgets(names.OperandNamespace)
	create := func() {
		t.Helper()
		one := intstr.FromInt32(1)
		_, err := pdbs.Create(context.Background(), &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: retiredPDB, Namespace: names.OperandNamespace},
			Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "openstack-manila-csi", "component": "controllerplugin"}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if err := pdbs.Delete(context.Background(), retiredPDB, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting PDB %s: %v", retiredPDB, err)
		}
	})
	waitGone := func(when string) {
		t.Helper()
		framework.Eventually(t, framework.DefaultTimeout, "PDB "+retiredPDB+" deleted "+when, func(ctx context.Context) error {
			_, err := pdbs.Get(ctx, retiredPDB, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("still there (%v)", err)
		})
	}

	create()
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.RunOperator(t)
	waitGone("at the start")
	framework.Eventually(t, framework.DefaultTimeout, "PDB "+currentPDB+" applied", func(ctx context.Context) error {
		_, err := pdbs.Get(ctx, currentPDB, metav1.GetOptions{})
		return err
	})
	create()
	waitGone("after it was made again while the operator ran")
	if _, err := pdbs.Get(context.Background(), currentPDB, metav1.GetOptions{}); err != nil {
		t.Errorf("PDB %s: %v", currentPDB, err)
	}
}
