package integration

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/guestlink"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/secretsync"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hosted"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// startHosted resets what earlier tests' operators left in the management world (so that what is
// found there now is this operator's), starts a guest and runs the hosted operator for it.
func startHosted(t *testing.T) (*framework.HostedWorld, *framework.HostedOperator) {
	t.Helper()
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	hw := world.StartHosted(t, framework.HostedOptions{})
	opts, counter := framework.OperatorOptions()
	return hw, hw.RunHostedOperator(t, opts, counter)
}

// waitGuestLink waits until the operator pod's guest-link condition has the reason (and the status it
// implies).
func waitGuestLink(t *testing.T, hw *framework.HostedWorld, op *framework.HostedOperator, reason string) corev1.PodCondition {
	t.Helper()
	var found corev1.PodCondition
	framework.Eventually(t, framework.DefaultTimeout, "pod condition "+guestlink.PodConditionType+" "+reason, func(ctx context.Context) error {
		c, err := hw.PodCondition(ctx, op.PodName, guestlink.PodConditionType)
		if err != nil {
			return err
		}
		want := corev1.ConditionFalse
		if reason == guestlink.ReasonReachable {
			want = corev1.ConditionTrue
		}
		if c.Reason != reason || c.Status != want {
			return fmt.Errorf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message)
		}
		found = c
		return nil
	})
	return found
}

func waitGuestClass(t *testing.T, hw *framework.HostedWorld, shareType string) {
	t.Helper()
	hw.Guest.WaitForStorageClass(t, "csi-manila-"+shareType, nil)
}

