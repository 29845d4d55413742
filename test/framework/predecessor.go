package framework

import (
	"context"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// Predecessor is a release of OpenShift's own Manila operator: "4.17" (csi-driver-manila-operator)
// or "4.18" (csi-operator's openstack-manila). Its objects are built from what it leaves on a cluster
// (../shared/REFERENCE.md section 11), not from this operator's assets.
type Predecessor string

const (
	Predecessor417 Predecessor = "4.17"
	Predecessor418 Predecessor = "4.18"
)

// Labels of the predecessors' workloads (both releases), which are also this operator's.
var (
	PredecessorControllerLabels = map[string]string{"app": "openstack-manila-csi", "component": "controllerplugin"}
	PredecessorNodeLabels       = map[string]string{"app": "openstack-manila-csi", "component": "nodeplugin"}
	PredecessorNFSLabels        = map[string]string{"app": "openstack-manila-csi", "component": "nfs-nodeplugin"}
)

// PredecessorClusterBindings are the ClusterRoleBindings of the <=4.17 predecessor.
var PredecessorClusterBindings = []string{"manila-controller-privileged-binding", "manila-node-privileged-binding",
	"manila-csi-main-provisioner-binding", "manila-csi-main-snapshotter-binding",
	"manila-csi-volumeattachment-reader-provisioner-binding", "manila-kube-rbac-proxy-binding"}

// PredecessorClassName is the predecessor's name for a share type's class.
func PredecessorClassName(shareType string) string {
	return "csi-manila-" + strings.ToLower(strings.ReplaceAll(shareType, "_", "-"))
}

// PredecessorCSIDriver is the predecessor's CSIDriver as library-go's ApplyCSIDriver left it, with the
// spec-hash annotation of the spec it applied.
func PredecessorCSIDriver(t testing.TB) *storagev1.CSIDriver {
	t.Helper()
	d := &storagev1.CSIDriver{
		ObjectMeta: metav1.ObjectMeta{Name: names.CSIDriverName, Annotations: map[string]string{"csi.openshift.io/managed": "true"}},
		Spec: storagev1.CSIDriverSpec{AttachRequired: ptr.To(false), PodInfoOnMount: ptr.To(false),
			FSGroupPolicy: ptr.To(storagev1.NoneFSGroupPolicy)},
	}
	if err := resourceapply.SetSpecHashAnnotation(&d.ObjectMeta, d.Spec); err != nil {
		t.Fatal(err)
	}
	return d
}

// PredecessorClass is the predecessor's class of a share type.
func PredecessorClass(p Predecessor, shareType string) *storagev1.StorageClass {
	params := map[string]string{"type": shareType}
	ops := []string{"provisioner", "node-stage", "node-publish"}
	var expand *bool
	if p == Predecessor418 {
		ops, expand = append(ops, "controller-expand"), ptr.To(true)
	}
	for _, op := range ops {
		params["csi.storage.k8s.io/"+op+"-secret-name"] = names.DriverSecret
		params["csi.storage.k8s.io/"+op+"-secret-namespace"] = names.OperandNamespace
	}
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: PredecessorClassName(shareType)},
		Provisioner: names.CSIDriverName, Parameters: params, AllowVolumeExpansion: expand,
		ReclaimPolicy:     ptr.To(corev1.PersistentVolumeReclaimDelete),
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingImmediate)}
}

// PredecessorSnapshotClass is the predecessor's VolumeSnapshotClass.
func PredecessorSnapshotClass() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshotClass",
		"metadata": map[string]any{"name": SnapshotClass}, "driver": names.CSIDriverName, "deletionPolicy": "Delete",
		"parameters": map[string]any{"force-create": "false",
			"csi.storage.k8s.io/snapshotter-secret-name":      names.DriverSecret,
			"csi.storage.k8s.io/snapshotter-secret-namespace": names.OperandNamespace},
	}}
}

// PredecessorDriverSecret is the predecessor's driver Secret: <=4.17 translated clouds.yaml into keys
// (the user domain copied over os-domainName), 4.18+ points the driver at a mounted clouds.yaml. The
// values are the predecessor's, not this world's credentials.
func PredecessorDriverSecret(p Predecessor) *corev1.Secret {
	data := map[string]string{"os-authURL": "https://keystone.example:5000/v3", "os-userName": "manila",
		"os-password": "predecessor-password", "os-projectName": "shift", "os-domainName": "Default",
		"os-userDomainName": "Default", "os-projectDomainName": "Default", "os-region": "RegionOne"}
	if p == Predecessor418 {
		data = map[string]string{"os-useClouds": "true", "os-cloudsFile": "/etc/openstack/clouds.yaml", "os-cloud": "openstack"}
	}
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: names.DriverSecret, Namespace: names.OperandNamespace},
		Type: corev1.SecretTypeOpaque, StringData: data}
}

func predecessorTemplate(labels map[string]string, sa, image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
		ServiceAccountName: sa, Containers: []corev1.Container{{Name: "csi-driver", Image: image}}}}
}

