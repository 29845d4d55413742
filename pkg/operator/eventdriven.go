package operator

import (
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/yaml"
)

// safetyResync is how often an event-driven controller syncs without an event: a net for an event
// its informers missed. Any change to one of its objects syncs it at once.
const safetyResync = 30 * time.Minute

// eventDriven runs a library-go controller's exported Sync on events of the named objects (and of the
// ClusterCSIDriver), with safetyResync instead of the one-minute resync library-go hard-codes for it:
// at rest, nothing is re-applied. The library-go controller's own Run is never called.
func eventDriven(name string, sync factory.SyncFunc, operatorClient v1helpers.OperatorClient, recorder events.Recorder,
	objectNames []string, informers ...factory.Informer) factory.Controller {
	return factory.New().
		WithSync(sync).
		WithInformers(operatorClient.Informer()).
		WithFilteredEventsInformers(namesFilter(objectNames...), informers...).
		ResyncEvery(safetyResync).
		ToController(name, recorder)
}

// namesFilter passes events of the named objects. Unlike factory.NamesFilter it also knows
// unstructured objects (which have no GetObjectMeta) and deletion tombstones.
func namesFilter(names ...string) factory.EventFilterFunc {
	set := sets.New(names...)
	return func(obj any) bool {
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		m, err := meta.Accessor(obj)
		return err == nil && set.Has(m.GetName())
	}
}

// workloadOnEvents runs a library-go workload controller's exported Sync on events of its informers,
// with safetyResync instead of library-go's one minute; a sync error sets <name>Degraded as before.
func workloadOnEvents(ctrl factory.Controller, operatorClient v1helpers.OperatorClient, recorder events.Recorder,
	informers ...factory.Informer) factory.Controller {
	return factory.New().
		WithSync(ctrl.Sync).
		WithSyncDegradedOnError(operatorClient).
		WithInformers(append(informers, operatorClient.Informer())...).
		ResyncEvery(safetyResync).
		ToController(ctrl.Name(), recorder)
}

// assetNames returns metadata.name of each rendered asset.
func assetNames(render resourceapply.AssetFunc, files ...string) []string {
	var out []string
	for _, f := range files {
		_, name := assetIdentity(render, f)
		out = append(out, name)
	}
	return out
}

// assetIdentity returns the rendered asset's namespace and name.
func assetIdentity(render resourceapply.AssetFunc, file string) (namespace, name string) {
	raw, err := render(file)
	if err != nil {
		panic(err) // embedded assets: a broken one is a build defect caught by the golden tests
	}
	var obj struct {
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(raw, &obj); err != nil {
		panic(err)
	}
	return obj.Metadata.Namespace, obj.Metadata.Name
}
