// Package render is the `render` command: every object the operator would apply for a clouds.yaml or
// a list of share types, without a cluster. Nothing here decides anything: the inputs are turned into
// the objects the operator's informers would hold, and the operator's own code (assets, hooks,
// storageclass planner, cloudcredentials) produces the objects from them.
package render

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/gophercloud/utils/v2/openstack/clientconfig"
	configv1 "github.com/openshift/api/config/v1"
	opv1 "github.com/openshift/api/operator/v1"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	"github.com/openshift/library-go/pkg/operator/configobserver/apiserver"
	"github.com/openshift/library-go/pkg/operator/csi/csiconfigobservercontroller"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/cloudcredentials"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/runtimeconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/exportlocation"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// Redacted replaces every value of the driver secret.
const Redacted = "<redacted>"

// Input is what the operator would see on a cluster, as files give it.
type Input struct {
	ShareTypes []manilatypes.ShareType
	// Cloud is the clouds.yaml cloud the driver secret is made from; nil renders no secret.
	Cloud *clientconfig.Cloud
	// CABundle is cloud-provider-config's ca-bundle.pem; empty for none.
	CABundle []byte
	// ConfigYAML is the operator ConfigMap's config.yaml; empty for none.
	ConfigYAML []byte
	// MachineNetwork is the install config's machine network (exportLocations.network: machineNetwork);
	// nil for none.
	MachineNetwork *machinenetwork.Resolution
	// Assets renders the operand's assets with the operator's images (operator.OperandAssets).
	Assets assets.Vars
	// ClusterID is Infrastructure/cluster's status.infrastructureName.
	ClusterID string
	// ControlPlaneNodes is how many control-plane nodes the cluster has.
	ControlPlaneNodes int
	// Flavour is standalone or hosted (operator.HostedFlavour), as start chooses it.
	Flavour operator.Flavour
}

// Result is the rendered objects in apply order, and the share types that get no class.
type Result struct {
	Objects []runtime.Object
	Skipped []classplan.Skipped
	// Notices are what the StorageClass controller would tell in events (e.g. the default class).
	Notices []string
	// Hosted is the hosted flavour's split of Objects; nil when standalone.
	Hosted *HostedObjects
}

// HostedObjects are the objects of the hosted flavour, by the cluster they are applied to.
type HostedObjects struct {
	// Namespace is the hosted control plane's namespace on the management cluster.
	Namespace  string
	Management []runtime.Object
	Guest      []runtime.Object
}

