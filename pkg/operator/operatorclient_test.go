package operator

import (
	"encoding/json"
	"os"
	"testing"

	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func readClusterCSIDriver(t testing.TB) *unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile("testdata/clustercsidriver.json")
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// The reduced object gives every field manager exactly what the whole object gives it.
func TestExtractOperatorStatusMatchesTheWholeObject(t *testing.T) {
	u := readClusterCSIDriver(t)
	driver, err := toClusterCSIDriver(u)
	if err != nil {
		t.Fatal(err)
	}
	managers := 0
	for _, e := range u.GetManagedFields() {
		if e.Subresource != "status" {
			continue
		}
		managers++
		t.Run(e.Manager, func(t *testing.T) {
			whole, err := applyoperatorv1.ExtractClusterCSIDriverStatus(driver, e.Manager)
			if err != nil {
				t.Fatal(err)
			}
			got, err := extractOperatorStatus(u, e.Manager)
			if err != nil {
				t.Fatal(err)
			}
			if e.Operation != metav1.ManagedFieldsOperationApply { // only an applier's fields are extracted
				if whole.Status != nil || got != nil {
					t.Errorf("an updater's fields extracted: whole %+v, reduced %+v", whole.Status, got)
				}
				return
			}
			if whole.Status == nil || got == nil || len(got.Conditions) == 0 {
				t.Fatalf("nothing extracted: whole %+v, reduced %+v", whole.Status, got)
			}
			if !equality.Semantic.DeepEqual(&whole.Status.OperatorStatusApplyConfiguration, got) {
				t.Errorf("reduced extraction differs:\nwhole   %+v\nreduced %+v", whole.Status.OperatorStatusApplyConfiguration, *got)
			}
		})
	}
	if managers < 10 {
		t.Fatalf("testdata has %d status managers", managers)
	}
	if _, err := extractOperatorStatus(u, "nobody"); err != nil {
		t.Errorf("a manager with no fields: %v", err)
	}
}
