package classplan

import (
	"strings"
	"testing"

	storagev1 "k8s.io/api/storage/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

func mustConfig(t *testing.T, yaml string) operatorconfig.StorageClasses {
	t.Helper()
	cfg, err := operatorconfig.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return cfg.StorageClasses
}

func TestDesired(t *testing.T) {
	types := []manilatypes.ShareType{
		{ID: "1", Name: "gold", ExtraSpecs: map[string]string{"driver_handles_share_servers": "False"}},
		{ID: "2", Name: "cephfs", ExtraSpecs: map[string]string{"storage_protocol": "CEPHFS"}},
		{ID: "3", Name: "multi", ExtraSpecs: map[string]string{"storage_protocol": "NFS_CIFS"}},
		{ID: "4", Name: "dhss", ExtraSpecs: map[string]string{"driver_handles_share_servers": "True"}},
		{ID: "5", Name: "dhss-net", ExtraSpecs: map[string]string{"driver_handles_share_servers": "true"}},
	}
	settings := mustConfig(t, `
storageClasses:
  defaultShareType: gold
  defaults:
    nfs-shareClient: 10.0.0.0/8
  shareTypes:
    dhss-net:
      shareNetworkID: net-1
      reclaimPolicy: Retain
      mountOptions: [nfsvers=4.1]
`)
	wanted, skipped := Desired(types, settings, nil)

	byType := map[string]Wanted{}
	for _, w := range wanted {
		byType[w.ShareType.Name] = w
	}
	if len(wanted) != 3 || byType["gold"].Class == nil || byType["multi"].Class == nil || byType["dhss-net"].Class == nil {
		t.Fatalf("wanted %v", wanted)
	}
	gold := byType["gold"].Class
	if gold.Name != "csi-manila-gold" || gold.Provisioner != "manila.csi.openstack.org" || gold.Parameters["type"] != "gold" ||
		gold.Parameters["csi.storage.k8s.io/node-stage-secret-name"] != "csi-manila-secrets" ||
		gold.Parameters["csi.storage.k8s.io/controller-expand-secret-namespace"] != "openshift-manila-csi-driver" ||
		gold.Parameters["nfs-shareClient"] != "10.0.0.0/8" || gold.Annotations[DefaultClassAnnotation] != "true" ||
		gold.Annotations[ShareTypeIDAnnotation] != "1" || !Owned(gold) || string(*gold.ReclaimPolicy) != "Delete" ||
		!*gold.AllowVolumeExpansion || string(*gold.VolumeBindingMode) != "Immediate" {
		t.Errorf("gold class %+v", gold)
	}
	net := byType["dhss-net"].Class
	if net.Parameters["shareNetworkID"] != "net-1" || string(*net.ReclaimPolicy) != "Retain" || net.MountOptions[0] != "nfsvers=4.1" {
		t.Errorf("dhss-net class %+v", net)
	}
	if _, isDefault := net.Annotations[DefaultClassAnnotation]; isDefault {
		t.Errorf("dhss-net is not the default class")
	}
	reasons := map[string]Skipped{}
	for _, s := range skipped {
		reasons[s.ShareType.Name] = s
	}
	if s := reasons["cephfs"]; s.NeedsAction || !strings.Contains(s.Reason, "CEPHFS") {
		t.Errorf("cephfs skip %+v", s)
	}
	if s := reasons["dhss"]; !s.NeedsAction || !strings.Contains(s.Reason, "storageClasses.shareTypes.dhss.shareNetworkID") {
		t.Errorf("dhss skip %+v", s)
	}
}

// The driver splits nfs-shareClient on commas without trimming; a list the config accepts with spaces
// reaches the class without them.
func TestShareClientListWithoutSpaces(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{`"10.0.0.0/24, 10.0.1.0/24"`, "10.0.0.0/24,10.0.1.0/24"},
		{`" 192.168.1.5 ,10.0.0.0/8 "`, "192.168.1.5,10.0.0.0/8"},
		{`"10.0.0.0/8"`, "10.0.0.0/8"},
	} {
		settings := mustConfig(t, "storageClasses:\n  defaults:\n    nfs-shareClient: "+tc.config+"\n")
		wanted, _ := Desired([]manilatypes.ShareType{{ID: "1", Name: "gold"}}, settings, nil)
		if len(wanted) != 1 || wanted[0].Class.Parameters["nfs-shareClient"] != tc.want {
			t.Errorf("nfs-shareClient %s: class parameters %v, want %q", tc.config, wanted[0].Class.Parameters, tc.want)
		}
	}
}

