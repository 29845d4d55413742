package operator

import (
	"context"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// versionedDriver is a ClusterCSIDriver with optimistic concurrency on the whole object, as the API
// server does it: any write (a status write included) makes a new resourceVersion.
type versionedDriver struct {
	v1helpers.OperatorClientWithFinalizers
	rv   int
	spec operatorv1.OperatorSpec
}

func (d *versionedDriver) version() string { return string(rune('a' + d.rv)) }

func (d *versionedDriver) GetOperatorState() (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	return d.spec.DeepCopy(), &operatorv1.OperatorStatus{}, d.version(), nil
}

func (d *versionedDriver) GetOperatorStateWithQuorum(context.Context) (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	return d.GetOperatorState()
}

func (d *versionedDriver) UpdateOperatorSpec(_ context.Context, rv string, in *operatorv1.OperatorSpec) (*operatorv1.OperatorSpec, string, error) {
	if rv != d.version() {
		return nil, "", apierrors.NewConflict(schema.GroupResource{Resource: "clustercsidrivers"}, "manila.csi.openstack.org", nil)
	}
	d.rv++
	d.spec = *in.DeepCopy()
	return in, d.version(), nil
}

func TestSpecWritesConflictOnlyWithSpecChanges(t *testing.T) {
	for _, tc := range []struct {
		name         string
		meanwhile    func(d *versionedDriver)
		wantConflict bool
	}{
		{"a status write meanwhile: written on the live version", func(d *versionedDriver) { d.rv++ }, false},
		{"the admin changed the spec meanwhile: a real conflict", func(d *versionedDriver) {
			d.rv++
			d.spec.ManagementState = operatorv1.Unmanaged
		}, true},
		{"nothing meanwhile", func(*versionedDriver) {}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &versionedDriver{spec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}}
			c := withSpecWrites(d)
			spec, _, rv, _ := c.GetOperatorState()
			tc.meanwhile(d)
			spec.LogLevel = operatorv1.Debug
			_, _, err := c.UpdateOperatorSpec(context.Background(), rv, spec)
			if got := apierrors.IsConflict(err); got != tc.wantConflict {
				t.Fatalf("conflict %v (%v), want %v", got, err, tc.wantConflict)
			}
			if !tc.wantConflict && d.spec.LogLevel != operatorv1.Debug {
				t.Errorf("spec not written: %+v", d.spec)
			}
			if tc.wantConflict && d.spec.ManagementState != operatorv1.Unmanaged {
				t.Errorf("the admin's change was overwritten: %+v", d.spec)
			}
		})
	}
}