// Every object lands in its cluster and namespace and nowhere else; the conditions are the guest's;
// a share type new in Manila reaches the guest's classes within a poll.
func TestHostedSplit(t *testing.T) {
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	hw, op := startHosted(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*framework.DefaultTimeout)
	defer cancel()
	hcp := hw.HCPNamespace

	hw.Guest.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	hw.Guest.WaitForCondition(t, secretsync.ConditionDegraded, operatorv1.ConditionFalse)
	waitGuestClass(t, hw, "default")
	waitGuestLink(t, hw, op, guestlink.ReasonReachable)

	// Management, HCP namespace: the controller and the objects beside it, hosted.
	var replicas int32
	framework.Eventually(t, framework.DefaultTimeout, "the controller Deployment in "+hcp, func(ctx context.Context) error {
		d, err := hw.Kube.AppsV1().Deployments(hcp).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Spec.Template.Labels[hosted.LabelHostedControlPlane] != hcp {
			return fmt.Errorf("pod labels %v: want %s=%s", d.Spec.Template.Labels, hosted.LabelHostedControlPlane, hcp)
		}
		found := false
		for _, v := range d.Spec.Template.Spec.Volumes {
			found = found || (v.Secret != nil && v.Secret.SecretName == hosted.GuestKubeconfigSecret)
		}
		if !found {
			return fmt.Errorf("no volume of Secret %s", hosted.GuestKubeconfigSecret)
		}
		if !hasAnnotationPrefix(d.Spec.Template.Annotations, "operator.openshift.io/dep-") {
			return fmt.Errorf("no hash annotations yet: %v", d.Spec.Template.Annotations)
		}
		replicas = *d.Spec.Replicas
		return nil
	})
	if replicas != 1 {
		t.Errorf("controller replicas %d, want 1 (SingleReplica)", replicas)
	}
	framework.Eventually(t, framework.DefaultTimeout, "the controller's objects in "+hcp, func(ctx context.Context) error {
		if _, err := hw.Kube.CoreV1().ServiceAccounts(hcp).Get(ctx, "manila-csi-driver-controller-sa", metav1.GetOptions{}); err != nil {
			return err
		}
		if _, err := hw.Kube.CoreV1().Services(hcp).Get(ctx, "manila-csi-driver-controller-metrics", metav1.GetOptions{}); err != nil {
			return err
		}
		if _, err := hw.Kube.PolicyV1().PodDisruptionBudgets(hcp).Get(ctx, "openstack-manila-csi-controllerplugin-pdb", metav1.GetOptions{}); err != nil {
			return err
		}
		cm, err := hw.Kube.CoreV1().ConfigMaps(hcp).Get(ctx, state.ConfigMapName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Data[state.ManilaFoundKey] == "" {
			return fmt.Errorf("state ConfigMap without %s", state.ManilaFoundKey)
		}
		_, err = hw.Kube.CoreV1().ConfigMaps(hcp).Get(ctx, "manila-csi-driver-trusted-ca-bundle", metav1.GetOptions{})
		return err
	})

	// The HostedControlPlane's availability policy and placement, read as HyperShift writes them.
	hw.CreateHostedControlPlane(t, map[string]any{
		"controllerAvailabilityPolicy": "HighlyAvailable",
		"nodeSelector":                 map[string]any{"hypershift.openshift.io/pool": "control-planes"},
		"tolerations":                  []any{map[string]any{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}},
	})
	framework.Eventually(t, framework.DefaultTimeout, "the controller placed as the HostedControlPlane says", func(ctx context.Context) error {
		d, err := hw.Kube.AppsV1().Deployments(hcp).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		spec := d.Spec.Template.Spec
		if *d.Spec.Replicas != 2 || spec.NodeSelector["hypershift.openshift.io/pool"] != "control-planes" || len(spec.Tolerations) != 3 {
			return fmt.Errorf("replicas %d, node selector %v, %d tolerations: want 2 (HighlyAvailable), the pool, 3", *d.Spec.Replicas, spec.NodeSelector, len(spec.Tolerations))
		}
		return nil
	})

	// Guest: everything its users and nodes touch.
	hw.Guest.WaitForDaemonSet(t, framework.NodeDaemonSet, nil)
	hw.Guest.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, nil)
	framework.Eventually(t, framework.DefaultTimeout, "the guest's CSIDriver and driver secret", func(ctx context.Context) error {
		if _, err := hw.Guest.Kube.StorageV1().CSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{}); err != nil {
			return err
		}
		s, err := hw.Guest.Kube.CoreV1().Secrets(names.OperandNamespace).Get(ctx, names.DriverSecret, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(s.Data["os-authURL"]) == 0 {
			return fmt.Errorf("driver secret without os-authURL: keys %d", len(s.Data))
		}
		return nil
	})

	// Nowhere else: nothing of the controller in the guest; nothing of the guest in the management
	// cluster (whose own operand was reset above).
	absent := func(what string, err error) {
		t.Helper()
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s: %v, want NotFound", what, err)
		}
	}
	_, err := hw.Guest.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
	absent("guest controller Deployment", err)
	_, err = hw.Guest.Kube.PolicyV1().PodDisruptionBudgets(names.OperandNamespace).Get(ctx, "openstack-manila-csi-controllerplugin-pdb", metav1.GetOptions{})
	absent("guest PDB", err)
	_, err = hw.Guest.Kube.CoreV1().Services(names.OperandNamespace).Get(ctx, "manila-csi-driver-controller-metrics", metav1.GetOptions{})
	absent("guest metrics Service", err)
	_, err = hw.Guest.Kube.CoreV1().ConfigMaps(names.OperatorNamespace).Get(ctx, state.ConfigMapName, metav1.GetOptions{})
	absent("guest state ConfigMap (the operator's memory stays in the HCP namespace)", err)
	_, err = hw.Kube.StorageV1().CSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	absent("management CSIDriver", err)
	_, err = hw.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, framework.NodeDaemonSet, metav1.GetOptions{})
	absent("management node DaemonSet", err)
	_, err = hw.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
	absent("management controller Deployment in the operand namespace", err)
	_, err = hw.Kube.CoreV1().Secrets(hcp).Get(ctx, names.DriverSecret, metav1.GetOptions{})
	absent("driver secret in the HCP namespace", err)
	_, err = hw.Guest.Kube.CoreV1().Secrets(names.OperatorNamespace).Get(ctx, names.CloudCredentialsSecret, metav1.GetOptions{})
	absent("the clouds.yaml Secret in the guest", err)
	if classes, err := world.OwnedStorageClasses(ctx); err != nil || len(classes) != 0 {
		t.Errorf("management StorageClasses of the operator: %d (%v), want none", len(classes), err)
	}
	if _, err := hw.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the management cluster's ClusterCSIDriver: %v, want none (the guest's is the one served)", err)
	}

	// An OpenStack CA in the HCP namespace's cloud config: a checked copy beside each driver, each
	// mounting its own, and the driver secret pointing at it.
	if err := hw.ControlPlane.WriteConfigMap(ctx, hcp, names.HostedCloudConfigMap, map[string]string{names.CABundleKey: string(world.ServiceCA.CAPEM)}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, framework.DefaultTimeout, "the OpenStack CA copies and mounts on both sides", func(ctx context.Context) error {
		for side, cp := range map[string]*framework.ControlPlane{hcp: hw.ControlPlane, names.OperandNamespace: hw.Guest} {
			cm, err := cp.Kube.CoreV1().ConfigMaps(side).Get(ctx, names.CloudCAConfigMap, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("CA copy in %s: %w", side, err)
			}
			if cm.Data[names.CABundleKey] != string(world.ServiceCA.CAPEM) {
				return fmt.Errorf("CA copy in %s differs from the source", side)
			}
		}
		d, err := hw.Kube.AppsV1().Deployments(hcp).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !mountsConfigMap(d.Spec.Template.Spec, names.CloudCAConfigMap) {
			return fmt.Errorf("the controller Deployment does not mount ConfigMap %s", names.CloudCAConfigMap)
		}
		ds, err := hw.Guest.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, framework.NodeDaemonSet, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !mountsConfigMap(ds.Spec.Template.Spec, names.CloudCAConfigMap) {
			return fmt.Errorf("the guest's node DaemonSet does not mount ConfigMap %s", names.CloudCAConfigMap)
		}
		s, err := hw.Guest.Kube.CoreV1().Secrets(names.OperandNamespace).Get(ctx, names.DriverSecret, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(s.Data["os-certAuthorityPath"]) == 0 {
			return fmt.Errorf("the driver secret has no os-certAuthorityPath")
		}
		return nil
	})

	// A change in Manila reaches the guest within a poll.
	createShareType(t, framework.ShareTypeSpec{Name: "hosted-late"})
	waitGuestClass(t, hw, "hosted-late")
	if _, err := hw.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-hosted-late", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("management class csi-manila-hosted-late: %v, want NotFound", err)
	}
}