// Objects renders everything the operator would apply for in: for the hosted flavour, through the
// same choices start makes (operator.Flavour: the assets of each side, the controller's hosted hooks).
func Objects(in Input) (*Result, error) {
	f := in.Flavour
	w, err := newWorld(in)
	if err != nil {
		return nil, err
	}
	cfg, problem := w.source.Current()
	if problem != nil {
		return nil, problem
	}
	if f.IsHosted() {
		if err := f.Hosted.Validate(); err != nil {
			return nil, err
		}
		if err := f.ConfigValidator(func(*operatorconfig.Config) error { return nil })(cfg); err != nil {
			return nil, err
		}
	}
	var guest, mgmt []runtime.Object
	render := in.Assets.AssetFunc()
	add := func(to *[]runtime.Object, render func(string) ([]byte, error), names ...string) error {
		for _, name := range names {
			obj, err := staticAsset(render, name)
			if err != nil {
				return err
			}
			*to = append(*to, obj)
		}
		return nil
	}
	if err := add(&guest, render, guestAssets(f)...); err != nil {
		return nil, err
	}
	mgmtNames, mgmtRender := f.ManagementStatic(render)
	if err := add(&mgmt, mgmtRender, mgmtNames...); err != nil {
		return nil, err
	}
	guest = append(guest, w.operandObjects...)
	mgmt = append(mgmt, w.controllerObjects...)

	inputs := operator.WorkloadInputs{
		OperandConfigMaps: w.kube.Core().V1().ConfigMaps(), OperandSecrets: w.kube.Core().V1().Secrets(),
		Nodes: w.kube.Core().V1().Nodes(), Mounts: w.mounts, Infrastructures: w.config.Config().V1().Infrastructures().Lister(),
		Flavour: f,
	}
	if f.IsHosted() {
		inputs.ControllerConfigMaps, inputs.ControllerSecrets = w.kube.Core().V1().ConfigMaps(), w.kube.Core().V1().Secrets()
	}
	hooksOf := operator.NewWorkloadHooks(inputs)
	spec, err := operatorSpec()
	if err != nil {
		return nil, err
	}
	manifest, err := render(hooksOf.ControllerAsset)
	if err != nil {
		return nil, err
	}
	deployment, err := controllerDeployment(manifest, spec, w.config, hooksOf.Controller)
	if err != nil {
		return nil, err
	}
	deployment.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}
	if f.IsHosted() {
		mgmt = append(mgmt, deployment)
	} else {
		guest = append(guest, deployment)
	}
	daemonSets, err := nodeDaemonSets(render, spec, hooksOf.Nodes)
	if err != nil {
		return nil, err
	}
	guest = append(guest, daemonSets...)

	cephFS := cfg.CephFS.Enabled && f.OffersCephFS()
	if cephFS {
		objs, err := cephFSObjects(render, inputs, w.source, spec, w.config)
		if err != nil {
			return nil, err
		}
		guest = append(guest, objs...)
	}

	classes, skipped, notices := storageClasses(in.ShareTypes, cfg.StorageClasses, cephFS)
	r := &Result{Skipped: skipped, Notices: append(w.notices, notices...)}
	for _, sc := range classes {
		guest = append(guest, sc)
	}
	if f.IsHosted() {
		r.Hosted = &HostedObjects{Namespace: f.Hosted.Namespace, Management: mgmt, Guest: guest}
	} else {
		r.Objects = guest
	}
	return r, nil
}

// guestAssets are the static assets applied in the cluster the operator serves, in the operator's
// order: the flavour's, the VolumeSnapshotClass (its CRD is taken to exist), and standalone the
// ServiceMonitor and the network policies (where the operator may write them: cluster-storage-operator
// from 5.0).
func guestAssets(f operator.Flavour) []string {
	if !f.StandaloneExtras() {
		return append(f.GuestStatic(), assets.VolumeSnapshotClass)
	}
	return append(append(assets.StaticResources(), assets.NetworkPolicies()...), assets.CSIDriver, assets.VolumeSnapshotClass, assets.ServiceMonitor)
}

