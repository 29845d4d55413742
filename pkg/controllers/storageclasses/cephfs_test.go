package storageclasses

import (
	"context"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	operatorv1listers "github.com/openshift/client-go/operator/listers/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/csi/csistorageclasscontroller"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/cephcsi"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/claimwatch"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition/conditiontest"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// world is a StorageClass controller over fake caches: the classes' informer store follows the fake
// API after every sync, as an informer would.
type world struct {
	t        *testing.T
	c        *Controller
	kube     *fake.Clientset
	classes  cache.Indexer
	claims   *indexedClaims
	configs  cache.Indexer
	drivers  cache.Indexer
	op       condition.OperatorClient
	recorder events.InMemoryRecorder
	version  int
}

func indexer() cache.Indexer {
	return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}

// indexedClaims is claimwatch.Watch with its cache always filled (the claims a test adds) and a record
// of whether the controller holds it (between Naming and Release).
type indexedClaims struct {
	cache.Indexer
	watching bool
	unknown  bool // answers "not yet known", as the watch does while it lists
}

func (c *indexedClaims) Naming(_ context.Context, class string) ([]string, bool, error) {
	c.watching = true
	if c.unknown {
		return nil, false, nil
	}
	keys, err := claimwatch.KeysNaming(c.Indexer, class)
	return keys, err == nil, err
}

func (c *indexedClaims) Release() { c.watching = false }

func newWorld(t *testing.T, types []manilatypes.ShareType) *world {
	w := &world{t: t, kube: fake.NewClientset(), classes: indexer(), configs: indexer(), drivers: indexer(),
		claims:   &indexedClaims{Indexer: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{claimwatch.ByStorageClass: claimwatch.IndexByStorageClass})},
		recorder: events.NewInMemoryRecorder("test", clock.RealClock{})}
	w.op = condition.Declared(conditiontest.Applying(v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil)),
		conditiontypes.New(ConditionTypes()))
	listings := &manilatypes.Store{}
	listings.Publish(types, true)
	w.c = &Controller{
		operatorClient: w.op,
		evaluator:      csistorageclasscontroller.NewStorageClassStateEvaluator(w.kube, operatorv1listers.NewClusterCSIDriverLister(w.drivers), w.recorder),
		client:         w.kube.StorageV1(),
		listings:       listings,
		config:         operatorconfig.NewSource(corev1listers.NewConfigMapLister(w.configs).ConfigMaps(names.OperatorNamespace)),
		clock:          clock.RealClock{},
		absent:         map[string]int{},
		reported:       map[string]bool{},
		recent:         recentOver(w.classes),
		claims:         w.claims,
		machineNetwork: machineNetworkInputs{nodes: corev1listers.NewNodeLister(indexer())},
	}
	w.config("")
	return w
}

func (w *world) config(yaml string) {
	w.version++
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: operatorconfig.ConfigMapName, Namespace: names.OperatorNamespace,
		ResourceVersion: strings.Repeat("1", w.version)}, Data: map[string]string{operatorconfig.Key: yaml}}
	if err := w.configs.Update(cm); err != nil {
		w.t.Fatal(err)
	}
	if cfg, err := w.c.config.Current(); err != nil || cfg == nil {
		w.t.Fatalf("config %q: %v", yaml, err)
	}
}

func (w *world) storageClassState(state operatorv1.StorageClassStateName) {
	ccd := &operatorv1.ClusterCSIDriver{ObjectMeta: metav1.ObjectMeta{Name: names.CSIDriverName},
		Spec: operatorv1.ClusterCSIDriverSpec{StorageClassState: state}}
	if err := w.drivers.Update(ccd); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) claim(namespace, name, class string) *corev1.PersistentVolumeClaim {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class}}
	if err := w.claims.Add(pvc); err != nil {
		w.t.Fatal(err)
	}
	return pvc
}

// sync runs one sync and brings the informer store up to the fake API.
func (w *world) sync() {
	w.t.Helper()
	if err := w.c.sync(context.Background(), factory.NewSyncContext(ControllerName, w.recorder)); err != nil {
		w.t.Fatalf("sync: %v", err)
	}
	list, err := w.kube.StorageV1().StorageClasses().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	var objs []any
	for i := range list.Items {
		objs = append(objs, &list.Items[i])
	}
	if err := w.classes.Replace(objs, ""); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) classNames() []string {
	var out []string
	for _, obj := range w.classes.List() {
		out = append(out, obj.(*storagev1.StorageClass).Name)
	}
	slices.Sort(out)
	return out
}

