package operator

import (
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/staticresourcecontroller"
	"k8s.io/client-go/tools/cache"
)

// conditionalStatic applies one asset only while shouldCreate holds; the informer re-triggers it when
// that may have changed (e.g. a CRD appearing), so no API GET happens per sync.
func conditionalStatic(name string, c *clients, recorder events.Recorder, render resourceapply.AssetFunc,
	file string, shouldCreate, shouldDelete resourceapply.ConditionalFunction, informer cache.SharedIndexInformer) factory.Controller {
	return staticresourcecontroller.NewStaticResourceController(name, render, []string{},
		(&resourceapply.ClientHolder{}).WithKubernetes(c.kube).WithDynamicClient(c.dynamic),
		c.operatorClient, recorder,
	).WithConditionalResources(render, []string{file}, shouldCreate, shouldDelete).AddInformer(informer)
}
