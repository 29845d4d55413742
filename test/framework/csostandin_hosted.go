package framework

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	operatorinformers "github.com/openshift/client-go/operator/informers/externalversions"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/manifests"
	manifestshosted "github.com/manila-csi/manila-csi-driver-operator/manifests/hosted"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// CSOHostedStandInOptions says how StartCSOHostedStandIn runs the hosted stand-in for
// cluster-storage-operator.
type CSOHostedStandInOptions struct {
	// OperatorImage is MANILA_DRIVER_OPERATOR_IMAGE, the image of the HCP namespace's Deployment
	// manila-csi-driver-operator (required).
	OperatorImage string
	// HostedControlPlaneSpec is the spec of the HCP namespace's HostedControlPlane, which HyperShift
	// makes and CSO reads (node selector, labels, tolerations, TLS profile); {} if nil. It is created
	// only when the namespace has none.
	HostedControlPlaneSpec map[string]any
}

// CSOHostedStandIn stands in for cluster-storage-operator (CSO) as it runs in a hosted control plane
// (HyperShift): in the HCP namespace of the management cluster, with the guest cluster's kubeconfig.
// It runs in the test process and mirrors this CSO code (github.com/openshift/cluster-storage-operator,
// main bb8d2fd1):
//
//   - pkg/operator/csidriveroperator/csioperatorclient/manila.go (GetOpenStackManilaOperatorConfig with
//     isHypershift): StaticAssets applied in the guest (namespace openshift-manila-csi-driver, ClusterRole
//     and ClusterRoleBinding manila-csi-driver-operator-clusterrole[binding]), MgmtStaticAssets applied in
//     the HCP namespace (RoleBinding, Role, ServiceAccount, metrics Service), CRAsset (the guest's
//     ClusterCSIDriver) and DeploymentAsset (the HCP namespace's Deployment), all of
//     assets/csidriveroperators/openstack-manila/hypershift/{guest,mgmt}/generated/, written here from
//     what they say (csoHostedManilaGuestAssets, csoHostedManilaMgmtAssets). No CA syncer runs (hosted,
//     CSO starts none).
//   - pkg/operator/csidriveroperator/hypershift_deployment_controller.go (HyperShiftDeploymentController.Sync):
//     ${CONTROLPLANE_NAMESPACE}, ${RELEASE_VERSION}, the images (ImageReplacer and sidecarReplacer, the
//     control-plane ones too), ${LOG_LEVEL} 2; the HostedControlPlane's spec.nodeSelector (replacing),
//     spec.labels (added to the pod template's where missing) and spec.tolerations (appended), as
//     pkg/utils GetRequiredDeployment does (no HostedControlPlane: the sync fails, as CSO's);
//     reconcileOperatorConfigMap: ConfigMap manila-csi-driver-operator-config with a GenericOperatorConfig
//     of the HostedControlPlane's spec.configuration.apiServer.tlsSecurityProfile (tlsSettingsFromHCP);
//     the Deployment applied with library-go's spec hash; postSync and checkDeploymentHealth (the
//     standalone stand-in's deploymentConditions) on every event of the Deployment and every 30 s.
//   - pkg/operator/csidriveroperator/crcontroller.go: the guest's ClusterCSIDriver created when missing
//     and never updated, its conditions turned into ManilaCSIDriverOperatorCR* (crConditions).
//   - library-go's status controller as CSO hosted runs it: ClusterOperator storage IN THE GUEST, the
//     unions of those conditions (the standalone stand-in's writeClusterOperator against the guest).
//
// What HyperShift makes for CSO and the operator is made too, before the first sync: the
// HostedControlPlane (when missing), Secrets manila-cloud-credentials and openstack-cloud-credentials in
// the HCP namespace (keys clouds.yaml and cloud.conf, the world's OpenStack; no CA: the world's OpenStack
// has none) and ConfigMap openstack-cloud-config (key cloud.conf), and Secret
// service-network-admin-kubeconfig. Its kubeconfig is, as in hostedoperator.go, a token of ServiceAccount
// openshift-cluster-csi-drivers/manila-csi-driver-operator of the guest with manifests/hosted/guest.yaml's
// RBAC (HyperShift's is the guest's admin; the test world keeps RBAC checked), whom CSO's guest
// ClusterRoleBinding names too. manifests/hosted/management.yaml is not applied: only CSO's Role grants
// the operator anything in the HCP namespace.
//
// Differences from CSO: as the standalone stand-in's (no Storage CR, no Degraded inertia, no versions or
// relatedObjects, every event turned into a status at once, no proxy); the HostedControlPlane is read at
// each sync, not from an informer; RUN_AS_USER and the ARO and HYPERSHIFT_IMAGE environment (not for
// Manila) are not done; the release's image swap (SetOperatorImage) is not stood in for.
//
// When the test ends the management cluster is put back as before (as after StartCSOStandIn) and the
// ReplicaSets and Pods made since in the HCP namespace are deleted; the guest goes with StartHosted's
// cleanup.
type CSOHostedStandIn struct {
	hw *HostedWorld
	// mgmt applies in the management cluster; guest applies in the guest and writes its ClusterOperator
	// storage (its depState is the HCP Deployment's).
	mgmt, guest *CSOStandIn
	image       string

	ctx    context.Context
	cancel context.CancelFunc
	done   sync.WaitGroup
	kick   chan struct{}
}

