package storageclasses

import (
	"fmt"
	"sort"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
)

// ConditionNotAdopted lists the classes of the driver the operator leaves alone, and why; it is
// removed when there are none. Not Degraded: such a class is an admin's, and it is in nobody's way
// (a class in the way of one the operator wants is reported by ConditionDegraded).
const ConditionNotAdopted = ControllerName + "NotAdopted"

// ReasonNotAdoptable is ConditionNotAdopted's reason.
const ReasonNotAdoptable = "NotAdoptable"

// adoptionEvent says what adopting a class did: an update in place, or a recreate and the immutable
// fields that forced it.
func adoptionEvent(recorder events.Recorder, a classplan.Action) {
	shareType := a.Class.Annotations[classplan.ShareTypeNameAnnotation]
	if a.Kind == classplan.Recreate {
		recorder.Eventf("StorageClassAdopted", "Adopted StorageClass %s (share type %q) by recreating it with the same name, labels and annotations: %s cannot change in place; existing volumes and claims are not affected",
			a.Class.Name, shareType, strings.Join(classplan.ImmutableChanges(a.Class, a.Existing), ", "))
		return
	}
	recorder.Eventf("StorageClassAdopted", "Adopted StorageClass %s (share type %q) in place: added label %s and the share-type annotations; its other labels and annotations are kept",
		a.Class.Name, shareType, classplan.OwnerLabel)
}

// notAdopted returns the condition and one event per class the operator leaves alone.
func notAdopted(refused map[string]string, conflicts []string) (condition.Change, []event) {
	inTheWay := map[string]bool{}
	for _, name := range conflicts {
		inTheWay[name] = true
	}
	var reasons []string
	var evs []event
	for name, why := range refused {
		evs = append(evs, event{warning: true, reason: "StorageClassNotAdopted", message: why + "; the operator leaves it alone"})
		if !inTheWay[name] { // those are in ConditionDegraded's message already
			reasons = append(reasons, why)
		}
	}
	sort.Strings(reasons)
	cond := operatorv1.OperatorCondition{Type: ConditionNotAdopted}
	if len(reasons) > 0 {
		cond = operatorv1.OperatorCondition{Type: ConditionNotAdopted, Status: operatorv1.ConditionTrue, Reason: ReasonNotAdoptable,
			Message: "StorageClasses of the driver that the operator leaves alone: " + strings.Join(reasons, "; ")}
	}
	return trueOrRemoved(cond), evs
}

// conflictReason says why a class in the way was not adopted, when it is one of the driver's.
func conflictReason(name string, refused map[string]string) string {
	if why, ok := refused[name]; ok {
		return fmt.Sprintf(" (%s)", why)
	}
	return ""
}