// storageClasses plans the classes as the StorageClass controller does on a cluster without Manila
// classes yet: Desired, the default class, then Plan's creations.
func storageClasses(types []manilatypes.ShareType, settings operatorconfig.StorageClasses, cephFS bool) ([]*storagev1.StorageClass, []classplan.Skipped, []string) {
	wanted, skipped := classplan.DesiredFor(types, settings, cephFS, nil)
	notices := classplan.ApplyDefault(wanted, nil, settings.DefaultShareType)
	listed := map[string]bool{}
	for _, st := range types {
		listed[st.ID] = true
	}
	plan := classplan.Plan(classplan.Input{State: opv1.ManagedStorageClass, Wanted: wanted,
		Existing: map[string]*storagev1.StorageClass{}, Listed: listed, PruneAfter: settings.PruneAfter()})
	var out []*storagev1.StorageClass
	for _, a := range plan.Actions {
		if a.Kind == classplan.Create {
			sc := a.Class.DeepCopy()
			sc.TypeMeta = metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"}
			out = append(out, sc)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, skipped, notices
}

// operatorSpec is the ClusterCSIDriver's spec as the operator reads it: Managed, Normal log level,
// and the observed config library-go's config observer writes for a cluster with the default TLS
// profile and no proxy.
func operatorSpec() (*opv1.OperatorSpec, error) {
	apiServers := configinformers.NewSharedInformerFactory(nil, 0).Config().V1().APIServers()
	// The cluster's APIServer without a tlsSecurityProfile: the default (Intermediate) profile.
	if err := apiServers.Informer().GetStore().Add(&configv1.APIServer{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}); err != nil {
		return nil, err
	}
	observed, errs := apiserver.ObserveTLSSecurityProfileWithPaths(
		csiconfigobservercontroller.Listers{APIServerLister_: apiServers.Lister()},
		events.NewInMemoryRecorder("render", clock.RealClock{}), map[string]any{},
		csiconfigobservercontroller.MinTLSVersionPath(), csiconfigobservercontroller.CipherSuitesPath())
	if len(errs) > 0 {
		return nil, fmt.Errorf("observing the TLS profile: %v", errs)
	}
	raw, err := json.Marshal(observed)
	if err != nil {
		return nil, err
	}
	return &opv1.OperatorSpec{ManagementState: opv1.Managed, LogLevel: opv1.Normal,
		ObservedConfig: runtime.RawExtension{Raw: raw}}, nil
}

// world holds the informers the operator's hooks read, filled from the input and never started.
type world struct {
	kube   informers.SharedInformerFactory
	config configinformers.SharedInformerFactory
	source *operatorconfig.Source
	mounts hooks.Mounts
	// operandObjects are the objects other controllers write into the operand namespace: the CA
	// copy, the runtime config and the driver secret; controllerObjects, hosted, those they write
	// beside the controller (the CA copy).
	operandObjects, controllerObjects []runtime.Object
	// notices are what those controllers would tell in events.
	notices []string
}

func newWorld(in Input) (*world, error) {
	w := &world{
		// No client: the informers are never started; their stores are filled below.
		kube:   informers.NewSharedInformerFactory(nil, 0),
		config: configinformers.NewSharedInformerFactory(nil, 0),
	}
	add := func(store interface{ Add(any) error }, objs ...any) error {
		for _, o := range objs {
			if err := store.Add(o); err != nil {
				return err
			}
		}
		return nil
	}
	configMaps := w.kube.Core().V1().ConfigMaps()
	secrets := w.kube.Core().V1().Secrets()
	nodes := w.kube.Core().V1().Nodes()

	topology := configv1.HighlyAvailableTopologyMode
	if in.Flavour.IsHosted() {
		// What a hosted cluster's Infrastructure says: its control plane runs elsewhere.
		topology = configv1.ExternalTopologyMode
	}
	infra := &configv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Status: configv1.InfrastructureStatus{
		InfrastructureName: in.ClusterID, ControlPlaneTopology: topology,
		PlatformStatus: &configv1.PlatformStatus{Type: configv1.OpenStackPlatformType},
	}}
	if err := add(w.config.Config().V1().Infrastructures().Informer().GetStore(), infra); err != nil {
		return nil, err
	}
	// Labelled as OpenShift labels its control-plane nodes: the controller's node selector (and so
	// library-go's replicas hook) matches node-role.kubernetes.io/master.
	for i := 0; i < in.ControlPlaneNodes; i++ {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("control-plane-%d", i),
			Labels: map[string]string{"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/master": ""}}}
		if err := add(nodes.Informer().GetStore(), node); err != nil {
			return nil, err
		}
	}
	// On a cluster the network operator always fills the trusted CA ConfigMap.
	trusted := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: hooks.TrustedCAConfigMap, Namespace: names.OperandNamespace},
		Data: map[string]string{"ca-bundle.crt": ""}}
	cms := []any{trusted}
	// service-ca writes the controllers' metrics serving certificates beside them on every cluster;
	// the controllers' hashes of them are of these empty stand-ins.
	controllerNS := names.OperandNamespace
	if in.Flavour.IsHosted() {
		controllerNS = in.Flavour.Hosted.Namespace
	}
	servingCert := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: operator.MetricsCertSecret, Namespace: controllerNS}}
	if err := add(secrets.Informer().GetStore(), servingCert); err != nil {
		return nil, err
	}
	// The CephFS controller's, standalone only, beside it in the operand namespace.
	cephFSCert := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: operator.CephFSMetricsCertSecret, Namespace: names.OperandNamespace}}
	if err := add(secrets.Informer().GetStore(), cephFSCert); err != nil {
		return nil, err
	}
	if in.Flavour.IsHosted() {
		// The management cluster's network operator fills the controller's.
		hcpTrusted := trusted.DeepCopy()
		hcpTrusted.Namespace = in.Flavour.Hosted.Namespace
		cms = append(cms, hcpTrusted)
	}
	if len(in.ConfigYAML) > 0 {
		cms = append(cms, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: operatorconfig.ConfigMapName, Namespace: names.OperatorNamespace,
			ResourceVersion: "1"}, // the Source re-parses on a new version
			Data: map[string]string{operatorconfig.Key: string(in.ConfigYAML)}})
	}
	if len(in.CABundle) > 0 {
		src := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: names.CloudConfigMap, Namespace: names.CloudConfigNamespace},
			Data: map[string]string{names.CABundleKey: string(in.CABundle)}}
		cp := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: names.CloudCAConfigMap, Namespace: names.OperandNamespace},
			Data:       map[string]string{names.CABundleKey: string(in.CABundle)}}
		cms = append(cms, src, cp)
		w.operandObjects = append(w.operandObjects, cp)
		if in.Flavour.IsHosted() {
			hcpCopy := cp.DeepCopy()
			hcpCopy.Namespace = in.Flavour.Hosted.Namespace
			cms = append(cms, hcpCopy)
			w.controllerObjects = append(w.controllerObjects, hcpCopy)
		}
	}
	if err := add(configMaps.Informer().GetStore(), cms...); err != nil {
		return nil, err
	}
	validate, err := operator.ConfigValidator()
	if err != nil {
		return nil, err
	}
	w.source = operatorconfig.NewSource(configMaps.Lister().ConfigMaps(names.OperatorNamespace), validate)
	if cfg, problem := w.source.Current(); problem == nil {
		// The runtime config as the RuntimeConfigController writes it; the node plugin's hash hook reads it.
		sel, err := exportlocation.Resolve(cfg.ExportLocations.Network, in.MachineNetwork)
		if err != nil {
			if in.MachineNetwork == nil {
				return nil, fmt.Errorf("%w (give --install-config FILE: key install-config of that ConfigMap)", err)
			}
			return nil, err
		}
		runtimeConfig := runtimeconfig.ConfigMap(sel)
		if err := add(configMaps.Informer().GetStore(), runtimeConfig); err != nil {
			return nil, err
		}
		w.operandObjects = append(w.operandObjects, runtimeConfig)
		w.notices = append(w.notices, exportlocation.Describe(sel))
	}
	// One decision, as the operator's (secretsync.CAMounted): the CA copy and the secret's CA path come
	// together from the bundle given.
	caInUse := len(in.CABundle) > 0
	w.mounts = hooks.Mounts{Config: w.source, OpenStackCA: func() bool { return caInUse }}
	if in.Cloud != nil {
		secret := driverSecret(in.Cloud, caInUse)
		// The workloads' hash annotations are then of the redacted values: no digest of a credential
		// leaves the command.
		if err := add(secrets.Informer().GetStore(), secret); err != nil {
			return nil, err
		}
		shown := secret.DeepCopy()
		shown.StringData, shown.Data = map[string]string{}, nil
		for key := range secret.Data {
			shown.StringData[key] = Redacted
		}
		w.operandObjects = append(w.operandObjects, shown)
	}
	return w, nil
}

// driverSecret is the secret the SecretSync controller writes, with every value redacted.
func driverSecret(cloud *clientconfig.Cloud, caInUse bool) *corev1.Secret {
	data := map[string][]byte{}
	for key := range cloudcredentials.DriverSecret(cloud, caInUse) {
		data[key] = []byte(Redacted)
	}
	return &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: names.DriverSecret, Namespace: names.OperandNamespace},
		Type:       corev1.SecretTypeOpaque, Data: data}
}