// StartCSOHostedStandIn starts the hosted stand-in until the test ends; see CSOHostedStandIn.
func (hw *HostedWorld) StartCSOHostedStandIn(t testing.TB, opts CSOHostedStandInOptions) *CSOHostedStandIn {
	t.Helper()
	if opts.OperatorImage == "" {
		t.Fatal("CSOHostedStandInOptions.OperatorImage is required")
	}
	ctx := context.Background()
	before, err := hw.World.takeSnapshot(ctx)
	if err != nil {
		t.Fatalf("recording the management cluster before the hosted CSO stand-in: %v", err)
	}
	workloads, err := hw.hcpWorkloadUIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		if err := hw.deleteHCPWorkloadsSince(ctx, workloads); err != nil {
			t.Errorf("deleting the ReplicaSets and Pods made under the hosted CSO stand-in: %v", err)
		}
		if err := hw.World.restoreSnapshot(ctx, before); err != nil {
			t.Errorf("putting the management cluster back after the hosted CSO stand-in: %v", err)
		}
	})
	guestWorld := &World{ControlPlane: hw.Guest}
	c := &CSOHostedStandIn{hw: hw, image: opts.OperatorImage, kick: make(chan struct{}, 1),
		mgmt:  &CSOStandIn{Generation: CSOMain, w: hw.World},
		guest: &CSOStandIn{Generation: CSOMain, w: guestWorld}}
	c.ctx, c.cancel = context.WithCancel(ctx)
	t.Cleanup(func() {
		c.Stop()
		if t.Failed() {
			t.Logf("hosted CSO stand-in (last 40 lines):\n%s", tail(c.Log(), 40))
		}
	})
	hw.prepareForCSO(t, opts)
	if err := c.sync(ctx); err != nil {
		t.Fatalf("hosted CSO stand-in: %v", err)
	}
	if err := c.startStatus(); err != nil {
		t.Fatalf("hosted CSO stand-in: %v", err)
	}
	c.done.Add(1)
	go c.loop()
	return c
}

// Stop stops the stand-in's loops; it may be called more than once.
func (c *CSOHostedStandIn) Stop() {
	c.cancel()
	c.done.Wait()
}

// ClusterOperator returns the guest's ClusterOperator storage.
func (c *CSOHostedStandIn) ClusterOperator(ctx context.Context) (*configv1.ClusterOperator, error) {
	return c.hw.Guest.ConfigV1.ConfigV1().ClusterOperators().Get(ctx, CSOClusterOperator, metav1.GetOptions{})
}

