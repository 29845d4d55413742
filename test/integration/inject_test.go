package integration

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/resource/resourcehash"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	"k8s.io/client-go/util/retry"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/cloudcredentials"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/clusterinput"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

const controllerServiceDegraded = "ManilaDriverControllerServiceControllerDegraded"

// hostileValues are what a guest's admin can write into status.infrastructureName or a proxy URL:
// each would become structure of the controller Deployment if taken as text of its manifest.
var hostileValues = []string{
	`x","extra":"y`,
	"x\n  - name: evil",
	"x}",
	`x","envFrom":[{"secretRef":{"name":"service-network-admin-kubeconfig"}}],"y":"`,
	"a: b\nc: [d]",
	strings.Repeat("a", 64),
	"ünïcödé",
}

// injectionWorld is where a refused value shows: the cluster the operator serves (its
// Infrastructure, Proxy and ClusterCSIDriver) and the namespace of the controller Deployment.
type injectionWorld struct {
	cluster     *framework.ControlPlane
	deployments appsv1client.DeploymentInterface
	run         *binaryRun
}

// A guest's admin writes hostile values into every guest field that reaches the controller
// Deployment in the HCP namespace: the Deployment stays the last good one, the controller's Degraded
// names the guest object and field, the operator keeps running, and a fixed value converges.
func TestHostedInjectGuestValues(t *testing.T) {
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	hw := world.StartHosted(t, framework.HostedOptions{})
	run, _, _ := startHostedBinary(t, hw)
	proveInjectionRefused(t, injectionWorld{cluster: hw.Guest, deployments: world.Kube.AppsV1().Deployments(hw.HCPNamespace), run: run})
}

