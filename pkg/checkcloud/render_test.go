package checkcloud

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
)

func TestRender(t *testing.T) {
	snapType := manilatypes.ShareType{ID: "4", Name: "snap", IsPublic: true,
		ExtraSpecs: map[string]string{"snapshot_support": "True", "create_share_from_snapshot_support": "True"}}
	usable := Build(with(okFacts, func(f *Facts) { f.ShareTypes = []manilatypes.ShareType{nfsType, cephType, snapType} }))
	broken := Build(with(okFacts, func(f *Facts) { f.ManilaErr = openstack.ErrNoManilaService }))
	member := Build(with(okFacts, func(f *Facts) {
		f.Roles, f.PublicOnly, f.ShareTypes = []string{"member"}, "the credentials have no admin role", []manilatypes.ShareType{nfsType}
	}))
	exportCIDR := Build(with(okFacts, func(f *Facts) { f.Config.ExportLocations.Network = "192.168.50.9/24" }))
	exportMN := Build(with(okFacts, func(f *Facts) {
		f.Config.ExportLocations.Network = "machineNetwork"
		f.MachineNetwork = &machinenetwork.Resolution{CIDRs: []string{"10.0.0.0/16"}, From: machinenetwork.FromInstallConfig}
	}))
	exportUnknown := Build(with(okFacts, func(f *Facts) { f.Config.ExportLocations.Network = "machineNetwork" }))
	tests := []struct {
		name   string
		report Report
		want   []string
		absent []string
	}{
		{name: "export locations unset", report: usable, want: []string{
			"Export locations: exportLocations.network not set\n  the node plugin mounts each share's first export location that is not admin-only (a preferred one first), the driver's default\n  runtime config: {}\n"}},
		{name: "export locations CIDR", report: exportCIDR, want: []string{
			"Export locations: exportLocations.network 192.168.50.0/24\n  the node plugin mounts only an export location inside 192.168.50.0/24",
			`runtime config: {"nfs":{"matchExportLocationAddress":"192.168.50.0/24"}}`}},
		{name: "export locations machineNetwork", report: exportMN, want: []string{
			"Export locations: exportLocations.network machineNetwork = 10.0.0.0/16 (from ConfigMap kube-system/cluster-config-v1)",
			`runtime config: {"nfs":{"matchExportLocationAddress":"10.0.0.0/16"}}`}},
		{name: "export locations machineNetwork unknown", report: exportUnknown, want: []string{
			"Export locations: exportLocations.network machineNetwork",
			"problem: exportLocations.network: machineNetwork: the machine network is unknown",
			"(here: give --install-config FILE"}, absent: []string{"runtime config:"}},
		{name: "usable", report: usable, want: []string{
			"Cloud:       openstack (https://keystone:5000/v3)",
			"Manila:      https://manila:8786/v2/ (region RegionOne, interface public)",
			"Roles:       admin (admin: private share types are listed)",
			"Share types: 3, public and private",
			"  Gold_NFS (public, id 1)\n    protocols: NFS\n    StorageClass csi-manila-gold-nfs\n      type: Gold_NFS\n      (and 8 csi.storage.k8s.io/* parameters naming the driver secret)",
			"reclaimPolicy Delete, volumeBindingMode Immediate, allowVolumeExpansion true\n      snapshots: no (the share type lacks",
			"  snap (public, id 4)\n    protocols: NFS\n    StorageClass csi-manila-snap\n",
			"allowVolumeExpansion true\n      snapshots: yes (VolumeSnapshotClass csi-manila-standard)",
			"  ceph (public, id 2)\n    protocols: none\n    no StorageClass: share type \"ceph\" has storage_protocol=CEPHFS",
			"Warnings:\n  - StorageClass csi-manila-gold-nfs, csi-manila-snap: nfs-shareClient is not set",
			"Result: Manila is usable.",
		}},
		{name: "not usable", report: broken, want: []string{"Result: Manila is NOT usable: the OpenStack catalog has no sharev2 service", "Hint:   register"},
			absent: []string{"Manila: ", "Share types:"}},
		{name: "not admin", report: member, want: []string{"Roles:       member (not admin", "Share types: 1, public only (the credentials have no admin role)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, tt.report, FormatText); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(b.String(), a) {
					t.Errorf("output has %q:\n%s", a, b.String())
				}
			}
		})
	}
}

// JSON and YAML carry the whole report, so scripts read what the text shows.
func TestRenderMachineFormats(t *testing.T) {
	r := Build(with(okFacts, func(f *Facts) { f.ShareTypes = []manilatypes.ShareType{nfsType} }))
	for _, format := range []string{FormatJSON, FormatYAML} {
		var b bytes.Buffer
		if err := Render(&b, r, format); err != nil {
			t.Fatal(err)
		}
		var back Report
		data := b.Bytes()
		if format == FormatYAML {
			var err error
			if data, err = yaml.YAMLToJSON(data); err != nil {
				t.Fatal(err)
			}
		}
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if !back.Usable || back.ShareTypes[0].StorageClass.Name != "csi-manila-gold-nfs" || back.Manila.Region != "RegionOne" {
			t.Errorf("%s round trip: %+v", format, back)
		}
	}
	if err := Render(&bytes.Buffer{}, r, "xml"); err == nil {
		t.Error("format xml accepted")
	}
}

// The class the report names is the one the operator creates.
func TestSnapshotClassIsTheAssets(t *testing.T) {
	data, err := assets.Vars{}.Render(assets.VolumeSnapshotClass)
	if err != nil {
		t.Fatal(err)
	}
	var vsc struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(data, &vsc); err != nil {
		t.Fatal(err)
	}
	if vsc.Metadata.Name != snapshotClass {
		t.Errorf("the report names VolumeSnapshotClass %q; the operator creates %q", snapshotClass, vsc.Metadata.Name)
	}
}
