package workloadselector

import (
	"context"
	"errors"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// A workload's delete and its pods' relabelling are sent only while the ClusterCSIDriver is Managed
// at that moment: a sync that began Managed sends neither once the admin has set Unmanaged.
func TestWritesOnlyWhileManaged(t *testing.T) {
	for _, state := range []operatorv1.ManagementState{operatorv1.Managed, operatorv1.Unmanaged, operatorv1.Removed} {
		t.Run(string(state), func(t *testing.T) {
			op := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: state}, &operatorv1.OperatorStatus{}, nil)
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: names.OperandNamespace, Name: "node-plugin-x"}}
			kube := fake.NewClientset(pod)
			c := &Controller{d: Deps{OperatorClient: condition.Declared(op, conditiontypes.New(nil)), Pods: kube.CoreV1()}}
			removed := 0
			remove := func(context.Context, string, metav1.DeleteOptions) error { removed++; return nil }
			deleteErr := c.delete(context.Background(), remove, metav1.ObjectMeta{Name: "w", UID: "u", ResourceVersion: "1"}, metav1.DeletePropagationOrphan)
			patchErr := c.patchLabels(context.Background(), pod, map[string]string{OrphanLabel: "w"})
			patched := 0
			for _, a := range kube.Actions() {
				if a.GetVerb() == "patch" {
					patched++
				}
			}
			if state == operatorv1.Managed {
				if deleteErr != nil || patchErr != nil || removed != 1 || patched != 1 {
					t.Fatalf("Managed: delete %v (%d sent), patch %v (%d sent); want one of each", deleteErr, removed, patchErr, patched)
				}
				return
			}
			if !errors.Is(deleteErr, managementstate.ErrNotManaged) || !errors.Is(patchErr, managementstate.ErrNotManaged) || removed != 0 || patched != 0 {
				t.Fatalf("%s: delete %v (%d sent), patch %v (%d sent); want ErrNotManaged and nothing sent", state, deleteErr, removed, patchErr, patched)
			}
		})
	}
}