// The same values in standalone mode get the same treatment.
func TestStandaloneInjectClusterValues(t *testing.T) {
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	// An earlier test's driver secret (other credentials) would pass for this run's until the binary
	// rewrites it, and the Deployment then changes for a legitimate reason.
	err := world.Kube.CoreV1().Secrets(names.OperandNamespace).Delete(context.Background(), names.DriverSecret, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	run := startBinary(t, []string{"--manila-poll-interval=" + framework.PollInterval.String()})
	proveInjectionRefused(t, injectionWorld{cluster: world.ControlPlane, deployments: world.Kube.AppsV1().Deployments(names.OperandNamespace), run: run})
}

func proveInjectionRefused(t *testing.T, iw injectionWorld) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	infra, err := iw.cluster.ConfigV1.ConfigV1().Infrastructures().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	good := infra.Status.InfrastructureName
	t.Cleanup(func() {
		setInfrastructureName(t, iw.cluster, good)
		setProxyStatus(t, iw.cluster, configv1.ProxyStatus{})
	})
	waitController(t, iw, "--cluster-id="+good)
	iw.cluster.WaitForCondition(t, controllerServiceDegraded, operatorv1.ConditionFalse)
	// Once the driver secret is written, the Deployment's inputs are all there: what follows changes
	// nothing legitimate, so any change of the Deployment comes from a refused value.
	iw.cluster.WaitForStorageClass(t, "csi-manila-default", nil)
	framework.Eventually(t, framework.DefaultTimeout, "the driver secret", func(ctx context.Context) error {
		_, err := iw.cluster.Kube.CoreV1().Secrets(names.OperandNamespace).Get(ctx, names.DriverSecret, metav1.GetOptions{})
		return err
	})
	var last *appsv1.Deployment
	framework.Eventually(t, framework.DefaultTimeout, "the controller Deployment hashing the driver secret", func(ctx context.Context) error {
		d, err := iw.deployments.Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		secret, err := iw.cluster.Kube.CoreV1().Secrets(names.OperandNamespace).Get(ctx, names.DriverSecret, metav1.GetOptions{})
		if err != nil {
			return err
		}
		want, err := resourcehash.GetSecretHash(secret)
		if err != nil {
			return err
		}
		if got := d.Spec.Template.Annotations[secretHashAnnotation(secret.Namespace, secret.Name)]; got != want {
			return fmt.Errorf("the pod template's hash of the driver secret %q; want the secret's now, %q", got, want)
		}
		// The metrics serving cert comes from service-ca once the Service exists, maybe after the rest.
		if d.Spec.Template.Annotations[secretHashAnnotation(d.Namespace, operator.MetricsCertSecret)] == "" {
			return fmt.Errorf("no hash of the metrics serving cert on the pod template yet")
		}
		// So does the trusted CA bundle, filled by the network operator after the operator made it.
		if d.Spec.Template.Annotations[hashAnnotation(d.Namespace, hooks.TrustedCAConfigMap, "configmap")] == "" {
			return fmt.Errorf("no hash of the trusted CA bundle on the pod template yet")
		}
		// The OpenStack CA is mounted while the driver secret names it (secretsync.CAMounted).
		if _, caInUse := secret.Data[cloudcredentials.CAPathKey]; caInUse != hasVolume(d.Spec.Template.Spec, "openstack-ca") {
			return fmt.Errorf("the OpenStack CA mount does not follow the driver secret yet")
		}
		last = d
		return nil
	})

	for _, bad := range hostileValues {
		setInfrastructureName(t, iw.cluster, bad)
		refusedNaming(t, iw, last, clusterinput.InfrastructureField)
		setInfrastructureName(t, iw.cluster, good)
		iw.cluster.WaitForCondition(t, controllerServiceDegraded, operatorv1.ConditionFalse)
		unchanged(t, iw, last)
	}
	// Proxy status: library-go's observer copies it into spec.observedConfig, whence library-go's
	// proxy hooks copy it into the containers' environment.
	for _, bad := range hostileValues[:3] {
		setProxyStatus(t, iw.cluster, configv1.ProxyStatus{HTTPSProxy: "http://proxy.example:3128/" + bad})
		refusedNaming(t, iw, last, "targetcsiconfig.proxy.HTTPS_PROXY")
		setProxyStatus(t, iw.cluster, configv1.ProxyStatus{})
		iw.cluster.WaitForCondition(t, controllerServiceDegraded, operatorv1.ConditionFalse)
		unchanged(t, iw, last)
	}
	// spec.observedConfig written directly: the config observer puts it back at once, so the hostile
	// cipher is written until a sync of the controller has refused it (the event says so).
	injectObservedCipher(t, iw, `TLS_AES_128_GCM_SHA256","--kubeconfig=/etc/hosted-kubernetes/kubeconfig`)
	iw.cluster.WaitForCondition(t, controllerServiceDegraded, operatorv1.ConditionFalse)
	unchanged(t, iw, last)

	// A fixed value converges.
	setInfrastructureName(t, iw.cluster, good+"-fixed")
	waitController(t, iw, "--cluster-id="+good+"-fixed")
	iw.cluster.WaitForCondition(t, controllerServiceDegraded, operatorv1.ConditionFalse)
	select {
	case err := <-iw.run.exited:
		iw.run.exited <- err
		t.Fatalf("the operator exited while refusing values: %v", err)
	default:
	}
	// A panic caught by library-go's HandleCrash logs "panic caught"; an uncaught one "goroutine N [running]".
	log, _ := os.ReadFile(iw.run.logFile)
	for _, sign := range []string{"panic caught", "[running]"} {
		if strings.Contains(string(log), sign) {
			t.Errorf("the operator's log shows a panic:\n%s", grepLines(string(log), sign))
		}
	}
}

// waitController waits for the controller Deployment whose driver container has arg.
func waitController(t *testing.T, iw injectionWorld, arg string) *appsv1.Deployment {
	t.Helper()
	var found *appsv1.Deployment
	framework.Eventually(t, framework.DefaultTimeout, "controller Deployment with "+arg, func(ctx context.Context) error {
		d, err := iw.deployments.Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, a := range c.Args {
				if a == arg {
					found = d
					return nil
				}
			}
		}
		return fmt.Errorf("no container has %s", arg)
	})
	return found
}

// refusedNaming waits until the controller's Degraded names field, then checks the Deployment.
func refusedNaming(t *testing.T, iw injectionWorld, last *appsv1.Deployment, field string) {
	t.Helper()
	c := iw.cluster.WaitForCondition(t, controllerServiceDegraded, operatorv1.ConditionTrue)
	if !strings.Contains(c.Message, field) {
		framework.Eventually(t, framework.DefaultTimeout, controllerServiceDegraded+" naming "+field, func(ctx context.Context) error {
			d, err := iw.cluster.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if c := v1helpers.FindOperatorCondition(d.Status.Conditions, controllerServiceDegraded); c == nil || !strings.Contains(c.Message, field) {
				return fmt.Errorf("%v", c)
			}
			return nil
		})
	}
	unchanged(t, iw, last)
}

