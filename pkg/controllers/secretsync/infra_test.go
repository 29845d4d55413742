package secretsync

import (
	configv1 "github.com/openshift/api/config/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// infraInformer serves one Infrastructure/cluster of the given platform ("" for none) from its lister,
// for unit tests that call sync directly: its informer only takes the controller's event handlers.
type infraInformer struct {
	informer cache.SharedIndexInformer
	indexer  cache.Indexer
}

func newInfraInformer(platform configv1.PlatformType) infraInformer {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if platform != "" {
		infra := &configv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}
		infra.Status.PlatformStatus = &configv1.PlatformStatus{Type: platform}
		_ = indexer.Add(infra)
	}
	return infraInformer{cache.NewSharedIndexInformer(&cache.ListWatch{}, &configv1.Infrastructure{}, 0, cache.Indexers{}), indexer}
}

func (i infraInformer) Informer() cache.SharedIndexInformer { return i.informer }

func (i infraInformer) Lister() configv1listers.InfrastructureLister {
	return configv1listers.NewInfrastructureLister(i.indexer)
}
