// Package manila detects whether the cloud has Manila and reports it on the ClusterCSIDriver.
package manila

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	operatorv1 "github.com/openshift/api/operator/v1"
	configv1informers "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corev1informers "k8s.io/client-go/informers/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/cloudsecret"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/metrics"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstackca"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/platform"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/verified"
)

// ControllerName prefixes the controller's conditions.
const ControllerName = "ManilaController"

// Config is what the Controller needs besides informers.
type Config struct {
	Schedule Schedule
	// Grace is how many consecutive failed polls are tolerated before Degraded.
	Grace int
	// OpenStackTransport, if set, wraps the HTTP transport to Keystone and Manila.
	OpenStackTransport func(http.RoundTripper) http.RoundTripper
	// EverFound, if set, says whether Manila was ever found on this cluster (by any process); unset
	// means it was (a failed poll then never reads as Disabled).
	EverFound func() bool
	// OnManilaFound runs after every poll that found Manila with share types; it must be idempotent.
	OnManilaFound func(shareTypes []manilatypes.ShareType)
	// Listings receives every successful share-type listing, empty ones included.
	Listings *manilatypes.Store
	// OperatorConfig, if set, may override Schedule.Interval with its pollInterval.
	OperatorConfig *operatorconfig.Source
	// Verified, if set, records the clouds.yaml of every login that found Manila, for the driver secret.
	Verified *verified.Credentials
	// CatalogRefresh, if set, is the age after which a login (and the catalog it brought) is renewed.
	CatalogRefresh time.Duration
	// RequestTimeout bounds each HTTP request to Keystone and Manila; zero means the client's default.
	RequestTimeout time.Duration
	// Sessions, if set, receives the session of every poll that found Manila (nil after one that did
	// not), for the other readers of Manila (pkg/controllers/cephxrefusal): one login for all.
	Sessions *openstack.Shared
}

// Controller polls Keystone and Manila to learn whether the cloud offers Manila.
//
// Watches: Secret openshift-cluster-csi-drivers/manila-cloud-credentials (its key cacert: the OpenStack
// CA), ConfigMap openshift-config/cloud-provider-config (the CA's older place, pkg/openstackca), the
// operator ConfigMap (its pollInterval)
// and the ClusterCSIDriver; nothing else, so
// unrelated cluster objects never cause an OpenStack request. It also polls on a timer with jitter,
// retrying failures with a doubling delay.
//
// Publishes: every successful share-type listing to the manilatypes.Store, for the StorageClass
// controller, with Manila's availability zones when the operator config sets topology.mode Zonal
// (one more request per poll, none otherwise); each poll's duration and result, the time of the last
// successful one and the share types it saw to pkg/metrics.
//
// Writes: conditions ManilaControllerDisabled (True with a reason when the catalog has no sharev2 or
// Manila has no share types, or when Infrastructure/cluster names a platform other than OpenStack, in
// which case it asks nothing of OpenStack; removed when Manila is there) and ManilaControllerDegraded (True when polls
// keep failing or the credentials are unusable).
//
// Policy: it logs in to Keystone once per credentials/CA content and reuses the token; a failure never
// marks the driver Disabled, and it never deletes anything.
type Controller struct {
	cfg            Config
	operatorClient condition.OperatorClient
	secrets        cloudsecret.Finder
	// secretName is the credentials Secret last read (cloudsecret: it may have another name hosted).
	secretName   string
	caConfigMaps corev1listers.ConfigMapNamespaceLister
	infra        configv1listers.InfrastructureLister
	recorder     events.Recorder
	clock        clock.PassiveClock
	layout       names.Layout

	session      *openstack.Client
	sessionHash  string
	sessionSince time.Time
	publicOnly   bool
	// forbiddenPolls counts down the polls that list public types only after Manila refused the
	// full listing; at zero the full listing is tried again.
	forbiddenPolls int
	lastInputs     string
	nextPoll       time.Time
	failures       int
	lastOutcome    Outcome
	everObserved   bool
	lastStatus     []condition.Change
	lastPoll       time.Time
	scheduledWith  time.Duration
	lastGoodCA     []byte
	// zonesPolledAt is the listing after which a poll was made early for Manila's zones.
	zonesPolledAt uint64
	// hiddenWarned is the inputs hash and cause of the last PrivateShareTypesHidden event.
	hiddenWarned string
}

