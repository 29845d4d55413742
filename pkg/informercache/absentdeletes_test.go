package informercache

import (
	"context"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	policyv1listers "k8s.io/client-go/listers/policy/v1"
	"k8s.io/client-go/tools/cache"
)

func TestSkipsAbsentDeletes(t *testing.T) {
	cached := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "operand", Name: "seen"}}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := indexer.Add(cached); err != nil {
		t.Fatal(err)
	}
	g := Getters{Namespace: "operand", PodDisruptionBudgets: policyv1listers.NewPodDisruptionBudgetLister(indexer)}
	for _, tc := range []struct {
		name, namespace, pdb string
		opts                 metav1.DeleteOptions
		// onServer: the API server holds the PDB (the informer may not have seen it yet).
		onServer     bool
		liveDeletes  int
		wantNotFound bool
	}{
		{name: "absent from the cache: NotFound, no request", namespace: "operand", pdb: "retired", wantNotFound: true},
		{name: "in the cache: deleted", namespace: "operand", pdb: "seen", onServer: true, liveDeletes: 1},
		{name: "another namespace: asked of the API server", namespace: "other", pdb: "retired", liveDeletes: 1, wantNotFound: true},
		{name: "with preconditions: asked of the API server", namespace: "operand", pdb: "retired", onServer: true, liveDeletes: 1,
			opts: metav1.DeleteOptions{Preconditions: &metav1.Preconditions{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := fake.NewClientset()
			if tc.onServer {
				if _, err := kube.PolicyV1().PodDisruptionBudgets(tc.namespace).Create(context.Background(),
					&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: tc.namespace, Name: tc.pdb}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				kube.ClearActions()
			}
			err := SkipsAbsentDeletes(kube, g).PolicyV1().PodDisruptionBudgets(tc.namespace).Delete(context.Background(), tc.pdb, tc.opts)
			if apierrors.IsNotFound(err) != tc.wantNotFound || (err != nil && !apierrors.IsNotFound(err)) {
				t.Fatalf("Delete: %v; want NotFound %t", err, tc.wantNotFound)
			}
			deletes := 0
			for _, a := range kube.Actions() {
				if a.GetVerb() == "delete" {
					deletes++
				}
			}
			if deletes != tc.liveDeletes {
				t.Errorf("%d DELETE requests; want %d", deletes, tc.liveDeletes)
			}
		})
	}
}
