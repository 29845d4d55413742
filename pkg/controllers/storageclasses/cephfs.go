package storageclasses

import (
	"fmt"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// ConditionCephFSRetained lists the CephFS classes kept while cephfs.enabled is false because
// PersistentVolumeClaims name them; removed when there are none. Neither Degraded nor Progressing:
// the operator waits for the admin (or the claims' owners), and nothing is wrong with the operator.
const ConditionCephFSRetained = ControllerName + "CephFSRetained"

// ReasonCephFSClassesInUse is ConditionCephFSRetained's reason.
const ReasonCephFSClassesInUse = "InUseByClaims"

// retiringCephFS tells the claim event filter whether claims matter now: only while cephfs.enabled
// is false, when a CephFS class waits for its last claim to go.
func (c *Controller) retiringCephFS() bool {
	cfg, _ := c.config.Current()
	return cfg != nil && !cfg.CephFS.Enabled
}

// claimsNaming maps each of the operator's CephFS classes retired while cephfs.enabled is false
// (cephFS) to one PersistentVolumeClaim whose spec.storageClassName names it, "namespace/name" (the
// first in that order, so that the event names the same claim every sync). The claims are read only
// when there is such a class.
func (c *Controller) claimsNaming(existing map[string]*storagev1.StorageClass, cephFS bool) (map[string]string, error) {
	retiring := map[string]bool{}
	for name, sc := range existing {
		if classplan.Retiring(sc, cephFS) {
			retiring[name] = true
		}
	}
	if len(retiring) == 0 {
		return nil, nil
	}
	pvcs, err := c.claims.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, pvc := range pvcs {
		class := pvc.Spec.StorageClassName
		if class == nil || !retiring[*class] {
			continue
		}
		key := pvc.Namespace + "/" + pvc.Name
		if prev, ok := out[*class]; !ok || key < prev {
			out[*class] = key
		}
	}
	return out, nil
}

// retainedMessage says which CephFS classes are kept and for which claim.
func retainedMessage(retained []classplan.Retained) string {
	parts := make([]string, len(retained))
	for i, r := range retained {
		parts[i] = fmt.Sprintf("%s (PersistentVolumeClaim %s)", r.Class, r.Claim)
	}
	return fmt.Sprintf("CephFS StorageClasses kept although cephfs.enabled is false in ConfigMap %s, because PersistentVolumeClaims name them; each is deleted once no claim names it: %s",
		operatorconfig.ConfigMapName, strings.Join(parts, ", "))
}

// retainedEvents are one StorageClassRetained event per kept class, sent once while it lasts.
func retainedEvents(retained []classplan.Retained) []event {
	out := make([]event, 0, len(retained))
	for _, r := range retained {
		out = append(out, event{warning: true, reason: "StorageClassRetained", message: fmt.Sprintf(
			"Kept StorageClass %s although cephfs.enabled is false: PersistentVolumeClaim %s names it; it is deleted once no claim names it (cephfs.enabled: true keeps it)",
			r.Class, r.Claim)})
	}
	return out
}

// retainedCondition is ConditionCephFSRetained, True while a class is kept, else removed.
func retainedCondition(retained []classplan.Retained) v1helpers.UpdateStatusFunc {
	cond := operatorv1.OperatorCondition{Type: ConditionCephFSRetained}
	if len(retained) > 0 {
		cond = operatorv1.OperatorCondition{Type: ConditionCephFSRetained, Status: operatorv1.ConditionTrue, Reason: ReasonCephFSClassesInUse,
			Message: retainedMessage(retained)}
	}
	return trueOrRemoved(cond)
}

// claimEvents passes on the events of claims that name a CephFS class (manila-cephfs-*) while
// wanted (cephfs.enabled is false): a claim created or deleted. A claim's storageClassName never
// changes, so its updates (status, resizes) never re-run the sync. Used by pointer, as addressEvents.
type claimEvents struct {
	informer cache.SharedIndexInformer
	wanted   func() bool
}

func (e *claimEvents) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return e.informer.AddEventHandler(claimFilter{wanted: e.wanted, next: h})
}

func (e *claimEvents) HasSynced() bool { return e.informer.HasSynced() }

type claimFilter struct {
	wanted func() bool
	next   cache.ResourceEventHandler
}

// namesCephFSClass reports whether obj is a claim (or a deleted one's tombstone) naming a CephFS class.
func namesCephFSClass(obj any) bool {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	return ok && pvc.Spec.StorageClassName != nil && strings.HasPrefix(*pvc.Spec.StorageClassName, classplan.CephFSNamePrefix)
}

func (f claimFilter) OnAdd(obj any, initial bool) {
	if namesCephFSClass(obj) && f.wanted() {
		f.next.OnAdd(obj, initial)
	}
}

func (f claimFilter) OnUpdate(any, any) {}

func (f claimFilter) OnDelete(obj any) {
	if namesCephFSClass(obj) && f.wanted() {
		f.next.OnDelete(obj)
	}
}
