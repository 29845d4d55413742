package framework

import (
	"slices"
	"testing"
)

func TestListeningPortsOf(t *testing.T) {
	const table = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1A85 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1A90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1002 1 0000000000000000 100 0 0 10 0
   2: 0100007F:1A91 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 1003 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2001 1 0000000000000000 100 0 0 10 0
`
	for _, tc := range []struct {
		name    string
		sockets map[string]bool
		want    []int
	}{
		{"the daemons' listeners", map[string]bool{"1001": true, "1002": true}, []int{6789, 6800}},
		{"an established connection is no listener", map[string]bool{"1003": true}, nil},
		{"another process's listener", map[string]bool{"9999": true}, nil},
		{"no sockets", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := listeningPortsOf(table, tc.sockets); !slices.Equal(got, tc.want) {
				t.Errorf("ports %v; want %v", got, tc.want)
			}
		})
	}
}
