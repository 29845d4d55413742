package operator

import (
	"context"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/staticresourcecontroller"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// conditionalStatic applies one asset of a custom resource only while its CRD exists, and never
// deletes it. It syncs when the CRD changes (e.g. appears), when the object itself changes (when the
// CRD was there at start: an informer of that one object) and on the safety resync, so an idle
// operator makes no request for it. Both informers hold one object each, not the cluster's CRDs.
func conditionalStatic(name string, c *clients, recorder events.Recorder, render resourceapply.AssetFunc,
	file string, resource schema.GroupVersionResource, crd string) factory.Controller {
	crds := c.crdInformerFor(crd)
	exists := func() bool {
		_, err := crds.Lister().Get(crd)
		return err == nil
	}
	never := func() bool { return false }
	src := staticresourcecontroller.NewStaticResourceController(name, render, []string{},
		(&resourceapply.ClientHolder{}).WithKubernetes(c.kube).WithDynamicClient(c.dynamic),
		c.operatorClient, recorder,
	).WithConditionalResources(render, []string{file}, exists, never)
	objectNames, informers := []string{crd}, []factory.Informer{crds.Informer()}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c.crdPresent(ctx, crd) {
		namespace, objectName := assetIdentity(render, file)
		objectNames = append(objectNames, objectName)
		informers = append(informers, c.objectInformer(resource, namespace, objectName))
	}
	return eventDriven(src.Name(), src.Sync, c.operatorClient, recorder, objectNames, informers...)
}
