//go:build !linux

package startuppages

// Release does nothing where there is no /proc/self/maps and madvise.
func Release() (int, error) { return 0, nil }
