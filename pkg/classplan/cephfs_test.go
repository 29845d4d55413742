package classplan

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

func protocolType(id, name, protocol string) manilatypes.ShareType {
	st := manilatypes.ShareType{ID: id, Name: name}
	if protocol != "" {
		st.ExtraSpecs = map[string]string{"storage_protocol": protocol}
	}
	return st
}

// CephFS class names are the NFS mapping after manila-cephfs- instead of csi-manila-.
func TestCephFSClassNames(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name      string
		types     []string
		owners    map[string]string
		want      map[string]string
		hashBases map[string]string // these get "-" + 8 hex appended
	}{
		{name: "ordinary names",
			types: []string{"gold", "nfs_standard", "UPPER_CASE", "v1.2", "a--b"},
			want: map[string]string{"gold": "manila-cephfs-gold", "nfs_standard": "manila-cephfs-nfs-standard",
				"UPPER_CASE": "manila-cephfs-upper-case", "v1.2": "manila-cephfs-v1.2", "a--b": "manila-cephfs-a--b"}},
		{name: "not the plain form", types: []string{"a b", "Größe", "日本", "-gold-", "a..b"},
			hashBases: map[string]string{"a b": "manila-cephfs-a-b", "Größe": "manila-cephfs-gr-e", "日本": "manila-cephfs",
				"-gold-": "manila-cephfs-gold", "a..b": "manila-cephfs-a-b"}},
		{name: "too long: the base is cut to fit the longer prefix", types: []string{long},
			hashBases: map[string]string{long: "manila-cephfs-" + long[:230]}},
		{name: "collision: the unchanged name keeps it", types: []string{"Gold_NFS", "gold-nfs"},
			want: map[string]string{"gold-nfs": "manila-cephfs-gold-nfs"}, hashBases: map[string]string{"Gold_NFS": "manila-cephfs-gold-nfs"}},
		{name: "collision: the current owner keeps it", types: []string{"Gold_NFS", "gold-nfs"},
			owners: map[string]string{"manila-cephfs-gold-nfs": "Gold_NFS"},
			want:   map[string]string{"Gold_NFS": "manila-cephfs-gold-nfs"}, hashBases: map[string]string{"gold-nfs": "manila-cephfs-gold-nfs"}},
		{name: "an NFS owner of the NFS name changes nothing", types: []string{"Gold_NFS", "gold-nfs"},
			owners: map[string]string{"csi-manila-gold-nfs": "Gold_NFS"},
			want:   map[string]string{"gold-nfs": "manila-cephfs-gold-nfs"}, hashBases: map[string]string{"Gold_NFS": "manila-cephfs-gold-nfs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ClassNames(CephFSNamePrefix, tt.types, tt.owners)
			for _, st := range tt.types {
				name := got[st]
				if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
					t.Errorf("%q -> %q: %v", st, name, errs)
				}
				if want, ok := tt.want[st]; ok && name != want {
					t.Errorf("%q -> %q, want %q", st, name, want)
				}
				if base, ok := tt.hashBases[st]; ok && name != base+"-"+nameHash(st) {
					t.Errorf("%q -> %q, want %q", st, name, base+"-"+nameHash(st))
				}
				// Without owners (which are per prefix), the same mapping after either prefix.
				if nfs := ClassNames(NamePrefix, tt.types, nil)[st]; tt.owners == nil && len(st) < 200 && strings.TrimPrefix(nfs, NamePrefix) != strings.TrimPrefix(name, CephFSNamePrefix) {
					t.Errorf("%q: NFS %q and CephFS %q differ after the prefix", st, nfs, name)
				}
			}
		})
	}
	if got := PlainNameWith(CephFSNamePrefix, "Gold_NFS"); got != "manila-cephfs-gold-nfs" {
		t.Errorf("PlainNameWith = %q", got)
	}
}

