package startuppages

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Release asks the kernel to reclaim the executable's read-only mappings (MADV_PAGEOUT, or
// MADV_DONTNEED on kernels older than 5.4) and returns how many bytes of address space it covered.
func Release() (int, error) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, err
	}
	ranges, err := readOnlyRangesOf(maps, exe)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, r := range ranges {
		if err := advise(r); err != nil {
			return total, fmt.Errorf("madvise %#x-%#x: %w", r.start, r.end, err)
		}
		total += int(r.end - r.start)
	}
	return total, nil
}

type addressRange struct{ start, end uintptr }

// readOnlyRangesOf returns the mappings of path in a /proc/<pid>/maps listing that are neither
// writable nor shared: code and read-only data, whose pages are clean copies of the file.
func readOnlyRangesOf(maps []byte, path string) ([]addressRange, error) {
	var ranges []addressRange
	scanner := bufio.NewScanner(bytes.NewReader(maps))
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) < 6 || strings.Join(fields[5:], " ") != path {
			continue
		}
		perms := fields[1]
		if len(perms) != 4 || perms[0] != 'r' || perms[1] != '-' || perms[3] != 'p' {
			continue
		}
		bounds := strings.SplitN(fields[0], "-", 2)
		if len(bounds) != 2 {
			return nil, fmt.Errorf("malformed address range in /proc/self/maps")
		}
		start, err := strconv.ParseUint(bounds[0], 16, 64)
		if err != nil {
			return nil, err
		}
		end, err := strconv.ParseUint(bounds[1], 16, 64)
		if err != nil {
			return nil, err
		}
		ranges = append(ranges, addressRange{uintptr(start), uintptr(end)})
	}
	return ranges, scanner.Err()
}

func advise(r addressRange) error {
	_, _, errno := unix.Syscall(unix.SYS_MADVISE, r.start, r.end-r.start, unix.MADV_PAGEOUT)
	if errno == unix.EINVAL {
		_, _, errno = unix.Syscall(unix.SYS_MADVISE, r.start, r.end-r.start, unix.MADV_DONTNEED)
	}
	if errno != 0 {
		return errno
	}
	// Without read-ahead a page touched again comes back alone, not with the 64 KiB around it.
	if _, _, errno = unix.Syscall(unix.SYS_MADVISE, r.start, r.end-r.start, unix.MADV_RANDOM); errno != 0 {
		return errno
	}
	return nil
}