// SeedPredecessor creates what the predecessor release leaves in the cluster besides its classes:
// the CSIDriver, the VolumeSnapshotClass, the controller Deployment and both node DaemonSets with its
// selectors, the driver Secret, the ServiceAccounts and (4.17) its cluster RBAC. Objects that already
// exist are left as they are. The cluster RBAC is deleted when the test ends.
func (w *World) SeedPredecessor(t testing.TB, p Predecessor) {
	t.Helper()
	ctx := context.Background()
	check := func(what string, err error) {
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("seeding the predecessor's %s: %v", what, err)
		}
	}
	image := "registry.example/openshift/ose-csi-driver-manila:v" + string(p)
	_, err := w.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names.OperandNamespace}}, metav1.CreateOptions{})
	check("namespace", err)
	_, err = w.Kube.StorageV1().CSIDrivers().Create(ctx, PredecessorCSIDriver(t), metav1.CreateOptions{})
	check("CSIDriver", err)
	_, err = w.Dynamic.Resource(snapshotClassGVR).Create(ctx, PredecessorSnapshotClass(), metav1.CreateOptions{})
	check("VolumeSnapshotClass", err)
	for _, sa := range []string{"manila-csi-driver-controller-sa", "manila-csi-driver-node-sa"} {
		_, err = w.Kube.CoreV1().ServiceAccounts(names.OperandNamespace).Create(ctx,
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: names.OperandNamespace}}, metav1.CreateOptions{})
		check("ServiceAccount", err)
	}
	_, err = w.Kube.AppsV1().Deployments(names.OperandNamespace).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: ControllerDeployment, Namespace: names.OperandNamespace},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Selector: &metav1.LabelSelector{MatchLabels: PredecessorControllerLabels},
			Template: predecessorTemplate(PredecessorControllerLabels, "manila-csi-driver-controller-sa", image)},
	}, metav1.CreateOptions{})
	check("Deployment", err)
	for name, labels := range map[string]map[string]string{NodeDaemonSet: PredecessorNodeLabels, NFSNodeDaemonSet: PredecessorNFSLabels} {
		_, err = w.Kube.AppsV1().DaemonSets(names.OperandNamespace).Create(ctx, &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: names.OperandNamespace},
			Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: predecessorTemplate(labels, "manila-csi-driver-node-sa", image)},
		}, metav1.CreateOptions{})
		check("DaemonSet "+name, err)
	}
	_, err = w.Kube.CoreV1().Secrets(names.OperandNamespace).Create(ctx, PredecessorDriverSecret(p), metav1.CreateOptions{})
	check("driver Secret", err)
	if p != Predecessor417 {
		return
	}
	for _, name := range PredecessorClusterBindings {
		_, err = w.Kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "manila-privileged-role"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "manila-csi-driver-node-sa", Namespace: names.OperandNamespace}},
		}, metav1.CreateOptions{})
		check("ClusterRoleBinding "+name, err)
		t.Cleanup(func() {
			_ = w.Kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
		})
	}
}

// PredecessorLease is the lease the predecessor's leader holds in the operator namespace.
func PredecessorLease(p Predecessor) string {
	if p == Predecessor417 {
		return "csi-driver-manila-operator-lock"
	}
	return "openstack-manila-csi-driver-operator-lock"
}

// PredecessorTakesItsLease writes the predecessor's lease as its leader does when it acquires it
// (holder identity, acquired and renewed now, library-go's 137 s), as a rollback to its image would.
// The lease is deleted when the test ends.
func (w *World) PredecessorTakesItsLease(t testing.TB, p Predecessor, identity string) {
	t.Helper()
	w.PredecessorLeaseFor(t, p, identity, 137*time.Second)
}

// PredecessorLeaseFor is PredecessorTakesItsLease with a lease of the duration, renewed now and never
// again: the lease a leader killed now leaves behind.
func (w *World) PredecessorLeaseFor(t testing.TB, p Predecessor, identity string, duration time.Duration) {
	t.Helper()
	ctx := context.Background()
	leases := w.Kube.CoordinationV1().Leases(names.OperatorNamespace)
	now := metav1.NewMicroTime(time.Now())
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: PredecessorLease(p), Namespace: names.OperatorNamespace},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(identity), LeaseDurationSeconds: ptr.To(int32(duration.Seconds())),
			AcquireTime: &now, RenewTime: &now}}
	_, err := leases.Create(ctx, l, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// Left by an earlier leader (a real predecessor stopped releases its lease and keeps the
		// object, holder cleared): taken over in place, as the leader acquiring it does.
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := leases.Get(ctx, l.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Spec = l.Spec
			_, err = leases.Update(ctx, cur, metav1.UpdateOptions{})
			return err
		})
	}
	if err != nil {
		t.Fatalf("taking lease %s: %v", l.Name, err)
	}
	t.Cleanup(func() { _ = leases.Delete(context.Background(), l.Name, metav1.DeleteOptions{}) })
}

// SetDriverConditions sets conditions on the ClusterCSIDriver's status as another writer (a
// predecessor) does, replacing those of the same types.
func (w *World) SetDriverConditions(t testing.TB, conditions ...operatorv1.OperatorCondition) {
	t.Helper()
	drivers := w.Operator.OperatorV1().ClusterCSIDrivers()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := drivers.Get(context.Background(), names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range conditions {
			c.LastTransitionTime = metav1.Now()
			v1helpers.SetOperatorCondition(&d.Status.Conditions, c)
		}
		_, err = drivers.UpdateStatus(context.Background(), d, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("setting conditions on ClusterCSIDriver %s: %v", names.CSIDriverName, err)
	}
}
