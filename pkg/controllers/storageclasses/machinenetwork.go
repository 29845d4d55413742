package storageclasses

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
)

// machineNetworkInputs read what nfs-shareClient: machineNetwork resolves from, through the caches:
// ConfigMap kube-system/cluster-config-v1 (its informer holds that one object) and the Nodes.
type machineNetworkInputs struct {
	installConfig corev1listers.ConfigMapNamespaceLister
	nodes         corev1listers.NodeLister
}

func (m machineNetworkInputs) resolve() (machinenetwork.Resolution, error) {
	var installConfig *string
	cm, err := m.installConfig.Get(machinenetwork.InstallConfigName)
	switch {
	case err == nil:
		v := cm.Data[machinenetwork.InstallConfigKey] // a missing key reads as empty: a fallback that says so
		installConfig = &v
	case !apierrors.IsNotFound(err):
		return machinenetwork.Resolution{}, err
	}
	nodes, err := m.nodes.List(labels.Everything())
	if err != nil {
		return machinenetwork.Resolution{}, err
	}
	return machinenetwork.Resolve(installConfig, machinenetwork.InternalIPs(nodes)), nil
}

// addressEvents passes on the Node events that can change the machine network, and only while the
// config asks for it: a node added or deleted, or its InternalIP addresses changed. The status
// updates and resyncs of a cluster's nodes never re-run the sync. Used by pointer: library-go keys
// its informers in a map, and a struct holding a func cannot be a key.
type addressEvents struct {
	informer cache.SharedIndexInformer
	wanted   func() bool
}

func (a *addressEvents) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return a.informer.AddEventHandler(addressFilter{wanted: a.wanted, next: h})
}

func (a *addressEvents) HasSynced() bool { return a.informer.HasSynced() }

type addressFilter struct {
	wanted func() bool
	next   cache.ResourceEventHandler
}

func (f addressFilter) OnAdd(obj any, initial bool) {
	if f.wanted() {
		f.next.OnAdd(obj, initial)
	}
}

func (f addressFilter) OnUpdate(old, updated any) {
	o, ok1 := old.(*corev1.Node)
	n, ok2 := updated.(*corev1.Node)
	changed := !ok1 || !ok2 || !slices.Equal(machinenetwork.NodeInternalIPs(o), machinenetwork.NodeInternalIPs(n))
	if changed && f.wanted() {
		f.next.OnUpdate(old, updated)
	}
}

func (f addressFilter) OnDelete(obj any) {
	if f.wanted() {
		f.next.OnDelete(obj)
	}
}
