package operator

import (
	"context"
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
)

// ownHCPConfigMaps are the operator's ConfigMaps in the HCP namespace: one informer caches them, by
// the operator's label (clients.ownHCP).
var ownHCPConfigMaps = []string{assets.ObjectName(assets.TrustedCABundle), names.CloudCAConfigMap, state.ConfigMapName}

// labelOwnConfigMaps gives those of ownHCPConfigMaps that exist without the operator's label that
// label (a merge patch of it alone): written by a version before the label, or the trusted CA bundle
// by csi-operator, under the same name. Unlabelled, the informer would not see them: the state's
// promises would be forgotten, and library-go would try to create the bundle again.
func labelOwnConfigMaps(ctx context.Context, kube kubernetes.Interface, namespace string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{names.OwnerLabel: names.OwnerLabelValue}}})
	if err != nil {
		return err
	}
	api := kube.CoreV1().ConfigMaps(namespace)
	for _, name := range ownHCPConfigMaps {
		cm, err := api.Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return err
		case cm.Labels[names.OwnerLabel] == names.OwnerLabelValue:
			continue
		}
		if _, err := api.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}
