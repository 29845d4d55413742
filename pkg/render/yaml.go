package render

import (
	"bytes"
	"fmt"
	"io"

	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// staticAsset is an asset as the static-resource controllers apply it: read by the same
// resourceread.ReadGenericWithUnstructured (typed for known kinds, unstructured otherwise).
func staticAsset(render resourceapply.AssetFunc, name string) (runtime.Object, error) {
	data, err := render(name)
	if err != nil {
		return nil, err
	}
	obj, err := resourceread.ReadGenericWithUnstructured(data)
	if err != nil {
		return nil, fmt.Errorf("asset %s: %w", name, err)
	}
	return obj, nil
}

// Write prints the objects as one YAML stream, in their order, each document headed by a comment
// naming the object (hosted: the management cluster's objects, then the guest's); then, as comments,
// the share types that get no class and what the StorageClass controller would tell in events.
func Write(w io.Writer, r *Result) error {
	var out bytes.Buffer
	if r.Hosted != nil {
		if err := writeHosted(&out, r.Hosted); err != nil {
			return err
		}
	} else {
		for _, obj := range r.Objects {
			u, data, err := document(obj)
			if err != nil {
				return err
			}
			name := u.GetName()
			if ns := u.GetNamespace(); ns != "" {
				name = ns + "/" + name
			}
			fmt.Fprintf(&out, "---\n# %s %s\n%s", u.GetKind(), name, data)
		}
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&out, "# No StorageClass for share type %q: %s\n", s.ShareType.Name, s.Reason)
	}
	for _, n := range r.Notices {
		fmt.Fprintf(&out, "# %s\n", n)
	}
	_, err := w.Write(out.Bytes())
	return err
}

// document is an object as printed: without what the API server fills in.
func document(obj runtime.Object) (*unstructured.Unstructured, []byte, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	// What the API server fills in, not what the operator applies.
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	data, err := yaml.Marshal(u.Object)
	return u, data, err
}

// writeHosted prints the management cluster's objects, then the guest's, each group under a banner
// and each object headed by the cluster and namespace it is applied to.
func writeHosted(out *bytes.Buffer, h *HostedObjects) error {
	for _, group := range []struct {
		banner, cluster string
		objects         []runtime.Object
	}{
		{fmt.Sprintf("Management cluster, hosted control plane namespace %s: what the operator applies there", h.Namespace),
			"management cluster", h.Management},
		{"Guest cluster: what the operator applies through the guest kubeconfig", "guest cluster", h.Guest},
	} {
		fmt.Fprintf(out, "# ==== %s ====\n", group.banner)
		for _, obj := range group.objects {
			u, data, err := document(obj)
			if err != nil {
				return err
			}
			where := "cluster-scoped"
			if ns := u.GetNamespace(); ns != "" {
				where = "namespace " + ns
			}
			fmt.Fprintf(out, "---\n# %s, %s: %s %s\n%s", group.cluster, where, u.GetKind(), u.GetName(), data)
		}
	}
	return nil
}
