package operatorconfig

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantPath string // "" = valid
	}{
		{"empty", "", ""},
		{"pollInterval not a duration", `pollInterval: "abc"`, "pollInterval"},
		{"alias bomb", "a: &a [" + strings.Repeat("xxxxxxxxxx,", 1000) + "x]\nb: &b [" + strings.Repeat("*a,", 300) + "*a]\n", "(document)"},
		{"full", `
pollInterval: 30s
storageClasses:
  defaultShareType: gold
  prune: true
  pruneAfterListings: 5
  defaults:
    nfs-shareClient: 10.0.0.0/16
    allowVolumeExpansion: true
    reclaimPolicy: Retain
    volumeBindingMode: WaitForFirstConsumer
    mountOptions: [nfsvers=4.1]
    appendShareMetadata: '{"team":"storage"}'
  shareTypes:
    gold:
      shareNetworkID: 0f1e
      availability: nova
`, ""},
		{"unknown top-level key", "foo: 1\n", "foo"},
		{"unknown nested key", "storageClasses:\n  defaults:\n    shareNetworkId: x\n", "storageClasses.defaults.shareNetworkId"},
		{"an empty key", "\"\": 1\n", `""`},
		{"an empty nested key", "storageClasses:\n  \"\": 1\n", `storageClasses.""`},
		{"wrong type", "storageClasses:\n  prune: yes-please\n", "storageClasses.prune"},
		{"poll too fast", "pollInterval: 1s\n", "pollInterval"},
		{"bad reclaim policy", "storageClasses:\n  defaults:\n    reclaimPolicy: Recycle\n", "storageClasses.defaults.reclaimPolicy"},
		{"bad binding mode", "storageClasses:\n  shareTypes:\n    gold:\n      volumeBindingMode: Later\n", "storageClasses.shareTypes.gold.volumeBindingMode"},
		{"bad share client", "storageClasses:\n  defaults:\n    nfs-shareClient: everyone\n", "storageClasses.defaults.nfs-shareClient"},
		{"machineNetwork", "storageClasses:\n  defaults:\n    nfs-shareClient: machineNetwork\n", ""},
		{"machineNetwork per share type, in a list", "storageClasses:\n  shareTypes:\n    gold:\n      nfs-shareClient: machineNetwork, 192.168.7.0/24, fd00::1\n", ""},
		{"machineNetwork misspelt", "storageClasses:\n  defaults:\n    nfs-shareClient: machinenetwork\n", "storageClasses.defaults.nfs-shareClient"},
		{"a bad element per share type", "storageClasses:\n  shareTypes:\n    gold:\n      nfs-shareClient: 10.0.0.0/8,nodes\n", "storageClasses.shareTypes.gold.nfs-shareClient"},
		{"an empty share client", "storageClasses:\n  defaults:\n    nfs-shareClient: \"\"\n", "storageClasses.defaults.nfs-shareClient"},
		{"an empty element", "storageClasses:\n  defaults:\n    nfs-shareClient: 10.0.0.0/8,\n", "storageClasses.defaults.nfs-shareClient"},
		{"bad metadata", "storageClasses:\n  defaults:\n    appendShareMetadata: team=a\n", "storageClasses.defaults.appendShareMetadata"},
		{"empty mount option", "storageClasses:\n  defaults:\n    mountOptions: [\"\"]\n", "storageClasses.defaults.mountOptions[0]"},
		{"negative prune count", "storageClasses:\n  pruneAfterListings: -1\n", "storageClasses.pruneAfterListings"},
		{"not YAML", "a: [", "(document)"},
		{"export network CIDR", "exportLocations:\n  network: 192.168.50.0/24\n", ""},
		{"export network IPv6 CIDR", "exportLocations:\n  network: fd00:50::/64\n", ""},
		{"export network address", "exportLocations:\n  network: 192.168.50.7\n", ""},
		{"export network machineNetwork", "exportLocations:\n  network: machineNetwork\n", ""},
		{"export network unset", "exportLocations: {}\n", ""},
		{"export network invalid CIDR", "exportLocations:\n  network: 192.168.50.0/33\n", "exportLocations.network"},
		{"export network unknown keyword", "exportLocations:\n  network: storageNetwork\n", "exportLocations.network"},
		{"export network list", "exportLocations:\n  network: 10.0.0.0/16,192.168.50.0/24\n", "exportLocations.network"},
		{"export network blank", "exportLocations:\n  network: \" \"\n", "exportLocations.network"},
		{"export network not a string", "exportLocations:\n  network: [10.0.0.0/16]\n", "exportLocations.network"},
		{"export locations unknown key", "exportLocations:\n  networks: [10.0.0.0/16]\n", "exportLocations.networks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.yaml))
			if tt.wantPath == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if cfg == nil {
					t.Fatal("nil config")
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Path != tt.wantPath {
				t.Fatalf("error %v, want a FieldError at %s", err, tt.wantPath)
			}
		})
	}
}