// A class serves the share type it was created for (by ID) until it is deleted.
func TestDesiredKeepsClassesWithTheirShareType(t *testing.T) {
	hashed := hashedName(NamePrefix, "gold-nfs")
	for _, tc := range []struct {
		name  string
		types []manilatypes.ShareType
		owned map[string]Owner
		want  map[string]string // share-type name -> class name
	}{
		{name: "the other of two colliding types is deleted: no takeover",
			types: []manilatypes.ShareType{{ID: "2", Name: "gold-nfs"}},
			owned: map[string]Owner{"csi-manila-gold-nfs": {ID: "1", Name: "Gold_NFS"}, hashed: {ID: "2", Name: "gold-nfs"}},
			want:  map[string]string{"gold-nfs": hashed}},
		{name: "a renamed type keeps its class",
			types: []manilatypes.ShareType{{ID: "1", Name: "platinum"}},
			owned: map[string]Owner{"csi-manila-gold": {ID: "1", Name: "gold"}},
			want:  map[string]string{"platinum": "csi-manila-gold"}},
		{name: "a new type never takes a gone type's class",
			types: []manilatypes.ShareType{{ID: "3", Name: "gold"}},
			owned: map[string]Owner{"csi-manila-gold": {ID: "1", Name: "gold"}},
			want:  map[string]string{"gold": hashedName(NamePrefix, "gold")}},
		{name: "nor an owned class without annotations",
			types: []manilatypes.ShareType{{ID: "3", Name: "admin-made"}},
			owned: map[string]Owner{"csi-manila-admin-made": {}},
			want:  map[string]string{"admin-made": hashedName(NamePrefix, "admin-made")}},
		{name: "copies made before the class-name annotation never take a type's class",
			types: []manilatypes.ShareType{{ID: "1", Name: "gold"}},
			owned: map[string]Owner{"a-copy": {ID: "1", Name: "gold"}, "csi-manila-gold": {ID: "1", Name: "gold"}, "zz-copy": {ID: "1", Name: "gold"}},
			want:  map[string]string{"gold": "csi-manila-gold"}},
		{name: "of two such copies of a renamed type's class, the first by name",
			types: []manilatypes.ShareType{{ID: "1", Name: "platinum"}},
			owned: map[string]Owner{"b-copy": {ID: "1", Name: "gold"}, "a-copy": {ID: "1", Name: "gold"}},
			want:  map[string]string{"platinum": "a-copy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wanted, skipped := Desired(tc.types, operatorconfig.StorageClasses{}, tc.owned)
			if len(skipped) != 0 {
				t.Fatalf("skipped %v", skipped)
			}
			got := map[string]string{}
			for _, w := range wanted {
				got[w.ShareType.Name] = w.Class.Name
				if w.Class.Parameters["type"] != w.ShareType.Name || w.Class.Annotations[ShareTypeIDAnnotation] != w.ShareType.ID {
					t.Errorf("class %s: type=%s id=%s", w.Class.Name, w.Class.Parameters["type"], w.Class.Annotations[ShareTypeIDAnnotation])
				}
				if given := w.Class.Annotations[ClassNameAnnotation]; given != w.Class.Name {
					t.Errorf("class %s: %s=%q; want its own name", w.Class.Name, ClassNameAnnotation, given)
				}
			}
			for st, class := range tc.want {
				if got[st] != class {
					t.Errorf("%s -> %s, want %s", st, got[st], class)
				}
			}
		})
	}
}

func TestOwned(t *testing.T) {
	for _, tc := range []struct {
		name  string
		class *storagev1.StorageClass
		want  bool
	}{
		{name: "no owner label", class: class("csi-manila-gold", false, map[string]string{ClassNameAnnotation: "csi-manila-gold"})},
		{name: "the operator's", class: class("csi-manila-gold", true, map[string]string{ClassNameAnnotation: "csi-manila-gold"}), want: true},
		{name: "written before the class-name annotation", class: class("csi-manila-gold", true, nil), want: true},
		{name: "a copy under another name", class: class("gold-copy", true, map[string]string{ClassNameAnnotation: "csi-manila-gold"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Owned(tc.class); got != tc.want {
				t.Errorf("Owned = %v; want %v", got, tc.want)
			}
		})
	}
}
