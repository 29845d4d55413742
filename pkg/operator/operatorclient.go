package operator

import (
	"fmt"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/operator/genericoperatorclient"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// newOperatorClient returns library-go's generic client for the ClusterCSIDriver named
// manila.csi.openstack.org (spec writes conflicting with spec changes only: specWrites), and the
// dynamic informer factory that feeds it.
func newOperatorClient(clk clock.PassiveClock, config *rest.Config) (v1helpers.OperatorClientWithFinalizers, dynamicinformer.DynamicSharedInformerFactory, error) {
	client, informers, err := genericoperatorclient.NewClusterScopedOperatorClientWithConfigName(
		clk,
		config,
		operatorv1.GroupVersion.WithResource("clustercsidrivers"),
		operatorv1.GroupVersion.WithKind("ClusterCSIDriver"),
		names.CSIDriverName,
		extractOperatorSpec,
		extractOperatorStatus,
	)
	if err != nil {
		return nil, nil, err
	}
	return withSpecWrites(client), informers, nil
}

func toClusterCSIDriver(obj *unstructured.Unstructured) (*operatorv1.ClusterCSIDriver, error) {
	driver := &operatorv1.ClusterCSIDriver{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, driver); err != nil {
		return nil, fmt.Errorf("ClusterCSIDriver %s: %w", obj.GetName(), err)
	}
	return driver, nil
}

func extractOperatorSpec(obj *unstructured.Unstructured, fieldManager string) (*applyoperatorv1.OperatorSpecApplyConfiguration, error) {
	driver, err := toClusterCSIDriver(obj)
	if err != nil {
		return nil, err
	}
	applied, err := applyoperatorv1.ExtractClusterCSIDriver(driver, fieldManager)
	if err != nil {
		return nil, err
	}
	if applied.Spec == nil {
		return nil, nil
	}
	return &applied.Spec.OperatorSpecApplyConfiguration, nil
}

// extractOperatorStatus is what library-go's status writer calls before every status apply, to
// compare: each controller's sync, every minute at rest. The extraction reads only the manager's own
// status entry of managedFields and the status, so it is given only those: the same result, without
// converting and decoding the spec and every other manager's field set (a fifth of the cost,
// BenchmarkExtractOperatorStatus).
func extractOperatorStatus(obj *unstructured.Unstructured, fieldManager string) (*applyoperatorv1.OperatorStatusApplyConfiguration, error) {
	driver, err := toClusterCSIDriver(statusOf(obj, fieldManager))
	if err != nil {
		return nil, err
	}
	applied, err := applyoperatorv1.ExtractClusterCSIDriverStatus(driver, fieldManager)
	if err != nil {
		return nil, err
	}
	if applied.Status == nil {
		return nil, nil
	}
	return &applied.Status.OperatorStatusApplyConfiguration, nil
}

// statusOf is obj reduced to what an extraction of fieldManager's status fields reads: its identity,
// that manager's managedFields entries for the status subresource, and the status. The maps are
// shared with obj, which is read only.
func statusOf(obj *unstructured.Unstructured, fieldManager string) *unstructured.Unstructured {
	var own []interface{}
	entries, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "metadata", "managedFields")
	list, _ := entries.([]interface{})
	for _, e := range list {
		if entry, ok := e.(map[string]interface{}); ok && entry["manager"] == fieldManager && entry["subresource"] == "status" {
			own = append(own, entry)
		}
	}
	reduced := map[string]interface{}{
		"apiVersion": obj.GetAPIVersion(), "kind": obj.GetKind(),
		"metadata": map[string]interface{}{"name": obj.GetName(), "managedFields": own},
	}
	if status, ok := obj.Object["status"]; ok {
		reduced["status"] = status
	}
	return &unstructured.Unstructured{Object: reduced}
}