// Deps is what NewController needs: the tunables and the informers, each scoped as its comment says.
type Deps struct {
	Config
	OperatorClient condition.OperatorClient
	// Layout says where the credentials and the cloud config live; zero is standalone.
	Layout names.Layout
	// Secrets is a Secret informer of the credentials' namespace: the credentials; OtherSecrets,
	// hosted, one of the other name they may have there (cloudsecret).
	Secrets, OtherSecrets corev1informers.SecretInformer
	// OperatorConfigMaps is the operator namespace's ConfigMap informer: the operator config.
	OperatorConfigMaps corev1informers.ConfigMapInformer
	// CloudConfigMaps is a ConfigMap informer of the cloud config's namespace: the OpenStack CA.
	CloudConfigMaps corev1informers.ConfigMapInformer
	// Infrastructures is the cluster's Infrastructure informer: the platform.
	Infrastructures configv1informers.InfrastructureInformer
	Recorder        events.Recorder
	Clock           clock.PassiveClock
}

// NewController returns the factory controller.
func NewController(d Deps) factory.Controller {
	cfg := d.Config
	if cfg.Grace <= 0 {
		cfg.Grace = 3
	}
	layout := d.Layout.OrStandalone()
	c := &Controller{
		cfg:            cfg,
		layout:         layout,
		operatorClient: d.OperatorClient,
		secrets:        cloudsecret.New(layout, d.Secrets, d.OtherSecrets),
		caConfigMaps:   d.CloudConfigMaps.Lister().ConfigMaps(layout.CloudConfigNamespace),
		infra:          d.Infrastructures.Lister(),
		recorder:       d.Recorder.WithComponentSuffix("manila-controller"),
		clock:          d.Clock,
	}
	f := factory.New().
		WithSync(c.sync).
		WithInformers(d.OperatorClient.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(platform.InfrastructureName), d.Infrastructures.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(c.secrets.Names()...), d.Secrets.Informer())
	if d.OtherSecrets != nil {
		f = f.WithFilteredEventsInformers(factory.NamesFilter(c.secrets.Names()...), d.OtherSecrets.Informer())
	}
	return f.
		WithFilteredEventsInformers(factory.NamesFilter(operatorconfig.ConfigMapName, operatorconfig.LegacyConfigMapName), d.OperatorConfigMaps.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(layout.CloudConfigName), d.CloudConfigMaps.Informer()).
		ToController(ControllerName, c.recorder)
}

type inputs struct {
	cloudsYAML []byte
	caBundle   []byte
	hash       string
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	spec, _, _, err := c.operatorClient.GetOperatorState()
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	meta, err := c.operatorClient.GetObjectMeta()
	if err != nil {
		return err
	}
	updates := []condition.Change{observedGeneration(meta.Generation)}
	other := platform.OtherFrom(c.infra)
	switch {
	case spec.ManagementState == operatorv1.Managed && other != "":
		// Not on OpenStack: no request, and one condition that cluster-storage-operator reads as a
		// driver not needed here. The Infrastructure's informer brings the next sync.
		c.lastInputs, c.lastStatus = "", nil
		updates = append(updates, offOpenStack(other)...)
	case spec.ManagementState == operatorv1.Managed:
		if obs, polled := c.pollIfDue(ctx); polled {
			c.lastStatus = statusUpdates(obs, c.failures, c.cfg.Grace, c.cfg.EverFound == nil || c.cfg.EverFound())
		}
		// Re-applying the last observation costs nothing when the status already shows it, and a
		// failed status write is retried without asking OpenStack again.
		updates = append(updates, c.lastStatus...)
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), c.nextPoll.Sub(c.clock.Now()))
	default:
		c.lastInputs = ""
	}
	_, err = condition.Update(ctx, c.operatorClient, updates...)
	return err
}

