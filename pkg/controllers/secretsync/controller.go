// Package secretsync turns the cloud credentials into the driver's secret and copies the OpenStack CA
// bundle into the operand namespace.
package secretsync

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gophercloud/utils/v2/openstack/clientconfig"
	operatorv1 "github.com/openshift/api/operator/v1"
	configv1informers "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/cloudcredentials"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/cloudsecret"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstackca"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/platform"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/verified"
)

// ControllerName prefixes the controller's condition.
const ControllerName = "SecretSyncController"

// ConditionDegraded is True while the credentials or the CA cannot be turned into the driver's inputs.
const ConditionDegraded = ControllerName + "Degraded"

// ConditionTypes are the condition types the controller writes.
func ConditionTypes() []string { return []string{ConditionDegraded} }

// Reasons of ConditionDegraded. ReasonInsecureTLS keeps it False: verify: false works, but is a risk
// the admin should see.
const (
	ReasonAsExpected   = "AsExpected"
	ReasonInvalidInput = "InvalidInput"
	ReasonInsecureTLS  = "InsecureTLS"
	// ReasonPlatformNotOpenStack: Infrastructure/cluster names another platform; nothing is synced.
	ReasonPlatformNotOpenStack = "PlatformNotOpenStack"
)

// Deps are the Controller's collaborators. Informers: OperatorSecrets of the credentials' namespace,
// CloudConfig of the cloud config's (Layout), OperandSecrets and OperandConfigMaps of the operand
// namespace.
type Deps struct {
	// Layout says where the credentials, the cloud config and the controller live; zero is standalone.
	Layout          names.Layout
	OperatorClient  condition.OperatorClient
	OperatorSecrets corev1informers.SecretInformer
	// OtherSecrets, hosted, is an informer of the credentials' other name there (cloudsecret).
	OtherSecrets      corev1informers.SecretInformer
	CloudConfig       corev1informers.ConfigMapInformer
	OperandSecrets    corev1informers.SecretInformer
	OperandConfigMaps corev1informers.ConfigMapInformer
	// Namespaces tells whether the operand namespace exists; nothing is written until it does.
	Namespaces corev1informers.NamespaceInformer
	// Infrastructures tells the platform: off OpenStack there are no credentials to wait for.
	Infrastructures configv1informers.InfrastructureInformer
	// Verified, if set, holds the credentials the operator last logged in with: only those reach the
	// driver secret.
	Verified *verified.Credentials
	Client   corev1client.CoreV1Interface
	// ControllerConfigMaps, hosted only, writes the controller's copy of the OpenStack CA in the
	// controller's namespace of the management cluster; standalone the operand namespace's copy serves
	// both drivers.
	ControllerConfigMaps corev1client.ConfigMapsGetter
	// ControllerCopy, hosted only, is an informer of that copy: edited or deleted, it is written again at
	// once.
	ControllerCopy corev1informers.ConfigMapInformer
	Recorder       events.Recorder
	Clock          clock.PassiveClock
	// Grace is how long a missing source secret is waited for before Degraded (default 30 s).
	Grace time.Duration
}

// Controller keeps Secret openshift-manila-csi-driver/csi-manila-secrets and ConfigMap
// openshift-manila-csi-driver/manila-csi-driver-cloud-ca.
//
// Watches: Secret openshift-cluster-csi-drivers/manila-cloud-credentials, ConfigMap
// openshift-config/cloud-provider-config, its two outputs (hosted, also the controller's CA copy in the
// hosted control plane's namespace), the operand namespace and the ClusterCSIDriver
// (spec.managementState).
//
// Writes: the driver secret (the clouds.yaml keys mapped for the driver) from credentials the operator
// has just logged in with (a rotated password that fails keeps the last good secret), the CA copy,
// condition SecretSyncControllerDegraded. Both outputs go through library-go's resourceapply: only
// differences are written, and its events name the object and at most the changed keys.
//
// Policy: on any bad input (missing secret past the grace period, malformed clouds.yaml, a CA that is
// not PEM) it reports and keeps the last good outputs; it never deletes them (ApplySecret would
// recreate only a Secret that is immutable or not Opaque, which neither this operator nor its
// predecessor writes). It writes nothing while
// the ClusterCSIDriver is not Managed, checked at each write too (managementstate.Gated), and sends no request while the operand namespace does not exist
// (the namespace's creation triggers it).
type Controller struct {
	d            Deps
	sources      cloudsecret.Finder
	cloudConfigs corev1listers.ConfigMapNamespaceLister
	configMaps   corev1listers.ConfigMapNamespaceLister
	namespaces   corev1listers.NamespaceLister
	missingSince time.Time
	// insecure is the verify: false warning for the credentials last read, "" when they verify TLS;
	// warnedVersion is the source secret's resourceVersion it was last sent as an event for.
	insecure      string
	warnedVersion string
}

// NewController returns the factory controller.
func NewController(d Deps) factory.Controller {
	_, ctrl := newController(d)
	return ctrl
}

