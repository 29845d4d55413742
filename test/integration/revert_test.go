package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// revertDeadline is well below every safety resync of the operator's controllers: an object back by
// then was brought back by an informer event, not by a timer.
const revertDeadline = 20 * time.Second

// Every operand object the operator applies (all but the Namespace, whose deletion takes the rest
// with it), deleted, is back within seconds; an edited ClusterRole and Deployment are reverted.
func TestOperandObjectsRevertedWithinSeconds(t *testing.T) {
	startOperator(t, "", framework.ShareTypeSpec{Name: "gold"})
	settledWorkloads(t)
	files := append(assets.StaticResources(), assets.CSIDriver, assets.ControllerDeployment, assets.NodeDaemonSet, assets.NFSNodeDaemonSet,
		assets.VolumeSnapshotClass, assets.ServiceMonitor)
	for _, file := range files {
		if file == assets.Namespace {
			continue
		}
		obj := assetObject(t, file)
		t.Run(obj.GetKind()+" "+obj.GetName(), func(t *testing.T) {
			api := world.Dynamic.Resource(gvrOf(t, obj)).Namespace(obj.GetNamespace())
			ctx := context.Background()
			var before *unstructured.Unstructured
			framework.Eventually(t, framework.DefaultTimeout, "the object", func(ctx context.Context) (err error) {
				before, err = api.Get(ctx, obj.GetName(), metav1.GetOptions{})
				return err
			})
			if err := api.Delete(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			framework.Eventually(t, revertDeadline, "the object back", func(ctx context.Context) error {
				after, err := api.Get(ctx, obj.GetName(), metav1.GetOptions{})
				if err != nil {
					return err
				}
				if after.GetUID() == before.GetUID() {
					return fmt.Errorf("not deleted yet")
				}
				return nil
			})
		})
	}
	t.Run("an edited ClusterRole", func(t *testing.T) {
		roles := world.Kube.RbacV1().ClusterRoles()
		ctx := context.Background()
		role, err := roles.Get(ctx, "manila-csi-external-provisioner", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := len(role.Rules)
		role.Rules = role.Rules[:1]
		if _, err := roles.Update(ctx, role, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		framework.Eventually(t, revertDeadline, "the rules back", func(ctx context.Context) error {
			r, err := roles.Get(ctx, role.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if len(r.Rules) != want {
				return fmt.Errorf("%d rules, want %d", len(r.Rules), want)
			}
			return nil
		})
	})
	t.Run("an edited Deployment", func(t *testing.T) {
		dep, _, _ := currentWorkloads(t)
		image := dep.Spec.Template.Spec.Containers[0].Image
		dep.Spec.Template.Spec.Containers[0].Image = "example.com/edited:1"
		if _, err := world.Kube.AppsV1().Deployments(dep.Namespace).Update(context.Background(), dep, metav1.UpdateOptions{}); err != nil && !apierrors.IsConflict(err) {
			t.Fatal(err)
		}
		framework.Eventually(t, revertDeadline, "the image back", func(context.Context) error {
			d, _, _ := currentWorkloads(t)
			if got := d.Spec.Template.Spec.Containers[0].Image; got != image {
				return fmt.Errorf("image %s", got)
			}
			return nil
		})
	})
}

func assetObject(t *testing.T, file string) *unstructured.Unstructured {
	t.Helper()
	raw, err := assets.Vars{Images: framework.TestImages, FSGroupPolicy: "None"}.Render(file)
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return obj
}

func gvrOf(t *testing.T, obj *unstructured.Unstructured) schema.GroupVersionResource {
	t.Helper()
	mapping, err := world.RESTMapping(obj.GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	return mapping.Resource
}