func (w *world) class(name string) *storagev1.StorageClass {
	obj, ok, _ := w.classes.GetByKey(name)
	if !ok {
		return nil
	}
	return obj.(*storagev1.StorageClass)
}

func (w *world) condition(condType string) *operatorv1.OperatorCondition {
	_, status, _, err := w.op.GetOperatorState()
	if err != nil {
		w.t.Fatal(err)
	}
	return v1helpers.FindOperatorCondition(status.Conditions, condType)
}

// events returns the messages of the events with the reason, and forgets every event so far.
func (w *world) events(reason string) []string {
	var out []string
	for _, e := range w.recorder.Events() {
		if e.Reason == reason {
			out = append(out, e.Message)
		}
	}
	return out
}

func shareType(id, name, protocol string) manilatypes.ShareType {
	st := manilatypes.ShareType{ID: id, Name: name}
	if protocol != "" {
		st.ExtraSpecs = map[string]string{"storage_protocol": protocol}
	}
	return st
}

var cephFSOn = "cephfs:\n  enabled: true\n  image: quay.io/cephcsi/cephcsi:" + cephcsi.Recommended + "\n" +
	"storageClasses:\n  defaults:\n    mountOptions: [nfsvers=4.1]\n    cephfs-mounter: kernel\n"

var cephFSTypes = []manilatypes.ShareType{shareType("1", "gold", "NFS CEPHFS"), shareType("2", "ceph", "CEPHFS"), shareType("3", "plain", "")}

