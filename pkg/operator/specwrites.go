package operator

import (
	"context"
	"sync"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
)

// specReads is how many (resourceVersion, spec) reads specWrites remembers: enough for the few
// spec writers (library-go's config observer) between two reads, bounded whatever happens.
const specReads = 16

// specWrites is the ClusterCSIDriver's operator client whose spec updates conflict only with spec
// changes. Library-go updates the whole object with the resourceVersion it read, and a status write
// (this operator's controllers write conditions, cluster-storage-operator reads them) changes that
// version too: its config observer then reports the conflict as ConfigObservationDegraded, which
// cluster-storage-operator shows as a degraded cluster. When an update conflicts and the live spec is
// still the one the writer read, nothing it based its change on moved: once the informer holds the live
// version, it is written again on it. A spec that did change is a real conflict, returned as such.
type specWrites struct {
	v1helpers.OperatorClientWithFinalizers

	mu    sync.Mutex
	order []string
	read  map[string]*operatorv1.OperatorSpec
}

func withSpecWrites(c v1helpers.OperatorClientWithFinalizers) *specWrites {
	return &specWrites{OperatorClientWithFinalizers: c, read: map[string]*operatorv1.OperatorSpec{}}
}

func (c *specWrites) remember(spec *operatorv1.OperatorSpec, rv string) {
	if spec == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.read[rv]; ok {
		return
	}
	c.read[rv] = spec.DeepCopy()
	c.order = append(c.order, rv)
	if len(c.order) > specReads {
		delete(c.read, c.order[0])
		c.order = c.order[1:]
	}
}

func (c *specWrites) base(rv string) *operatorv1.OperatorSpec {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read[rv]
}

func (c *specWrites) GetOperatorState() (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	spec, status, rv, err := c.OperatorClientWithFinalizers.GetOperatorState()
	if err == nil {
		c.remember(spec, rv)
	}
	return spec, status, rv, err
}

func (c *specWrites) GetOperatorStateWithQuorum(ctx context.Context) (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	spec, status, rv, err := c.OperatorClientWithFinalizers.GetOperatorStateWithQuorum(ctx)
	if err == nil {
		c.remember(spec, rv)
	}
	return spec, status, rv, err
}

func (c *specWrites) UpdateOperatorSpec(ctx context.Context, rv string, in *operatorv1.OperatorSpec) (*operatorv1.OperatorSpec, string, error) {
	out, newRV, err := c.OperatorClientWithFinalizers.UpdateOperatorSpec(ctx, rv, in)
	base := c.base(rv)
	if !apierrors.IsConflict(err) || base == nil {
		return out, newRV, err
	}
	liveSpec, _, liveRV, gerr := c.GetOperatorStateWithQuorum(ctx)
	if gerr != nil || !equality.Semantic.DeepEqual(liveSpec, base) {
		return out, newRV, err
	}
	// Library-go writes the informer's copy of the object: wait until it is the live version, so that
	// no metadata change made meanwhile is written over.
	caughtUp := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Second, true, func(context.Context) (bool, error) {
		_, _, rv, err := c.OperatorClientWithFinalizers.GetOperatorState()
		return err == nil && rv == liveRV, nil
	})
	if caughtUp != nil {
		return out, newRV, err
	}
	return c.OperatorClientWithFinalizers.UpdateOperatorSpec(ctx, liveRV, in)
}
