package storageclasses

import (
	"context"
	"errors"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
)

// Every delete, for pruning or to recreate, names the UID and resourceVersion the plan saw.
func TestDeletesCarryPreconditions(t *testing.T) {
	seen := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "csi-manila-gold", UID: "uid-1", ResourceVersion: "7"}}
	wanted := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "csi-manila-gold"}}
	client := fake.NewClientset(seen.DeepCopy())
	var got []*metav1.Preconditions
	client.PrependReactor("delete", "storageclasses", func(a clienttesting.Action) (bool, runtime.Object, error) {
		got = append(got, a.(clienttesting.DeleteActionImpl).DeleteOptions.Preconditions)
		return false, nil, nil
	})
	c := &Controller{client: client.StorageV1(), absent: map[string]int{}, recent: testRecent(), clock: clock.RealClock{}}
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	for _, a := range []classplan.Action{
		{Kind: classplan.Recreate, Class: wanted, Existing: seen},
		{Kind: classplan.Delete, Class: seen},
	} {
		_ = c.apply(context.Background(), recorder, []classplan.Action{a})
	}
	if len(got) != 2 {
		t.Fatalf("%d deletes, want 2", len(got))
	}
	for i, p := range got {
		if p == nil || p.UID == nil || *p.UID != "uid-1" || p.ResourceVersion == nil || *p.ResourceVersion != "7" {
			t.Errorf("delete %d preconditions %+v, want UID uid-1 and resourceVersion 7", i, p)
		}
	}
}

func TestNeedsSync(t *testing.T) {
	for _, tc := range []struct {
		name     string
		listing  *manilatypes.Listing
		counting bool
		want     bool
	}{
		{"no listing yet", nil, false, true},
		{"a changed listing", &manilatypes.Listing{Seq: 2}, false, true},
		{"the same listing again", &manilatypes.Listing{Seq: 3, Unchanged: true}, false, false},
		{"the same listing while a class counts toward pruning", &manilatypes.Listing{Seq: 3, Unchanged: true}, true, true},
	} {
		if got := needsSync(tc.listing, tc.counting); got != tc.want {
			t.Errorf("%s: needsSync = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A plan made while Managed is not applied once the ClusterCSIDriver reads Unmanaged: nothing is sent,
// no event says otherwise, and apply says why (the sync then writes no condition either).
func TestApplyStopsWhenNoLongerManaged(t *testing.T) {
	seen := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "csi-manila-gold", UID: "uid-1", ResourceVersion: "7"}}
	client := fake.NewClientset(seen.DeepCopy())
	unmanaged := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Unmanaged}, &operatorv1.OperatorStatus{}, nil)
	c := &Controller{client: managementstate.GatedStorageClasses(client.StorageV1(), unmanaged), absent: map[string]int{}, recent: testRecent(), clock: clock.RealClock{}}
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	err := c.apply(context.Background(), recorder, []classplan.Action{
		{Kind: classplan.Create, Class: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "csi-manila-silver"}}},
		{Kind: classplan.Update, Class: seen},
		{Kind: classplan.Delete, Class: seen},
	})
	if !errors.Is(err, managementstate.ErrNotManaged) {
		t.Errorf("apply: %v, want ErrNotManaged", err)
	}
	if n := len(client.Actions()); n != 0 {
		t.Errorf("%d requests sent: %v", n, client.Actions())
	}
	if n := len(recorder.Events()); n != 0 {
		t.Errorf("%d events sent: %v", n, recorder.Events())
	}
}