// CephFS on: a CephFS class per CEPHFS type beside the NFS ones. Off again: the unclaimed ones are
// deleted at once, a claimed one is kept (event, condition) until its last claim goes.
func TestSyncCephFSOnThenOff(t *testing.T) {
	w := newWorld(t, cephFSTypes)
	w.config(cephFSOn)
	w.sync()
	want := []string{"csi-manila-gold", "csi-manila-plain", "manila-cephfs-ceph", "manila-cephfs-gold"}
	if got := w.classNames(); !slices.Equal(got, want) {
		t.Fatalf("classes %v, want %v", got, want)
	}
	for _, name := range []string{"manila-cephfs-ceph", "manila-cephfs-gold"} {
		sc := w.class(name)
		if sc.Provisioner != names.CephFSDriverName || sc.Annotations[classplan.ProtocolAnnotation] != "CEPHFS" ||
			sc.Parameters["cephfs-mounter"] != "kernel" || len(sc.MountOptions) != 0 || sc.Parameters["nfs-shareClient"] != "" {
			t.Errorf("%s: %+v", name, sc)
		}
	}
	if sc := w.class("csi-manila-gold"); sc.Provisioner != names.CSIDriverName || sc.Parameters["cephfs-mounter"] != "" || !slices.Equal(sc.MountOptions, []string{"nfsvers=4.1"}) {
		t.Errorf("csi-manila-gold: %+v", sc)
	}
	if c := w.condition(ConditionOpenNFSAccess); c == nil || strings.Contains(c.Message, "manila-cephfs") {
		t.Errorf("open NFS access lists CephFS classes: %+v", c)
	}
	w.sync() // nothing changes: nothing written
	if got := w.classNames(); !slices.Equal(got, want) {
		t.Fatalf("second sync: classes %v", got)
	}

	// Off, with a claim of manila-cephfs-ceph (and one of an NFS class, which changes nothing).
	pvc := w.claim("apps", "data", "manila-cephfs-ceph")
	w.claim("apps", "a-later-one", "manila-cephfs-ceph")
	w.claim("web", "site", "csi-manila-gold")
	w.config("")
	w.sync()
	if got := w.classNames(); !slices.Equal(got, []string{"csi-manila-gold", "csi-manila-plain", "manila-cephfs-ceph"}) {
		t.Fatalf("off: classes %v", got)
	}
	if got := w.events("StorageClassDeleted"); len(got) != 1 || !strings.Contains(got[0], "manila-cephfs-gold: cephfs.enabled is false and no PersistentVolumeClaim names it") {
		t.Errorf("delete events %q", got)
	}
	if got := w.events("StorageClassRetained"); len(got) != 1 || !strings.Contains(got[0], "manila-cephfs-ceph") || !strings.Contains(got[0], "apps/a-later-one") {
		t.Errorf("retained events %q, want one naming the class and its first claim", got)
	}
	skips := strings.Join(w.events("ShareTypeSkipped"), "\n")
	if !strings.Contains(skips, `"ceph"`) || !strings.Contains(skips, "cephfs.enabled: true and cephfs.image in ConfigMap manila-csi-driver-operator-settings") {
		t.Errorf("skip events %q", skips)
	}
	retained := w.condition(ConditionCephFSRetained)
	if retained == nil || retained.Status != operatorv1.ConditionTrue || retained.Reason != ReasonCephFSClassesInUse ||
		!strings.Contains(retained.Message, "manila-cephfs-ceph (PersistentVolumeClaim apps/a-later-one)") {
		t.Errorf("%s: %+v", ConditionCephFSRetained, retained)
	}
	for _, cond := range []string{ConditionDegraded, ConditionProgressing} {
		if c := w.condition(cond); c == nil || c.Status != operatorv1.ConditionFalse {
			t.Errorf("%s: %+v", cond, c)
		}
	}
	if c := w.condition(ConditionStale); c != nil {
		t.Errorf("a retired class is not stale: %+v", c)
	}
	w.sync() // the event is sent once while it lasts
	if got := w.events("StorageClassRetained"); len(got) != 1 {
		t.Errorf("retained events after a second sync %q", got)
	}
	if !w.claims.watching {
		t.Error("the claims are not watched while a class is retained")
	}

	// While the claims are being listed, nothing is deleted.
	w.claims.unknown = true
	for _, name := range []string{"data", "a-later-one"} {
		pvc.Name = name
		if err := w.claims.Delete(pvc); err != nil {
			t.Fatal(err)
		}
	}
	// and a new share type's class is made meanwhile, what is retained still said.
	w.c.listings.Publish(append(slices.Clone(cephFSTypes), shareType("4", "silver", "NFS")), true)
	w.sync()
	if got := w.classNames(); !slices.Equal(got, []string{"csi-manila-gold", "csi-manila-plain", "csi-manila-silver", "manila-cephfs-ceph"}) {
		t.Fatalf("claims not yet known: classes %v", got)
	}
	if c := w.condition(ConditionCephFSRetained); c == nil || c.Status != operatorv1.ConditionTrue {
		t.Errorf("claims not yet known: %s %+v, want it as last said", ConditionCephFSRetained, c)
	}
	w.claims.unknown = false

	// The claims are gone: the class goes, and the condition with it.
	w.sync()
	if got := w.classNames(); !slices.Equal(got, []string{"csi-manila-gold", "csi-manila-plain", "csi-manila-silver"}) {
		t.Errorf("no claim left: classes %v", got)
	}
	if c := w.condition(ConditionCephFSRetained); c != nil {
		t.Errorf("%s stays: %+v", ConditionCephFSRetained, c)
	}
	w.sync()
	if w.claims.watching {
		t.Error("the claims are still watched with no class retained")
	}
}

// storageClassState applies to CephFS classes as to NFS ones: Unmanaged deletes nothing (the claimed
// class is still listed), Removed deletes every class of the operator, claimed or not.
func TestSyncCephFSOffStorageClassState(t *testing.T) {
	for _, tc := range []struct {
		state    operatorv1.StorageClassStateName
		want     []string
		retained bool
	}{
		{operatorv1.UnmanagedStorageClass, []string{"csi-manila-gold", "csi-manila-plain", "manila-cephfs-ceph", "manila-cephfs-gold"}, true},
		{operatorv1.RemovedStorageClass, nil, false},
	} {
		t.Run(string(tc.state), func(t *testing.T) {
			w := newWorld(t, cephFSTypes)
			w.config(cephFSOn)
			w.sync()
			w.claim("apps", "data", "manila-cephfs-ceph")
			w.config("")
			w.storageClassState(tc.state)
			w.sync()
			if got := w.classNames(); !slices.Equal(got, tc.want) {
				t.Errorf("classes %v, want %v", got, tc.want)
			}
			if c := w.condition(ConditionCephFSRetained); (c != nil) != tc.retained {
				t.Errorf("%s: %+v", ConditionCephFSRetained, c)
			}
		})
	}
}