// unchanged checks that the controller Deployment is the last good one: the same generation,
// metadata and spec.
func unchanged(t *testing.T, iw injectionWorld, last *appsv1.Deployment) {
	t.Helper()
	d, err := iw.deployments.Get(context.Background(), last.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal([]any{last.Generation, last.Labels, last.Annotations, last.Spec})
	got, _ := json.Marshal([]any{d.Generation, d.Labels, d.Annotations, d.Spec})
	if string(got) != string(want) {
		t.Fatalf("the controller Deployment changed:\nwas %s\nnow %s", want, got)
	}
}

// secretHashAnnotation is library-go's annotation for the hash of a Secret a workload depends on
// (csidrivercontrollerservicecontroller.WithSecretHashAnnotationHook).
func secretHashAnnotation(namespace, name string) string {
	return hashAnnotation(namespace, name, "secret")
}

// hashAnnotation is the pod template annotation library-go's hooks write with the hash of an input
// (resource "secret" or "configmap").
func hashAnnotation(namespace, name, resource string) string {
	ref := namespace + "." + name + "." + resource
	key := "operator.openshift.io/dep-" + ref
	if len(key) > 63 {
		sum := sha256.Sum256([]byte(ref))
		key = fmt.Sprintf("operator.openshift.io/dep-%x", sum)[:63]
	}
	return key
}

func setInfrastructureName(t *testing.T, cp *framework.ControlPlane, name string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		infra, err := cp.ConfigV1.ConfigV1().Infrastructures().Get(context.Background(), "cluster", metav1.GetOptions{})
		if err != nil {
			return err
		}
		infra.Status.InfrastructureName = name
		_, err = cp.ConfigV1.ConfigV1().Infrastructures().UpdateStatus(context.Background(), infra, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func setProxyStatus(t *testing.T, cp *framework.ControlPlane, status configv1.ProxyStatus) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := cp.ConfigV1.ConfigV1().Proxies().Get(context.Background(), "cluster", metav1.GetOptions{})
		if err != nil {
			return err
		}
		p.Status = status
		_, err = cp.ConfigV1.ConfigV1().Proxies().UpdateStatus(context.Background(), p, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// injectObservedCipher writes a cipher suite into the ClusterCSIDriver's spec.observedConfig until an
// event says a sync refused it, checking meanwhile that the Deployment never changes.
func injectObservedCipher(t *testing.T, iw injectionWorld, cipher string) {
	t.Helper()
	last, err := iw.deployments.Get(context.Background(), framework.ControllerDeployment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	since := time.Now().Add(-time.Second)
	framework.Eventually(t, framework.DefaultTimeout, "a ClusterValueRefused event naming servingInfo.cipherSuites", func(ctx context.Context) error {
		d, err := iw.cluster.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var config map[string]any
		if err := json.Unmarshal(d.Spec.ObservedConfig.Raw, &config); err != nil {
			return err
		}
		target, _ := config["targetcsiconfig"].(map[string]any)
		serving, _ := target["servingInfo"].(map[string]any)
		if serving == nil {
			return fmt.Errorf("no observed servingInfo yet")
		}
		serving["cipherSuites"] = []string{cipher}
		raw, err := json.Marshal(config)
		if err != nil {
			return err
		}
		d.Spec.ObservedConfig = runtime.RawExtension{Raw: raw}
		if _, err := iw.cluster.Operator.OperatorV1().ClusterCSIDrivers().Update(ctx, d, metav1.UpdateOptions{}); err != nil {
			return err
		}
		unchanged(t, iw, last)
		return refusedEvent(ctx, iw.cluster, since, "servingInfo.cipherSuites[0]")
	})
}

func refusedEvent(ctx context.Context, cp *framework.ControlPlane, since time.Time, field string) error {
	events, err := cp.Kube.CoreV1().Events(names.OperatorNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, e := range events.Items {
		if e.Reason == "ClusterValueRefused" && e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, field) && !eventTime(e).Before(since) {
			return nil
		}
	}
	return fmt.Errorf("no such event yet")
}

func eventTime(e corev1.Event) time.Time {
	for _, t := range []time.Time{e.LastTimestamp.Time, e.EventTime.Time, e.FirstTimestamp.Time} {
		if !t.IsZero() {
			return t
		}
	}
	return e.CreationTimestamp.Time
}

func hasVolume(spec corev1.PodSpec, name string) bool {
	for _, v := range spec.Volumes {
		if v.Name == name {
			return true
		}
	}
	return false
}