func TestServedProtocols(t *testing.T) {
	for _, tc := range []struct {
		protocol string // "" : no storage_protocol
		want     []Protocol
	}{
		{"", []Protocol{ProtocolNFS}},
		{"  ", []Protocol{ProtocolNFS}},
		{"NFS", []Protocol{ProtocolNFS}},
		{"CEPHFS", []Protocol{ProtocolCephFS}},
		{"cephfs", []Protocol{ProtocolCephFS}},
		{"NFS CEPHFS", []Protocol{ProtocolNFS, ProtocolCephFS}},
		{"CEPHFS_NFS", []Protocol{ProtocolNFS, ProtocolCephFS}},
		{"nfs,CephFS", []Protocol{ProtocolNFS, ProtocolCephFS}},
		{"NFS_CIFS", []Protocol{ProtocolNFS}},
		{"CIFS", nil},
		{"CEPHFS-NFS", nil}, // '-' does not split, as for NFS before
		{"GLUSTERFS", nil},
	} {
		st := protocolType("1", "t", tc.protocol)
		if tc.protocol == "  " {
			st.ExtraSpecs = map[string]string{"storage_protocol": "  "}
		}
		if got := ServedProtocols(st); !slices.Equal(got, tc.want) {
			t.Errorf("storage_protocol %q: %v, want %v", tc.protocol, got, tc.want)
		}
	}
}