// An existing cluster's classes (no protocol annotation) are NFS classes: turning CephFS on adds the
// CephFS classes beside them and changes none of them.
func TestSyncCephFSOnLeavesNFSClasses(t *testing.T) {
	w := newWorld(t, cephFSTypes)
	w.sync()
	before := map[string]string{}
	for _, name := range w.classNames() {
		before[name] = w.class(name).ResourceVersion
	}
	if len(before) != 2 {
		t.Fatalf("off: classes %v", w.classNames())
	}
	w.config(cephFSOn)
	w.sync()
	for name, rv := range before {
		if sc := w.class(name); sc == nil || sc.ResourceVersion != rv {
			t.Errorf("%s changed when CephFS was turned on", name)
		}
	}
	if got := w.classNames(); len(got) != 4 {
		t.Errorf("on: classes %v", got)
	}
}

func TestClaimsNaming(t *testing.T) {
	w := newWorld(t, nil)
	owned := func(name string, cephfs bool) *storagev1.StorageClass {
		sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{classplan.OwnerLabel: classplan.OwnerLabelValue},
			Annotations: map[string]string{}}}
		if cephfs {
			sc.Annotations[classplan.ProtocolAnnotation] = "CEPHFS"
		}
		return sc
	}
	existing := map[string]*storagev1.StorageClass{"manila-cephfs-a": owned("manila-cephfs-a", true), "manila-cephfs-b": owned("manila-cephfs-b", true),
		"csi-manila-a": owned("csi-manila-a", false)}
	w.claim("z", "first-by-name-only", "manila-cephfs-a")
	w.claim("a", "zz", "manila-cephfs-a")
	w.claim("a", "nfs", "csi-manila-a")
	w.claim("a", "foreign", "manila-cephfs-by-hand")
	if err := w.claims.Add(&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "no-class"}}); err != nil {
		t.Fatal(err)
	}
	got, known, err := w.c.claimsNaming(context.Background(), existing, false)
	if err != nil || !known || len(got) != 1 || got["manila-cephfs-a"] != "a/zz" || !w.claims.watching {
		t.Errorf("CephFS off: %v %t %v, want manila-cephfs-a -> a/zz only, from the watch", got, known, err)
	}
	if got, known, err := w.c.claimsNaming(context.Background(), existing, true); err != nil || !known || got != nil || w.claims.watching {
		t.Errorf("CephFS on: %v %t %v, want no lookup and the watch released", got, known, err)
	}
	w.claims.unknown = true
	if got, known, err := w.c.claimsNaming(context.Background(), existing, false); err != nil || known || got != nil {
		t.Errorf("claims being listed: %v %t %v, want not known", got, known, err)
	}
}

func TestNamesCephFSClass(t *testing.T) {
	cephfs, nfs, empty := "manila-cephfs-a", "csi-manila-a", ""
	for _, tc := range []struct {
		class *string
		want  bool
	}{{&cephfs, true}, {&nfs, false}, {&empty, false}, {nil, false}} {
		pvc := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: tc.class}}
		if got := namesCephFSClass(pvc); got != tc.want {
			t.Errorf("class %v: %t, want %t", tc.class, got, tc.want)
		}
	}
}

func TestOursHasCephFSClasses(t *testing.T) {
	for _, tc := range []struct {
		sc   *storagev1.StorageClass
		want bool
	}{
		{&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "manila-cephfs-gold"}}, true},
		{&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "by-hand"}, Provisioner: names.CephFSDriverName}, true},
		{&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "csi-manila-gold"}}, true},
		{&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "standard"}, Provisioner: "cinder.csi.openstack.org"}, false},
	} {
		if got := ours(tc.sc); got != tc.want {
			t.Errorf("ours(%s, %s) = %t", tc.sc.Name, tc.sc.Provisioner, got)
		}
	}
}
