package main

import (
	"fmt"
	"net/url"
	"runtime"
	"sort"
	"testing"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	operatorinformers "github.com/openshift/client-go/operator/informers/externalversions"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/informercache"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// watchSpec is one of the operator's watches as kube-apiserver saw it.
type watchSpec struct {
	user                      string
	gvr                       schema.GroupVersionResource
	namespace, labels, fields string
}

func (w watchSpec) String() string {
	s := w.gvr.Resource
	if w.gvr.Group != "" {
		s += "." + w.gvr.Group
	}
	if w.namespace != "" {
		s += " in " + w.namespace
	}
	if w.labels != "" {
		s += " labelled " + w.labels
	}
	if w.fields != "" {
		s += " where " + w.fields
	}
	return s
}

// operatorWatches returns the distinct watches the operator opened between from and to.
func operatorWatches(t *testing.T, auditPath string, from, to time.Time) []watchSpec {
	return watchesOf(t, auditPath, isOperatorUser, from, to)
}

// watchesOf returns the distinct watches the users who matches opened between from and to (each
// user's own: N hosted operators' watches of the same kind in their namespaces are N watches).
func watchesOf(t *testing.T, auditPath string, who func(string) bool, from, to time.Time) []watchSpec {
	seen := map[watchSpec]bool{}
	var specs []watchSpec
	for _, e := range readAuditOf(t, auditPath, who) {
		if e.Verb != "watch" || e.ObjectRef == nil || e.received().Before(from) || e.received().After(to) {
			continue
		}
		u, err := url.Parse(e.RequestURI)
		if err != nil {
			continue
		}
		q := u.Query()
		w := watchSpec{user: e.User.Username,
			gvr:       schema.GroupVersionResource{Group: e.ObjectRef.APIGroup, Version: e.ObjectRef.APIVersion, Resource: e.ObjectRef.Resource},
			namespace: e.ObjectRef.Namespace, labels: q.Get("labelSelector"), fields: q.Get("fieldSelector"),
		}
		if !seen[w] {
			seen[w] = true
			specs = append(specs, w)
		}
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].String() < specs[j].String() })
	return specs
}

// informerCost is what caching one watch costs: its objects and the heap they and the informer hold.
type informerCost struct {
	spec      watchSpec
	objects   int
	heapBytes int64
}

// informerCosts runs each watch as an informer of the same type, namespace and selectors, with the
// operator's managedFields transform, alone in this process, and measures the live heap it adds.
func informerCosts(t *testing.T, world *framework.World, specs []watchSpec) []informerCost {
	var costs []informerCost
	for _, spec := range specs {
		before := liveHeap()
		stop := make(chan struct{})
		informer := informerFor(t, world, spec)
		go informer.Run(stop)
		if !cache.WaitForCacheSync(stop, informer.HasSynced) {
			t.Fatalf("informer for %s never synced", spec)
		}
		after := liveHeap()
		costs = append(costs, informerCost{spec: spec, objects: len(informer.GetStore().ListKeys()), heapBytes: after - before})
		close(stop)
		runtime.KeepAlive(informer)
	}
	return costs
}

func liveHeap() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// informerFor builds a typed informer where a clientset knows the resource, as the operator does, and
// a dynamic one otherwise.
func informerFor(t *testing.T, world *framework.World, w watchSpec) cache.SharedIndexInformer {
	tweak := func(o *metav1.ListOptions) { o.LabelSelector, o.FieldSelector = w.labels, w.fields }
	if i, err := informers.NewSharedInformerFactoryWithOptions(world.Kube, 0, informers.WithNamespace(w.namespace),
		informers.WithTweakListOptions(tweak), informers.WithTransform(informercache.DropManagedFields)).ForResource(w.gvr); err == nil {
		return i.Informer()
	}
	config, err := configclient.NewForConfig(world.Config)
	if err != nil {
		t.Fatal(err)
	}
	if i, err := configinformers.NewSharedInformerFactoryWithOptions(config, 0, configinformers.WithNamespace(w.namespace),
		configinformers.WithTweakListOptions(tweak)).ForResource(w.gvr); err == nil {
		return i.Informer()
	}
	if i, err := operatorinformers.NewSharedInformerFactoryWithOptions(world.Operator, 0, operatorinformers.WithNamespace(w.namespace),
		operatorinformers.WithTweakListOptions(tweak)).ForResource(w.gvr); err == nil {
		return i.Informer()
	}
	apiext, err := apiextclient.NewForConfig(world.Config)
	if err != nil {
		t.Fatal(err)
	}
	if i, err := apiextinformers.NewSharedInformerFactoryWithOptions(apiext, 0, apiextinformers.WithNamespace(w.namespace),
		apiextinformers.WithTweakListOptions(tweak)).ForResource(w.gvr); err == nil {
		return i.Informer()
	}
	return dynamicinformer.NewFilteredDynamicSharedInformerFactory(world.Dynamic, 0, w.namespace, tweak).ForResource(w.gvr).Informer()
}

func printInformerCosts(costs []informerCost, shareTypes int) {
	fmt.Printf("\nwhat each of the operator's watches costs to cache, with %d share types (its objects and the live heap\nthe same informer adds in the bench's process, managedFields dropped as the operator does):\n", shareTypes)
	var total int64
	for _, c := range costs {
		fmt.Printf("  %-100s %5d objects %8.1f KiB\n", c.spec, c.objects, float64(c.heapBytes)/1024)
		total += c.heapBytes
	}
	fmt.Printf("  %-100s %5s %14.1f KiB\n", "all", "", float64(total)/1024)
}
