package framework

import "testing"

func TestPortRange(t *testing.T) {
	for _, tc := range []struct {
		in      string
		lo, hi  int
		wantErr bool
	}{
		{in: "", lo: 10000, hi: 32767},
		{in: "12000-15791", lo: 12000, hi: 15791},
		{in: " 2000 - 2000 ", lo: 2000, hi: 2000},
		{in: "15791-12000", wantErr: true},
		{in: "80-90", wantErr: true},
		{in: "10000-70000", wantErr: true},
		{in: "10000", wantErr: true},
		{in: "a-b", wantErr: true},
	} {
		lo, hi, err := portRange(tc.in, 32768)
		if (err != nil) != tc.wantErr {
			t.Errorf("portRange(%q): error %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if !tc.wantErr && (lo != tc.lo || hi != tc.hi) {
			t.Errorf("portRange(%q) = %d-%d, want %d-%d", tc.in, lo, hi, tc.lo, tc.hi)
		}
	}
}

// A port handed out is never handed out again, even once nothing listens on it: a stopped server's
// port waits for its return.
func TestFreePortNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for range 200 {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		if p < ports.lo || p > ports.hi {
			t.Fatalf("port %d outside %d-%d", p, ports.lo, ports.hi)
		}
		seen[p] = true
	}
}
