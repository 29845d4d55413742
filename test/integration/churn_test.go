package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// owned lists what the operator owns and the cluster depends on, as watch scopes.
var owned = []struct {
	gvr       schema.GroupVersionResource
	namespace string
	options   metav1.ListOptions
}{
	{schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"}, "",
		metav1.ListOptions{LabelSelector: classplan.OwnerLabel}},
	{schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "csidrivers"}, "",
		metav1.ListOptions{FieldSelector: "metadata.name=" + names.CSIDriverName}},
	{schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, names.OperandNamespace,
		metav1.ListOptions{FieldSelector: "metadata.name=" + names.DriverSecret}},
	{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, names.OperandNamespace, metav1.ListOptions{}},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, names.OperandNamespace, metav1.ListOptions{}},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, names.OperandNamespace, metav1.ListOptions{}},
}

// watchChurn records every creation and deletion of an owned object from now until the test ends
// (a fault must cause neither); watches that a kube-apiserver restart breaks are resumed.
func watchChurn(t *testing.T) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var mu sync.Mutex
	var seen []string
	for _, o := range owned {
		api := world.Dynamic.Resource(o.gvr).Namespace(o.namespace)
		list, err := api.List(ctx, o.options)
		if err != nil {
			t.Fatal(err)
		}
		rv := list.GetResourceVersion()
		// One watch per round; a round ended by a restarting kube-apiserver resumes from rv 200 ms later.
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			opts := o.options
			opts.ResourceVersion, opts.AllowWatchBookmarks = rv, true
			w, err := api.Watch(ctx, opts)
			if err != nil {
				return
			}
			defer w.Stop()
			for ev := range w.ResultChan() {
				if ev.Type == watch.Error { // rv too old: start again from now
					if fresh, err := api.List(ctx, o.options); err == nil {
						rv = fresh.GetResourceVersion()
					}
					return
				}
				obj, ok := ev.Object.(*unstructured.Unstructured)
				if !ok {
					continue
				}
				rv = obj.GetResourceVersion()
				if ev.Type == watch.Added || ev.Type == watch.Deleted {
					mu.Lock()
					seen = append(seen, fmt.Sprintf("%s %s %s", ev.Type, o.gvr.Resource, obj.GetName()))
					mu.Unlock()
				}
			}
		}, 200*time.Millisecond)
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}