// History lists every change of the guest's ClusterOperator storage's conditions the stand-in wrote.
func (c *CSOHostedStandIn) History() []string { return c.guest.History() }

// Log is what the stand-in did and the errors it met, in each cluster.
func (c *CSOHostedStandIn) Log() string {
	return "management cluster:\n" + c.mgmt.Log() + "guest:\n" + c.guest.Log()
}

// prepareForCSO makes what HyperShift makes before CSO runs; see CSOHostedStandIn.
func (hw *HostedWorld) prepareForCSO(t testing.TB, opts CSOHostedStandInOptions) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	hcps, err := hw.Dynamic.Resource(hostedControlPlanes).Namespace(hw.HCPNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hcps.Items) == 0 {
		spec := opts.HostedControlPlaneSpec
		if spec == nil {
			spec = map[string]any{}
		}
		hw.CreateHostedControlPlane(t, spec)
	}
	guestObjs, err := manifestshosted.Guest()
	if err != nil {
		t.Fatal(err)
	}
	kc, err := hw.Guest.CreateServiceAccount(ctx, names.OperatorNamespace, names.OperatorName, documents(t, guestObjs))
	if err != nil {
		t.Fatalf("the operator's guest identity: %v", err)
	}
	if err := hw.StoreGuestKubeconfig(ctx, kc); err != nil {
		t.Fatal(err)
	}
	clouds := hw.OpenStack.CloudsYAML()
	// HyperShift's cloud.conf for the cloud provider: the cloud of clouds.yaml.
	cloudConf := []byte("[Global]\nuse-clouds = true\nclouds-file = /etc/openstack/secret/clouds.yaml\ncloud = " + names.CloudName + "\n")
	for _, name := range []string{names.CloudCredentialsSecret, "openstack-cloud-credentials"} {
		if err := hw.ControlPlane.WriteSecret(ctx, hw.HCPNamespace, name,
			map[string][]byte{names.CloudsYAMLKey: clouds, "cloud.conf": cloudConf}); err != nil {
			t.Fatalf("Secret %s/%s: %v", hw.HCPNamespace, name, err)
		}
	}
	if err := hw.ControlPlane.WriteConfigMap(ctx, hw.HCPNamespace, names.HostedCloudConfigMap,
		map[string]string{"cloud.conf": string(cloudConf)}); err != nil {
		t.Fatal(err)
	}
}

// loop re-applies what CSO applies on every change of the HCP Deployment and every 30 s.
func (c *CSOHostedStandIn) loop() {
	defer c.done.Done()
	resync := time.NewTicker(30 * time.Second)
	defer resync.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.kick:
		case <-resync.C:
		}
		if err := c.sync(c.ctx); err != nil && c.ctx.Err() == nil {
			c.mgmt.logf("sync: %v", err)
			time.AfterFunc(time.Second, func() { signal(c.kick) })
		}
	}
}

