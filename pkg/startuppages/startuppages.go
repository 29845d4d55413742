// Package startuppages hands the pages of the operator's own binary that only start-up touched back to
// the page cache, so the process's resident set is what it uses at rest.
//
// Go runs every package's init function and registers every API type at start: with the kernel's
// fault-around that maps nearly all of the 85 MB of code and read-only data, and those pages stay
// counted in the process's RSS for its whole life although an idle operator runs a small part of them.
// Releasing the read-only mappings of the executable is safe: they are clean file pages, and any page
// touched again is mapped again from the page cache (or read from the file). Writable mappings are
// never touched.
package startuppages

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
)

// ReleaseEvery releases once after first, then every period until ctx is done; rare work (a safety
// resync, a configuration change) maps pages again, and the next release returns them.
func ReleaseEvery(ctx context.Context, first, period time.Duration) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(first):
	}
	wait.UntilWithContext(ctx, func(context.Context) {
		released, err := Release()
		if err != nil {
			klog.V(2).Infof("Releasing start-up pages of the binary: %v", err)
			return
		}
		klog.V(4).Infof("Released %d KiB of the binary's read-only mappings", released/1024)
	}, period)
}
