package checkcloud

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/cephcsi"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

var (
	bothType = manilatypes.ShareType{ID: "5", Name: "gold", IsPublic: true, ExtraSpecs: map[string]string{"storage_protocol": "NFS CEPHFS",
		"snapshot_support": "True", "create_share_from_snapshot_support": "True"}}
	plainType  = manilatypes.ShareType{ID: "6", Name: "plain", IsPublic: true}
	cifsType   = manilatypes.ShareType{ID: "7", Name: "cifs", IsPublic: true, ExtraSpecs: map[string]string{"storage_protocol": "CIFS"}}
	cephFSOnly = operatorconfig.CephFS{Enabled: true, Image: "quay.io/cephcsi/cephcsi:" + cephcsi.Recommended}
)

func cephFSConfig(enabled bool) operatorconfig.Config {
	cfg := operatorconfig.Config{StorageClasses: operatorconfig.StorageClasses{Defaults: operatorconfig.ClassSettings{
		CephFSMounter: ptr("kernel"), MountOptions: []string{"nfsvers=4.1"}, NFSShareClient: ptr("10.0.0.0/8")}}}
	if enabled {
		cfg.CephFS = cephFSOnly
	}
	return cfg
}

// Per share type: the protocols it gets classes for, its CephFS class, or why it gets none.
func TestBuildCephFS(t *testing.T) {
	type want struct {
		protocols []string
		nfs       string // NFS class name, "" for none
		cephfs    string // CephFS class name, "" for none
		noClass   string // a word of NoClass
		noCephFS  string // a word of NoCephFSClass
	}
	tests := []struct {
		name     string
		enabled  bool
		types    []manilatypes.ShareType
		usable   bool
		want     map[string]want
		warnings []string
	}{
		{name: "CephFS on", enabled: true, types: []manilatypes.ShareType{bothType, cephType, plainType, cifsType}, usable: true,
			want: map[string]want{
				"gold":  {protocols: []string{"NFS", "CEPHFS"}, nfs: "csi-manila-gold", cephfs: "manila-cephfs-gold"},
				"ceph":  {protocols: []string{"CEPHFS"}, cephfs: "manila-cephfs-ceph"},
				"plain": {protocols: []string{"NFS"}, nfs: "csi-manila-plain"},
				"cifs":  {protocols: []string{}, noClass: "NFS and CEPHFS only"},
			}},
		{name: "CephFS off", types: []manilatypes.ShareType{bothType, cephType, plainType, cifsType}, usable: true,
			want: map[string]want{
				"gold":  {protocols: []string{"NFS"}, nfs: "csi-manila-gold", noCephFS: "set cephfs.enabled: true and cephfs.image"},
				"ceph":  {protocols: []string{}, noClass: "set cephfs.enabled: true and cephfs.image"},
				"plain": {protocols: []string{"NFS"}, nfs: "csi-manila-plain"},
				"cifs":  {protocols: []string{}, noClass: "the driver serves NFS only"},
			}},
		{name: "CephFS on, a CEPHFS-only cloud is usable", enabled: true, types: []manilatypes.ShareType{cephType}, usable: true,
			want: map[string]want{"ceph": {protocols: []string{"CEPHFS"}, cephfs: "manila-cephfs-ceph"}}},
		{name: "CephFS on, no CEPHFS type", enabled: true, types: []manilatypes.ShareType{plainType}, usable: true,
			want:     map[string]want{"plain": {protocols: []string{"NFS"}, nfs: "csi-manila-plain"}},
			warnings: []string{"cephfs.enabled is true, but no share type's storage_protocol names CEPHFS"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Build(with(okFacts, func(f *Facts) { f.ShareTypes, f.Config = tt.types, cephFSConfig(tt.enabled) }))
			if r.Usable != tt.usable {
				t.Errorf("usable %t (%s)", r.Usable, r.Problem)
			}
			for _, st := range r.ShareTypes {
				w, ok := tt.want[st.Name]
				if !ok {
					t.Fatalf("unexpected type %s", st.Name)
				}
				if !slices.Equal(st.Protocols, w.protocols) || st.Protocols == nil {
					t.Errorf("%s: protocols %#v, want %v", st.Name, st.Protocols, w.protocols)
				}
				if name := className(st.StorageClass); name != w.nfs {
					t.Errorf("%s: NFS class %q, want %q", st.Name, name, w.nfs)
				}
				if name := className(st.CephFSStorageClass); name != w.cephfs {
					t.Errorf("%s: CephFS class %q, want %q", st.Name, name, w.cephfs)
				}
				if !strings.Contains(st.NoClass, w.noClass) || (w.noClass == "") != (st.NoClass == "") {
					t.Errorf("%s: noStorageClass %q, want %q", st.Name, st.NoClass, w.noClass)
				}
				if !strings.Contains(st.NoCephFSClass, w.noCephFS) || (w.noCephFS == "") != (st.NoCephFSClass == "") {
					t.Errorf("%s: noCephFSStorageClass %q, want %q", st.Name, st.NoCephFSClass, w.noCephFS)
				}
				if c := st.CephFSStorageClass; c != nil {
					if c.Parameters["cephfs-mounter"] != "kernel" || c.Parameters["nfs-shareClient"] != "" || len(c.MountOptions) != 0 || c.Parameters["type"] != st.Name {
						t.Errorf("%s: CephFS class %+v", st.Name, c)
					}
				}
				if c := st.StorageClass; c != nil && (c.Parameters["cephfs-mounter"] != "" || c.Parameters["nfs-shareClient"] != "10.0.0.0/8") {
					t.Errorf("%s: NFS class %+v", st.Name, c)
				}
			}
			all := strings.Join(r.Warnings, "\n")
			for _, w := range tt.warnings {
				if !strings.Contains(all, w) {
					t.Errorf("warnings lack %q:\n%s", w, all)
				}
			}
			if len(tt.warnings) == 0 && strings.Contains(all, "cephfs") {
				t.Errorf("warnings about CephFS classes:\n%s", all)
			}
		})
	}
}

