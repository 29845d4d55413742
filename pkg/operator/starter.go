// Package operator wires informers and controllers for the ClusterCSIDriver manila.csi.openstack.org.
package operator

import (
	"context"
	"fmt"

	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/operator/csi/csicontrollerset"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// Run starts the operator's informers and controllers and blocks until ctx is done.
func Run(ctx context.Context, cc *controllercmd.ControllerContext) error {
	var clk clock.PassiveClock = clock.RealClock{}
	if cc.Clock != nil {
		clk = cc.Clock
	}
	operatorClient, dynamicInformers, err := newOperatorClient(clk, cc.KubeConfig)
	if err != nil {
		return fmt.Errorf("ClusterCSIDriver client: %w", err)
	}

	controllers := csicontrollerset.NewCSIControllerSet(operatorClient, cc.EventRecorder).
		WithLogLevelController().
		WithManagementStateController("Manila", false)

	klog.Infof("Starting %s for ClusterCSIDriver %s", names.OperatorName, names.CSIDriverName)
	dynamicInformers.Start(ctx.Done())
	controllers.Run(ctx, 1)

	<-ctx.Done()
	return nil
}