// pollIfDue polls when the timer is due or an input (credentials, CA) changed. The sync after the CR
// turns Managed always polls (lastInputs is cleared while not Managed). Other CR changes, such as
// library-go writing spec.observedConfig, do not cost an OpenStack request.
func (c *Controller) pollIfDue(ctx context.Context) (Observation, bool) {
	in, inputErr := c.readInputs()
	key := in.hash
	now := c.clock.Now()
	if c.failures == 0 && !c.lastPoll.IsZero() && c.schedule().Interval != c.scheduledWith {
		c.scheduleNext() // the poll interval changed: the next poll follows the new one
	}
	zonesMissing := c.failures == 0 && c.zonesMissing()
	if key == c.lastInputs && now.Before(c.nextPoll) && !zonesMissing {
		return Observation{}, false
	}
	if zonesMissing {
		klog.V(4).Infof("Polling OpenStack: topology.mode Zonal needs Manila's availability zones")
	} else if key != c.lastInputs {
		klog.V(4).Infof("Polling OpenStack: credentials or CA changed, or the ClusterCSIDriver became Managed")
	} else {
		klog.V(4).Infof("Polling OpenStack: poll interval elapsed")
	}
	c.lastInputs = key

	var obs Observation
	if inputErr != nil {
		obs = inputErr.(inputError).observation()
	} else {
		obs = c.poll(ctx, in)
	}
	end := c.clock.Now()
	metrics.ObservePoll(end.Sub(now), obs.Answered(), end, obs.ShareTypes)
	if obs.Outcome == ManilaFound || obs.Disabled() {
		c.failures = 0
	} else {
		c.failures++
		if obs.Outcome == PollFailed && c.failures >= sessionRefreshAfter {
			// Whatever the cause, the catalog read at login may be what is wrong: log in afresh.
			c.dropSession()
		}
	}
	c.report(obs)
	c.lastPoll = now
	c.scheduleNext()
	return obs, true
}

// schedule is the configured schedule, with the operator ConfigMap's pollInterval if it sets one.
func (c *Controller) schedule() Schedule {
	s := c.cfg.Schedule
	if c.cfg.OperatorConfig != nil {
		if cfg, _ := c.cfg.OperatorConfig.Current(); cfg != nil && cfg.PollInterval != nil {
			s.Interval = cfg.PollInterval.Duration
		}
	}
	return s
}

func (c *Controller) scheduleNext() {
	s := c.schedule()
	c.scheduledWith = s.Interval
	c.nextPoll = c.lastPoll.Add(s.Next(c.failures))
}

func observedGeneration(generation int64) condition.Change {
	return func(status *operatorv1.OperatorStatus) error {
		status.ObservedGeneration = generation
		return nil
	}
}

// inputError is a problem with the operator's inputs rather than with OpenStack.
type inputError struct {
	outcome Outcome
	err     error
}

func (e inputError) Error() string            { return e.err.Error() }
func (e inputError) observation() Observation { return Observation{Outcome: e.outcome, Err: e.err} }

func (c *Controller) readInputs() (inputs, error) {
	secret, err := c.secrets.Get()
	if err == nil {
		c.secretName = secret.Name
	}
	if apierrors.IsNotFound(err) {
		return inputs{hash: "no-secret"}, inputError{InputMissing, errMissingSecret(c.layout.CredentialsNamespace, names.CloudCredentialsSecret)}
	} else if err != nil {
		return inputs{}, inputError{PollFailed, err}
	}
	clouds, ok := secret.Data[names.CloudsYAMLKey]
	if !ok {
		return inputs{hash: "no-key/" + secret.ResourceVersion}, inputError{InputInvalid, errMissingKey(c.layout.CredentialsNamespace, secret.Name, names.CloudsYAMLKey)}
	}
	// An invalid bundle is reported by the SecretSync controller; the client keeps the last good one.
	cloudConfig, _ := c.caConfigMaps.Get(c.layout.CloudConfigName) // absent: no CA from it
	if ca := openstackca.Find(secret, cloudConfig).PEM; len(ca) == 0 || openstack.ValidCABundle(ca) {
		c.lastGoodCA = ca
	}
	ca := c.lastGoodCA
	h := sha256.New()
	h.Write(clouds)
	h.Write([]byte{0})
	h.Write(ca)
	return inputs{cloudsYAML: clouds, caBundle: ca, hash: hex.EncodeToString(h.Sum(nil))}, nil
}