func className(c *ClassReport) string {
	if c == nil {
		return ""
	}
	return c.Name
}

// A CEPHFS-only default share type's CephFS class is the default, and no warning says otherwise.
func TestBuildCephFSDefault(t *testing.T) {
	cfg := cephFSConfig(true)
	cfg.StorageClasses.DefaultShareType = "ceph"
	r := Build(with(okFacts, func(f *Facts) { f.ShareTypes, f.Config = []manilatypes.ShareType{cephType, plainType}, cfg }))
	if c := r.ShareTypes[0].CephFSStorageClass; c == nil || !c.Default {
		t.Errorf("ceph: %+v", r.ShareTypes[0])
	}
	if strings.Contains(strings.Join(r.Warnings, "\n"), "defaultShareType") {
		t.Errorf("warnings %q", r.Warnings)
	}
}

func TestRenderCephFS(t *testing.T) {
	on := Build(with(okFacts, func(f *Facts) {
		f.ShareTypes, f.Config = []manilatypes.ShareType{bothType, cephType}, cephFSConfig(true)
	}))
	off := Build(with(okFacts, func(f *Facts) {
		f.ShareTypes, f.Config = []manilatypes.ShareType{bothType, cephType}, cephFSConfig(false)
	}))
	for _, tc := range []struct {
		name   string
		report Report
		want   []string
		absent []string
	}{
		{name: "on", report: on, want: []string{
			"  gold (public, id 5)\n    protocols: NFS and CEPHFS\n    StorageClass csi-manila-gold\n",
			"snapshots: yes (VolumeSnapshotClass csi-manila-standard)\n      mountOptions: nfsvers=4.1\n    CephFS StorageClass manila-cephfs-gold\n      cephfs-mounter: kernel\n      type: gold\n      (and 8 csi.storage.k8s.io/* parameters naming the driver secret)\n",
			"snapshots: yes (VolumeSnapshotClass csi-manila-cephfs)\n",
			"  ceph (public, id 2)\n    protocols: CEPHFS\n    CephFS StorageClass manila-cephfs-ceph\n",
		}, absent: []string{"no CephFS StorageClass", "no StorageClass"}},
		{name: "off", report: off, want: []string{
			"  gold (public, id 5)\n    protocols: NFS\n    StorageClass csi-manila-gold\n",
			"    no CephFS StorageClass: share type \"gold\" has storage_protocol=NFS CEPHFS; CephFS StorageClasses are off: set cephfs.enabled: true and cephfs.image in ConfigMap manila-csi-driver-operator-settings\n",
			"  ceph (public, id 2)\n    protocols: none\n    no StorageClass: share type \"ceph\"",
		}, absent: []string{"CephFS StorageClass manila-cephfs", "cephfs-mounter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, tc.report, FormatText); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(b.String(), a) {
					t.Errorf("output has %q:\n%s", a, b.String())
				}
			}
		})
	}
}

