package framework

import (
	"context"
	"fmt"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	operatorinformers "github.com/openshift/client-go/operator/informers/externalversions"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// hccoDrivers are the ClusterCSIDrivers HyperShift's hosted-cluster-config-operator keeps in an
// OpenStack guest (its resources controller's reconcileStorage: Cinder's and Manila's).
var hccoDrivers = []string{CinderCSIDriver, names.CSIDriverName}

// startHCCOStandIn stands in, until ctx ends, for the part of HyperShift's hosted-cluster-config-operator
// (HCCO) that acts on the guest's ClusterCSIDrivers: it creates each of hccoDrivers where missing and,
// on every change of one, sets its spec back to managementState Managed, logLevel and operatorLogLevel
// Normal (HCCO's storage.ReconcileClusterCSIDriver, run by its resources controller, which watches
// ClusterCSIDrivers). So in a hosted cluster the guest's admin cannot keep an Unmanaged. HCCO does the
// same to the guest's Storage CR, which only a guest with CSO's CRD has; that part is not stood in for.
func startHCCOStandIn(ctx context.Context, guest *ControlPlane) error {
	crs := guest.Operator.OperatorV1().ClusterCSIDrivers()
	for _, name := range hccoDrivers {
		_, err := crs.Create(ctx, &operatorv1.ClusterCSIDriver{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: operatorv1.ClusterCSIDriverSpec{OperatorSpec: hccoSpec(operatorv1.OperatorSpec{})}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("HCCO stand-in: creating ClusterCSIDriver %s: %w", name, err)
		}
	}
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, 5*time.Second))
	factory := operatorinformers.NewSharedInformerFactory(guest.Operator, 10*time.Minute)
	informer := factory.Operator().V1().ClusterCSIDrivers().Informer()
	enqueue := func(obj any) {
		if cr, ok := obj.(*operatorv1.ClusterCSIDriver); ok {
			queue.Add(cr.Name)
		}
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	go func() {
		<-ctx.Done()
		queue.ShutDown()
		factory.Shutdown()
	}()
	go func() {
		for {
			name, quit := queue.Get()
			if quit {
				return
			}
			if err := hccoReconcile(ctx, guest, name); err != nil && ctx.Err() == nil {
				queue.AddRateLimited(name)
			} else {
				queue.Forget(name)
			}
			queue.Done(name)
		}
	}()
	return nil
}

// hccoReconcile sets the spec of ClusterCSIDriver name as HCCO keeps it, if it is one of hccoDrivers.
func hccoReconcile(ctx context.Context, guest *ControlPlane, name string) error {
	known := false
	for _, d := range hccoDrivers {
		known = known || d == name
	}
	if !known {
		return nil
	}
	crs := guest.Operator.OperatorV1().ClusterCSIDrivers()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cr, err := crs.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		want := hccoSpec(cr.Spec.OperatorSpec)
		if want.ManagementState == cr.Spec.ManagementState && want.LogLevel == cr.Spec.LogLevel && want.OperatorLogLevel == cr.Spec.OperatorLogLevel {
			return nil
		}
		cr.Spec.OperatorSpec = want
		_, err = crs.Update(ctx, cr, metav1.UpdateOptions{})
		return err
	})
}

// hccoSpec is spec as HCCO's storage.ReconcileOperatorSpec leaves it.
func hccoSpec(spec operatorv1.OperatorSpec) operatorv1.OperatorSpec {
	spec.ManagementState = operatorv1.Managed
	spec.LogLevel = operatorv1.Normal
	spec.OperatorLogLevel = operatorv1.Normal
	return spec
}
