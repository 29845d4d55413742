package integration

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// Share types with awkward names in the real Manila each get exactly one valid, distinct class:
// ordinary names keep the predecessor's name, others get a hash suffix. Private types count too.
func TestStorageClassNamesOnRealManila(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	long := strings.Repeat("long", 63) // 252 characters: Manila's limit is 255
	plain := map[string]string{
		"gold":         "csi-manila-gold",
		"gold-nfs":     "csi-manila-gold-nfs",
		"nfs_standard": "csi-manila-nfs-standard",
		"UPPER_CASE":   "csi-manila-upper-case",
		"12345":        "csi-manila-12345",
		"v1.2":         "csi-manila-v1.2",
		"a--b":         "csi-manila-a--b",
		"MiXeD":        "csi-manila-mixed",
	}
	hashed := map[string]string{ // share type -> expected base before "-<8 hex>"
		"Gold_NFS":   "csi-manila-gold-nfs",
		"a b":        "csi-manila-a-b",
		"Größe":      "csi-manila-gr-e",
		"日本":         "csi-manila",
		"-lead":      "csi-manila-lead",
		"trail-":     "csi-manila-trail",
		"_under_":    "csi-manila-under",
		"a..b":       "csi-manila-a-b",
		"..":         "csi-manila",
		"with/slash": "csi-manila-with-slash",
		"colon:type": "csi-manila-colon-type",
		"dot.-dash":  "csi-manila-dot-dash",
		long:         "csi-manila-" + long[:233],
	}
	ids := map[string]string{}
	for name := range plain {
		ids[name] = createShareType(t, framework.ShareTypeSpec{Name: name})
	}
	for name := range hashed {
		ids[name] = createShareType(t, framework.ShareTypeSpec{Name: name})
	}
	ids["private_Only"] = createShareType(t, framework.ShareTypeSpec{Name: "private_Only", Private: true})
	plain["private_Only"] = "csi-manila-private-only"

	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.RunOperator(t)

	total := len(plain) + len(hashed)
	suffix := regexp.MustCompile(`^(.*)-[0-9a-f]{8}$`)
	framework.Eventually(t, framework.DefaultTimeout, fmt.Sprintf("%d StorageClasses", total), func(ctx context.Context) error {
		classes, err := world.OwnedStorageClasses(ctx)
		if err != nil {
			return err
		}
		if len(classes) != total {
			return fmt.Errorf("%d classes, want %d", len(classes), total)
		}
		seen := map[string]bool{}
		for typeName, sc := range classes {
			if errs := validation.IsDNS1123Subdomain(sc.Name); len(errs) > 0 {
				return fmt.Errorf("%q: %s invalid: %v", typeName, sc.Name, errs)
			}
			if seen[sc.Name] {
				return fmt.Errorf("duplicate class %s", sc.Name)
			}
			seen[sc.Name] = true
			// Each class maps back to exactly the share type it was made for, by name and by ID.
			if sc.Parameters["type"] != typeName || sc.Annotations[classplan.ShareTypeIDAnnotation] != ids[typeName] {
				return fmt.Errorf("class %s: type parameter %q, annotations %v", sc.Name, sc.Parameters["type"], sc.Annotations)
			}
		}
		for typeName, want := range plain {
			if got := classes[typeName].Name; got != want {
				return fmt.Errorf("%q -> %q, want %q", typeName, got, want)
			}
		}
		for typeName, base := range hashed {
			m := suffix.FindStringSubmatch(classes[typeName].Name)
			if m == nil || m[1] != base {
				return fmt.Errorf("%q -> %q, want %s-<8 hex>", typeName, classes[typeName].Name, base)
			}
		}
		return nil
	})
}
