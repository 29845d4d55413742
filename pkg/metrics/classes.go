package metrics

import "slices"

// Skip reasons, the values of the reason label of skipped share types.
const (
	SkipNoNFS         = "no_nfs_protocol"
	SkipShareNetwork  = "share_network_missing"
	SkipNameCollision = "name_collision"
	SkipNoZone        = "no_zone"
	SkipZoneName      = "zone_name_invalid"
	SkipOther         = "other"
)

// ClassCensus is what one StorageClass sync found.
type ClassCensus struct {
	Owned, Stale, Foreign int
	// Skipped counts share types without a class by reason (one of the Skip* values).
	Skipped map[string]int
}

// ClassSeries are the storage_classes series of a census as {state, reason} -> value. Every state and
// every skip reason has a series, zero when nothing is in it, so a reason that goes away reads 0
// rather than keeping its last value.
func ClassSeries(c ClassCensus) map[[2]string]float64 {
	out := map[[2]string]float64{
		{StateOwned, ""}:   float64(c.Owned),
		{StateStale, ""}:   float64(c.Stale),
		{StateForeign, ""}: float64(c.Foreign),
	}
	for _, r := range skipReasons {
		out[[2]string{StateSkipped, r}] = float64(c.Skipped[r])
	}
	for r, n := range c.Skipped {
		if !knownReason(r) {
			out[[2]string{StateSkipped, SkipOther}] += float64(n)
		}
	}
	return out
}

var skipReasons = []string{SkipNoNFS, SkipShareNetwork, SkipNameCollision, SkipNoZone, SkipZoneName, SkipOther}

func knownReason(r string) bool { return slices.Contains(skipReasons, r) }

// SetClasses records the census of a StorageClass sync.
func SetClasses(c ClassCensus) {
	for key, v := range ClassSeries(c) {
		storageClasses.WithLabelValues(key[0], key[1]).Set(v)
	}
}
