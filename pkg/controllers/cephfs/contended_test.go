package cephfs

import (
	"context"
	"errors"
	"testing"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
)

func TestRequeueWhenContended(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "operator.openshift.io", Resource: "clustercsidrivers"}, "manila.csi.openstack.org", errors.New("the object has been modified"))
	broken := errors.New("listing PersistentVolumes: the cache is gone")
	for _, tc := range []struct {
		name        string
		syncErr     error
		wantErr     error
		wantRequeue bool
	}{
		{"a sync that worked", nil, nil, false},
		{"a conflict that outlasted the retries is synced again, not returned", conflict, nil, true},
		{"any other error is returned, for the factory's Degraded", broken, broken, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			syncCtx := factory.NewSyncContext(ControllerName, events.NewInMemoryRecorder(ControllerName, clock.RealClock{}))
			defer syncCtx.Queue().ShutDown()
			sync := requeueWhenContended(func(context.Context, factory.SyncContext) error { return tc.syncErr })
			if err := sync(context.Background(), syncCtx); !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("sync returned %v; want %v", err, tc.wantErr)
			}
			// A rate-limited add shows in the limiter's count at once, before its delay.
			requeued := syncCtx.Queue().NumRequeues(syncCtx.QueueKey()) > 0
			if requeued != tc.wantRequeue {
				t.Errorf("requeued %v; want %v", requeued, tc.wantRequeue)
			}
		})
	}
}