// poll logs in (only when the inputs changed or the catalog must be re-read), finds sharev2 and
// lists the share types.
func (c *Controller) poll(ctx context.Context, in inputs) Observation {
	if c.session != nil && c.cfg.CatalogRefresh > 0 && c.clock.Since(c.sessionSince) >= c.cfg.CatalogRefresh {
		c.dropSession() // the catalog may have changed since the login: Manila removed or moved
	}
	if c.session == nil || c.sessionHash != in.hash {
		client, err := openstack.Connect(ctx, in.cloudsYAML, names.CloudName, openstack.Options{
			CABundle: in.caBundle, Transport: c.cfg.OpenStackTransport, Timeout: c.cfg.RequestTimeout})
		if err != nil {
			if openstack.IsFieldError(err) {
				return Observation{Outcome: InputInvalid, Err: c.secretFieldError(err)}
			}
			return Observation{Outcome: PollFailed, Err: err}
		}
		c.session, c.sessionHash, c.publicOnly, c.forbiddenPolls = client, in.hash, false, 0
		c.sessionSince = c.clock.Now()
	}
	manila, err := c.session.Manila()
	if err != nil && c.cfg.Sessions != nil {
		c.cfg.Sessions.Set(nil) // the session stays for the next poll, but it reaches no Manila
	}
	if errors.Is(err, openstack.ErrNoManilaService) {
		// The catalog comes with the token: log in again next time so a newly registered Manila is seen.
		c.dropSession()
		return Observation{Outcome: NoManilaService}
	} else if openstack.IsFieldError(err) {
		c.dropSession()
		return Observation{Outcome: InputInvalid, Err: c.secretFieldError(err)}
	} else if err != nil {
		return Observation{Outcome: PollFailed, Err: err}
	}
	if c.cfg.Verified != nil {
		// Logged in and Manila found where the credentials point: what the driver needs.
		c.cfg.Verified.Record(in.cloudsYAML, in.caBundle)
	}
	if c.cfg.Sessions != nil {
		c.cfg.Sessions.Set(c.session)
	}
	types, complete, err := c.listShareTypes(ctx, manila)
	if err != nil {
		if endpointGone(err) {
			// The catalog is fixed at login: Manila may have moved. The next poll logs in again.
			c.dropSession()
		}
		return Observation{Outcome: PollFailed, Err: err}
	}
	zones, err := c.listZones(ctx, manila)
	if err != nil {
		return Observation{Outcome: PollFailed, Err: err}
	}
	if c.cfg.Listings != nil {
		c.cfg.Listings.PublishWithZones(types, complete, zones)
	}
	if len(types) == 0 {
		return Observation{Outcome: NoShareTypes}
	}
	if c.cfg.OnManilaFound != nil {
		c.cfg.OnManilaFound(types)
	}
	return Observation{Outcome: ManilaFound, ShareTypes: len(types)}
}

// zonesMissing reports whether the operator config asks for topology and the latest listing came
// without Manila's zones, as right after topology.mode turned Zonal: then the sync polls at once rather
// than at the next interval, once per such listing (a poll that publishes nothing is not repeated
// before its time) and never while polls are failing, which keep their backoff.
func (c *Controller) zonesMissing() bool {
	if c.cfg.OperatorConfig == nil || c.cfg.Listings == nil {
		return false
	}
	cfg, _ := c.cfg.OperatorConfig.Current()
	latest := c.cfg.Listings.Latest()
	if cfg == nil || !cfg.Topology.Zonal() || latest == nil || latest.Zones != nil || latest.Seq == c.zonesPolledAt {
		return false
	}
	c.zonesPolledAt = latest.Seq
	return true
}

