package cephxrefusal

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

func TestKeyOf(t *testing.T) {
	ev := func(kind, reason, component string) *corev1.Event {
		return &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: "ns", Name: "data", UID: "u-1"},
			Reason: reason, Source: corev1.EventSource{Component: component}}
	}
	csiProvisioner := names.CephFSDriverName + "_host_0123"
	for _, tc := range []struct {
		name string
		obj  any
		key  string
	}{
		{"the CephFS driver's provisioner", ev("PersistentVolumeClaim", "ProvisioningFailed", csiProvisioner), "ns/data/u-1"},
		{"the NFS driver's", ev("PersistentVolumeClaim", "ProvisioningFailed", "manila.csi.openstack.org_host_0123"), ""},
		{"kube-controller-manager's", ev("PersistentVolumeClaim", "ProvisioningFailed", "persistentvolume-controller"), ""},
		{"another reason", ev("PersistentVolumeClaim", "Provisioning", csiProvisioner), ""},
		{"another kind", ev("Pod", "ProvisioningFailed", csiProvisioner), ""},
		{"not an event", "x", ""},
	} {
		key, ok := KeyOf(tc.obj)
		if key != tc.key || ok != (tc.key != "") {
			t.Errorf("%s: KeyOf = %q, %v; want %q", tc.name, key, ok, tc.key)
		}
		if slim, err := Slim(tc.obj); err != nil {
			t.Errorf("%s: Slim: %v", tc.name, err)
		} else if key, _ := KeyOf(slim); key != tc.key {
			t.Errorf("%s: KeyOf(Slim) = %q, want %q", tc.name, key, tc.key)
		}
	}
}

func TestEventName(t *testing.T) {
	a, b := EventName("data", "u-1", "r1"), EventName("data", "u-1", "r2")
	if a == b || a != EventName("data", "u-1", "r1") || !strings.HasPrefix(a, "data.cephx-") {
		t.Errorf("names %q and %q: one per claim UID and rule, stable", a, b)
	}
	long := strings.Repeat("a", 240) + "." + strings.Repeat("b", 12)
	for _, n := range []string{a, EventName(long, "u-1", "r1")} {
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
			t.Errorf("%q: %v", n, errs)
		}
	}
}

type fakeManila struct {
	shares []openstack.Share
	rules  map[string][]openstack.AccessRule
	err    error
	calls  int
}

func (m *fakeManila) Shares(_ context.Context, md map[string]string) ([]openstack.Share, error) {
	m.calls++
	if m.err != nil {
		return nil, m.err
	}
	var out []openstack.Share
	for _, s := range m.shares {
		if s.Metadata[MetadataClaimName] == md[MetadataClaimName] && s.Metadata[MetadataClaimNamespace] == md[MetadataClaimNamespace] {
			out = append(out, s)
		}
	}
	return out, nil
}

func (m *fakeManila) AccessRules(_ context.Context, id string) ([]openstack.AccessRule, error) {
	m.calls++
	return m.rules[id], m.err
}

type world struct {
	kube   *fake.Clientset
	manila *fakeManila
	clock  *stepClock
	deps   Deps
}

func newWorld(t *testing.T, state operatorv1.ManagementState, cephfs bool) *world {
	t.Helper()
	className := "manila-cephfs-ceph"
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "data", UID: "u-1"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &className}}
	nfsClass := "csi-manila-default"
	nfsClaim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "nfs", UID: "u-2"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &nfsClass}}
	kube := fake.NewClientset(pvc, nfsClaim)
	classes := informers.NewSharedInformerFactory(kube, 0).Storage().V1().StorageClasses()
	for _, sc := range []*storagev1.StorageClass{
		{ObjectMeta: metav1.ObjectMeta{Name: className}, Provisioner: names.CephFSDriverName,
			Parameters: map[string]string{ParamShareType: "ceph", ParamClientID: "admin"}},
		{ObjectMeta: metav1.ObjectMeta{Name: nfsClass}, Provisioner: "manila.csi.openstack.org", Parameters: map[string]string{"type": "default"}},
	} {
		_ = classes.Informer().GetIndexer().Add(sc)
	}
	configs := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if cephfs {
		_ = configs.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: names.OperatorNamespace, Name: operatorconfig.ConfigMapName, ResourceVersion: "1"},
			Data: map[string]string{operatorconfig.Key: "cephfs:\n  enabled: true\n  image: quay.io/cephcsi/cephcsi:v3.18.0\n"}})
	}
	manila := &fakeManila{
		shares: []openstack.Share{{ID: "s1", Name: "pvc-u-1", Status: "available", Metadata: map[string]string{
			MetadataClaimName: "data", MetadataClaimNamespace: "ns", MetadataVolumeName: "pvc-u-1"}}},
		rules: map[string][]openstack.AccessRule{"s1": {{ID: "r1", AccessType: "cephx", AccessTo: "admin", State: "error"}}},
	}
	clk := &stepClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	return &world{kube: kube, manila: manila, clock: clk, deps: Deps{
		OperatorClient: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: state}, &operatorv1.OperatorStatus{}, nil),
		Config:         operatorconfig.NewSource(corev1listers.NewConfigMapLister(configs).ConfigMaps(names.OperatorNamespace)),
		StorageClasses: classes, Kube: kube, Manila: manila,
		Recorder: events.NewInMemoryRecorder("test", clk), Clock: clk,
	}}
}

