// Package managementstate reads the ClusterCSIDriver's spec.managementState for the controllers that
// write only while the operator manages the driver.
package managementstate

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Managed reports whether the ClusterCSIDriver exists and is Managed: the only state in which the
// operator's writing controllers write. Unmanaged, Removed (the admin owns the objects) and a missing
// CR are false without an error.
func Managed(client v1helpers.OperatorClient) (bool, error) {
	spec, _, _, err := client.GetOperatorState()
	if apierrors.IsNotFound(err) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return spec.ManagementState == operatorv1.Managed, nil
}