// JSON and YAML carry the new fields beside the old ones: protocols (an empty list for none),
// cephfsStorageClass and noCephFSStorageClass.
func TestRenderCephFSMachineFormats(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		r := Build(with(okFacts, func(f *Facts) {
			f.ShareTypes, f.Config = []manilatypes.ShareType{bothType, cifsType}, cephFSConfig(enabled)
		}))
		for _, format := range []string{FormatJSON, FormatYAML} {
			var b bytes.Buffer
			if err := Render(&b, r, format); err != nil {
				t.Fatal(err)
			}
			data := b.Bytes()
			if format == FormatYAML {
				var err error
				if data, err = yaml.YAMLToJSON(data); err != nil {
					t.Fatal(err)
				}
			}
			var raw struct {
				ShareTypes []map[string]json.RawMessage `json:"shareTypes"`
			}
			if err := json.Unmarshal(data, &raw); err != nil {
				t.Fatal(err)
			}
			cifs, gold := raw.ShareTypes[0], raw.ShareTypes[1]
			if string(cifs["protocols"]) != "[]" {
				t.Errorf("%s: cifs protocols %s, want []", format, cifs["protocols"])
			}
			var back Report
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			g := back.ShareTypes[1]
			if enabled && (g.CephFSStorageClass == nil || g.CephFSStorageClass.Name != "manila-cephfs-gold" ||
				g.CephFSStorageClass.Parameters["cephfs-mounter"] != "kernel" || !slices.Equal(g.Protocols, []string{"NFS", "CEPHFS"})) {
				t.Errorf("%s on: gold %+v (%s)", format, g, gold["cephfsStorageClass"])
			}
			if !enabled && (g.CephFSStorageClass != nil || g.NoCephFSClass == "" || g.StorageClass.Name != "csi-manila-gold") {
				t.Errorf("%s off: gold %+v", format, g)
			}
			if _, ok := gold["storageClass"]; !ok {
				t.Errorf("%s: the storageClass field is gone", format)
			}
		}
	}
}

// The class the report names for CephFS snapshots is the one the operator creates.
func TestCephFSSnapshotClassIsTheAssets(t *testing.T) {
	data, err := assets.Vars{}.Render(assets.CephFSVolumeSnapshotClass)
	if err != nil {
		t.Fatal(err)
	}
	var vsc struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Driver string `json:"driver"`
	}
	if err := yaml.Unmarshal(data, &vsc); err != nil {
		t.Fatal(err)
	}
	if vsc.Metadata.Name != cephFSSnapshotClass || vsc.Driver != "cephfs.manila.csi.openstack.org" {
		t.Errorf("the report names VolumeSnapshotClass %q; the operator creates %q for %s", cephFSSnapshotClass, vsc.Metadata.Name, vsc.Driver)
	}
}
