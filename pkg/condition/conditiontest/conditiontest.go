// Package conditiontest is for unit tests of code that writes conditions through condition.Update:
// library-go's fake operator client records a JSON patch of the status without applying it; Applying
// applies it as the API server does.
package conditiontest

import (
	"context"
	"encoding/json"
	"net/http"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/apiserver/jsonpatch"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	jsonpatchv4 "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Apply applies patch to a ClusterCSIDriver's status; a failed test is Invalid (HTTP 422), as the API
// server answers it.
func Apply(status operatorv1.OperatorStatus, patch *jsonpatch.PatchSet) (operatorv1.OperatorStatus, error) {
	body, err := patch.Marshal()
	if err != nil {
		return status, err
	}
	decoded, err := jsonpatchv4.DecodePatch(body)
	if err != nil {
		return status, err
	}
	doc, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return status, err
	}
	patched, err := decoded.Apply(doc)
	if err != nil {
		return status, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "patch",
			schema.GroupResource{Group: operatorv1.GroupName, Resource: "clustercsidrivers"}, "", err.Error(), 0, false)
	}
	var out struct{ Status operatorv1.OperatorStatus }
	err = json.Unmarshal(patched, &out)
	return out.Status, err
}

// Applying is client with status patches applied (Apply) and written as an update of the version read.
func Applying(client v1helpers.OperatorClientWithFinalizers) v1helpers.OperatorClientWithFinalizers {
	return applying{client}
}

type applying struct {
	v1helpers.OperatorClientWithFinalizers
}

func (a applying) PatchOperatorStatus(ctx context.Context, patch *jsonpatch.PatchSet) error {
	_, status, version, err := a.GetOperatorState()
	if err != nil {
		return err
	}
	patched, err := Apply(*status, patch)
	if err != nil {
		return err
	}
	_, err = a.UpdateOperatorStatus(ctx, version, &patched)
	return err
}