// sync applies the guest's static assets and ClusterCSIDriver (create-only), then the HCP
// namespace's static assets, config ConfigMap and Deployment.
func (c *CSOHostedStandIn) sync(ctx context.Context) error {
	guestObjs, err := manifests.Decode(csoHostedManilaGuestAssets)
	if err != nil {
		return err
	}
	for _, obj := range guestObjs {
		if obj.GetKind() == "ClusterCSIDriver" {
			err = c.guest.createOnly(ctx, obj)
		} else {
			err = c.guest.apply(ctx, obj)
		}
		if err != nil {
			return fmt.Errorf("guest %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	hcp, err := c.hostedControlPlane(ctx)
	if err != nil {
		return err
	}
	mgmtObjs, err := c.mgmtAssets(hcp)
	if err != nil {
		return err
	}
	for _, obj := range mgmtObjs {
		if err := c.mgmt.apply(ctx, obj); err != nil {
			return fmt.Errorf("%s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
	}
	return nil
}

// hostedControlPlane is the HCP namespace's one HostedControlPlane (getHostedControlPlane).
func (c *CSOHostedStandIn) hostedControlPlane(ctx context.Context) (*unstructured.Unstructured, error) {
	ns := c.hw.HCPNamespace
	list, err := c.hw.Dynamic.Resource(hostedControlPlanes).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	switch len(list.Items) {
	case 0:
		return nil, fmt.Errorf("no HostedControlPlane found in namespace %s", ns)
	case 1:
		return &list.Items[0], nil
	}
	return nil, fmt.Errorf("more than one HostedControlPlane found in namespace %s", ns)
}

// csoHostedImage is the image of a component as the stand-in's release names it; the control-plane
// images (MANILA_DRIVER_CONTROL_PLANE_IMAGE, LIVENESS_PROBE_CONTROL_PLANE_IMAGE) differ from the
// guest's, as in a release for a management cluster of another architecture.
func csoHostedImage(name string) string {
	return "registry.test/openshift/" + name + ":" + csoStandInVersion
}

// CSOHostedStandInImages are the images the hosted stand-in's Deployment names besides the operator's
// (CSOStandInImages and the control-plane ones), for a pod runner's image map.
func CSOHostedStandInImages() []string {
	return append(CSOStandInImages(), CSOHostedDriverControlPlaneImage, csoHostedImage("csi-livenessprobe-control-plane"))
}

// CSOHostedDriverControlPlaneImage is DRIVER_CONTROL_PLANE_IMAGE of the hosted stand-in's Deployment:
// CSO's MANILA_DRIVER_CONTROL_PLANE_IMAGE, the driver image for the management cluster's nodes.
var CSOHostedDriverControlPlaneImage = csoHostedImage("csi-driver-manila-control-plane")

// mgmtAssets are CSO's objects for the HCP namespace, in the order it applies them, for the
// HostedControlPlane hcp.
func (c *CSOHostedStandIn) mgmtAssets(hcp *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	vars := map[string]string{
		"OPERATOR_IMAGE": c.image, "DRIVER_IMAGE": csoHostedImage("csi-driver-manila"), "NFS_DRIVER_IMAGE": csoHostedImage("csi-driver-nfs"),
		"DRIVER_CONTROL_PLANE_IMAGE":         CSOHostedDriverControlPlaneImage,
		"LIVENESS_PROBE_CONTROL_PLANE_IMAGE": csoHostedImage("csi-livenessprobe-control-plane"),
		"PROVISIONER_IMAGE":                  csoHostedImage("csi-external-provisioner"), "ATTACHER_IMAGE": csoHostedImage("csi-external-attacher"),
		"RESIZER_IMAGE": csoHostedImage("csi-external-resizer"), "SNAPSHOTTER_IMAGE": csoHostedImage("csi-external-snapshotter"),
		"NODE_DRIVER_REGISTRAR_IMAGE": csoHostedImage("csi-node-driver-registrar"), "LIVENESS_PROBE_IMAGE": csoHostedImage("csi-livenessprobe"),
		"KUBE_RBAC_PROXY_IMAGE": csoHostedImage("kube-rbac-proxy"), "LOG_LEVEL": "2",
		"CONTROLPLANE_NAMESPACE": c.hw.HCPNamespace, "RELEASE_VERSION": csoStandInVersion,
	}
	text := csoHostedManilaMgmtAssets
	for k, v := range vars {
		text = strings.ReplaceAll(text, "${"+k+"}", v)
	}
	objs, err := manifests.Decode(text)
	if err != nil {
		return nil, err
	}
	cm, err := c.operatorConfigMap(hcp)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, obj := range objs {
		if obj.GetKind() != "Deployment" {
			out = append(out, obj)
			continue
		}
		d, err := requiredDeployment(obj, hcp)
		if err != nil {
			return nil, err
		}
		// reconcileOperatorConfigMap, then the Deployment.
		out = append(out, cm, d)
	}
	return out, nil
}

// requiredDeployment is GetRequiredDeployment's HostedControlPlane part: spec.nodeSelector replaces
// the pod's, spec.labels are added where the pod template has no such label, spec.tolerations are
// appended.
func requiredDeployment(obj *unstructured.Unstructured, hcp *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var d appsv1.Deployment
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &d); err != nil {
		return nil, err
	}
	if sel, ok, _ := unstructured.NestedStringMap(hcp.Object, "spec", "nodeSelector"); ok {
		d.Spec.Template.Spec.NodeSelector = sel
	}
	if labels, ok, _ := unstructured.NestedStringMap(hcp.Object, "spec", "labels"); ok {
		for k, v := range labels {
			if _, exists := d.Spec.Template.Labels[k]; !exists {
				d.Spec.Template.Labels[k] = v
			}
		}
	}
	if raw, ok, _ := unstructured.NestedSlice(hcp.Object, "spec", "tolerations"); ok {
		for _, e := range raw {
			m, _ := e.(map[string]any)
			s := func(k string) string { v, _ := m[k].(string); return v }
			d.Spec.Template.Spec.Tolerations = append(d.Spec.Template.Spec.Tolerations, corev1.Toleration{Key: s("key"),
				Operator: corev1.TolerationOperator(s("operator")), Value: s("value"), Effect: corev1.TaintEffect(s("effect"))})
		}
	}
	u, err := toUnstructured(&d)
	if err != nil {
		return nil, err
	}
	u.SetAPIVersion("apps/v1")
	u.SetKind("Deployment")
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "creationTimestamp")
	return u, nil
}

// operatorConfigMap is the hosted reconcileOperatorConfigMap's ConfigMap: a GenericOperatorConfig with
// the TLS settings of the HostedControlPlane's spec.configuration.apiServer.tlsSecurityProfile
// (tlsSettingsFromHCP: its type, and for Custom its ciphers and minTLSVersion).
func (c *CSOHostedStandIn) operatorConfigMap(hcp *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	path := []string{"spec", "configuration", "apiServer", "tlsSecurityProfile"}
	profileType, _, _ := unstructured.NestedString(hcp.Object, append(path, "type")...)
	profile := &configv1.TLSSecurityProfile{Type: configv1.TLSProfileType(profileType)}
	if profile.Type == configv1.TLSProfileCustomType {
		ciphers, _, _ := unstructured.NestedStringSlice(hcp.Object, append(path, "custom", "ciphers")...)
		minVersion, _, _ := unstructured.NestedString(hcp.Object, append(path, "custom", "minTLSVersion")...)
		profile.Custom = &configv1.CustomTLSProfile{TLSProfileSpec: configv1.TLSProfileSpec{
			MinTLSVersion: configv1.TLSProtocolVersion(minVersion), Ciphers: ciphers}}
	}
	minTLS, ciphers := tlsSettingsFromProfile(profile)
	config, err := sigsyaml.Marshal(map[string]any{"apiVersion": "operator.openshift.io/v1alpha1", "kind": "GenericOperatorConfig",
		"servingInfo": map[string]any{"minTLSVersion": minTLS, "cipherSuites": ciphers}})
	if err != nil {
		return nil, err
	}
	return toUnstructured(&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: CSOManilaConfigMap, Namespace: c.hw.HCPNamespace},
		Data:       map[string]string{"config.yaml": string(config)}})
}

// startStatus starts the informers whose every event turns into the guest's ClusterOperator storage:
// the guest's ClusterCSIDriver (the CR controller) and the HCP namespace's Deployment (the deployment
// controller's postSync and checkDeploymentHealth, and a sync of it).
func (c *CSOHostedStandIn) startStatus() error {
	opsFactory := operatorinformers.NewSharedInformerFactoryWithOptions(c.hw.Guest.Operator, 10*time.Minute,
		operatorinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + names.CSIDriverName }))
	kubeFactory := informers.NewSharedInformerFactoryWithOptions(c.hw.Kube, 10*time.Minute, informers.WithNamespace(c.hw.HCPNamespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + CSOManilaDeployment }))
	var (
		statusMu   sync.Mutex
		conditions []operatorv1.OperatorCondition
		haveCR     bool
	)
	write := func() {
		statusMu.Lock()
		defer statusMu.Unlock()
		if !haveCR || c.ctx.Err() != nil {
			return
		}
		if err := c.guest.writeClusterOperator(c.ctx, conditions); err != nil && c.ctx.Err() == nil {
			c.guest.logf("writing ClusterOperator storage: %v", err)
		}
	}
	onCR := func(obj any) {
		cr, ok := obj.(*operatorv1.ClusterCSIDriver)
		if !ok {
			return
		}
		statusMu.Lock()
		conditions, haveCR = append([]operatorv1.OperatorCondition{}, cr.Status.Conditions...), true
		statusMu.Unlock()
		write()
	}
	if _, err := opsFactory.Operator().V1().ClusterCSIDrivers().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onCR, UpdateFunc: func(_, o any) { onCR(o) },
	}); err != nil {
		return err
	}
	onDeployment := func(obj any) {
		d, ok := obj.(*appsv1.Deployment)
		if !ok {
			return
		}
		progressing, degraded := deploymentConditions(d)
		c.guest.mu.Lock()
		c.guest.depState.progressing, c.guest.depState.degraded = progressing, degraded
		c.guest.mu.Unlock()
		signal(c.kick)
		write()
	}
	if _, err := kubeFactory.Apps().V1().Deployments().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onDeployment, UpdateFunc: func(_, o any) { onDeployment(o) },
	}); err != nil {
		return err
	}
	opsFactory.Start(c.ctx.Done())
	kubeFactory.Start(c.ctx.Done())
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		<-c.ctx.Done()
		opsFactory.Shutdown()
		kubeFactory.Shutdown()
	}()
	return nil
}

