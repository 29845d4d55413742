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
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
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
		role, err := roles.Get(ctx, "manila-csi-driver-controller", metav1.GetOptions{})
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
// neither (library-go wires informers of core kinds only, and the ClusterCSIDriver): deleted behind the
// operator's back while the ClusterCSIDriver is quiet, with no event to bring them back, both are back
// on library-go's own schedule, its one-minute resync. So the operand's library-go controllers run on
// their ResyncEvery, which their time-based conditions (a Deployment progressing for more than 15
// minutes degrades) rely on; a longer resync of our own (once 30 minutes) fails this. An attempt in
// which the ClusterCSIDriver changed (an event that also syncs them) proves nothing and is repeated.
func TestOperandResyncsOnLibraryGosSchedule(t *testing.T) {
	startOperator(t, "", framework.ShareTypeSpec{Name: "gold"})
	settledWorkloads(t)
	objs := []*unstructured.Unstructured{assetObject(t, assets.VolumeSnapshotClass), assetObject(t, assets.ServiceMonitor)}
	for attempt := 1; attempt <= 3; attempt++ {
		rv := quietClusterCSIDriver(t)
		start := time.Now()
		waits := make([]func(), len(objs))
		for i, obj := range objs {
			waits[i] = deleteObject(t, obj, libraryGoResync+30*time.Second)
		}
		for _, wait := range waits {
			wait()
		}
		if now := clusterCSIDriverVersion(t); now != rv {
			t.Logf("attempt %d: the ClusterCSIDriver changed (resourceVersion %s, then %s): its event may have synced them", attempt, rv, now)
			continue
		}
		t.Logf("both back after %s with no event on a watched object", time.Since(start).Round(time.Second))
		return
	}
	t.Fatal("the ClusterCSIDriver never stayed quiet while the objects came back")
}

// quietClusterCSIDriver waits until the ClusterCSIDriver has not changed for 5 seconds and returns
// its resourceVersion.
func quietClusterCSIDriver(t *testing.T) string {
	t.Helper()
	rv, since := "", time.Now()
	framework.Eventually(t, framework.DefaultTimeout, "a quiet ClusterCSIDriver", func(ctx context.Context) error {
		if now := clusterCSIDriverVersion(t); now != rv {
			rv, since = now, time.Now()
		}
		if time.Since(since) < 5*time.Second {
			return fmt.Errorf("resourceVersion %s changed %s ago", rv, time.Since(since).Round(time.Second))
		}
		return nil
	})
	return rv
}

func clusterCSIDriverVersion(t *testing.T) string {
	t.Helper()
	d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(context.Background(), names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.ResourceVersion
}

// deleteAndWaitBack deletes the object and waits, up to deadline, for the operator to create it again.
func deleteAndWaitBack(t *testing.T, obj *unstructured.Unstructured, deadline time.Duration) {
	t.Helper()
	deleteObject(t, obj, deadline)()
}

// deleteObject deletes the object and returns the wait, up to deadline from now, for the operator to
// create it again.
func deleteObject(t *testing.T, obj *unstructured.Unstructured, deadline time.Duration) func() {
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
	until := time.Now().Add(deadline)
	return func() {
		t.Helper()
		framework.Eventually(t, time.Until(until), obj.GetKind()+" "+obj.GetName()+" back", func(ctx context.Context) error {
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
