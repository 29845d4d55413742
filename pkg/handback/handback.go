// Package handback leaves the ClusterCSIDriver as OpenShift's own Manila operator can take it over:
// without the conditions of this operator's controllers.
package handback

import (
	"context"
	"slices"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned/typed/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// Without returns the conditions whose type does not start with one of the controller names; nil
// when none is removed. A predecessor never clears a condition type it does not write itself, and
// cluster-storage-operator reads any `...Disabled` as a disabled driver and any `...Degraded=True`
// as a degraded cluster, so every condition of this operator's controllers must go with it.
func Without(conditions []operatorv1.OperatorCondition, controllers []string) []operatorv1.OperatorCondition {
	kept := slices.DeleteFunc(slices.Clone(conditions), func(c operatorv1.OperatorCondition) bool {
		return slices.ContainsFunc(controllers, func(name string) bool { return strings.HasPrefix(c.Type, name) })
	})
	if len(kept) == len(conditions) {
		return nil
	}
	return kept
}

// RemoveConditions removes the conditions of the named controllers from the ClusterCSIDriver, read
// and written directly (the informers are stopped by now), retrying on a conflict.
func RemoveConditions(ctx context.Context, client operatorclient.ClusterCSIDriverInterface, name string, controllers []string) (removed int, err error) {
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		driver, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		kept := Without(driver.Status.Conditions, controllers)
		if kept == nil {
			removed = 0
			return nil
		}
		removed = len(driver.Status.Conditions) - len(kept)
		driver.Status.Conditions = kept
		_, err = client.UpdateStatus(ctx, driver, metav1.UpdateOptions{})
		return err
	})
	return removed, err
}
