package cephfs

import (
	"context"
	"errors"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate/statetest"
)

// The instance's leftovers are deleted only while the ClusterCSIDriver is Managed at the moment of
// each delete: an admin who sets Unmanaged while a removal runs keeps what is left.
func TestRemoveObjectsStopsWhenNoLongerManaged(t *testing.T) {
	for _, tc := range []struct {
		name        string
		state       operatorv1.ManagementState
		managedFor  int // reads that say Managed before the state above shows (-1: always)
		wantDeletes int
		wantErr     error
	}{
		{name: "Managed: every leftover deleted", state: operatorv1.Managed, managedFor: -1, wantDeletes: 2},
		{name: "Unmanaged: nothing deleted", state: operatorv1.Unmanaged, wantErr: managementstate.ErrNotManaged},
		{name: "set Unmanaged after the first delete", state: operatorv1.Unmanaged, managedFor: 3, wantDeletes: 1, wantErr: managementstate.ErrNotManaged},
		{name: "set Removed before the leftovers", state: operatorv1.Removed, managedFor: 2, wantErr: managementstate.ErrNotManaged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := statetest.ManagedFor(v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: tc.state}, &operatorv1.OperatorStatus{}, nil), tc.managedFor)
			// No VolumeSnapshotClass or ServiceMonitor named: their deletes send nothing, their gates
			// still read the state (the first two reads).
			c := &Controller{d: Deps{OperatorClient: condition.Declared(op, conditiontypes.New(nil))}}
			deletes := 0
			leftover := func() error { deletes++; return nil }
			err := c.removeObjects(context.Background(), []func() error{leftover, leftover}, events.NewInMemoryRecorder("test", clock.RealClock{}))
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("removeObjects: %v; want %v", err, tc.wantErr)
			}
			if deletes != tc.wantDeletes {
				t.Errorf("%d leftovers deleted; want %d", deletes, tc.wantDeletes)
			}
		})
	}
}
