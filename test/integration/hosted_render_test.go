package integration

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/render"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// `render --hosted` shows what `start --guest-kubeconfig` applies: the built binary, run as
// manifests/hosted deploys it, and render, given the same cloud, cluster ID and HCP namespace, agree
// object for object on each side (every field render prints is the live object's, but the input
// hashes and the driver secret's values, which render redacts).
func TestHostedRenderMatchesStart(t *testing.T) {
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	hw := world.StartHosted(t, framework.HostedOptions{})
	startHostedBinary(t, hw)
	infra, err := hw.Guest.ConfigV1.ConfigV1().Infrastructures().Get(context.Background(), "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	res := runWithClouds(t, "render", world.OpenStack.CloudsYAML(), nil, "--hosted", "--hosted-namespace", hw.HCPNamespace,
		"--availability-policy", "SingleReplica", "--cluster-id", infra.Status.InfrastructureName)
	if res.code != render.ExitOK {
		t.Fatalf("render --hosted: exit %d: %s", res.code, res.stderr)
	}
	mgmtPart, guestPart, ok := strings.Cut(res.stdout, "# ==== Guest cluster")
	if !ok || !strings.Contains(mgmtPart, "# ==== Management cluster") {
		t.Fatalf("render --hosted printed no management and guest sections:\n%s", res.stdout)
	}
	_, guestPart, _ = strings.Cut(guestPart, "\n") // the rest of the banner line
	sides := []struct {
		name    string
		cluster *framework.ControlPlane
		objects []*unstructured.Unstructured
	}{
		{"management", hw.ControlPlane, renderedObjects(t, mgmtPart)},
		{"guest", hw.Guest, renderedObjects(t, guestPart)},
	}
	for _, side := range sides {
		if len(side.objects) == 0 {
			t.Fatalf("render printed nothing for the %s cluster", side.name)
		}
		framework.Eventually(t, framework.DefaultTimeout, "the "+side.name+" cluster's objects as render printed them", func(ctx context.Context) error {
			var problems []string
			for _, want := range side.objects {
				if err := matchesLive(ctx, side.cluster, want); err != nil {
					problems = append(problems, err.Error())
				}
			}
			sort.Strings(problems)
			if len(problems) > 0 {
				return fmt.Errorf("%d of %d objects differ:\n%s", len(problems), len(side.objects), strings.Join(problems, "\n"))
			}
			return nil
		})
	}
}

// matchesLive checks that want, as render printed it, is in the cluster with every field it prints.
func matchesLive(ctx context.Context, cp *framework.ControlPlane, want *unstructured.Unstructured) error {
	what := fmt.Sprintf("%s %s/%s", want.GetKind(), want.GetNamespace(), want.GetName())
	mapping, err := cp.RESTMapping(want.GroupVersionKind())
	if err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	live, err := cp.Dynamic.Resource(mapping.Resource).Namespace(want.GetNamespace()).Get(ctx, want.GetName(), metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	w := want.DeepCopy().Object
	if want.GetKind() == "Secret" {
		// Redacted by render: the keys only.
		printed, _, _ := unstructured.NestedStringMap(w, "stringData")
		data, _, _ := unstructured.NestedMap(live.Object, "data")
		for key := range printed {
			if _, ok := data[key]; !ok {
				return fmt.Errorf("%s: no key %s", what, key)
			}
		}
		if len(printed) != len(data) {
			return fmt.Errorf("%s: keys %d, render printed %d", what, len(data), len(printed))
		}
		return nil
	}
	for _, path := range [][]string{{"metadata", "annotations"}, {"spec", "template", "metadata", "annotations"}} {
		annotations, found, _ := unstructured.NestedStringMap(w, path...)
		if !found {
			continue
		}
		// The inputs' hashes: the same inputs (the annotation names them), but not the same values,
		// since render's are of redacted or empty stand-ins; and the spec hash that follows from them.
		liveAnnotations, _, _ := unstructured.NestedStringMap(live.Object, path...)
		if want, got := depKeys(annotations), depKeys(liveAnnotations); !slices.Equal(want, got) {
			return fmt.Errorf("%s: %s hashes inputs %v, render printed %v", what, strings.Join(path, "."), got, want)
		}
		for k := range annotations {
			if strings.HasPrefix(k, depAnnotationPrefix) || k == "operator.openshift.io/spec-hash" {
				delete(annotations, k)
			}
		}
		if err := unstructured.SetNestedStringMap(w, annotations, path...); err != nil {
			return err
		}
	}
	if diff := subset(w, live.Object, ""); diff != "" {
		return fmt.Errorf("%s: %s", what, diff)
	}
	return nil
}

// subset returns "" when every field of want has the same value in got (lists element by element,
// of the same length), or the first path that differs. Fields the API server adds are ignored.
func subset(want, got any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if len(w) == 0 && got == nil {
			return "" // an empty map printed, none applied
		}
		if !ok {
			return fmt.Sprintf("%s: not an object", path)
		}
		for k, v := range w {
			if d := subset(v, g[k], path+"."+k); d != "" {
				return d
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: %v, render printed %v", path, elementNames(g), elementNames(w))
		}
		for i := range w {
			if d := subset(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
	default:
		if !reflect.DeepEqual(want, got) && fmt.Sprint(want) != fmt.Sprint(got) {
			return fmt.Sprintf("%s: %v, render printed %v", path, got, want)
		}
	}
	return ""
}

// elementNames names a list's elements by their name field, for messages.
func elementNames(list []any) []string {
	var out []string
	for i, e := range list {
		name := fmt.Sprint(i)
		if m, ok := e.(map[string]any); ok && m["name"] != nil {
			name = fmt.Sprint(m["name"])
		}
		out = append(out, name)
	}
	return out
}

const depAnnotationPrefix = "operator.openshift.io/dep-"

// depKeys are the annotations that hash a workload's inputs, sorted.
func depKeys(annotations map[string]string) []string {
	var out []string
	for k := range annotations {
		if strings.HasPrefix(k, depAnnotationPrefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
