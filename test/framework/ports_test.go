package framework

import "testing"

func TestPortRange(t *testing.T) {
	for _, tc := range []struct {
		shard   string
		lo, hi  int
		wantErr bool
	}{
		{shard: "", lo: 10400, hi: 32767},
		{shard: "0/1", lo: 10400, hi: 32767},
		{shard: "0/6", lo: 10400, hi: 14127},
		{shard: "5/6", lo: 29040, hi: 32767},
		{shard: " 1 / 2 ", lo: 21584, hi: 32767},
		{shard: "6/6", wantErr: true},
		{shard: "-1/6", wantErr: true},
		{shard: "0/0", wantErr: true},
		{shard: "3", wantErr: true},
		{shard: "a/b", wantErr: true},
	} {
		lo, hi, err := portRange(tc.shard, 32768)
		if (err != nil) != tc.wantErr {
			t.Errorf("portRange(%q): error %v, want error %v", tc.shard, err, tc.wantErr)
			continue
		}
		if !tc.wantErr && (lo != tc.lo || hi != tc.hi) {
			t.Errorf("portRange(%q) = %d-%d, want %d-%d", tc.shard, lo, hi, tc.lo, tc.hi)
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
