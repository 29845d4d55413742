package operator

import (
	"context"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// observedConfigClient is the operator client library-go's config observer writes spec.observedConfig
// through. At start a dozen controllers write the ClusterCSIDriver's status at once, and the
// observer's few conflict retries run out: it then reports ConfigObservationDegraded for a write race.
// This client retries longer, each time onto the latest spec with only observedConfig carried over,
// the one field the observer writes, so nobody else's change is undone.
type observedConfigClient struct {
	v1helpers.OperatorClient
}

const observedConfigRetries = 10

func (c observedConfigClient) UpdateOperatorSpec(ctx context.Context, resourceVersion string, in *operatorv1.OperatorSpec) (*operatorv1.OperatorSpec, string, error) {
	out, rv, err := c.OperatorClient.UpdateOperatorSpec(ctx, resourceVersion, in)
	for i := 0; i < observedConfigRetries && apierrors.IsConflict(err); i++ {
		select {
		case <-ctx.Done():
			return nil, "", ctx.Err()
		case <-time.After(time.Duration(i*20) * time.Millisecond):
		}
		latest, _, latestRV, getErr := c.GetOperatorStateWithQuorum(ctx)
		if getErr != nil {
			return nil, "", getErr
		}
		next := latest.DeepCopy()
		next.ObservedConfig = in.ObservedConfig
		out, rv, err = c.OperatorClient.UpdateOperatorSpec(ctx, latestRV, next)
	}
	return out, rv, err
}