// afterGuestOutage is how long a test waits for the operator's guest-side status soon after the guest's
// API server came back.
const afterGuestOutage = 3 * time.Minute

// The guest apiserver away for a while, a rejected and then a rotated kubeconfig, a missing file:
// each is the pod's condition (and an event) within a poll, nothing is deleted, and the operator
// converges within a poll of the recovery, without a restart.
func TestHostedGuestFaults(t *testing.T) {
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	hw, op := startHosted(t)
	op.SkipRBACCheck() // a restarting guest apiserver refuses requests until its authorizer has the roles
	ctx, cancel := context.WithTimeout(context.Background(), 5*framework.DefaultTimeout)
	defer cancel()
	waitGuestClass(t, hw, "default")
	waitGuestLink(t, hw, op, guestlink.ReasonReachable)
	deployment := func() error {
		_, err := hw.Kube.AppsV1().Deployments(hw.HCPNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		return err
	}
	framework.Eventually(t, framework.DefaultTimeout, "the controller Deployment", func(context.Context) error { return deployment() })
	framework.Eventually(t, framework.DefaultTimeout, "the guest's driver secret", func(ctx context.Context) error {
		_, err := hw.Guest.Kube.CoreV1().Secrets(names.OperandNamespace).Get(ctx, names.DriverSecret, metav1.GetOptions{})
		return err
	})

	// The guest's kube-apiserver stopped.
	if err := hw.Guest.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	c := waitGuestLink(t, hw, op, guestlink.ReasonUnreachable)
	if !strings.Contains(c.Message, hw.Guest.Config.Host) {
		t.Errorf("condition message %q does not name the guest's server %s", c.Message, hw.Guest.Config.Host)
	}
	waitEvent(t, hw, guestlink.ReasonUnreachable)
	createShareType(t, framework.ShareTypeSpec{Name: "during-outage"})
	// A minute away: the verdict holds and the controller's side is kept, untouched.
	framework.Consistently(t, time.Minute, "the guest away: verdict and controller kept", func(ctx context.Context) error {
		if err := deployment(); err != nil {
			return fmt.Errorf("the controller Deployment: %w", err)
		}
		c, err := hw.PodCondition(ctx, op.PodName, guestlink.PodConditionType)
		if err != nil {
			return err
		}
		if c.Reason != guestlink.ReasonUnreachable {
			return fmt.Errorf("condition %s: %s", c.Reason, c.Message)
		}
		return nil
	})
	if err := hw.Guest.StartAPIServer(); err != nil {
		t.Fatal(err)
	}
	waitGuestLink(t, hw, op, guestlink.ReasonReachable)
	waitGuestClass(t, hw, "during-outage")
	waitGuestClass(t, hw, "default")

	// The management side's credentials Secret gone: the guest's ClusterCSIDriver says so, naming it;
	// the driver keeps its secret; back, and all is well. The guest's informers are still coming back
	// from its API server's restart (client-go's relist backoff, up to 30 s each, longer on a loaded
	// machine), and a status write compared with a stale cache waits for them: a wider deadline.
	if err := hw.Kube.CoreV1().Secrets(hw.HCPNamespace).Delete(ctx, names.CloudCredentialsSecret, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	hw.Guest.WaitForConditionNaming(t, afterGuestOutage, secretsync.ConditionDegraded, operatorv1.ConditionTrue, hw.HCPNamespace+"/"+names.CloudCredentialsSecret)
	if _, err := hw.Guest.Kube.CoreV1().Secrets(names.OperandNamespace).Get(ctx, names.DriverSecret, metav1.GetOptions{}); err != nil {
		t.Errorf("the driver secret with the credentials gone: %v", err)
	}
	if err := hw.ControlPlane.WriteSecret(ctx, hw.HCPNamespace, names.CloudCredentialsSecret,
		map[string][]byte{names.CloudsYAMLKey: world.OpenStack.CloudsYAML()}); err != nil {
		t.Fatal(err)
	}
	hw.Guest.WaitForConditionWithin(t, afterGuestOutage, secretsync.ConditionDegraded, operatorv1.ConditionFalse)

	// Credentials the guest refuses: the file rewritten with a token it never issued.
	good, err := hw.GuestKubeconfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := clientcmd.Load(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range bad.AuthInfos {
		a.Token = "not-a-token-of-the-guest"
	}
	badData, err := clientcmd.Write(*bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := framework.WriteFileAtomically(op.KubeconfigPath, badData); err != nil {
		t.Fatal(err)
	}
	waitGuestLink(t, hw, op, guestlink.ReasonCredentialsRejected)
	// HyperShift rotates the Secret; the kubelet brings the new content into the file.
	if _, err := hw.RotateGuestKubeconfig(ctx, names.OperatorNamespace, names.OperatorName); err != nil {
		t.Fatal(err)
	}
	if err := hw.MountGuestKubeconfig(ctx, op.KubeconfigPath); err != nil {
		t.Fatal(err)
	}
	waitGuestLink(t, hw, op, guestlink.ReasonReachable)
	createShareType(t, framework.ShareTypeSpec{Name: "after-rotation"})
	waitGuestClass(t, hw, "after-rotation")

	// Not a kubeconfig: reported, the last good one stays in use.
	if err := framework.WriteFileAtomically(op.KubeconfigPath, []byte("clusters: [")); err != nil {
		t.Fatal(err)
	}
	c = waitGuestLink(t, hw, op, guestlink.ReasonKubeconfigInvalid)
	if !strings.Contains(c.Message, op.KubeconfigPath) {
		t.Errorf("condition message %q does not name the file %s", c.Message, op.KubeconfigPath)
	}

	// The file gone (the volume unmounted): the last good kubeconfig stays in use.
	current, err := hw.GuestKubeconfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := removeFile(op.KubeconfigPath); err != nil {
		t.Fatal(err)
	}
	waitGuestLink(t, hw, op, guestlink.ReasonKubeconfigMissing)
	createShareType(t, framework.ShareTypeSpec{Name: "file-missing"})
	waitGuestClass(t, hw, "file-missing")
	if err := framework.WriteFileAtomically(op.KubeconfigPath, current); err != nil {
		t.Fatal(err)
	}
	waitGuestLink(t, hw, op, guestlink.ReasonReachable)
	if err := deployment(); err != nil {
		t.Errorf("the controller Deployment after the faults: %v", err)
	}
}

func waitEvent(t *testing.T, hw *framework.HostedWorld, reason string) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "event "+reason+" in "+hw.HCPNamespace, func(ctx context.Context) error {
		list, err := hw.Kube.CoreV1().Events(hw.HCPNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Reason == reason {
				return nil
			}
		}
		return fmt.Errorf("no event %s among %d", reason, len(list.Items))
	})
}

func removeFile(path string) error { return os.Remove(path) }

func mountsConfigMap(spec corev1.PodSpec, name string) bool {
	for _, v := range spec.Volumes {
		if v.ConfigMap != nil && v.ConfigMap.Name == name {
			return true
		}
	}
	return false
}

// A pod can start before HyperShift's Secret reaches its volume: the operator waits for the guest
// kubeconfig, saying so in the pod's condition, and serves the guest once the file is there.
func TestHostedStartsBeforeItsGuestKubeconfig(t *testing.T) {
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	hw := world.StartHosted(t, framework.HostedOptions{})
	mgmtKubeconfig, path := hw.PrepareHostedOperator(t)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	opts, counter := framework.OperatorOptions()
	op := hw.RunPreparedHostedOperator(t, opts, counter, mgmtKubeconfig, path)
	c := waitGuestLink(t, hw, op, guestlink.ReasonKubeconfigMissing)
	if !strings.Contains(c.Message, path) {
		t.Errorf("condition message %q does not name the file %s", c.Message, path)
	}
	waitEvent(t, hw, guestlink.ReasonKubeconfigMissing)
	if err := hw.MountGuestKubeconfig(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	waitGuestLink(t, hw, op, guestlink.ReasonReachable)
	waitGuestClass(t, hw, "default")
	hw.Guest.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
}

// Credentials only under HyperShift's other name, openstack-cloud-credentials (the one
// cluster-storage-operator's hosted Deployment mounts): the operator logs in with them, writes the
// guest's driver secret and makes the classes, as with manila-cloud-credentials.
func TestHostedCredentialsUnderOpenStackName(t *testing.T) {
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	hw := world.StartHosted(t, framework.HostedOptions{})
	opts, counter := framework.OperatorOptions()
	hw.RunHostedOperatorWithCredentials(t, opts, counter, framework.HyperShiftCredentials{
		CloudsYAML: world.OpenStack.CloudsYAML(), OpenStackOnly: true})
	if _, err := hw.Kube.CoreV1().Secrets(hw.HCPNamespace).Get(context.Background(), names.CloudCredentialsSecret, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("Secret %s/%s: %v, want it absent", hw.HCPNamespace, names.CloudCredentialsSecret, err)
	}
	waitGuestClass(t, hw, "default")
	hw.Guest.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	hw.Guest.WaitForCondition(t, secretsync.ConditionDegraded, operatorv1.ConditionFalse)
	framework.Eventually(t, framework.DefaultTimeout, "the guest's driver secret", func(ctx context.Context) error {
		s, err := hw.Guest.Kube.CoreV1().Secrets(names.OperandNamespace).Get(ctx, names.DriverSecret, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if string(s.Data["os-authURL"]) != world.OpenStack.AuthURL() {
			return fmt.Errorf("os-authURL %q", s.Data["os-authURL"])
		}
		return nil
	})
}
