package storageclasses

import (
	"context"
	"fmt"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// ConditionCephFSRetained lists the CephFS classes kept while cephfs.enabled is false because
// PersistentVolumeClaims name them; removed when there are none. Neither Degraded nor Progressing:
// the operator waits for the admin (or the claims' owners), and nothing is wrong with the operator.
const ConditionCephFSRetained = ControllerName + "CephFSRetained"

// ReasonCephFSClassesInUse is ConditionCephFSRetained's reason.
const ReasonCephFSClassesInUse = "InUseByClaims"

// claimSource says which claims name a class (claimwatch.Watch, which caches the cluster's claims
// only between Naming and Release).
type claimSource interface {
	Naming(ctx context.Context, class string) (keys []string, known bool, err error)
	Release()
}

// claimsNaming maps each of the operator's CephFS classes retired while cephfs.enabled is false
// (cephFS) to one PersistentVolumeClaim whose spec.storageClassName names it, "namespace/name" (the
// first in that order, so that the event names the same claim every sync). The claims are read only
// while there is such a class; known is false while they are being listed.
func (c *Controller) claimsNaming(ctx context.Context, existing map[string]*storagev1.StorageClass, cephFS bool) (claims map[string]string, known bool, err error) {
	var retiring []string
	for name, sc := range existing {
		if classplan.Retiring(sc, cephFS) {
			retiring = append(retiring, name)
		}
	}
	if len(retiring) == 0 {
		c.claims.Release()
		return nil, true, nil
	}
	out := map[string]string{}
	for _, class := range retiring {
		keys, known, err := c.claims.Naming(ctx, class)
		if err != nil || !known {
			return nil, false, err
		}
		if len(keys) > 0 {
			out[class] = keys[0]
		}
	}
	return out, true, nil
}

// namesCephFSClass says whether a claim names a CephFS class (manila-cephfs-*): only those claims'
// creation and deletion can change what the controller does.
func namesCephFSClass(pvc *corev1.PersistentVolumeClaim) bool {
	return pvc.Spec.StorageClassName != nil && strings.HasPrefix(*pvc.Spec.StorageClassName, classplan.CephFSNamePrefix)
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
func retainedCondition(retained []classplan.Retained) condition.Change {
	cond := operatorv1.OperatorCondition{Type: ConditionCephFSRetained}
	if len(retained) > 0 {
		cond = operatorv1.OperatorCondition{Type: ConditionCephFSRetained, Status: operatorv1.ConditionTrue, Reason: ReasonCephFSClassesInUse,
			Message: retainedMessage(retained)}
	}
	return trueOrRemoved(cond)
}