// newProcess is one process's controller over the world (its memory is its own).
func (w *world) newProcess() *Controller {
	c := &Controller{d: w.deps, said: map[types.UID]time.Time{}, checked: map[types.UID]time.Time{}}
	c.syncCtx = factory.NewSyncContext(ControllerName, w.deps.Recorder)
	return c
}

type keyed struct {
	factory.SyncContext
	key string
}

func (k keyed) QueueKey() string { return k.key }

func (w *world) sync(t *testing.T, c *Controller, key string) error {
	t.Helper()
	return c.sync(context.Background(), keyed{SyncContext: c.syncCtx, key: key})
}

func (w *world) claimEvents(t *testing.T) []corev1.Event {
	t.Helper()
	list, err := w.kube.CoreV1().Events("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func TestOneEventPerClaimAndRule(t *testing.T) {
	w := newWorld(t, operatorv1.Managed, true)
	c := w.newProcess()
	for range 3 {
		if err := w.sync(t, c, "ns/data/u-1"); err != nil {
			t.Fatal(err)
		}
	}
	evs := w.claimEvents(t)
	if len(evs) != 1 {
		t.Fatalf("%d events, want 1: %+v", len(evs), evs)
	}
	ev := evs[0]
	if ev.Reason != EventReason || ev.Type != corev1.EventTypeWarning || ev.InvolvedObject.UID != "u-1" || ev.InvolvedObject.Kind != "PersistentVolumeClaim" ||
		ev.Annotations[AnnotationAccessRule] != "r1" || ev.Annotations[AnnotationShare] != "s1" {
		t.Errorf("event %+v", ev)
	}
	if !strings.HasPrefix(ev.Message, `Manila put the cephx access rule for ID "admin" on share s1 in error`) {
		t.Errorf("message %q", ev.Message)
	}
	if w.manila.calls != 2 {
		t.Errorf("%d Manila requests for 3 syncs of a diagnosed claim, want 2 (its shares, its rules once)", w.manila.calls)
	}

	// A new process asks Manila again, and finds the event there.
	if err := w.sync(t, w.newProcess(), "ns/data/u-1"); err != nil {
		t.Fatal(err)
	}
	if n := len(w.claimEvents(t)); n != 1 {
		t.Errorf("%d events after a restart, want 1", n)
	}
	// After the event TTL it asks again (the API server would have dropped the event by then).
	calls := w.manila.calls
	w.clock.Step(saidFor)
	if err := w.sync(t, c, "ns/data/u-1"); err != nil {
		t.Fatal(err)
	}
	if w.manila.calls == calls {
		t.Error("no Manila request after the event TTL")
	}
}

func TestNothingSaid(t *testing.T) {
	for _, tc := range []struct {
		name   string
		state  operatorv1.ManagementState
		cephfs bool
		key    string
		change func(w *world)
	}{
		{name: "Unmanaged", state: operatorv1.Unmanaged, cephfs: true, key: "ns/data/u-1"},
		{name: "Removed", state: operatorv1.Removed, cephfs: true, key: "ns/data/u-1"},
		{name: "CephFS off", state: operatorv1.Managed, key: "ns/data/u-1"},
		{name: "an NFS claim", state: operatorv1.Managed, cephfs: true, key: "ns/nfs/u-2"},
		{name: "a claim since recreated", state: operatorv1.Managed, cephfs: true, key: "ns/data/u-0"},
		{name: "a deleted claim", state: operatorv1.Managed, cephfs: true, key: "ns/gone/u-9"},
		{name: "the rule active", state: operatorv1.Managed, cephfs: true, key: "ns/data/u-1", change: func(w *world) {
			w.manila.rules["s1"][0].State = "active"
		}},
		{name: "no share", state: operatorv1.Managed, cephfs: true, key: "ns/data/u-1", change: func(w *world) { w.manila.shares = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tc.state, tc.cephfs)
			if tc.change != nil {
				tc.change(w)
			}
			if err := w.sync(t, w.newProcess(), tc.key); err != nil {
				t.Fatal(err)
			}
			if evs := w.claimEvents(t); len(evs) != 0 {
				t.Errorf("events %+v", evs)
			}
			wantCalls := 0
			if tc.name == "the rule active" {
				wantCalls = 2
			} else if tc.name == "no share" {
				wantCalls = 1
			}
			if w.manila.calls != wantCalls {
				t.Errorf("%d Manila requests, want %d", w.manila.calls, wantCalls)
			}
		})
	}
}

