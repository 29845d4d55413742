package informercache

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	policyv1listers "k8s.io/client-go/listers/policy/v1"
	"k8s.io/client-go/tools/cache"
)

func TestCachedGets(t *testing.T) {
	meta := func(ns, name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }
	sa, svc, pdb := &corev1.ServiceAccount{ObjectMeta: meta("hcp", "sa")}, &corev1.Service{ObjectMeta: meta("hcp", "svc")},
		&policyv1.PodDisruptionBudget{ObjectMeta: meta("hcp", "pdb")}
	indexer := func(objs ...any) cache.Indexer {
		i := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		for _, o := range objs {
			if err := i.Add(o); err != nil {
				t.Fatal(err)
			}
		}
		return i
	}
	g := Getters{Namespace: "hcp", ServiceAccounts: corev1listers.NewServiceAccountLister(indexer(sa)),
		Services: corev1listers.NewServiceLister(indexer(svc)), PodDisruptionBudgets: policyv1listers.NewPodDisruptionBudgetLister(indexer(pdb))}
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		get       func(k *fake.Clientset) error
		liveReads int
	}{
		{"a cached ServiceAccount", func(k *fake.Clientset) error {
			_, err := CachedGets(k, g).CoreV1().ServiceAccounts("hcp").Get(ctx, "sa", metav1.GetOptions{})
			return err
		}, 0},
		{"a cached Service", func(k *fake.Clientset) error {
			_, err := CachedGets(k, g).CoreV1().Services("hcp").Get(ctx, "svc", metav1.GetOptions{})
			return err
		}, 0},
		{"a cached PDB", func(k *fake.Clientset) error {
			_, err := CachedGets(k, g).PolicyV1().PodDisruptionBudgets("hcp").Get(ctx, "pdb", metav1.GetOptions{})
			return err
		}, 0},
		{"not cached: asked of the API server", func(k *fake.Clientset) error {
			_, err := CachedGets(k, g).CoreV1().ServiceAccounts("hcp").Get(ctx, "other", metav1.GetOptions{})
			return ignoreNotFound(err)
		}, 1},
		{"with options: asked of the API server", func(k *fake.Clientset) error {
			_, err := CachedGets(k, g).CoreV1().Services("hcp").Get(ctx, "svc", metav1.GetOptions{ResourceVersion: "0"})
			return ignoreNotFound(err)
		}, 1},
		{"another namespace: asked of the API server", func(k *fake.Clientset) error {
			_, err := CachedGets(k, g).PolicyV1().PodDisruptionBudgets("other").Get(ctx, "pdb", metav1.GetOptions{})
			return ignoreNotFound(err)
		}, 1},
		{"another kind: asked of the API server", func(k *fake.Clientset) error {
			_, err := CachedGets(k, g).CoreV1().ConfigMaps("hcp").Get(ctx, "sa", metav1.GetOptions{})
			return ignoreNotFound(err)
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := fake.NewClientset()
			if err := tc.get(kube); err != nil {
				t.Fatal(err)
			}
			if got := len(kube.Actions()); got != tc.liveReads {
				t.Errorf("%d reads of the API server, want %d: %v", got, tc.liveReads, kube.Actions())
			}
		})
	}
	// A copy: what the caller changes is not the cache's.
	got, err := CachedGets(fake.NewClientset(), g).CoreV1().ServiceAccounts("hcp").Get(ctx, "sa", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Labels = map[string]string{"changed": "yes"}
	if sa.Labels != nil {
		t.Error("the cached ServiceAccount was changed through what Get returned")
	}
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
