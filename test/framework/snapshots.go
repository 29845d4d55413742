package framework

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SnapshotterContainer is the controller Deployment's csi-snapshotter sidecar.
const SnapshotterContainer = "csi-snapshotter"

// The snapshot API the snapshot CRDs of the world serve.
var (
	VolumeSnapshotGVR        = schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshots"}
	VolumeSnapshotContentGVR = schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshotcontents"}
)

// snapshotBinaries are what the snapshot half of the provisioning world runs; hack/k8s-binaries.sh
// builds both from external-snapshotter/v8.
var snapshotBinaries = []string{"csi-snapshotter", "snapshot-controller"}

// startSnapshots runs, when both were built, the cluster's snapshot controller (a cluster component:
// the world's admin kubeconfig, no leader election) and the Deployment's csi-snapshotter container as
// the provisioner runs (its rendered arguments and environment, the Deployment's ServiceAccount). When
// either is missing it records why; RequireSnapshots fails the tests that need them.
func (p *ProvisioningWorld) startSnapshots(t testing.TB, w *World, pod *podRoot, c corev1.Container) {
	t.Helper()
	bin := ProvisioningBinDir()
	paths := make([]string, len(snapshotBinaries))
	for i, name := range snapshotBinaries {
		paths[i] = filepath.Join(bin, name)
	}
	if err := requireFiles("the snapshot pieces of the provisioning world (hack/k8s-binaries.sh build: make deps-k8s)", paths...); err != nil {
		p.snapshotsMissing = err
		return
	}
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "127.0.0.1:" + strconv.Itoa(port)
	p.start(t, "snapshot-controller", filepath.Join(bin, "snapshot-controller"), []string{
		"--kubeconfig=" + w.Kubeconfig, "--leader-election=false", "--http-endpoint=" + endpoint, "--v=4",
	}, []string{"PATH=" + os.Getenv("PATH")})
	// It serves its endpoint once it has found the snapshot CRDs, just before its controllers start.
	Eventually(t, DefaultTimeout, "snapshot-controller serving on "+endpoint, func(ctx context.Context) error {
		p.alive(t, "snapshot-controller")
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+endpoint+"/metrics", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		return nil
	})
	p.startSidecar(t, w, pod, c, paths[0], p.leaseName("external-snapshotter-leader-"))
	p.Snapshots = true
}

// RequireSnapshots fails the test, saying what is missing, unless the snapshot pieces run.
func (p *ProvisioningWorld) RequireSnapshots(t testing.TB) {
	t.Helper()
	if !p.Snapshots {
		t.Fatalf("snapshots cannot be tested: %v", p.snapshotsMissing)
	}
}

// WaitForSnapshotClass waits for the operator's VolumeSnapshotClass and returns its parameters.
func (w *World) WaitForSnapshotClass(t testing.TB) map[string]string {
	t.Helper()
	var params map[string]string
	Eventually(t, DefaultTimeout, "VolumeSnapshotClass "+SnapshotClass, func(ctx context.Context) error {
		vsc, err := w.Dynamic.Resource(snapshotClassGVR).Get(ctx, SnapshotClass, metav1.GetOptions{})
		if err != nil {
			return err
		}
		params, _, err = unstructured.NestedStringMap(vsc.Object, "parameters")
		return err
	})
	return params
}

// CreateVolumeSnapshot creates a VolumeSnapshot of the claim with the snapshot class.
func (w *World) CreateVolumeSnapshot(t testing.TB, namespace, name, claim, class string) {
	t.Helper()
	vs := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "snapshot.storage.k8s.io/v1",
		"kind":       "VolumeSnapshot",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec": map[string]any{
			"volumeSnapshotClassName": class,
			"source":                  map[string]any{"persistentVolumeClaimName": claim},
		},
	}}
	if _, err := w.Dynamic.Resource(VolumeSnapshotGVR).Namespace(namespace).Create(context.Background(), vs, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating VolumeSnapshot %s/%s: %v", namespace, name, err)
	}
}

// VolumeSnapshotState is what the tests read of a VolumeSnapshot and its content.
type VolumeSnapshotState struct {
	ReadyToUse  bool
	ContentName string
	// SnapshotHandle is the driver's ID of the snapshot (the Manila snapshot's), from the content.
	SnapshotHandle string
	// Error is status.error.message of the VolumeSnapshot, if any.
	Error string
}