// A claim where Manila showed no refused rule is asked about again only after recheckAfter, requeued.
func TestRecheckThrottled(t *testing.T) {
	w := newWorld(t, operatorv1.Managed, true)
	w.manila.rules["s1"][0].State = "queued_to_apply"
	c := w.newProcess()
	var requeued []time.Duration
	requeue := func(d time.Duration) { requeued = append(requeued, d) }
	claim := Claim{Namespace: "ns", Name: "data", UID: "u-1"}
	for range 2 {
		if err := c.diagnose(context.Background(), claim, requeue); err != nil {
			t.Fatal(err)
		}
	}
	if w.manila.calls != 2 || len(requeued) != 1 || requeued[0] != recheckAfter {
		t.Errorf("%d Manila requests, requeued %v; want 2 and [%s]", w.manila.calls, requeued, recheckAfter)
	}
	w.manila.rules["s1"][0].State = "error"
	w.clock.Step(recheckAfter)
	if err := c.diagnose(context.Background(), claim, requeue); err != nil {
		t.Fatal(err)
	}
	if n := len(w.claimEvents(t)); n != 1 {
		t.Errorf("%d events once the rule is in error, want 1", n)
	}
}

// A failure (no session yet, Manila down) is returned, for the queue's backoff, and says nothing.
func TestManilaFailureRetried(t *testing.T) {
	w := newWorld(t, operatorv1.Managed, true)
	w.manila.err = ErrNoSession
	c := w.newProcess()
	if err := w.sync(t, c, "ns/data/u-1"); !errors.Is(err, ErrNoSession) {
		t.Errorf("sync = %v, want ErrNoSession", err)
	}
	w.manila.err = nil
	if err := w.sync(t, c, "ns/data/u-1"); err != nil || len(w.claimEvents(t)) != 1 {
		t.Errorf("after Manila answered: %v, %d events", err, len(w.claimEvents(t)))
	}
}

// The events informer runs only while CephFS is on and the ClusterCSIDriver Managed.
func TestInformerFollowsCephFS(t *testing.T) {
	w := newWorld(t, operatorv1.Managed, true)
	c := w.newProcess()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := c.sync(ctx, keyed{SyncContext: c.syncCtx, key: factory.DefaultQueueKey}); err != nil {
		t.Fatal(err)
	}
	if c.informer == nil {
		t.Fatal("no informer while CephFS is on")
	}
	_, _, rv, _ := w.deps.OperatorClient.GetOperatorState()
	if _, _, err := w.deps.OperatorClient.UpdateOperatorSpec(ctx, rv, &operatorv1.OperatorSpec{ManagementState: operatorv1.Unmanaged}); err != nil {
		t.Fatal(err)
	}
	if err := c.sync(ctx, keyed{SyncContext: c.syncCtx, key: factory.DefaultQueueKey}); err != nil {
		t.Fatal(err)
	}
	if c.informer != nil {
		t.Error("the informer runs while Unmanaged")
	}
}

// stepClock is a clock that moves only when told.
type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time                  { return c.now }
func (c *stepClock) Since(t time.Time) time.Duration { return c.now.Sub(t) }
func (c *stepClock) Step(d time.Duration)            { c.now = c.now.Add(d) }
