package integration

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/render"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// renderedObjects decodes render's YAML stream.
func renderedObjects(t *testing.T, stream string) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(stream), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := map[string]any{}
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatalf("render's output is not a YAML stream: %v", err)
		}
		if len(obj) > 0 {
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
	}
}

// `render --clouds` against the real Keystone and Manila: one class per NFS share type (private ones
// included), none for the CEPHFS type, the driver secret redacted, the workloads there, no credential
// printed; and the operator, run on the same cloud, makes exactly the classes render printed.
func TestRenderFromCloud(t *testing.T) {
	suffix := fmt.Sprint(time.Now().UnixNano())
	nfs, private, cephfs := "rd_nfs_"+suffix, "rd-private-"+suffix, "rd-cephfs-"+suffix
	createShareType(t, framework.ShareTypeSpec{Name: nfs, ExtraSpecs: map[string]string{"storage_protocol": "NFS"}})
	createShareType(t, framework.ShareTypeSpec{Name: private, Private: true})
	createShareType(t, framework.ShareTypeSpec{Name: cephfs, ExtraSpecs: map[string]string{"storage_protocol": "CEPHFS"}})

	res := runWithClouds(t, "render", world.OpenStack.CloudsYAML(), nil)
	if res.code != render.ExitOK || res.stderr != "" {
		t.Fatalf("exit %d, want 0 and nothing on stderr: %s", res.code, res.stderr)
	}
	classes := map[string]storagev1.StorageClass{} // by share-type name
	kinds := map[string]int{}
	for _, u := range renderedObjects(t, res.stdout) {
		kinds[u.GetKind()]++
		switch u.GetKind() {
		case "StorageClass":
			var sc storagev1.StorageClass
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &sc); err != nil {
				t.Fatal(err)
			}
			classes[sc.Parameters["type"]] = sc
		case "Secret":
			data, _, _ := unstructured.NestedStringMap(u.Object, "stringData")
			if len(data) == 0 {
				t.Errorf("the driver secret has no keys: %v", u.Object)
			}
			for key, value := range data {
				if value != render.Redacted {
					t.Errorf("driver secret key %s is not redacted", key)
				}
			}
		}
	}
	for _, kind := range []string{"Deployment", "DaemonSet", "CSIDriver", "Secret", "ClusterRole", "ServiceAccount"} {
		if kinds[kind] == 0 {
			t.Errorf("no %s rendered: %v", kind, kinds)
		}
	}
	for _, st := range []string{nfs, private} {
		if sc, ok := classes[st]; !ok || !strings.HasPrefix(sc.Name, "csi-manila-") {
			t.Errorf("share type %s: no class rendered (classes: %v)", st, mapKeys(classes))
		}
	}
	if _, ok := classes[cephfs]; ok || !strings.Contains(res.stdout, fmt.Sprintf("# No StorageClass for share type %q", cephfs)) {
		t.Errorf("share type %s: want no class and the reason as a comment", cephfs)
	}

	startOperator(t, "")
	framework.Eventually(t, framework.DefaultTimeout, "the operator's classes as render printed them", func(ctx context.Context) error {
		owned, err := world.OwnedStorageClasses(ctx)
		if err != nil {
			return err
		}
		if len(owned) != len(classes) {
			return fmt.Errorf("the operator owns classes for %v, render printed %v", mapKeys(owned), mapKeys(classes))
		}
		for st, want := range classes {
			have, ok := owned[st]
			if !ok || have.Name != want.Name || !reflect.DeepEqual(have.Parameters, want.Parameters) ||
				!reflect.DeepEqual(have.Labels, want.Labels) || *have.ReclaimPolicy != *want.ReclaimPolicy {
				return fmt.Errorf("share type %s: the operator has %s %v, render printed %s %v", st, have.Name, have.Parameters, want.Name, want.Parameters)
			}
		}
		return nil
	})
}

// A password Keystone refuses: exit 1, said on stderr, nothing rendered, no password printed.
func TestRenderWrongPassword(t *testing.T) {
	wrong := "Wrong-" + framework.SentinelPassword()
	clouds := []byte(strings.Replace(string(world.OpenStack.CloudsYAML()), world.OpenStack.AdminPassword, wrong, 1))
	res := runWithClouds(t, "render", clouds, []string{wrong})
	if res.code != render.ExitCloudUnusable || res.stdout != "" || !strings.Contains(res.stderr, "401") {
		t.Errorf("exit %d, want 1 with Keystone's 401 on stderr and no objects:\n%s%s", res.code, res.stdout, res.stderr)
	}
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
