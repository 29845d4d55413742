// Package state keeps what the operator promised across its restarts in ConfigMap
// openshift-cluster-csi-drivers/manila-csi-driver-operator-state (hosted: in the HCP namespace), not in process memory: that Manila
// was found (so a new process reconciles the operand at once, even while OpenStack is unreachable) and
// the last valid operator configuration (so a new process keeps using it while the admin's ConfigMap
// is invalid).
package state

import (
	"context"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// ConfigMapName is the operator's state ConfigMap in the operator namespace.
const ConfigMapName = "manila-csi-driver-operator-state"

// Keys of the state ConfigMap.
const (
	// ManilaFoundKey holds when Manila was first found (RFC 3339); from then on the operand is kept.
	ManilaFoundKey = "manilaFoundAt"
	// OperatorConfigKey holds the config.yaml text of the last valid operator configuration.
	OperatorConfigKey = "lastValidOperatorConfig"
	// CephCSIImageKey holds the ceph-csi image the CephFS instance last ran with from the config: a
	// turned-off instance that volumes keep running goes on with it, even once the config names none
	// and its workloads are gone (deleted, or a new process).
	CephCSIImageKey = "cephCSIImage"
)

// Store reads the state through the informer cache and writes one key at a time, so its writers
// (the Manila controller and the config check) never overwrite each other's keys.
type Store struct {
	namespace string
	lister    corev1listers.ConfigMapNamespaceLister
	client    corev1client.ConfigMapsGetter
}

// NewStore keeps the state in namespace (the operator namespace; hosted, the HCP namespace of the
// management cluster) and reads it through a lister of that namespace's ConfigMaps.
func NewStore(namespace string, lister corev1listers.ConfigMapLister, client corev1client.ConfigMapsGetter) *Store {
	return &Store{namespace: namespace, lister: lister.ConfigMaps(namespace), client: client}
}

// Get returns the value of key and whether it is set.
func (s *Store) Get(key string) (string, bool) {
	cm, err := s.lister.Get(ConfigMapName)
	if err != nil {
		return "", false
	}
	v, ok := cm.Data[key]
	return v, ok
}

// Set writes key, only when the cached value differs: a merge patch of that key, or a create when
// the ConfigMap does not exist.
func (s *Store) Set(ctx context.Context, key, value string) error {
	if have, ok := s.Get(key); ok && have == value {
		return nil
	}
	api := s.client.ConfigMaps(s.namespace)
	if _, err := s.lister.Get(ConfigMapName); apierrors.IsNotFound(err) {
		_, err = api.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Namespace: s.namespace,
				Labels: map[string]string{"app.kubernetes.io/managed-by": names.OperatorName, names.OwnerLabel: names.OwnerLabelValue}},
			Data: map[string]string{key: value},
		}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	// The owner label too: hosted, the ConfigMap is cached by it (one informer of the operator's own
	// ConfigMaps in the HCP namespace), and one written before it was labelled gets it here.
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{names.OwnerLabel: names.OwnerLabelValue}},
		"data": map[string]string{key: value}})
	if err != nil {
		return err
	}
	_, err = api.Patch(ctx, ConfigMapName, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}