func newController(d Deps) (*Controller, factory.Controller) {
	if d.Grace == 0 {
		d.Grace = 30 * time.Second
	}
	d.Layout = d.Layout.OrStandalone()
	d.Client = managementstate.Gated(d.Client, d.OperatorClient)
	if d.ControllerConfigMaps != nil {
		d.ControllerConfigMaps = managementstate.GatedConfigMaps(d.ControllerConfigMaps, d.OperatorClient)
	}
	c := &Controller{
		d:            d,
		sources:      cloudsecret.New(d.Layout, d.OperatorSecrets, d.OtherSecrets),
		cloudConfigs: d.CloudConfig.Lister().ConfigMaps(d.Layout.CloudConfigNamespace),
		configMaps:   d.OperandConfigMaps.Lister().ConfigMaps(names.OperandNamespace),
		namespaces:   d.Namespaces.Lister(),
	}
	syncCtx := factory.NewSyncContext(ControllerName, d.Recorder.WithComponentSuffix("secret-sync"))
	if d.Verified != nil {
		d.Verified.Subscribe(func() { syncCtx.Queue().Add(factory.DefaultQueueKey) })
	}
	f := factory.New().
		WithSyncContext(syncCtx).
		WithSync(c.sync).
		WithFilteredEventsInformers(factory.NamesFilter(c.sources.Names()...), d.OperatorSecrets.Informer())
	if d.OtherSecrets != nil {
		f = f.WithFilteredEventsInformers(factory.NamesFilter(c.sources.Names()...), d.OtherSecrets.Informer())
	}
	if d.ControllerCopy != nil {
		f = f.WithFilteredEventsInformers(factory.NamesFilter(names.CloudCAConfigMap), d.ControllerCopy.Informer())
	}
	return c, f.
		WithFilteredEventsInformers(factory.NamesFilter(d.Layout.CloudConfigName), d.CloudConfig.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(names.DriverSecret), d.OperandSecrets.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(names.CloudCAConfigMap), d.OperandConfigMaps.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(names.OperandNamespace), d.Namespaces.Informer()).
		WithInformers(d.OperatorClient.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(platform.InfrastructureName), d.Infrastructures.Informer()).
		ToController(ControllerName, d.Recorder.WithComponentSuffix("secret-sync"))
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	if managed, err := managementstate.Managed(c.d.OperatorClient); err != nil || !managed {
		return err
	}
	if other := platform.OtherFrom(c.d.Infrastructures.Lister()); other != "" {
		// The credentials Secret never arrives off OpenStack: waiting for it is not a fault.
		return c.applyCondition(ctx, operatorv1.OperatorCondition{
			Type: ConditionDegraded, Status: operatorv1.ConditionFalse, Reason: ReasonPlatformNotOpenStack,
			Message: fmt.Sprintf("Infrastructure/cluster reports platform %s: no driver secret is needed", other)})
	}
	if _, err := c.namespaces.Get(names.OperandNamespace); apierrors.IsNotFound(err) {
		return nil // the namespace informer brings us back when it appears
	}
	problem, wait := c.syncOutputs(ctx, syncCtx.Recorder())
	switch {
	case errors.Is(problem, managementstate.ErrNotManaged):
		return nil // set Unmanaged while this sync ran: it writes nothing, the condition included
	case apierrors.IsConflict(problem):
		return problem // another writer was first (an admin's edit): no fault of the inputs; retried
	}
	if wait > 0 {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), wait)
	}
	cond := operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionFalse, Reason: ReasonAsExpected}
	switch {
	case problem != nil:
		cond = operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionTrue, Reason: ReasonInvalidInput,
			Message: problem.Error() + "; the driver keeps its last good credentials and CA"}
	case c.insecure != "":
		cond = operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionFalse, Reason: ReasonInsecureTLS, Message: c.insecure}
	}
	return c.applyCondition(ctx, cond)
}

// applyCondition writes cond: nothing is sent when the status already shows it, and the transition
// time is kept while the status stays.
func (c *Controller) applyCondition(ctx context.Context, cond operatorv1.OperatorCondition) error {
	_, err := condition.Update(ctx, c.d.OperatorClient, condition.Set(cond))
	return err
}

// CAMounted reports whether the operand mounts the OpenStack CA: the driver secret (in operandSecrets)
// points the driver at it (os-certAuthorityPath) and its copy exists in each of copies (the operand
// namespace; hosted, the controller's namespace too). The workloads follow the secret, never the
// CA's source, so that the secret and the mount change together: the secret is written with a CA
// path only once the copies hold the CA the credentials were verified with (syncOutputs), and keeps
// it while a new source fails.
func CAMounted(operandSecrets corev1listers.SecretNamespaceLister, copies ...corev1listers.ConfigMapNamespaceLister) bool {
	secret, err := operandSecrets.Get(names.DriverSecret)
	if err != nil || len(secret.Data[cloudcredentials.CAPathKey]) == 0 {
		return false
	}
	for _, c := range copies {
		if _, err := c.Get(names.CloudCAConfigMap); err != nil {
			return false
		}
	}
	return true
}

