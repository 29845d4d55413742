package storageclasses

import (
	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/metrics"
)

// census counts what a sync found for the storage_classes metric: the operator's classes serving a
// listed share type (wanted, not blocked by a foreign class), its stale ones, the foreign classes in
// the way and the skipped share types by reason (a type whose NFS and CephFS classes are both skipped
// for one reason counts once). Under storageClassState Removed the operator keeps no class.
func census(state operatorv1.StorageClassStateName, wanted int, skipped []classplan.Skipped, plan classplan.Result) metrics.ClassCensus {
	c := metrics.ClassCensus{Skipped: map[string]int{}}
	counted := map[[2]string]bool{}
	for _, s := range skipped {
		key := [2]string{s.ShareType.ID, string(s.Kind)}
		if !counted[key] {
			counted[key] = true
			c.Skipped[skipReason(s)]++
		}
	}
	if state == operatorv1.RemovedStorageClass {
		return c
	}
	c.Owned = wanted - len(plan.Conflicts)
	c.Stale = len(plan.Stale)
	c.Foreign = len(plan.Conflicts)
	return c
}

// skipReason maps why classplan.Desired skipped a share type to the metric's label value.
func skipReason(s classplan.Skipped) string {
	switch s.Kind {
	case classplan.SkipNoNFS:
		return metrics.SkipNoNFS
	case classplan.SkipNoShareNetwork:
		return metrics.SkipShareNetwork
	case classplan.SkipNameTaken:
		return metrics.SkipNameCollision
	case classplan.SkipNoZone:
		return metrics.SkipNoZone
	case classplan.SkipZoneName:
		return metrics.SkipZoneName
	default:
		return metrics.SkipOther
	}
}
