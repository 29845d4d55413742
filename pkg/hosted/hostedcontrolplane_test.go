package hosted

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func TestFromHostedControlPlane(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		want       ControlPlane
		wantErr    string
	}{
		{name: "empty spec: HyperShift's default", spec: `{}`, want: ControlPlane{Namespace: "clusters-x", Availability: SingleReplica}},
		{name: "highly available, placed", spec: `
controllerAvailabilityPolicy: HighlyAvailable
nodeSelector: {pool: control-planes}
tolerations: [{key: dedicated, operator: Equal, value: hcp, effect: NoSchedule}]`,
			want: ControlPlane{Namespace: "clusters-x", Availability: HighlyAvailable, NodeSelector: map[string]string{"pool": "control-planes"},
				Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "hcp", Effect: corev1.TaintEffectNoSchedule}}}},
		{name: "unknown policy", spec: `{controllerAvailabilityPolicy: Triple}`, wantErr: "spec.controllerAvailabilityPolicy: want SingleReplica or HighlyAvailable"},
		{name: "selector not a map of strings", spec: `{nodeSelector: [a]}`, wantErr: "spec.nodeSelector"},
		{name: "toleration not an object", spec: `{tolerations: [a]}`, wantErr: "spec.tolerations[0]: not a toleration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: map[string]any{}}
			var spec map[string]any
			if err := yaml.Unmarshal([]byte(tc.spec), &spec); err != nil {
				t.Fatal(err)
			}
			obj.Object["spec"] = spec
			obj.SetName("x")
			got, err := FromHostedControlPlane("clusters-x", obj)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "Triple") {
					t.Errorf("the error quotes the value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			gotY, _ := yaml.Marshal(got)
			wantY, _ := yaml.Marshal(tc.want)
			if string(gotY) != string(wantY) {
				t.Errorf("got\n%s\nwant\n%s", gotY, wantY)
			}
			d := standaloneDeployment(t)
			if err := got.ControllerDeployment(d); err != nil {
				t.Fatal(err)
			}
			if len(tc.want.NodeSelector) > 0 && d.Spec.Template.Spec.NodeSelector["pool"] != "control-planes" {
				t.Errorf("node selector %v, want the HostedControlPlane's", d.Spec.Template.Spec.NodeSelector)
			}
			if n := len(d.Spec.Template.Spec.Tolerations); n != 2+len(tc.want.Tolerations) {
				t.Errorf("%d tolerations, want HyperShift's 2 and the HostedControlPlane's %d", n, len(tc.want.Tolerations))
			}
		})
	}
}