// syncOutputs writes the CA copies and then the driver secret, both from one reading of the sources
// (pkg/openstackca): only credentials verified with exactly that CA reach them. It returns the
// problem, if any, and how long to wait before looking again. On a problem nothing is written.
func (c *Controller) syncOutputs(ctx context.Context, recorder events.Recorder) (error, time.Duration) {
	src, err := c.sources.Get()
	if apierrors.IsNotFound(err) {
		now := c.d.Clock.Now()
		if c.missingSince.IsZero() {
			c.missingSince = now
		}
		if waited := now.Sub(c.missingSince); waited < c.d.Grace {
			return nil, c.d.Grace - waited
		}
		return fmt.Errorf("waiting for Secret %s/%s (key %s) from the cloud-credential-operator", c.d.Layout.CredentialsNamespace, names.CloudCredentialsSecret, names.CloudsYAMLKey), 0
	} else if err != nil {
		return err, 0
	}
	c.missingSince = time.Time{}
	var problems []error
	ca := c.caBundle(src)
	if len(ca.PEM) > 0 {
		if problem := openstack.CABundleProblem(ca.PEM, c.d.Clock.Now()); problem != "" {
			problems = append(problems, fmt.Errorf("%s %s (not a valid PEM certificate bundle)", ca.From, problem))
		}
	}
	clouds, ok := src.Data[names.CloudsYAMLKey]
	if !ok {
		problems = append(problems, fmt.Errorf("Secret %s/%s has no key %q", src.Namespace, src.Name, names.CloudsYAMLKey))
	}
	if len(problems) > 0 {
		return errors.Join(problems...), 0
	}
	cloud, err := openstack.ParseCloud(clouds, names.CloudName)
	if err != nil {
		return fmt.Errorf("Secret %s/%s key %s: %w", src.Namespace, src.Name, names.CloudsYAMLKey, err), 0
	}
	c.warnInsecure(recorder, src, cloud)
	if c.d.Verified != nil && !c.d.Verified.Verified(clouds, ca.PEM) {
		// Not logged in with yet: the Manila controller's next login decides, and reports a failure.
		return nil, 0
	}
	if len(ca.PEM) > 0 {
		// resourcesynccontroller would copy the source unchecked; only a CA that parses reaches the
		// driver, so the copies are applied here, before the secret that points at them.
		if err := c.applyCACopies(ctx, recorder, ca.PEM); err != nil {
			return err, 0
		}
	}
	data := cloudcredentials.DriverSecret(cloud, len(ca.PEM) > 0)
	// ApplySecret's events and logs name the Secret and at most its keys, never a value. Type Opaque
	// is what the predecessor writes and updates: a handed-back Secret stays readable to it.
	_, _, err = resourceapply.ApplySecret(ctx, c.d.Client, recorder, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: names.DriverSecret, Namespace: names.OperandNamespace},
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	})
	return err, 0
}

// applyCACopies writes the CA into the operand namespace and, hosted, the controller's namespace.
// A copy is never deleted: a workload may mount it until the secret stops pointing at it.
func (c *Controller) applyCACopies(ctx context.Context, recorder events.Recorder, pem []byte) error {
	_, _, err := resourceapply.ApplyConfigMap(ctx, c.d.Client, recorder, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: names.CloudCAConfigMap, Namespace: names.OperandNamespace},
		Data:       map[string]string{names.CABundleKey: string(pem)},
	})
	if err != nil || c.d.ControllerConfigMaps == nil {
		return err
	}
	// Labelled: the HCP namespace's informer of the operator's ConfigMaps selects them by it.
	_, _, err = resourceapply.ApplyConfigMap(ctx, c.d.ControllerConfigMaps, recorder, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: names.CloudCAConfigMap, Namespace: c.d.Layout.ControllerNamespace,
			Labels: map[string]string{names.OwnerLabel: names.OwnerLabelValue}},
		Data: map[string]string{names.CABundleKey: string(pem)},
	})
	return err
}

// warnInsecure keeps the verify: false warning of the credentials in use, and sends it as a Warning
// event once per content of the source secret.
func (c *Controller) warnInsecure(recorder events.Recorder, src *corev1.Secret, cloud *clientconfig.Cloud) {
	if !openstack.InsecureTLS(cloud) {
		c.insecure, c.warnedVersion = "", ""
		return
	}
	c.insecure = fmt.Sprintf("Secret %s/%s key %s sets clouds.%s.verify: false: %s", src.Namespace,
		src.Name, names.CloudsYAMLKey, names.CloudName, openstack.InsecureTLSRisk)
	if src.ResourceVersion != c.warnedVersion {
		recorder.Warningf(ReasonInsecureTLS, "%s", c.insecure)
		c.warnedVersion = src.ResourceVersion
	}
}

// caBundle is the OpenStack CA as the cluster has it now, from the credentials Secret src or the
// cloud config (pkg/openstackca): the driver gets credentials only as verified with this very CA.
func (c *Controller) caBundle(src *corev1.Secret) openstackca.Bundle {
	cloudConfig, _ := c.cloudConfigs.Get(c.d.Layout.CloudConfigName) // absent: no CA from it
	return openstackca.Find(src, cloudConfig)
}
