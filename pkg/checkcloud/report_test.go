package checkcloud

import (
	"errors"
	"strings"
	"testing"

	"github.com/gophercloud/utils/v2/openstack/clientconfig"
	corev1 "k8s.io/api/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/extramounts"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

func ptr[T any](v T) *T { return &v }

func cloud(authURL string, verify *bool) *clientconfig.Cloud {
	return &clientconfig.Cloud{AuthInfo: &clientconfig.AuthInfo{AuthURL: authURL, Password: "pw"}, Verify: verify}
}

var (
	nfsType    = manilatypes.ShareType{ID: "1", Name: "Gold_NFS", IsPublic: true, ExtraSpecs: map[string]string{"storage_protocol": "NFS"}}
	cephType   = manilatypes.ShareType{ID: "2", Name: "ceph", IsPublic: true, ExtraSpecs: map[string]string{"storage_protocol": "CEPHFS"}}
	dhssType   = manilatypes.ShareType{ID: "3", Name: "dhss", ExtraSpecs: map[string]string{"driver_handles_share_servers": "True"}}
	upperType  = manilatypes.ShareType{ID: "4", Name: "gold_nfs", IsPublic: true}
	manilaEP   = &openstack.Endpoint{Region: "RegionOne", Interface: "public", URL: "https://manila:8786/v2/"}
	okFacts    = Facts{CloudName: "openstack", Cloud: cloud("https://keystone:5000/v3", nil), Endpoint: manilaEP, Roles: []string{"admin"}, RolesKnown: true}
	hostPathVM = extramounts.VolMounts{
		Propagation: []extramounts.PropagationType{extramounts.Node},
		Volumes:     []corev1.Volume{{Name: "etc", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/etc"}}}},
	}
)

func with(f Facts, edit func(*Facts)) Facts {
	edit(&f)
	return f
}

func TestBuild(t *testing.T) {
	tests := []struct {
		name       string
		facts      Facts
		usable     bool
		problem    string
		hint       string
		warnings   []string
		noWarnings bool
		check      func(*testing.T, Report)
	}{
		{name: "usable", facts: with(okFacts, func(f *Facts) { f.ShareTypes = []manilatypes.ShareType{nfsType, cephType, dhssType} }), usable: true,
			warnings: []string{"StorageClass csi-manila-gold-nfs: nfs-shareClient is not set"},
			check: func(t *testing.T, r Report) {
				if r.Admin == nil || !*r.Admin || r.Listing != "public and private" {
					t.Errorf("admin %v, listing %q", r.Admin, r.Listing)
				}
				if got := r.ShareTypes[0]; got.Name != "Gold_NFS" || got.StorageClass == nil || got.StorageClass.Name != "csi-manila-gold-nfs" || got.StorageClass.Parameters["type"] != "Gold_NFS" || got.StorageClass.Snapshots {
					t.Errorf("Gold_NFS: %+v", got)
				}
				if got := r.ShareTypes[1]; got.Name != "ceph" || got.StorageClass != nil || !strings.Contains(got.NoClass, "NFS only") || got.NeedsAction {
					t.Errorf("ceph: %+v", got)
				}
				if got := r.ShareTypes[2]; got.Name != "dhss" || got.StorageClass != nil || !got.NeedsAction {
					t.Errorf("dhss: %+v", got)
				}
			}},
		{name: "login refused", facts: with(okFacts, func(f *Facts) { f.LoginErr = errors.New("Keystone refused these credentials (401 Unauthorized)") }),
			problem: "login to Keystone failed", hint: "password"},
		{name: "untrusted certificate", facts: with(okFacts, func(f *Facts) {
			f.LoginErr = errors.New("Post https://keystone/v3: tls: failed to verify certificate: x509: certificate signed by unknown authority")
		}), problem: "x509", hint: "--cacert"},
		{name: "password in a URL of an error", facts: with(okFacts, func(f *Facts) { f.LoginErr = errors.New("Post https://u:hunter22@keystone/v3: refused") }),
			problem: "https://u:xxxxx@keystone"},
		{name: "no sharev2", facts: with(okFacts, func(f *Facts) { f.ManilaErr = openstack.ErrNoManilaService }), problem: "no sharev2 service"},
		{name: "no share types", facts: okFacts, problem: "Manila lists no share types"},
		{name: "no type gets a class", facts: with(okFacts, func(f *Facts) { f.ShareTypes = []manilatypes.ShareType{cephType} }), problem: "no share type gets a StorageClass", noWarnings: true},
		{name: "not admin", facts: with(okFacts, func(f *Facts) {
			f.Roles, f.PublicOnly, f.ShareTypes = []string{"member"}, "the credentials have no admin role", []manilatypes.ShareType{nfsType}
		}), usable: true, check: func(t *testing.T, r Report) {
			if r.Admin == nil || *r.Admin || !strings.HasPrefix(r.Listing, "public only") {
				t.Errorf("admin %v, listing %q", r.Admin, r.Listing)
			}
		}},
		{name: "verify false", facts: with(okFacts, func(f *Facts) { f.Cloud = cloud("https://keystone/v3", ptr(false)) }), problem: "no share types",
			warnings: []string{"verify: false"}},
		{name: "share network set, open client list, hostPath into node pods, default type without a class", facts: with(okFacts, func(f *Facts) {
			f.ShareTypes = []manilatypes.ShareType{nfsType, dhssType, cephType}
			f.Config = operatorconfig.Config{
				ExtraMounts: []extramounts.VolMounts{hostPathVM},
				StorageClasses: operatorconfig.StorageClasses{DefaultShareType: "ceph",
					Defaults:   operatorconfig.ClassSettings{NFSShareClient: ptr("10.0.0.0/8"), ShareNetworkID: ptr("net-1")},
					ShareTypes: map[string]operatorconfig.ClassSettings{"dhss": {NFSShareClient: ptr("10.0.0.0/8, 0.0.0.0/0")}}},
			}
		}), usable: true, warnings: []string{
			"StorageClass csi-manila-dhss: nfs-shareClient opens every share to any address",
			`extraMounts[0]: hostPath volume "etc" (/etc) is mounted into openstack-manila-csi-nodeplugin and csi-nodeplugin-nfsplugin`,
			`defaultShareType "ceph" gets no StorageClass`,
		}, check: func(t *testing.T, r Report) {
			if got := r.ShareTypes[2]; got.Name != "dhss" || got.StorageClass == nil || got.StorageClass.Parameters["shareNetworkID"] != "net-1" {
				t.Errorf("dhss with a share network: %+v", got)
			}
		}},
		{name: "hostPath into the controller only is not warned about", facts: with(okFacts, func(f *Facts) {
			vm := hostPathVM
			vm.Propagation = []extramounts.PropagationType{extramounts.Controller}
			f.Config = operatorconfig.Config{ExtraMounts: []extramounts.VolMounts{vm}}
		}), problem: "no share types", noWarnings: true},
		{name: "colliding names explained", facts: with(okFacts, func(f *Facts) { f.ShareTypes = []manilatypes.ShareType{nfsType, upperType} }), usable: true,
			check: func(t *testing.T, r Report) {
				var notes []string
				for _, st := range r.ShareTypes {
					notes = append(notes, st.StorageClass.NameNote)
				}
				if !strings.Contains(strings.Join(notes, "|"), "would collide with share type") {
					t.Errorf("no collision note: %q", notes)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Build(tt.facts)
			if r.Usable != tt.usable {
				t.Errorf("Usable = %v, want %v (problem %q)", r.Usable, tt.usable, r.Problem)
			}
			if !strings.Contains(r.Problem, tt.problem) || (tt.problem == "") != (r.Problem == "") {
				t.Errorf("Problem = %q, want it to contain %q", r.Problem, tt.problem)
			}
			if !strings.Contains(r.Hint, tt.hint) {
				t.Errorf("Hint = %q, want it to contain %q", r.Hint, tt.hint)
			}
			all := strings.Join(r.Warnings, "\n")
			for _, w := range tt.warnings {
				if !strings.Contains(all, w) {
					t.Errorf("warnings lack %q:\n%s", w, all)
				}
			}
			if tt.noWarnings && len(r.Warnings) > 0 {
				t.Errorf("unexpected warnings:\n%s", all)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

func TestSnapshotCapable(t *testing.T) {
	for _, tt := range []struct {
		specs map[string]string
		want  bool
	}{
		{specs: nil, want: false},
		{specs: map[string]string{"snapshot_support": "True"}, want: false},
		{specs: map[string]string{"snapshot_support": "True", "create_share_from_snapshot_support": "False"}, want: false},
		{specs: map[string]string{"snapshot_support": "True", "create_share_from_snapshot_support": "True"}, want: true},
		{specs: map[string]string{"snapshot_support": "<is> True", "create_share_from_snapshot_support": " true"}, want: true},
		{specs: map[string]string{"snapshot_support": "<is> False", "create_share_from_snapshot_support": "True"}, want: false},
	} {
		if got := snapshotCapable(tt.specs); got != tt.want {
			t.Errorf("snapshotCapable(%v) = %t; want %t", tt.specs, got, tt.want)
		}
	}
}

func TestBuildRedactsTheAuthURL(t *testing.T) {
	r := Build(with(okFacts, func(f *Facts) { f.Cloud = cloud("https://user:hunter22@keystone/v3", nil) }))
	if r.AuthURL != "https://user:xxxxx@keystone/v3" {
		t.Errorf("AuthURL = %q", r.AuthURL)
	}
}