func TestFor(t *testing.T) {
	cfg, err := Parse([]byte(`
storageClasses:
  defaults:
    nfs-shareClient: 10.0.0.0/8
    mountOptions: [a]
  shareTypes:
    gold:
      nfs-shareClient: 10.1.0.0/16
      shareNetworkID: net
`))
	if err != nil {
		t.Fatal(err)
	}
	gold := cfg.StorageClasses.For("gold")
	if *gold.NFSShareClient != "10.1.0.0/16" || *gold.ShareNetworkID != "net" || gold.MountOptions[0] != "a" {
		t.Errorf("gold settings %+v", gold)
	}
	silver := cfg.StorageClasses.For("silver")
	if *silver.NFSShareClient != "10.0.0.0/8" || silver.ShareNetworkID != nil {
		t.Errorf("silver settings %+v", silver)
	}
	if cfg.StorageClasses.PruneAfter() != 0 {
		t.Errorf("pruning is off by default")
	}
	full, _ := Parse([]byte("pollInterval: 2m\nstorageClasses:\n  prune: true\n"))
	if full.StorageClasses.PruneAfter() != DefaultPruneAfterListings || full.PollInterval.Duration != 2*time.Minute {
		t.Errorf("parsed %+v", full)
	}
}

func TestParseExtraMounts(t *testing.T) {
	seed := `
extraMounts:
  - propagation:
    - Node
    extraVolType: Ceph
    volumes:
    - name: ceph
      projected:
        sources:
        - secret:
            name: ceph-conf-files
    mounts:
    - name: ceph
      mountPath: "/etc/ceph"
      readOnly: true
nfsNodePlugin:
  extraMounts:
  - volumes:
    - name: nfs-conf
      configMap:
        name: nfs-conf
    mounts:
    - name: nfs-conf
      mountPath: /etc/nfs.conf.d
`
	cfg, err := Parse([]byte(seed))
	if err != nil {
		t.Fatal(err)
	}
	entries := cfg.MountEntries()
	if len(entries) != 2 || entries[0].Source != "extraMounts[0]" || entries[1].Source != "nfsNodePlugin.extraMounts[0]" ||
		string(entries[1].Propagation[0]) != "csi-nodeplugin-nfsplugin" || entries[0].Volumes[0].Projected == nil {
		t.Errorf("entries %+v", entries)
	}
	for _, tt := range []struct{ yaml, path string }{
		{"extraMounts:\n- propagation: [Workers]\n  volumes: []\n  mounts: []\n", "extraMounts[0].propagation[0]"},
		{"nodePlugin:\n  extraMounts:\n  - propagation: [All]\n    volumes: []\n    mounts: []\n", "nodePlugin.extraMounts[0].propagation"},
		{"extraMounts:\n- volumes:\n  - name: x\n    secrett: {}\n  mounts: []\n", "extraMounts[0].volumes[0].secrett"},
	} {
		_, err := Parse([]byte(tt.yaml))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != tt.path {
			t.Errorf("%q: error %v, want path %s", tt.yaml, err, tt.path)
		}
	}
}

// The reason names the element at fault, so a long list needs no search.
func TestShareClientReasonNamesTheElement(t *testing.T) {
	_, err := Parse([]byte("storageClasses:\n  defaults:\n    nfs-shareClient: 10.0.0.0/8, everyone\n"))
	var fe *FieldError
	if !errors.As(err, &fe) || !strings.Contains(fe.Reason, `"everyone" is not an IP address, a CIDR or machineNetwork`) {
		t.Fatalf("error %v", err)
	}
}