// hcpWorkloadUIDs are the ReplicaSets and Pods in the HCP namespace now.
func (hw *HostedWorld) hcpWorkloadUIDs(ctx context.Context) (map[types.UID]bool, error) {
	out := map[types.UID]bool{}
	rss, err := hw.Kube.AppsV1().ReplicaSets(hw.HCPNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, rs := range rss.Items {
		out[rs.UID] = true
	}
	pods, err := hw.Kube.CoreV1().Pods(hw.HCPNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, p := range pods.Items {
		out[p.UID] = true
	}
	return out, nil
}

// deleteHCPWorkloadsSince deletes the ReplicaSets and Pods (at once) of the HCP namespace that are
// not in before.
func (hw *HostedWorld) deleteHCPWorkloadsSince(ctx context.Context, before map[types.UID]bool) error {
	var errs []string
	rss, err := hw.Kube.AppsV1().ReplicaSets(hw.HCPNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, rs := range rss.Items {
		if !before[rs.UID] {
			if err := hw.Kube.AppsV1().ReplicaSets(hw.HCPNamespace).Delete(ctx, rs.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err.Error())
			}
		}
	}
	pods, err := hw.Kube.CoreV1().Pods(hw.HCPNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, p := range pods.Items {
		if !before[p.UID] {
			err := hw.Kube.CoreV1().Pods(hw.HCPNamespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err.Error())
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// csoHostedManilaGuestAssets are CSO's StaticAssets and CRAsset for Manila, hosted: what it applies
// in the guest, from assets/csidriveroperators/openstack-manila/hypershift/guest/generated/ (main,
// bb8d2fd1): the standalone ClusterRole's rules with the monitoring rule added.
const csoHostedManilaGuestAssets = `
apiVersion: v1
kind: Namespace
metadata:
  name: openshift-manila-csi-driver
  annotations: {include.release.openshift.io/self-managed-high-availability: "true", openshift.io/node-selector: "", storage.openshift.io/remove-from: mgmt, workload.openshift.io/allowed: management}
  labels: {pod-security.kubernetes.io/audit: privileged, pod-security.kubernetes.io/enforce: privileged, pod-security.kubernetes.io/warn: privileged}
---
` + csoGuestClusterObjects + ``

// csoHostedManilaMgmtAssets are CSO's MgmtStaticAssets (in GetOpenStackManilaOperatorConfig's order)
// and DeploymentAsset for Manila, hosted: what it applies in the HCP namespace, from
// assets/csidriveroperators/openstack-manila/hypershift/mgmt/generated/ (main, bb8d2fd1). The Service
// carries service-ca's annotation, so the world's service-ca stand-in issues
// manila-csi-driver-operator-serving-cert.
const csoHostedManilaMgmtAssets = `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: manila-csi-driver-operator-rolebinding, namespace: ${CONTROLPLANE_NAMESPACE}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: manila-csi-driver-operator-role}
subjects: [{kind: ServiceAccount, name: manila-csi-driver-operator, namespace: ${CONTROLPLANE_NAMESPACE}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: manila-csi-driver-operator-role, namespace: ${CONTROLPLANE_NAMESPACE}}
rules:
- {apiGroups: [""], resources: [pods, services, endpoints, events, configmaps, secrets], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [apps], resources: [deployments], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [hypershift.openshift.io], resources: [hostedcontrolplanes], verbs: [watch, list, get]}
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [policy], resources: [poddisruptionbudgets], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [""], resources: [serviceaccounts], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [apps], resources: [replicasets], verbs: [get]}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: manila-csi-driver-operator, namespace: ${CONTROLPLANE_NAMESPACE}}
imagePullSecrets: [{name: pull-secret}]
---
apiVersion: v1
kind: Service
metadata:
  name: manila-csi-driver-operator-metrics
  namespace: ${CONTROLPLANE_NAMESPACE}
  annotations: {service.beta.openshift.io/serving-cert-secret-name: manila-csi-driver-operator-serving-cert}
  labels: {app: manila-csi-driver-operator}
spec:
  ports: [{name: https, port: 443, protocol: TCP, targetPort: 8443}]
  selector: {name: manila-csi-driver-operator}
  sessionAffinity: None
  type: ClusterIP
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: manila-csi-driver-operator
  namespace: ${CONTROLPLANE_NAMESPACE}
  annotations: {config.openshift.io/inject-proxy: manila-csi-driver-operator, release.openshift.io/desired-version: ${RELEASE_VERSION}}
  labels: {hypershift.openshift.io/managed-by: cluster-storage-operator}
spec:
  replicas: 1
  selector: {matchLabels: {name: manila-csi-driver-operator}}
  strategy: {}
  template:
    metadata:
      annotations: {openshift.io/required-scc: restricted-v2, target.workload.openshift.io/management: '{"effect": "PreferredDuringScheduling"}'}
      labels:
        app: manila-csi-driver-operator
        hypershift.openshift.io/need-management-kas-access: "true"
        name: manila-csi-driver-operator
        openshift.storage.network-policy.all-egress: allow
        openshift.storage.network-policy.api-server: allow
        openshift.storage.network-policy.dns: allow
        openshift.storage.network-policy.operator-metrics-range: allow
    spec:
      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - {preference: {matchExpressions: [{key: hypershift.openshift.io/control-plane, operator: In, values: ["true"]}]}, weight: 50}
          - {preference: {matchExpressions: [{key: hypershift.openshift.io/cluster, operator: In, values: [${CONTROLPLANE_NAMESPACE}]}]}, weight: 100}
        podAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - podAffinityTerm:
              labelSelector: {matchLabels: {hypershift.openshift.io/hosted-control-plane: ${CONTROLPLANE_NAMESPACE}}}
              topologyKey: kubernetes.io/hostname
            weight: 100
      containers:
      - name: manila-csi-driver-operator
        image: ${OPERATOR_IMAGE}
        imagePullPolicy: IfNotPresent
        args: [start, -v=${LOG_LEVEL}, --config=/var/run/configmaps/config/config.yaml, --terminate-on-files=/var/run/configmaps/config/config.yaml, --guest-kubeconfig=/etc/guest-kubeconfig/kubeconfig]
        env:
        - {name: DRIVER_CONTROL_PLANE_IMAGE, value: "${DRIVER_CONTROL_PLANE_IMAGE}"}
        - {name: LIVENESS_PROBE_CONTROL_PLANE_IMAGE, value: "${LIVENESS_PROBE_CONTROL_PLANE_IMAGE}"}
        - {name: DRIVER_IMAGE, value: "${DRIVER_IMAGE}"}
        - {name: NFS_DRIVER_IMAGE, value: "${NFS_DRIVER_IMAGE}"}
        - {name: PROVISIONER_IMAGE, value: "${PROVISIONER_IMAGE}"}
        - {name: ATTACHER_IMAGE, value: "${ATTACHER_IMAGE}"}
        - {name: RESIZER_IMAGE, value: "${RESIZER_IMAGE}"}
        - {name: SNAPSHOTTER_IMAGE, value: "${SNAPSHOTTER_IMAGE}"}
        - {name: NODE_DRIVER_REGISTRAR_IMAGE, value: "${NODE_DRIVER_REGISTRAR_IMAGE}"}
        - {name: LIVENESS_PROBE_IMAGE, value: "${LIVENESS_PROBE_IMAGE}"}
        - {name: KUBE_RBAC_PROXY_IMAGE, value: "${KUBE_RBAC_PROXY_IMAGE}"}
        - name: POD_NAME
          valueFrom: {fieldRef: {fieldPath: metadata.name}}
        ports: [{containerPort: 8443, name: metrics, protocol: TCP}]
        resources: {requests: {cpu: 10m, memory: 50Mi}}
        securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}, readOnlyRootFilesystem: false}
        terminationMessagePolicy: FallbackToLogsOnError
        volumeMounts:
        - {mountPath: /etc/guest-kubeconfig, name: guest-kubeconfig}
        - {mountPath: /etc/openstack, name: cloud-credentials, readOnly: true}
        - {mountPath: /etc/openstack-ca, name: legacy-cacert, readOnly: true}
        - {mountPath: /tmp, name: tmp}
        - {mountPath: /var/run/secrets/serving-cert, name: serving-cert}
        - {mountPath: /var/run/configmaps/config, name: operator-config}
      priorityClassName: hypershift-control-plane
      securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
      serviceAccountName: manila-csi-driver-operator
      tolerations:
      - {key: CriticalAddonsOnly, operator: Exists}
      - {effect: NoSchedule, key: node-role.kubernetes.io/master, operator: Exists}
      - {key: hypershift.openshift.io/control-plane, operator: Exists}
      - {key: hypershift.openshift.io/cluster, operator: Equal, value: ${CONTROLPLANE_NAMESPACE}}
      volumes:
      - name: guest-kubeconfig
        secret: {secretName: service-network-admin-kubeconfig}
      - name: legacy-cacert
        configMap: {name: openstack-cloud-config, optional: true, items: [{key: ca-bundle.pem, path: ca-bundle.pem}]}
      - name: cloud-credentials
        projected:
          sources:
          - secret: {name: openstack-cloud-credentials, optional: true, items: [{key: cacert, path: ca.crt}]}
          - secret: {name: openstack-cloud-credentials, items: [{key: clouds.yaml, path: clouds.yaml}]}
      - {name: tmp, emptyDir: {medium: Memory}}
      - {name: serving-cert, secret: {defaultMode: 420, secretName: manila-csi-driver-operator-serving-cert}}
      - {name: operator-config, configMap: {name: manila-csi-driver-operator-config}}
`