// VolumeSnapshot reads a VolumeSnapshot and, once it is bound, its content's snapshot handle.
func (w *World) VolumeSnapshot(ctx context.Context, namespace, name string) (VolumeSnapshotState, error) {
	var s VolumeSnapshotState
	vs, err := w.Dynamic.Resource(VolumeSnapshotGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return s, err
	}
	s.ReadyToUse, _, _ = unstructured.NestedBool(vs.Object, "status", "readyToUse")
	s.ContentName, _, _ = unstructured.NestedString(vs.Object, "status", "boundVolumeSnapshotContentName")
	s.Error, _, _ = unstructured.NestedString(vs.Object, "status", "error", "message")
	if s.ContentName == "" {
		return s, nil
	}
	content, err := w.Dynamic.Resource(VolumeSnapshotContentGVR).Get(ctx, s.ContentName, metav1.GetOptions{})
	if err != nil {
		return s, fmt.Errorf("content %s: %w", s.ContentName, err)
	}
	s.SnapshotHandle, _, _ = unstructured.NestedString(content.Object, "status", "snapshotHandle")
	return s, nil
}

// WaitForVolumeSnapshotReady waits until the VolumeSnapshot is ready to use and returns its state;
// on timeout its status error and events say why.
func (w *World) WaitForVolumeSnapshotReady(t testing.TB, namespace, name string) VolumeSnapshotState {
	t.Helper()
	var s VolumeSnapshotState
	Eventually(t, ProvisioningTimeout, "VolumeSnapshot "+name+" ready to use", func(ctx context.Context) error {
		var err error
		if s, err = w.VolumeSnapshot(ctx, namespace, name); err != nil {
			return err
		}
		if !s.ReadyToUse || s.SnapshotHandle == "" {
			return fmt.Errorf("ready %t, content %q, handle %q, error %q; events: %s", s.ReadyToUse, s.ContentName,
				s.SnapshotHandle, s.Error, w.ObjectEvents(ctx, namespace, "VolumeSnapshot", name))
		}
		return nil
	})
	return s
}

// ObjectEvents returns the events of an object of the kind as "reason: message | ...", or the error
// listing them.
func (w *World) ObjectEvents(ctx context.Context, namespace, kind, name string) string {
	events, err := w.Kube.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.kind=" + kind + ",involvedObject.name=" + name,
	})
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, e := range events.Items {
		out = append(out, e.Reason+": "+e.Message)
	}
	return strings.Join(out, " | ")
}

// VolumeSnapshotContentsOf lists the names of the VolumeSnapshotContents bound to a VolumeSnapshot.
func (w *World) VolumeSnapshotContentsOf(ctx context.Context, namespace, name string) ([]string, error) {
	list, err := w.Dynamic.Resource(VolumeSnapshotContentGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range list.Items {
		ns, _, _ := unstructured.NestedString(c.Object, "spec", "volumeSnapshotRef", "namespace")
		n, _, _ := unstructured.NestedString(c.Object, "spec", "volumeSnapshotRef", "name")
		if ns == namespace && n == name {
			out = append(out, c.GetName())
		}
	}
	return out, nil
}

// DeleteVolumeSnapshot deletes a VolumeSnapshot; one already gone is no error.
func (w *World) DeleteVolumeSnapshot(t testing.TB, namespace, name string) {
	t.Helper()
	err := w.Dynamic.Resource(VolumeSnapshotGVR).Namespace(namespace).Delete(context.Background(), name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("deleting VolumeSnapshot %s/%s: %v", namespace, name, err)
	}
}

// ShareSnapshot is what the tests check of a snapshot in the real Manila.
type ShareSnapshot struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	ShareID string `json:"share_id"`
	Size    int    `json:"size"`
}

// ShareSnapshots lists the snapshots of a share in every project, as the admin:
// GET /v2/snapshots/detail?all_tenants=1&share_id=<id>.
func (o *OpenStack) ShareSnapshots(ctx context.Context, shareID string) ([]ShareSnapshot, error) {
	client, err := o.manila(ctx)
	if err != nil {
		return nil, err
	}
	var resp struct {
		Snapshots []ShareSnapshot `json:"snapshots"`
	}
	url := client.ServiceURL("snapshots", "detail") + "?all_tenants=1&share_id=" + shareID
	if _, err := client.Get(ctx, url, &resp, nil); err != nil {
		return nil, fmt.Errorf("snapshots of share %s: %w", shareID, err)
	}
	return resp.Snapshots, nil
}

// ShareSnapshot reads a snapshot by ID, as the admin.
func (o *OpenStack) ShareSnapshot(ctx context.Context, id string) (ShareSnapshot, error) {
	client, err := o.manila(ctx)
	if err != nil {
		return ShareSnapshot{}, err
	}
	var resp struct {
		Snapshot ShareSnapshot `json:"snapshot"`
	}
	if _, err := client.Get(ctx, client.ServiceURL("snapshots", id), &resp, nil); err != nil {
		return ShareSnapshot{}, fmt.Errorf("snapshot %s: %w", id, err)
	}
	return resp.Snapshot, nil
}