// Which types get which class, with cephfs.enabled on and off.
func TestDesiredProtocols(t *testing.T) {
	types := []manilatypes.ShareType{
		protocolType("1", "gold", "NFS CEPHFS"),
		protocolType("2", "ceph", "CEPHFS"),
		protocolType("3", "plain", ""),
		protocolType("4", "nfs", "NFS"),
		protocolType("5", "cifs", "CIFS"),
		protocolType("6", "Both_Types", "cephfs_nfs"),
	}
	dhss := protocolType("7", "dhss", "NFS,CEPHFS")
	dhss.ExtraSpecs["driver_handles_share_servers"] = "True"
	types = append(types, dhss)
	tests := []struct {
		name    string
		cephFS  bool
		want    map[string][]string // share type -> its classes
		skipped map[string][]string // share type -> words of its one skip reason
	}{
		{name: "CephFS off: NFS classes only, as before", cephFS: false,
			want: map[string][]string{"gold": {"csi-manila-gold"}, "plain": {"csi-manila-plain"}, "nfs": {"csi-manila-nfs"},
				"Both_Types": {"csi-manila-both-types"}},
			skipped: map[string][]string{
				"ceph": {"storage_protocol=CEPHFS", "serves NFS only", "cephfs.enabled: true", "cephfs.image", operatorconfig.ConfigMapName},
				"cifs": {"storage_protocol=CIFS; the driver serves NFS only"},
				"dhss": {"storageClasses.shareTypes.dhss.shareNetworkID"}}},
		{name: "CephFS on: a CephFS class per CEPHFS type, both for a type serving both", cephFS: true,
			want: map[string][]string{"gold": {"csi-manila-gold", "manila-cephfs-gold"}, "ceph": {"manila-cephfs-ceph"},
				"plain": {"csi-manila-plain"}, "nfs": {"csi-manila-nfs"}, "Both_Types": {"csi-manila-both-types", "manila-cephfs-both-types"}},
			skipped: map[string][]string{
				"cifs": {"storage_protocol=CIFS", "NFS and CEPHFS only"},
				"dhss": {"storageClasses.shareTypes.dhss.shareNetworkID"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wanted, skipped := DesiredFor(types, operatorconfig.StorageClasses{}, tt.cephFS, nil)
			got := map[string][]string{}
			for _, w := range wanted {
				got[w.ShareType.Name] = append(got[w.ShareType.Name], w.Class.Name)
				wantProtocol := ProtocolNFS
				if strings.HasPrefix(w.Class.Name, CephFSNamePrefix) {
					wantProtocol = ProtocolCephFS
				}
				if ProtocolOf(w.Class) != wantProtocol {
					t.Errorf("class %s: protocol %s", w.Class.Name, ProtocolOf(w.Class))
				}
			}
			for st := range got {
				slices.Sort(got[st])
			}
			if !maps.EqualFunc(got, tt.want, slices.Equal[[]string]) {
				t.Errorf("classes %v, want %v", got, tt.want)
			}
			bySkip := map[string][]Skipped{}
			for _, s := range skipped {
				bySkip[s.ShareType.Name] = append(bySkip[s.ShareType.Name], s)
			}
			if len(bySkip) != len(tt.skipped) {
				t.Errorf("skipped %v, want %v", bySkip, tt.skipped)
			}
			for st, words := range tt.skipped {
				if len(bySkip[st]) != 1 {
					t.Errorf("%s: %d skips, want one for the type: %v", st, len(bySkip[st]), bySkip[st])
					continue
				}
				s := bySkip[st][0]
				for _, w := range words {
					if !strings.Contains(s.Reason, w) {
						t.Errorf("%s: reason %q lacks %q", st, s.Reason, w)
					}
				}
				if st != "dhss" && (s.Kind != SkipNoNFS || s.NeedsAction || s.Protocol != "") {
					t.Errorf("%s: %+v, want kind NoNFS, no action needed, for the whole type", st, s)
				}
			}
		})
	}
	// Desired is DesiredFor with CephFS off.
	a, _ := Desired(types, operatorconfig.StorageClasses{}, nil)
	b, _ := DesiredFor(types, operatorconfig.StorageClasses{}, false, nil)
	if len(a) != len(b) {
		t.Errorf("Desired %d classes, DesiredFor(false) %d", len(a), len(b))
	}
}

// A CephFS class takes the cephfs-* settings and the ones both drivers read, never nfs-shareClient or
// mountOptions (NFS mount options break a CephFS mount); an NFS class never takes a cephfs-* one.
func TestCephFSClassParameters(t *testing.T) {
	settings := mustConfig(t, `
storageClasses:
  defaultShareType: gold
  defaults:
    nfs-shareClient: 10.0.0.0/8
    mountOptions: [nfsvers=4.1]
    cephfs-mounter: kernel
    cephfs-kernelMountOptions: ms_mode=secure
    appendShareMetadata: '{"team":"a"}'
  shareTypes:
    gold:
      cephfs-clientID: tenant-a
      cephfs-fuseMountOptions: debug
      shareNetworkID: net-1
      availability: az1
      reclaimPolicy: Retain
      volumeBindingMode: WaitForFirstConsumer
      allowVolumeExpansion: false
    ceph:
      cephfs-mounter: fuse
`)
	types := []manilatypes.ShareType{protocolType("1", "gold", "NFS CEPHFS"), protocolType("2", "ceph", "CEPHFS")}
	wanted, skipped := DesiredFor(types, settings, true, nil)
	if len(skipped) > 0 {
		t.Fatalf("skipped %v", skipped)
	}
	byName := map[string]*storagev1.StorageClass{}
	for _, w := range wanted {
		byName[w.Class.Name] = w.Class
	}
	secrets := func(sc *storagev1.StorageClass) map[string]string {
		out := map[string]string{}
		for k, v := range sc.Parameters {
			if strings.HasPrefix(k, "csi.storage.k8s.io/") {
				out[k] = v
			}
		}
		return out
	}
	tests := []struct {
		class      string
		provider   string
		params     map[string]string // besides the secret parameters
		reclaim    string
		binding    string
		expand     bool
		mount      []string
		isDefault  bool
		annotation string // ProtocolAnnotation
	}{
		{class: "csi-manila-gold", provider: names.CSIDriverName, params: map[string]string{"type": "gold", "nfs-shareClient": "10.0.0.0/8",
			"shareNetworkID": "net-1", "availability": "az1", "appendShareMetadata": `{"team":"a"}`},
			reclaim: "Retain", binding: "WaitForFirstConsumer", mount: []string{"nfsvers=4.1"}, isDefault: true},
		{class: "manila-cephfs-gold", provider: "cephfs.manila.csi.openstack.org", params: map[string]string{"type": "gold",
			"cephfs-mounter": "kernel", "cephfs-clientID": "tenant-a", "cephfs-kernelMountOptions": "ms_mode=secure", "cephfs-fuseMountOptions": "debug",
			"shareNetworkID": "net-1", "availability": "az1", "appendShareMetadata": `{"team":"a"}`},
			reclaim: "Retain", binding: "WaitForFirstConsumer", annotation: "CEPHFS"},
		{class: "manila-cephfs-ceph", provider: "cephfs.manila.csi.openstack.org", params: map[string]string{"type": "ceph",
			"cephfs-mounter": "fuse", "cephfs-kernelMountOptions": "ms_mode=secure", "appendShareMetadata": `{"team":"a"}`},
			reclaim: "Delete", binding: "Immediate", expand: true, annotation: "CEPHFS"},
	}
	nfsSecrets := secrets(byName["csi-manila-gold"])
	if len(nfsSecrets) != 8 {
		t.Fatalf("NFS secret parameters %v", nfsSecrets)
	}
	for _, tt := range tests {
		sc := byName[tt.class]
		if sc == nil {
			t.Errorf("no class %s: %v", tt.class, slices.Collect(maps.Keys(byName)))
			continue
		}
		params := maps.Clone(sc.Parameters)
		maps.DeleteFunc(params, func(k, _ string) bool { return strings.HasPrefix(k, "csi.storage.k8s.io/") })
		if !maps.Equal(params, tt.params) {
			t.Errorf("%s: parameters %v, want %v", tt.class, params, tt.params)
		}
		if !maps.Equal(secrets(sc), nfsSecrets) {
			t.Errorf("%s: secret parameters %v, want the NFS class's %v", tt.class, secrets(sc), nfsSecrets)
		}
		if sc.Provisioner != tt.provider || string(*sc.ReclaimPolicy) != tt.reclaim || string(*sc.VolumeBindingMode) != tt.binding ||
			*sc.AllowVolumeExpansion != tt.expand || !slices.Equal(sc.MountOptions, tt.mount) {
			t.Errorf("%s: provisioner %s reclaim %s binding %s expand %t mountOptions %v", tt.class, sc.Provisioner,
				*sc.ReclaimPolicy, *sc.VolumeBindingMode, *sc.AllowVolumeExpansion, sc.MountOptions)
		}
		if (sc.Annotations[DefaultClassAnnotation] == "true") != tt.isDefault {
			t.Errorf("%s: default %q, want %t", tt.class, sc.Annotations[DefaultClassAnnotation], tt.isDefault)
		}
		if got, ok := sc.Annotations[ProtocolAnnotation]; got != tt.annotation || ok != (tt.annotation != "") {
			t.Errorf("%s: protocol annotation %q", tt.class, got)
		}
		if !Owned(sc) || sc.Annotations[ShareTypeIDAnnotation] == "" || sc.Annotations[ShareTypeNameAnnotation] != tt.params["type"] {
			t.Errorf("%s: owner metadata %v %v", tt.class, sc.Labels, sc.Annotations)
		}
	}
}

// The default share type's NFS class is the default; a CEPHFS-only type's CephFS class is.
func TestCephFSDefaultClass(t *testing.T) {
	for _, tc := range []struct {
		protocol, want string
	}{
		{"NFS CEPHFS", "csi-manila-gold"},
		{"CEPHFS", "manila-cephfs-gold"},
		{"NFS", "csi-manila-gold"},
	} {
		wanted, _ := DesiredFor([]manilatypes.ShareType{protocolType("1", "gold", tc.protocol)},
			operatorconfig.StorageClasses{DefaultShareType: "gold"}, true, nil)
		var defaults []string
		for _, w := range wanted {
			if w.Class.Annotations[DefaultClassAnnotation] == "true" {
				defaults = append(defaults, w.Class.Name)
			}
		}
		if !slices.Equal(defaults, []string{tc.want}) {
			t.Errorf("storage_protocol %s: default classes %v, want %s", tc.protocol, defaults, tc.want)
		}
		if notices := ApplyDefault(wanted, nil, "gold"); len(notices) > 0 {
			t.Errorf("storage_protocol %s: %v", tc.protocol, notices)
		}
	}
}

func TestOwnerOf(t *testing.T) {
	wanted, _ := DesiredFor([]manilatypes.ShareType{protocolType("1", "gold", "NFS CEPHFS")}, operatorconfig.StorageClasses{}, true, nil)
	for _, w := range wanted {
		o := OwnerOf(w.Class)
		if o.ID != "1" || o.Name != "gold" || o.PerZone || o.Protocol != ProtocolOf(w.Class) {
			t.Errorf("%s: %+v", w.Class.Name, o)
		}
	}
	if got := ProtocolOf(&storagev1.StorageClass{}); got != ProtocolNFS {
		t.Errorf("a class without the annotation: %s, want NFS", got)
	}
}

// The NFS and the CephFS class of one share type are kept apart by the protocol annotation: each
// follows the type's ID on its own, and neither takes the other's name.
func TestDesiredKeepsProtocolsApart(t *testing.T) {
	cephfs := func(id, name string) Owner { return Owner{ID: id, Name: name, Protocol: ProtocolCephFS} }
	for _, tc := range []struct {
		name  string
		types []manilatypes.ShareType
		owned map[string]Owner
		want  []string // class names
	}{
		{name: "both classes of a type stay",
			types: []manilatypes.ShareType{protocolType("1", "gold", "NFS CEPHFS")},
			owned: map[string]Owner{"csi-manila-gold": {ID: "1", Name: "gold"}, "manila-cephfs-gold": cephfs("1", "gold")},
			want:  []string{"csi-manila-gold", "manila-cephfs-gold"}},
		{name: "a renamed type keeps both its classes",
			types: []manilatypes.ShareType{protocolType("1", "platinum", "NFS CEPHFS")},
			owned: map[string]Owner{"csi-manila-gold": {ID: "1", Name: "gold"}, "manila-cephfs-gold": cephfs("1", "gold")},
			want:  []string{"csi-manila-gold", "manila-cephfs-gold"}},
		{name: "an NFS class of the type's ID is not its CephFS class",
			types: []manilatypes.ShareType{protocolType("1", "platinum", "NFS CEPHFS")},
			owned: map[string]Owner{"csi-manila-gold": {ID: "1", Name: "gold"}},
			want:  []string{"csi-manila-gold", "manila-cephfs-platinum"}},
		{name: "a CephFS class of the type's ID is not its NFS class",
			types: []manilatypes.ShareType{protocolType("1", "platinum", "NFS CEPHFS")},
			owned: map[string]Owner{"manila-cephfs-gold": cephfs("1", "gold")},
			want:  []string{"csi-manila-platinum", "manila-cephfs-gold"}},
		{name: "a new type never takes a gone type's CephFS class",
			types: []manilatypes.ShareType{protocolType("3", "gold", "CEPHFS")},
			owned: map[string]Owner{"manila-cephfs-gold": cephfs("1", "gold")},
			want:  []string{hashedName(CephFSNamePrefix, "gold")}},
		{name: "a class named manila-cephfs-* without the annotation is not the type's CephFS class",
			types: []manilatypes.ShareType{protocolType("1", "gold", "CEPHFS")},
			owned: map[string]Owner{"manila-cephfs-gold": {ID: "1", Name: "gold"}},
			want:  []string{hashedName(CephFSNamePrefix, "gold")}},
		{name: "the type of a gone CephFS class keeps its NFS class, and gets no second one",
			types: []manilatypes.ShareType{protocolType("1", "gold", "NFS")},
			owned: map[string]Owner{"csi-manila-gold": {ID: "1", Name: "gold"}, "manila-cephfs-gold": cephfs("1", "gold")},
			want:  []string{"csi-manila-gold"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wanted, skipped := DesiredFor(tc.types, operatorconfig.StorageClasses{}, true, tc.owned)
			if len(skipped) > 0 {
				t.Fatalf("skipped %v", skipped)
			}
			var got []string
			for _, w := range wanted {
				got = append(got, w.Class.Name)
				if w.Class.Parameters["type"] != w.ShareType.Name {
					t.Errorf("%s: type %s", w.Class.Name, w.Class.Parameters["type"])
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("classes %v, want %v", got, tc.want)
			}
		})
	}
}

// owned turns classes into the map DesiredFor takes, as the controller does.
func ownersOf(classes ...*storagev1.StorageClass) (map[string]Owner, map[string]*storagev1.StorageClass) {
	owners, existing := map[string]Owner{}, map[string]*storagev1.StorageClass{}
	for _, sc := range classes {
		existing[sc.Name] = sc
		if Owned(sc) {
			owners[sc.Name] = OwnerOf(sc)
		}
	}
	return owners, existing
}

// Stale marking, pruning, renames and storageClassState treat a CephFS class as an NFS one while
// cephfs.enabled is true; while it is false, an unclaimed CephFS class is deleted and a claimed one kept.
func TestPlanCephFS(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	before := []manilatypes.ShareType{protocolType("1", "gold", "NFS CEPHFS"), protocolType("2", "ceph", "CEPHFS"), protocolType("3", "old", "CEPHFS")}
	made, _ := DesiredFor(before, operatorconfig.StorageClasses{}, true, nil)
	var classes []*storagev1.StorageClass
	for _, w := range made {
		classes = append(classes, w.Class)
	}
	tests := []struct {
		name       string
		state      operatorv1.StorageClassStateName
		after      []manilatypes.ShareType
		cephFS     bool
		claims     map[string]string
		unknown    bool // the claims still being listed
		absent     map[string]int
		pruneAfter int
		want       map[string]ActionKind
		stale      []string
		retained   []Retained
		renamed    map[string]string // class -> the type it is recreated for
	}{
		{name: "on, nothing changed", cephFS: true, after: before, want: map[string]ActionKind{}},
		{name: "on, a type gone: its CephFS class is stale, marked", cephFS: true, after: before[:2],
			want: map[string]ActionKind{"manila-cephfs-old": Update}, stale: []string{"manila-cephfs-old"}},
		{name: "on, pruned after enough listings", cephFS: true, after: before[:2], absent: map[string]int{"manila-cephfs-old": 3}, pruneAfter: 3,
			want: map[string]ActionKind{"manila-cephfs-old": Delete}, stale: []string{"manila-cephfs-old"}},
		{name: "on, a renamed type: both its classes recreated under their names", cephFS: true,
			after:   []manilatypes.ShareType{protocolType("1", "platinum", "NFS CEPHFS"), before[1], before[2]},
			want:    map[string]ActionKind{"csi-manila-gold": Recreate, "manila-cephfs-gold": Recreate},
			renamed: map[string]string{"csi-manila-gold": "platinum", "manila-cephfs-gold": "platinum"}},
		{name: "off: unclaimed CephFS classes deleted, claimed ones kept, NFS classes untouched", after: before,
			claims:   map[string]string{"manila-cephfs-ceph": "apps/data", "csi-manila-gold": "apps/web"},
			want:     map[string]ActionKind{"manila-cephfs-gold": Delete, "manila-cephfs-old": Delete},
			retained: []Retained{{Class: "manila-cephfs-ceph", Claim: "apps/data"}}},
		{name: "off, the claims still being listed: CephFS classes left as they are, a new type's class made",
			after: append(slices.Clone(before), protocolType("4", "silver", "NFS")), unknown: true,
			want: map[string]ActionKind{"csi-manila-silver": Create}},
		{name: "off, a type gone: its class retired, not stale", after: before[:2],
			claims:   map[string]string{"manila-cephfs-old": "apps/old"},
			want:     map[string]ActionKind{"manila-cephfs-gold": Delete, "manila-cephfs-ceph": Delete},
			retained: []Retained{{Class: "manila-cephfs-old", Claim: "apps/old"}}},
		{name: "off, Unmanaged: nothing deleted, claimed ones listed", state: operatorv1.UnmanagedStorageClass, after: before,
			claims: map[string]string{"manila-cephfs-ceph": "apps/data"},
			want:   map[string]ActionKind{}, retained: []Retained{{Class: "manila-cephfs-ceph", Claim: "apps/data"}}},
		{name: "off, Removed: every class deleted, claimed or not", state: operatorv1.RemovedStorageClass, after: before,
			claims: map[string]string{"manila-cephfs-ceph": "apps/data"},
			want: map[string]ActionKind{"csi-manila-gold": Delete, "manila-cephfs-gold": Delete, "manila-cephfs-ceph": Delete,
				"manila-cephfs-old": Delete}},
		{name: "on, Removed: every class deleted", state: operatorv1.RemovedStorageClass, cephFS: true, after: before,
			want: map[string]ActionKind{"csi-manila-gold": Delete, "manila-cephfs-gold": Delete, "manila-cephfs-ceph": Delete,
				"manila-cephfs-old": Delete}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := tt.state
			if state == "" {
				state = operatorv1.ManagedStorageClass
			}
			owners, existing := ownersOf(classes...)
			wanted, _ := DesiredFor(tt.after, operatorconfig.StorageClasses{}, tt.cephFS, owners)
			listed := map[string]bool{}
			for _, st := range tt.after {
				listed[st.ID] = true
			}
			r := Plan(Input{State: state, Wanted: wanted, Existing: existing, Listed: listed, Absent: tt.absent, PruneAfter: tt.pruneAfter,
				Now: now, CephFS: tt.cephFS, Claims: tt.claims, ClaimsUnknown: tt.unknown})
			got := map[string]ActionKind{}
			for _, a := range r.Actions {
				got[a.Class.Name] = a.Kind
				if a.Kind == Delete && Retiring(a.Class, tt.cephFS) && state == operatorv1.ManagedStorageClass && !strings.Contains(a.Why, "cephfs.enabled is false") {
					t.Errorf("%s: deleted with why %q", a.Class.Name, a.Why)
				}
				if to, ok := tt.renamed[a.Class.Name]; ok {
					if from, newName, renamed := Renamed(a); !renamed || from != "gold" || newName != to || a.Class.Parameters["type"] != to ||
						ProtocolOf(a.Class) != ProtocolOf(a.Existing) {
						t.Errorf("%s: Renamed %q -> %q (%t), type %s", a.Class.Name, from, newName, renamed, a.Class.Parameters["type"])
					}
				}
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("actions %v, want %v", got, tt.want)
			}
			if !slices.Equal(r.Stale, tt.stale) {
				t.Errorf("stale %v, want %v", r.Stale, tt.stale)
			}
			if !slices.Equal(r.Retained, tt.retained) {
				t.Errorf("retained %v, want %v", r.Retained, tt.retained)
			}
		})
	}
}

// Adoption is for NFS classes: a CephFS class of a type does not stand for its NFS class, and a class
// of the CephFS driver without the owner label is neither adopted nor reported.
func TestAdoptionsIgnoreCephFS(t *testing.T) {
	types := []manilatypes.ShareType{protocolType("1", "gold", "NFS CEPHFS")}
	made, _ := DesiredFor(types, operatorconfig.StorageClasses{}, true, nil)
	var cephClass *storagev1.StorageClass
	for _, w := range made {
		if ProtocolOf(w.Class) == ProtocolCephFS {
			cephClass = w.Class
		}
	}
	unowned := cephClass.DeepCopy()
	unowned.Name, unowned.Labels = "manila-cephfs-by-hand", nil
	owners, _ := ownersOf(cephClass)
	got := Adoptions([]*storagev1.StorageClass{cephClass, unowned, predecessorClass("gold", true)}, types, owners)
	if _, ok := got.Adopt["csi-manila-gold"]; !ok || len(got.Adopt) != 1 || len(got.Refused) != 0 {
		t.Errorf("adopt %v refused %v: want the predecessor's NFS class only, nothing refused", got.Adopt, got.Refused)
	}
}

// Per-zone classes work for both protocols: manila-cephfs-<type>-<zone> beside csi-manila-<type>-<zone>.
func TestZonalCephFS(t *testing.T) {
	types := []manilatypes.ShareType{protocolType("1", "gold", "NFS CEPHFS")}
	wanted, _ := DesiredFor(types, operatorconfig.StorageClasses{DefaultShareType: "gold"}, true, nil)
	topo := operatorconfig.Topology{Mode: operatorconfig.TopologyZonal, PerZoneClasses: true, Zones: map[string][]string{"az1": {"nova-1"}}}
	zonal, skipped := Zonal(wanted, topo, []string{"az1"}, nil)
	if len(skipped) > 0 {
		t.Fatalf("skipped %v", skipped)
	}
	got := map[string]*storagev1.StorageClass{}
	for _, w := range zonal {
		got[w.Class.Name] = w.Class
	}
	for name, want := range map[string]struct {
		protocol     Protocol
		availability string
		zoneClass    bool
	}{
		"csi-manila-gold": {ProtocolNFS, "", false}, "csi-manila-gold-az1": {ProtocolNFS, "az1", true},
		"manila-cephfs-gold": {ProtocolCephFS, "", false}, "manila-cephfs-gold-az1": {ProtocolCephFS, "az1", true},
	} {
		sc := got[name]
		if sc == nil {
			t.Errorf("no class %s: %v", name, slices.Sorted(maps.Keys(got)))
			continue
		}
		if ProtocolOf(sc) != want.protocol || sc.Parameters["availability"] != want.availability || PerZone(sc) != want.zoneClass ||
			sc.Parameters["autoTopology"] != "true" || string(*sc.VolumeBindingMode) != "WaitForFirstConsumer" {
			t.Errorf("%s: protocol %s parameters %v per-zone %t", name, ProtocolOf(sc), sc.Parameters, PerZone(sc))
		}
		if want.zoneClass && (len(sc.AllowedTopologies) != 1 || sc.AllowedTopologies[0].MatchLabelExpressions[0].Key != TopologyKey ||
			!slices.Equal(sc.AllowedTopologies[0].MatchLabelExpressions[0].Values, []string{"nova-1"})) {
			t.Errorf("%s: allowedTopologies %v", name, sc.AllowedTopologies)
		}
		if _, isDefault := sc.Annotations[DefaultClassAnnotation]; isDefault != (name == "csi-manila-gold") {
			t.Errorf("%s: default annotation %t", name, isDefault)
		}
	}
	// A type none of whose zones is listed: one skip per class, each naming its protocol.
	limited := protocolType("2", "far", "NFS CEPHFS")
	limited.AvailabilityZones = []string{"az9"}
	wanted, _ = DesiredFor([]manilatypes.ShareType{limited}, operatorconfig.StorageClasses{}, true, nil)
	_, skipped = Zonal(wanted, topo, []string{"az1"}, nil)
	var protocols []Protocol
	for _, s := range skipped {
		protocols = append(protocols, s.Protocol)
	}
	slices.Sort(protocols)
	if !slices.Equal(protocols, []Protocol{ProtocolCephFS, ProtocolNFS}) {
		t.Errorf("skips %v", skipped)
	}
}

// CephFS shares are mounted with a cephx key: their classes are never open to any host.
func TestOpenToAnyHostIsNFSOnly(t *testing.T) {
	wanted, _ := DesiredFor([]manilatypes.ShareType{protocolType("1", "gold", "NFS CEPHFS")}, operatorconfig.StorageClasses{}, true, nil)
	if got := OpenToAnyHost(wanted); !slices.Equal(got, []string{"csi-manila-gold"}) {
		t.Errorf("open %v, want the NFS class only", got)
	}
	ready, held := HoldUnresolved(wanted)
	if len(ready) != 2 || len(held) != 0 {
		t.Errorf("ready %d held %v", len(ready), held)
	}
}

// A CephFS class gets the kernel mounter unless the config names one, for its type or by default; an
// NFS class never gets a mounter.
func TestCephFSMounterDefault(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		want         string
	}{
		{name: "none configured", config: "storageClasses: {}", want: "kernel"},
		{name: "fuse by default", config: "storageClasses: {defaults: {cephfs-mounter: fuse}}", want: "fuse"},
		{name: "fuse for the type", config: "storageClasses: {defaults: {cephfs-mounter: kernel}, shareTypes: {ceph: {cephfs-mounter: fuse}}}", want: "fuse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wanted, _ := DesiredFor([]manilatypes.ShareType{protocolType("2", "ceph", "CEPHFS"), protocolType("1", "plain", "NFS")}, mustConfig(t, tc.config), true, nil)
			got := map[string]string{}
			for _, w := range wanted {
				if m, ok := w.Class.Parameters["cephfs-mounter"]; ok {
					got[w.Class.Name] = m
				}
			}
			if want := map[string]string{"manila-cephfs-ceph": tc.want}; !maps.Equal(got, want) {
				t.Errorf("mounters %v, want %v", got, want)
			}
		})
	}
}