// listZones lists Manila's availability zones when the operator config turns topology on, the one
// extra request of such a poll; otherwise it asks nothing and returns nil. A failure fails the poll,
// so classes are never planned against a zone list that is not known.
func (c *Controller) listZones(ctx context.Context, manila *gophercloud.ServiceClient) ([]string, error) {
	if c.cfg.OperatorConfig == nil {
		return nil, nil
	}
	if cfg, _ := c.cfg.OperatorConfig.Current(); cfg == nil || !cfg.Topology.Zonal() {
		return nil, nil
	}
	return openstack.ListAvailabilityZones(ctx, manila)
}

// dropSession forgets the session, so that the next poll logs in again, and unpublishes it.
func (c *Controller) dropSession() {
	c.session = nil
	if c.cfg.Sessions != nil {
		c.cfg.Sessions.Set(nil)
	}
}

// sessionRefreshAfter is how many failed polls in a row make the next one log in again, re-reading the
// catalog, whatever the errors were.
const sessionRefreshAfter = 2

// endpointGone reports errors that say Manila is not where the catalog read at login put it: a 404,
// or no connection at all.
func endpointGone(err error) bool {
	if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr)
}

// forbiddenRetry is how many polls list public types only after a 403 before the full listing is
// tried again: a policy fixed in Manila is picked up without a restart, at a bounded extra cost.
const forbiddenRetry = 10

// listShareTypes returns the share types and whether the listing is complete: a public-only listing
// (credentials without the admin role, or a 403 on the full one) may lack private types that exist.
func (c *Controller) listShareTypes(ctx context.Context, manila *gophercloud.ServiceClient) ([]manilatypes.ShareType, bool, error) {
	if admin, known := c.session.HasRole("admin"); known && !admin && !c.publicOnly {
		// Manila answers is_public=all from a non-admin with the project's visible types, no error.
		c.publicOnly = true
		c.warnPrivateHidden("no-admin", "The OpenStack credentials have no admin role, so Manila lists only the share types visible to their project (public ones and private ones shared with it)")
	}
	if !c.publicOnly && c.forbiddenPolls == 0 {
		types, err := openstack.ListShareTypes(ctx, manila, openstack.AllShareTypes)
		if !gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
			return types, err == nil, err
		}
		c.forbiddenPolls = forbiddenRetry
		c.warnPrivateHidden("forbidden", "The OpenStack credentials may not list private share types; only public share types are used, and classes of private types are neither marked stale nor pruned")
	}
	if c.forbiddenPolls > 0 {
		c.forbiddenPolls--
	}
	types, err := openstack.ListShareTypes(ctx, manila, openstack.PublicShareTypes)
	return types, false, err
}

// warnPrivateHidden sends the PrivateShareTypesHidden event once per content of the credentials (and
// CA) and cause: a re-login with the same credentials (token or catalog renewed, after failures) and
// each retry of the full listing after a 403 find what was already said.
func (c *Controller) warnPrivateHidden(cause, message string) {
	key := c.sessionHash + "/" + cause
	if key == c.hiddenWarned {
		return
	}
	c.hiddenWarned = key
	c.recorder.Warningf("PrivateShareTypesHidden", "%s", message)
}

func (c *Controller) secretFieldError(err error) error {
	return errors.New("Secret " + c.layout.CredentialsNamespace + "/" + c.secretName + " key " + names.CloudsYAMLKey + ": " + err.Error())
}

// report logs and records an event when the outcome changes.
func (c *Controller) report(obs Observation) {
	changed := !c.everObserved || obs.Outcome != c.lastOutcome
	c.everObserved, c.lastOutcome = true, obs.Outcome
	if !changed {
		if obs.Err != nil {
			klog.V(2).Infof("Manila poll failed (%d in a row): %v", c.failures, obs.Err)
		}
		return
	}
	switch obs.Outcome {
	case ManilaFound:
		c.recorder.Eventf("ManilaDetected", "Manila found with %d share type(s)", obs.ShareTypes)
	case NoManilaService:
		c.recorder.Eventf("ManilaNotFound", "The OpenStack catalog has no sharev2 service")
	case NoShareTypes:
		c.recorder.Eventf("NoShareTypes", "Manila has no share types visible to the credentials")
	default:
		c.recorder.Warningf("ManilaPollFailed", "%v", obs.Err)
	}
}
