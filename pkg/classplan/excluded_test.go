package classplan

import (
	"reflect"
	"strings"
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
)

func TestExcluding(t *testing.T) {
	class := func(name, shareClient string, cephfs bool) Wanted {
		sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{}}, Parameters: map[string]string{}}
		if shareClient != "-" {
			sc.Parameters[parameterShareClient] = shareClient
		}
		if cephfs {
			sc.Annotations[ProtocolAnnotation] = string(ProtocolCephFS)
		}
		return Wanted{ShareType: manilatypes.ShareType{Name: name + "-type"}, Class: sc}
	}
	nodes := map[string][]string{"a": {"10.0.0.5"}, "b": {"10.1.0.5", "fd00::5"}, "c": {"192.0.2.7"}, "no-ip": nil}
	for _, tc := range []struct {
		name   string
		wanted []Wanted
		want   []Exclusion
	}{
		{name: "the machine network admits all", wanted: []Wanted{class("m", "10.0.0.0/8,192.0.2.0/24", false)}},
		{name: "one address admits one node",
			wanted: []Wanted{class("one", "10.0.0.5", false)},
			want:   []Exclusion{{Class: "one", ShareType: "one-type", Rule: "10.0.0.5", Nodes: []string{"b", "c"}}}},
		{name: "an IPv6 prefix admits a node by its second address, spaces allowed",
			wanted: []Wanted{class("v6", "10.0.0.0/16, fd00::/64", false)},
			want:   []Exclusion{{Class: "v6", ShareType: "v6-type", Rule: "10.0.0.0/16, fd00::/64", Nodes: []string{"c"}}}},
		{name: "open classes, CephFS classes and host names are not judged",
			wanted: []Wanted{class("open", "-", false), class("any", "0.0.0.0/0", false), class("ceph", "10.0.0.5", true), class("host", "nfs.example.com", false)}},
		{name: "sorted by class",
			wanted: []Wanted{class("z", "192.0.2.0/24", false), class("y", "10.1.0.0/16", false)},
			want: []Exclusion{{Class: "y", ShareType: "y-type", Rule: "10.1.0.0/16", Nodes: []string{"a", "c"}},
				{Class: "z", ShareType: "z-type", Rule: "192.0.2.0/24", Nodes: []string{"a", "b"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Excluding(tc.wanted, nodes); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Excluding = %+v, want %+v", got, tc.want)
			}
		})
	}
	msg := ExcludingMessage([]Exclusion{{Class: "csi-manila-x", ShareType: "x", Rule: "192.0.2.55", Nodes: []string{"n1", "n2", "n3", "n4", "n5", "n6", "n7"}}})
	for _, s := range []string{"StorageClass csi-manila-x", `share type "x"`, "nfs-shareClient 192.0.2.55", "n5 and 2 more", "refuses"} {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q does not say %q", msg, s)
		}
	}
}
