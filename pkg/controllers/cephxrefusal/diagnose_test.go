package cephxrefusal

import (
	"reflect"
	"strings"
	"testing"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
)

var claim = Claim{Namespace: "ns", Name: "data", UID: "u-1"}

func shareFor(id string, md map[string]string) openstack.Share {
	return openstack.Share{ID: id, Name: "pvc-u-1", Status: "available", Metadata: md}
}

var (
	ours    = map[string]string{MetadataClaimName: "data", MetadataClaimNamespace: "ns", MetadataVolumeName: "pvc-u-1"}
	noPV    = map[string]string{MetadataClaimName: "data", MetadataClaimNamespace: "ns"}
	earlier = map[string]string{MetadataClaimName: "data", MetadataClaimNamespace: "ns", MetadataVolumeName: "pvc-u-0"}
	other   = map[string]string{MetadataClaimName: "data", MetadataClaimNamespace: "other", MetadataVolumeName: "pvc-u-1"}
)

func TestSharesOf(t *testing.T) {
	got := SharesOf(claim, []openstack.Share{shareFor("b", ours), shareFor("c", earlier), shareFor("d", other), shareFor("a", noPV), shareFor("e", nil)})
	var ids []string
	for _, s := range got {
		ids = append(ids, s.ID)
	}
	if want := []string{"a", "b"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("SharesOf = %v, want %v", ids, want)
	}
}

func TestDiagnose(t *testing.T) {
	params := map[string]string{ParamShareType: "ceph", ParamClientID: "admin"}
	refused := openstack.AccessRule{ID: "r1", AccessType: "cephx", AccessTo: "admin", State: "error"}
	for _, tc := range []struct {
		name   string
		params map[string]string
		shares []ShareRules
		want   Finding // Message checked for its start and absence only
		says   []string
	}{
		{name: "no share", params: params},
		{name: "rule active", params: params, shares: []ShareRules{{Share: shareFor("s1", ours),
			Rules: []openstack.AccessRule{{ID: "r1", AccessType: "cephx", AccessTo: "admin", State: "active"}}}}},
		{name: "rule still queued", params: params, shares: []ShareRules{{Share: shareFor("s1", ours),
			Rules: []openstack.AccessRule{{ID: "r1", AccessType: "cephx", AccessTo: "admin", State: "queued_to_apply"}}}}},
		{name: "an ip rule in error is not cephx's", params: params, shares: []ShareRules{{Share: shareFor("s1", ours),
			Rules: []openstack.AccessRule{{ID: "r1", AccessType: "ip", AccessTo: "10.0.0.0/8", State: "error"}}}}},
		{name: "another claim's share", params: params, shares: []ShareRules{{Share: shareFor("s1", earlier), Rules: []openstack.AccessRule{refused}}}},
		{name: "refused ID", params: params, shares: []ShareRules{{Share: shareFor("s1", ours), Rules: []openstack.AccessRule{refused}}},
			want: Finding{ShareID: "s1", RuleID: "r1", AccessTo: "admin"},
			says: []string{`Manila put the cephx access rule for ID "admin" on share s1 in error: its CephFS backend refused the ID (Ceph refuses an ID it already holds that Manila did not create; Manila refuses its own ID). Set storageClasses.shareTypes.ceph.cephfs-clientID in ConfigMap manila-csi-driver-operator-settings to an ID of its own, then recreate the claim.`}},
		{name: "upper-case state and type", params: params, shares: []ShareRules{{Share: shareFor("s1", noPV),
			Rules: []openstack.AccessRule{{ID: "r1", AccessType: "CEPHX", AccessTo: "admin", State: "ERROR"}}}},
			want: Finding{ShareID: "s1", RuleID: "r1", AccessTo: "admin"}, says: []string{`for ID "admin" on share s1`}},
		{name: "first by share then rule ID", params: params, shares: []ShareRules{
			{Share: shareFor("s2", ours), Rules: []openstack.AccessRule{{ID: "r0", AccessType: "cephx", AccessTo: "x", State: "error"}}},
			{Share: shareFor("s1", ours), Rules: []openstack.AccessRule{{ID: "r9", AccessType: "cephx", AccessTo: "y", State: "error"},
				{ID: "r3", AccessType: "cephx", AccessTo: "z", State: "error"}}}},
			want: Finding{ShareID: "s1", RuleID: "r3", AccessTo: "z"}},
		{name: "no clientID: the volume's own ID", params: map[string]string{ParamShareType: "ceph"},
			shares: []ShareRules{{Share: shareFor("s1", ours), Rules: []openstack.AccessRule{{ID: "r1", AccessType: "cephx", AccessTo: "pvc-u-1", State: "error"}}}},
			want:   Finding{ShareID: "s1", RuleID: "r1", AccessTo: "pvc-u-1"},
			says:   []string{`for ID "pvc-u-1"`, "the class sets no cephfs-clientID", "storageClasses.shareTypes.ceph.cephfs-clientID"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Diagnose(claim, tc.params, tc.shares)
			msg := got.Message
			got.Message = ""
			if got != tc.want {
				t.Errorf("Diagnose = %+v, want %+v", got, tc.want)
			}
			if (msg == "") != (tc.want == Finding{}) {
				t.Errorf("message %q for finding %+v", msg, tc.want)
			}
			for _, s := range tc.says {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q lacks %q", msg, s)
				}
			}
		})
	}
}
