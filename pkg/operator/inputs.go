package operator

import (
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	corev1informers "k8s.io/client-go/informers/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/secretsync"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
)

// sharedInputs are what several controllers read, from where the flavour keeps it: the operator
// config (and its last valid version in the state ConfigMap), the cloud config, the operand
// namespace's informers, and the inputs of the workloads' mounts.
type sharedInputs struct {
	operatorNS, operandNS corev1informers.Interface
	cloudConfigs          corev1informers.ConfigMapInformer
	stateConfigMaps       corev1informers.ConfigMapInformer
	store                 *state.Store
	config                *operatorconfig.Source
	// stateInformer, hosted, is the state ConfigMap's informer for the config check (standalone the
	// operator ConfigMaps' informer already brings it); migrate, standalone, copies a legacy config.
	stateInformer corev1informers.ConfigMapInformer
	migrate       corev1client.ConfigMapsGetter
	mounts        hooks.Mounts
}

func newSharedInputs(f Flavour, c *clients, render resourceapply.AssetFunc) (*sharedInputs, error) {
	validate, err := mountsValidator(render)
	if err != nil {
		return nil, err
	}
	layout := c.layout
	// Standalone the state ConfigMap is among the operator namespace's, whose informer serves the
	// operator config too; hosted, the HCP namespace's are the whole control plane's: that one only.
	stateConfigMaps := c.mgmtInformers.InformersFor(layout.StateNamespace).Core().V1().ConfigMaps()
	if f.IsHosted() {
		stateConfigMaps = c.hostedState.Core().V1().ConfigMaps()
	}
	in := &sharedInputs{
		operatorNS:      c.operatorConfig.Core().V1(),
		operandNS:       c.kubeInformers.InformersFor(names.OperandNamespace).Core().V1(),
		cloudConfigs:    c.cloudConfig.Core().V1().ConfigMaps(),
		stateConfigMaps: stateConfigMaps,
	}
	operatorConfigMaps := in.operatorNS.ConfigMaps().Lister().ConfigMaps(names.OperatorNamespace)
	in.store = state.NewStore(layout.StateNamespace, in.stateConfigMaps.Lister(), c.mgmtKube.CoreV1())
	in.config = operatorconfig.NewSource(operatorConfigMaps, f.ConfigValidator(validate)).
		WithPersisted(func() (string, bool) { return in.store.Get(state.OperatorConfigKey) })
	if f.ReadsLegacyConfig() {
		in.config = in.config.WithLegacy(operatorConfigMaps)
		in.migrate = c.kube.CoreV1()
	}
	caCopies := []corev1listers.ConfigMapNamespaceLister{in.operandNS.ConfigMaps().Lister().ConfigMaps(names.OperandNamespace)}
	// Of busy namespaces, the events of the ConfigMaps the mounts read only: the operator config (and
	// the state ConfigMap that keeps its last valid version). The OpenStack CA's mount follows the
	// driver secret and the CA copies, whose events the workloads' hooks already watch.
	mountInformers := []factory.Informer{
		hooks.Events(in.operatorNS.ConfigMaps().Informer(), hooks.Named(operatorconfig.ConfigMapName, operatorconfig.LegacyConfigMapName, state.ConfigMapName)),
	}
	if f.IsHosted() {
		caCopy := c.hcpCACopy.Core().V1().ConfigMaps()
		caCopies = append(caCopies, caCopy.Lister().ConfigMaps(layout.ControllerNamespace))
		in.stateInformer = in.stateConfigMaps
		// One informer holds both (the operator's own ConfigMaps in the HCP namespace, clients.ownHCP).
		mountInformers = append(mountInformers, hooks.Events(in.stateConfigMaps.Informer(), hooks.Named(state.ConfigMapName, names.CloudCAConfigMap)))
	}
	operandSecrets := in.operandNS.Secrets().Lister().Secrets(names.OperandNamespace)
	in.mounts = hooks.Mounts{
		Config:      in.config,
		OpenStackCA: func() bool { return secretsync.CAMounted(operandSecrets, caCopies...) },
		Informers:   mountInformers,
	}
	return in, nil
}
