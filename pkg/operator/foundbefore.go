package operator

import (
	"context"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/platform"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
)

// foundBefore says when Manila was found on this cluster by someone else, from the driver they
// installed: CSIDriver manila.csi.openstack.org is created only once Manila was found, by this
// operator and by both predecessors, so a cluster that has it has had Manila since it was created.
// Off OpenStack nothing counts: there the operator installs nothing whatever it finds.
func foundBefore(driver *storagev1.CSIDriver, otherPlatform configv1.PlatformType) (at string, ok bool) {
	if driver == nil || otherPlatform != "" {
		return "", false
	}
	return driver.CreationTimestamp.UTC().Format(time.RFC3339), true
}

// installedDriver reads CSIDriver manila.csi.openstack.org; nil when there is none.
func installedDriver(ctx context.Context, kube kubernetes.Interface) (*storagev1.CSIDriver, error) {
	driver, err := kube.StorageV1().CSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return driver, err
}

// adoptFoundBefore records in the state ConfigMap that Manila was found, when a driver someone else
// installed says so (foundBefore), and returns when: a takeover then keeps the operand and never
// reads an OpenStack that is down for the moment as a cloud without Manila.
func adoptFoundBefore(ctx context.Context, c *clients, store *state.Store) (at string, found bool, err error) {
	driver, err := installedDriver(ctx, c.kube)
	if err != nil {
		return "", false, err
	}
	if at, found = foundBefore(driver, platform.OtherFrom(c.configInformer.Config().V1().Infrastructures().Lister())); !found {
		return "", false, nil
	}
	klog.Infof("CSIDriver %s exists since %s: Manila was found on this cluster before this operator ran", names.CSIDriverName, at)
	return at, true, store.Set(ctx, state.ManilaFoundKey, at)
}
