package render

import (
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/utils/v2/openstack/clientconfig"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
)

func keys(t *testing.T, objs []runtime.Object) []string {
	t.Helper()
	var out []string
	for _, o := range objs {
		m, err := meta.Accessor(o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o.GetObjectKind().GroupVersionKind().Kind+" "+m.GetNamespace()+"/"+m.GetName())
	}
	return out
}

// The hosted split: the management cluster gets the controller's objects in the HCP namespace and
// nothing else; the guest gets every other object the standalone operator applies, unchanged, and
// no Secret but the driver secret; what neither gets is what docs/hosted.md says neither gets.
func TestHostedSplit(t *testing.T) {
	vars, err := operator.OperandAssets(testImages)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{ShareTypes: []manilatypes.ShareType{{ID: "1", Name: "default", IsPublic: true}},
		Cloud:    &clientconfig.Cloud{AuthInfo: &clientconfig.AuthInfo{AuthURL: "https://keystone.example/v3", Username: "u", Password: "p"}},
		CABundle: []byte("-----BEGIN CERTIFICATE-----\n"), Assets: vars, ClusterID: "c", ControlPlaneNodes: 3}
	standalone, err := Objects(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Flavour = operator.HostedFlavour("clusters-x", testImages)
	r, err := Objects(in)
	if err != nil {
		t.Fatal(err)
	}
	if r.Hosted == nil {
		t.Fatal("no hosted split")
	}
	want := []string{
		"ServiceAccount clusters-x/manila-csi-driver-controller-sa",
		"Service clusters-x/manila-csi-driver-controller-metrics",
		"ConfigMap clusters-x/manila-csi-driver-trusted-ca-bundle",
		"PodDisruptionBudget clusters-x/openstack-manila-csi-controllerplugin-pdb",
		"ConfigMap clusters-x/" + names.CloudCAConfigMap,
		"Deployment clusters-x/openstack-manila-csi-controllerplugin",
	}
	if got := keys(t, r.Hosted.Management); !slices.Equal(got, want) {
		t.Errorf("management cluster:\n got %v\nwant %v", got, want)
	}
	guest := keys(t, r.Hosted.Guest)
	for _, k := range keys(t, standalone.Objects) {
		inGuest := slices.Contains(guest, k)
		switch {
		case strings.HasPrefix(k, "NetworkPolicy "): // HyperShift's to set, on either side
			if inGuest {
				t.Errorf("%s is applied to the guest", k)
			}
		case slices.Contains([]string{"ServiceMonitor openshift-manila-csi-driver/manila-csi-driver-controller-monitor",
			"Role openshift-manila-csi-driver/manila-csi-prometheus",
			"RoleBinding openshift-manila-csi-driver/manila-csi-prometheus",
			"Deployment openshift-manila-csi-driver/openstack-manila-csi-controllerplugin",
			"Service openshift-manila-csi-driver/manila-csi-driver-controller-metrics",
			"PodDisruptionBudget openshift-manila-csi-driver/openstack-manila-csi-controllerplugin-pdb"}, k):
			if inGuest {
				t.Errorf("%s is applied to the guest", k)
			}
		default:
			if !inGuest {
				t.Errorf("%s is missing from the guest", k)
			}
		}
		if strings.HasPrefix(k, "Secret ") && inGuest && k != "Secret openshift-manila-csi-driver/"+names.DriverSecret {
			t.Errorf("%s goes to the guest", k)
		}
	}
	for i, obj := range r.Hosted.Guest {
		if m, _ := meta.Accessor(obj); m.GetNamespace() == "clusters-x" {
			t.Errorf("guest object %s is in the HCP namespace", guest[i])
		}
	}
}
