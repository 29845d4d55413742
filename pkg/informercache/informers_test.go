package informercache

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

func TestDropManagedFields(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "x"}}},
		Data: map[string]string{"k": "v"}}
	got, err := DropManagedFields(cm)
	if err != nil {
		t.Fatal(err)
	}
	if out := got.(*corev1.ConfigMap); out.ManagedFields != nil || out.Data["k"] != "v" || out.Name != "a" {
		t.Errorf("transformed to %+v", out)
	}
	// A tombstone is not an object: passed through untouched.
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/a", Obj: cm}
	if got, err := DropManagedFields(tomb); err != nil || got.(cache.DeletedFinalStateUnknown).Key != "ns/a" {
		t.Errorf("tombstone: %v, %v", got, err)
	}
}

func TestSlimNode(t *testing.T) {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "master-0", UID: "u", ResourceVersion: "7",
			Labels:        map[string]string{"node-role.kubernetes.io/master": ""},
			Annotations:   map[string]string{"machine.openshift.io/machine": "openshift-machine-api/m0"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}},
		Spec: corev1.NodeSpec{ProviderID: "openstack:///x"},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.5"}},
			Images:    []corev1.ContainerImage{{Names: []string{"quay.io/a@sha256:0"}, SizeBytes: 1}},
		},
	}
	got, err := Slim(node)
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "master-0", UID: "u", ResourceVersion: "7", Labels: node.Labels},
		Status:     corev1.NodeStatus{Addresses: node.Status.Addresses},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Slim(node) = %+v, want %+v", got, want)
	}
	// Anything else only loses its managedFields.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "x"}}}}
	if out, _ := Slim(cm); out.(*corev1.ConfigMap).ManagedFields != nil || out.(*corev1.ConfigMap).Name != "a" {
		t.Errorf("Slim(ConfigMap) = %+v", out)
	}
}

// Of a claim and a volume the cache keeps what the CephFS controllers read (a claim's class, a
// volume's CSI driver) and what identifies them; an object without the field stays without it.
func TestSlimClaimsAndVolumes(t *testing.T) {
	class := "manila-cephfs-gold"
	meta := metav1.ObjectMeta{Name: "data", Namespace: "app", UID: "u", ResourceVersion: "9",
		Labels: map[string]string{"app": "db"}, Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"},
		Finalizers: []string{"kubernetes.io/pvc-protection"}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kcm"}}}
	ident := metav1.ObjectMeta{Name: "data", Namespace: "app", UID: "u", ResourceVersion: "9"}
	for _, tc := range []struct {
		name     string
		in, want any
	}{
		{"claim with a class",
			&corev1.PersistentVolumeClaim{ObjectMeta: meta, Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, VolumeName: "pv-1",
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}},
			&corev1.PersistentVolumeClaim{ObjectMeta: ident, Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class}}},
		{"claim without a class",
			&corev1.PersistentVolumeClaim{ObjectMeta: meta, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1"}},
			&corev1.PersistentVolumeClaim{ObjectMeta: ident}},
		{"CSI volume",
			&corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1", UID: "v", ResourceVersion: "3", Labels: map[string]string{"a": "b"}},
				Spec: corev1.PersistentVolumeSpec{StorageClassName: class, PersistentVolumeSource: corev1.PersistentVolumeSource{
					CSI: &corev1.CSIPersistentVolumeSource{Driver: "cephfs.manila.csi.openstack.org", VolumeHandle: "h",
						VolumeAttributes: map[string]string{"shareID": "s"}}}}},
			&corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1", UID: "v", ResourceVersion: "3"},
				Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{
					CSI: &corev1.CSIPersistentVolumeSource{Driver: "cephfs.manila.csi.openstack.org"}}}}},
		{"NFS volume",
			&corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-2"},
				Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{NFS: &corev1.NFSVolumeSource{Server: "s", Path: "/p"}}}},
			&corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Slim(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Slim = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The wrapped factory hands out the given Namespace informer and its own for everything else.
func TestWithNamespacesFrom(t *testing.T) {
	kube := fake.NewClientset()
	operand := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace("operand"))
	labelled := LabelledCluster(kube, "owner=us")
	f := WithNamespacesFrom(operand, labelled.Core().V1().Namespaces())
	if got, want := f.Core().V1().Namespaces().Informer(), labelled.Core().V1().Namespaces().Informer(); got != want {
		t.Errorf("Namespaces() is not the labelled factory's informer")
	}
	if got, want := f.Core().V1().ConfigMaps().Informer(), operand.Core().V1().ConfigMaps().Informer(); got != want {
		t.Errorf("ConfigMaps() is not the operand factory's informer")
	}
	if got, want := f.Apps().V1().Deployments().Informer(), operand.Apps().V1().Deployments().Informer(); got != want {
		t.Errorf("Apps() is not the operand factory's")
	}
	if operand.Core().V1().Namespaces().Informer() == labelled.Core().V1().Namespaces().Informer() {
		t.Errorf("the operand factory's own Namespace informer is the labelled one: the test proves nothing")
	}
}

// Of a CRD the cache keeps its identity: existence is all that is read.
func TestCRDMetadataOnly(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "volumesnapshotclasses.snapshot.storage.k8s.io", UID: "u", ResourceVersion: "4",
			Annotations: map[string]string{"api-approved.kubernetes.io": "x"}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "cvo"}}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "snapshot.storage.k8s.io",
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Schema: &apiextensionsv1.CustomResourceValidation{}}}},
	}
	got, err := CRDMetadataOnly(crd)
	if err != nil {
		t.Fatal(err)
	}
	want := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: crd.Name, UID: "u", ResourceVersion: "4"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CRDMetadataOnly = %+v, want %+v", got, want)
	}
	tomb := cache.DeletedFinalStateUnknown{Key: crd.Name, Obj: crd}
	if got, err := CRDMetadataOnly(tomb); err != nil || got.(cache.DeletedFinalStateUnknown).Key != crd.Name {
		t.Errorf("tombstone: %v, %v", got, err)
	}
}
