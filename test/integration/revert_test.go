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

// revertDeadline is well below library-go's one-minute resync: an object back by then was brought
// back by an informer event, not by a timer.
const revertDeadline = 20 * time.Second

// libraryGoResync is the ResyncEvery library-go gives its static-resource, config observer,
// Deployment and DaemonSet controllers.
const libraryGoResync = time.Minute

// Every operand object the operator applies and watches (all but the Namespace, whose deletion takes
// the rest with it), deleted, is back within seconds; an edited ClusterRole and Deployment are
// reverted.
func TestOperandObjectsRevertedWithinSeconds(t *testing.T) {
	startOperator(t, "", framework.ShareTypeSpec{Name: "gold"})
	settledWorkloads(t)
	files := append(assets.StaticResources(), assets.CSIDriver, assets.ControllerDeployment, assets.NodeDaemonSet, assets.NFSNodeDaemonSet)
	for _, file := range files {
		if file == assets.Namespace {
			continue
		}
		obj := assetObject(t, file)
		t.Run(obj.GetKind()+" "+obj.GetName(), func(t *testing.T) {
			deleteAndWaitBack(t, obj, revertDeadline)
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

// The VolumeSnapshotClass and the ServiceMonitor are applied by library-go controllers that watch
// neither (library-go wires informers of core kinds only): deleted behind the operator's back, with no
// event to bring them back, both are back on library-go's own schedule, its one-minute resync. So the
// operand's library-go controllers run on their ResyncEvery, which their time-based conditions (a
// Deployment progressing for more than 15 minutes degrades) rely on; a longer resync of our own
// (once 30 minutes) fails this.
func TestOperandResyncsOnLibraryGosSchedule(t *testing.T) {
	startOperator(t, "", framework.ShareTypeSpec{Name: "gold"})
	settledWorkloads(t)
	for _, file := range []string{assets.VolumeSnapshotClass, assets.ServiceMonitor} {
		obj := assetObject(t, file)
		t.Run(obj.GetKind()+" "+obj.GetName(), func(t *testing.T) {
			t.Parallel() // both within the same resync
			deleteAndWaitBack(t, obj, libraryGoResync+30*time.Second)
		})
	}
}

// deleteAndWaitBack deletes the object and waits, up to deadline, for the operator to create it again.
func deleteAndWaitBack(t *testing.T, obj *unstructured.Unstructured, deadline time.Duration) {
	t.Helper()
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
	framework.Eventually(t, deadline, "the object back", func(ctx context.Context) error {
		after, err := api.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if after.GetUID() == before.GetUID() {
			return fmt.Errorf("not deleted yet")
		}
		return nil
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
