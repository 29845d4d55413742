package condition

import (
	"context"

	operatorv1 "github.com/openshift/api/operator/v1"
	operatorv1client "github.com/openshift/client-go/operator/clientset/versioned/typed/operator/v1"
	"github.com/openshift/library-go/pkg/apiserver/jsonpatch"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
)

// Live reads and writes the ClusterCSIDriver name through the API server, for a writer of the
// condition types declared whose informers may not run (the lifecycle before it leads and after it
// stops). ctx bounds its reads. One Update at a time: it writes the object its last read returned.
func Live(ctx context.Context, drivers operatorv1client.ClusterCSIDriverInterface, name string, declared conditiontypes.Set) Client {
	return &live{ctx: ctx, drivers: drivers, name: name, declared: declared}
}

type live struct {
	ctx      context.Context
	drivers  operatorv1client.ClusterCSIDriverInterface
	name     string
	declared conditiontypes.Set
	read     *operatorv1.ClusterCSIDriver
}

func (l *live) Declares(conditionType string) bool { return l.declared.Has(conditionType) }

func (l *live) GetOperatorState() (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	return l.GetOperatorStateWithQuorum(l.ctx)
}

func (l *live) GetOperatorStateWithQuorum(ctx context.Context) (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	driver, err := l.drivers.Get(ctx, l.name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, "", err
	}
	l.read = driver
	return &driver.Spec.OperatorSpec, &driver.Status.OperatorStatus, driver.ResourceVersion, nil
}

func (l *live) UpdateOperatorStatus(ctx context.Context, resourceVersion string, status *operatorv1.OperatorStatus) (*operatorv1.OperatorStatus, error) {
	driver := l.read.DeepCopy()
	driver.ResourceVersion = resourceVersion
	driver.Status.OperatorStatus = *status
	updated, err := l.drivers.UpdateStatus(ctx, driver, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	return &updated.Status.OperatorStatus, nil
}

func (l *live) PatchOperatorStatus(ctx context.Context, patch *jsonpatch.PatchSet) error {
	body, err := patch.Marshal()
	if err != nil {
		return err
	}
	_, err = l.drivers.Patch(ctx, l.name, types.JSONPatchType, body, metav1.PatchOptions{}, "status")
	return err
}
