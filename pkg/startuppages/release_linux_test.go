package startuppages

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

func TestReadOnlyRangesOf(t *testing.T) {
	maps := []byte(`00400000-029b3000 r-xp 00000000 fe:00 10321927   /bin/op
029b3000-057fd000 r--p 025b3000 fe:00 10321927   /bin/op
057fd000-058d2000 rw-p 053fd000 fe:00 10321927   /bin/op
058d2000-07928000 rw-p 00000000 00:00 0
7f0000000000-7f0000001000 r--s 00000000 fe:00 99 /bin/op
7f73a401d000-7f73a4173000 r-xp 00026000 fe:00 326269   /usr/lib/x86_64-linux-gnu/libc.so.6
7f0000002000-7f0000003000 r-xp 00000000 fe:00 12 /bin/op (deleted)
`)
	for _, tc := range []struct {
		path string
		want []addressRange
	}{
		{"/bin/op", []addressRange{{0x400000, 0x29b3000}, {0x29b3000, 0x57fd000}}},
		{"/bin/op (deleted)", []addressRange{{0x7f0000002000, 0x7f0000003000}}},
		{"/bin/other", nil},
	} {
		got, err := readOnlyRangesOf(maps, tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: got %v, want %v (writable, shared and other files' mappings are never released)", tc.path, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: range %d is %#x-%#x, want %#x-%#x", tc.path, i, got[i].start, got[i].end, tc.want[i].start, tc.want[i].end)
			}
		}
	}
	if _, err := readOnlyRangesOf([]byte("zz-yy r-xp 0 0:0 1 /bin/op\n"), "/bin/op"); err == nil {
		t.Error("a malformed address was accepted")
	}
}

// The test binary's own code is resident while it runs; releasing it lowers RssFile, and the code keeps
// running from the page cache afterwards.
func TestReleaseLowersFileBackedRSS(t *testing.T) {
	before := rssFileKiB(t)
	released, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	after := rssFileKiB(t)
	if released == 0 || after >= before {
		t.Fatalf("released %d bytes; RssFile %d KiB before, %d KiB after", released, before, after)
	}
	t.Logf("RssFile %d KiB -> %d KiB", before, after)
	if again := rssFileKiB(t); again <= 0 {
		t.Fatal("the process no longer reads its status after the release")
	}
}

func rssFileKiB(t *testing.T) int {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`RssFile:\s+(\d+) kB`).FindSubmatch(status)
	if m == nil {
		t.Fatal("no RssFile in /proc/self/status")
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}
