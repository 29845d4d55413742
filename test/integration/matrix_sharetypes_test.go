package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The share-type matrix: names and extra specs as Manila holds them. Each type gets exactly one class
// with a valid name, or none with an event (and, when an admin can fix it, a condition) naming the
// type and the field; fixing the field brings the class.
func TestShareTypeMatrix(t *testing.T) {
	cases := []struct {
		name  string
		spec  framework.ShareTypeSpec
		class string // the class name; "" for any valid name
		skip  string // the field named when the type gets no class
		fix   func(t *testing.T, id string)
	}{
		{name: "a plain name", spec: framework.ShareTypeSpec{Name: "plain"}, class: "csi-manila-plain"},
		{name: "capitals and underscores", spec: framework.ShareTypeSpec{Name: "Gold_NFS"}, class: "csi-manila-gold-nfs"},
		{name: "spaces and dots", spec: framework.ShareTypeSpec{Name: "fast tier.v2"}},
		{name: "only punctuation", spec: framework.ShareTypeSpec{Name: "!!!"}},
		{name: "not ASCII", spec: framework.ShareTypeSpec{Name: "Золото"}},
		{name: "Manila's longest name", spec: framework.ShareTypeSpec{Name: strings.Repeat("long", 63) + "xyz"}},
		{name: "storage_protocol in lower case", spec: framework.ShareTypeSpec{Name: "lower", ExtraSpecs: map[string]string{"storage_protocol": "nfs"}}, class: "csi-manila-lower"},
		{name: "storage_protocol listing NFS among others", spec: framework.ShareTypeSpec{Name: "multi", ExtraSpecs: map[string]string{"storage_protocol": "NFS_CIFS"}}, class: "csi-manila-multi"},
		{name: "storage_protocol without NFS", spec: framework.ShareTypeSpec{Name: "cephonly", ExtraSpecs: map[string]string{"storage_protocol": "CEPHFS"}},
			class: "csi-manila-cephonly", skip: "storage_protocol", fix: func(t *testing.T, id string) {
				if err := world.OpenStack.SetShareTypeExtraSpecs(context.Background(), id, map[string]string{"storage_protocol": "NFS"}); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "driver_handles_share_servers without a share network", spec: framework.ShareTypeSpec{Name: "dhss", DHSS: true},
			class: "csi-manila-dhss", skip: "storageClasses.shareTypes.dhss.shareNetworkID", fix: func(*testing.T, string) {
				// the whole test's t: the config outlives the case
				world.WriteOperatorConfig(t, "storageClasses:\n  shareTypes:\n    dhss:\n      shareNetworkID: net-1\n")
			}},
	}
	ids := map[string]string{}
	for _, tc := range cases {
		ids[tc.spec.Name] = createShareType(t, tc.spec)
	}
	startOperator(t, "")
	for _, tc := range cases {
		if tc.skip == "" {
			classOf(t, tc.spec.Name, tc.class)
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip == "" {
				return // its class was checked above, with all the others at once
			}
			waitForEvent(t, "ShareTypeSkipped", tc.spec.Name)
			waitForEvent(t, "ShareTypeSkipped", strings.Split(tc.skip, ".")[0])
			if strings.HasPrefix(tc.skip, "storageClasses.") {
				// The event comes first; the condition with the next status write.
				framework.Eventually(t, framework.DefaultTimeout, storageclasses.ConditionDegraded+" naming "+tc.skip, func(ctx context.Context) error {
					if c := world.Condition(t, storageclasses.ConditionDegraded); c == nil || c.Status != operatorv1.ConditionTrue || !strings.Contains(c.Message, tc.skip) {
						return fmt.Errorf("%+v", c)
					}
					return nil
				})
			}
			tc.fix(t, ids[tc.spec.Name])
			classOf(t, tc.spec.Name, tc.class)
		})
	}
	world.WaitForCondition(t, storageclasses.ConditionDegraded, operatorv1.ConditionFalse)

	t.Run("a served type that stops serving NFS keeps its class", func(t *testing.T) {
		ctx := context.Background()
		before := classOf(t, "plain", "csi-manila-plain")
		if err := world.OpenStack.SetShareTypeExtraSpecs(ctx, ids["plain"], map[string]string{"storage_protocol": "CIFS"}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := world.OpenStack.SetShareTypeExtraSpecs(ctx, ids["plain"], map[string]string{"storage_protocol": "NFS"}); err != nil {
				t.Error(err)
			}
		})
		waitForEvent(t, "ShareTypeSkipped", "storage_protocol=CIFS")
		if after := classOf(t, "plain", "csi-manila-plain"); after.UID != before.UID || after.ResourceVersion != before.ResourceVersion {
			t.Errorf("the class of a share type that stopped serving NFS was rewritten")
		}
	})
	t.Run("defaultShareType naming no share type", func(t *testing.T) {
		world.WriteOperatorConfig(t, "storageClasses:\n  defaultShareType: platinum\n")
		waitForEvent(t, "DefaultStorageClass", "storageClasses.defaultShareType")
		world.WriteOperatorConfig(t, "storageClasses:\n  defaultShareType: plain\n")
		world.WaitForStorageClass(t, "csi-manila-plain", func(sc *storagev1.StorageClass) error {
			if sc.Annotations[classplan.DefaultClassAnnotation] != "true" {
				return fmt.Errorf("not the default: %v", sc.Annotations)
			}
			return nil
		})
	})
}

// classOf waits for exactly one operator class serving the named share type, with a valid name
// (want, when given) and a type parameter that is the share type's name.
func classOf(t *testing.T, shareType, want string) *storagev1.StorageClass {
	t.Helper()
	var found *storagev1.StorageClass
	framework.Eventually(t, framework.DefaultTimeout, "a class for share type "+shareType, func(ctx context.Context) error {
		owned, err := world.OwnedStorageClasses(ctx)
		if err != nil {
			return err
		}
		var matches []string
		for name, sc := range owned {
			if sc.Annotations[classplan.ShareTypeNameAnnotation] == shareType {
				matches = append(matches, name)
				found = sc.DeepCopy()
			}
		}
		if len(matches) != 1 {
			return fmt.Errorf("classes for %q: %v", shareType, matches)
		}
		if errs := validation.IsDNS1123Subdomain(found.Name); len(errs) > 0 {
			t.Fatalf("class %q for share type %q is not a valid name: %v", found.Name, shareType, errs)
		}
		if want != "" && found.Name != want {
			t.Fatalf("share type %q got class %q, want %q", shareType, found.Name, want)
		}
		if found.Parameters["type"] != shareType {
			t.Fatalf("class %s has type=%q, want %q", found.Name, found.Parameters["type"], shareType)
		}
		return nil
	})
	return found
}
