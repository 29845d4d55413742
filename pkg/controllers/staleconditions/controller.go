// Package staleconditions removes the conditions OpenShift's own Manila operator left on the
// ClusterCSIDriver once this operator leads in its place.
package staleconditions

import (
	"context"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/predecessor"
)

// ControllerName names the controller (it writes no condition of its own).
const ControllerName = "StaleConditionsController"

// Controller removes a predecessor's conditions after a takeover: a predecessor never comes back to
// clear them, and cluster-storage-operator reads a left `...Degraded=True` as a degraded cluster
// (and any `...Disabled` as a disabled driver) for good.
//
// Watches: the ClusterCSIDriver. Writes: its status, removing the condition types that only a
// predecessor writes (predecessor.StaleAfterTakeover: each predecessor's exact types), with an event
// listing them. Policy: it runs only while this operator leads (it is started after the lease gate),
// and while Managed; a predecessor's `...Available` or `...Disabled` goes only once this operator's
// own conditions keep the driver Available in cluster-storage-operator's view (pkg/csoview), so that
// storage never reads as unavailable in between; conditions of anyone else are never touched.
type Controller struct {
	client condition.OperatorClient
	ours   conditiontypes.Set
}

// NewController returns the controller; ours are this operator's condition types.
func NewController(client condition.OperatorClient, ours conditiontypes.Set, recorder events.Recorder) factory.Controller {
	c := &Controller{client: client, ours: ours}
	return factory.New().WithSync(c.sync).WithInformers(client.Informer()).
		ToController(ControllerName, recorder.WithComponentSuffix("stale-conditions"))
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	if managed, err := managementstate.Managed(c.client); err != nil || !managed {
		return err
	}
	_, status, _, err := c.client.GetOperatorState()
	if err != nil {
		return err
	}
	if len(predecessor.StaleAfterTakeover(status.Conditions, c.ours)) == 0 {
		return nil
	}
	// Decided again on the status being written: a condition written since the informer's copy
	// (this operator's Available, a predecessor's last write) changes what may go.
	var stale []string
	if _, err := condition.Update(ctx, c.client, condition.RemoveWhere(func(conds []operatorv1.OperatorCondition) []string {
		return predecessor.StaleAfterTakeover(conds, c.ours)
	}, &stale)); err != nil || len(stale) == 0 {
		return err
	}
	syncCtx.Recorder().Eventf("PredecessorConditionsRemoved", "Removed conditions %v that OpenShift's previous Manila operator left on the ClusterCSIDriver", stale)
	return nil
}
