package render

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	opv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivercontrollerservicecontroller"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivernodeservicecontroller"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
)

// render composes library-go's manifest and workload hooks itself, as library-go does not export the
// composition: this runs library-go's real controllers on the same inputs and checks that they apply
// exactly the workloads render prints.
func TestWorkloadsMatchLibraryGo(t *testing.T) {
	dir := filepath.Join("testdata", "cases", "full")
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	cloud, err := openstack.ParseCloud(read("clouds.yaml"), names.CloudName)
	if err != nil {
		t.Fatal(err)
	}
	vars, err := operator.OperandAssets(testImages)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Cloud: cloud, CABundle: read("ca-bundle.pem"), ConfigYAML: read("config.yaml"), Assets: vars,
		ClusterID: "match-4k2", ControlPlaneNodes: 2}
	rendered, err := Objects(in)
	if err != nil {
		t.Fatal(err)
	}

	w, err := newWorld(in)
	if err != nil {
		t.Fatal(err)
	}
	hooks := operator.NewWorkloadHooks(operator.WorkloadInputs{OperandConfigMaps: w.kube.Core().V1().ConfigMaps(),
		OperandSecrets: w.kube.Core().V1().Secrets(), Nodes: w.kube.Core().V1().Nodes(), Mounts: w.mounts,
		Infrastructures: w.config.Config().V1().Infrastructures().Lister()})
	spec, err := operatorSpec()
	if err != nil {
		t.Fatal(err)
	}
	opClient := v1helpers.NewFakeOperatorClient(spec, &opv1.OperatorStatus{}, nil)
	kube := fake.NewSimpleClientset()
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	manifest := func(name string) []byte {
		data, err := vars.Render(name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	// With the hooks' informers, as the operator wires them (library-go keeps them as map keys).
	node, nfsNode := hooks.Node(assets.NodeDaemonSet), hooks.Node(assets.NFSNodeDaemonSet)
	controllers := []factory.Controller{
		csidrivercontrollerservicecontroller.NewCSIDriverControllerServiceController("C", manifest(hooks.ControllerAsset), recorder,
			opClient, kube, w.kube.Apps().V1().Deployments(), w.config, hooks.ControllerInformers, hooks.Controller...),
		csidrivernodeservicecontroller.NewCSIDriverNodeServiceController("N", manifest(node.Asset), recorder,
			opClient, kube, w.kube.Apps().V1().DaemonSets(), node.Informers, node.Hooks...),
		csidrivernodeservicecontroller.NewCSIDriverNodeServiceController("F", manifest(nfsNode.Asset), recorder,
			opClient, kube, w.kube.Apps().V1().DaemonSets(), nfsNode.Informers, nfsNode.Hooks...),
	}
	ctx := context.Background()
	for _, c := range controllers {
		if err := c.Sync(ctx, factory.NewSyncContext(c.Name(), recorder)); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
	}
	checked := 0
	for _, obj := range rendered.Objects {
		switch want := obj.(type) {
		case *appsv1.Deployment:
			got, err := kube.AppsV1().Deployments(want.Namespace).Get(ctx, want.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			same(t, "Deployment "+want.Name, got.ObjectMeta, got.Spec, want.ObjectMeta, want.Spec)
			checked++
		case *appsv1.DaemonSet:
			got, err := kube.AppsV1().DaemonSets(want.Namespace).Get(ctx, want.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			same(t, "DaemonSet "+want.Name, got.ObjectMeta, got.Spec, want.ObjectMeta, want.Spec)
			checked++
		}
	}
	if checked != 3 {
		t.Errorf("compared %d workloads, want 3", checked)
	}
}

func same(t *testing.T, what string, gotMeta metav1.ObjectMeta, gotSpec any, wantMeta metav1.ObjectMeta, wantSpec any) {
	t.Helper()
	if !reflect.DeepEqual(gotMeta.Annotations, wantMeta.Annotations) || !reflect.DeepEqual(gotMeta.Labels, wantMeta.Labels) {
		t.Errorf("%s: library-go applies annotations %v labels %v, render prints %v %v", what, gotMeta.Annotations, gotMeta.Labels, wantMeta.Annotations, wantMeta.Labels)
	}
	if !reflect.DeepEqual(gotSpec, wantSpec) {
		t.Errorf("%s: library-go applies a different spec than render prints", what)
	}
}
