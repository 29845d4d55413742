// Package cephxrefusal tells a claim of the CephFS instance why it failed when Manila's CephFS
// backend refused the cephx ID of its class: csi-provisioner says only DeadlineExceeded.
package cephxrefusal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	corev1informers "k8s.io/client-go/informers/core/v1"
	storagev1informers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// ControllerName names the controller (its events' component, its log lines). It writes no condition.
const ControllerName = "CephxRefusalController"

// EventReason is the reason of the Warning event on the claim.
const EventReason = "CephxAccessRefused"

// Annotations of the claim's event: the share and the rule it is about (the dedupe key, with the
// claim's UID, is the event's name).
const (
	AnnotationShare      = "manila.csi.openstack.org/share-id"
	AnnotationAccessRule = "manila.csi.openstack.org/access-rule-id"
)

// provisioningFailed selects, on the API server, the events the controller reads: csi-provisioner's
// (and kube-controller-manager's) ProvisioningFailed on claims.
var provisioningFailed = fields.SelectorFromSet(fields.Set{
	"involvedObject.kind": "PersistentVolumeClaim",
	"reason":              "ProvisioningFailed",
}).String()

// saidFor is how long a claim diagnosed (its event created or found) is not asked about again: the
// API server's default event TTL, after which the event is gone and, should the claim still fail,
// another one is due.
const saidFor = time.Hour

// recheckAfter is how long after Manila showed no refused rule for a claim it is asked again: the
// retries of a claim failing for another reason (csi-provisioner's backoff starts at a second) cost
// one requeue, not a claim GET and Manila requests each.
const recheckAfter = 30 * time.Second

// Manila reads the claim's shares and their access rules.
type Manila interface {
	Shares(ctx context.Context, metadata map[string]string) ([]openstack.Share, error)
	AccessRules(ctx context.Context, shareID string) ([]openstack.AccessRule, error)
}

// ErrNoSession means the Manila controller has not (yet, or any more) logged in to a cloud with Manila.
var ErrNoSession = errors.New("no OpenStack session that found Manila yet")

// SharedManila reads Manila through the Manila controller's session (openstack.Shared).
type SharedManila struct{ Sessions *openstack.Shared }

func (m SharedManila) client() (*gophercloud.ServiceClient, error) {
	client, ok := m.Sessions.Manila()
	if !ok {
		return nil, ErrNoSession
	}
	return client, nil
}

func (m SharedManila) Shares(ctx context.Context, metadata map[string]string) ([]openstack.Share, error) {
	client, err := m.client()
	if err != nil {
		return nil, err
	}
	return openstack.ListSharesByMetadata(ctx, client, metadata)
}

func (m SharedManila) AccessRules(ctx context.Context, shareID string) ([]openstack.AccessRule, error) {
	client, err := m.client()
	if err != nil {
		return nil, err
	}
	return openstack.ListAccessRules(ctx, client, shareID)
}

// Deps are the Controller's collaborators. Kube is the client of the cluster where the claims are
// (hosted, the guest's); StorageClasses its class informer (cluster-wide, shared); OperatorConfigMaps
// the operator namespace's ConfigMap informer (the operator config).
type Deps struct {
	OperatorClient     v1helpers.OperatorClient
	Config             *operatorconfig.Source
	OperatorConfigMaps corev1informers.ConfigMapInformer
	StorageClasses     storagev1informers.StorageClassInformer
	Kube               kubernetes.Interface
	Manila             Manila
	Recorder           events.Recorder
	Clock              clock.PassiveClock
}

// Controller puts a clear event on a claim of the CephFS instance whose cephx access rule Manila put
// in error. Ceph refuses an ID it already holds that its mgr did not create, and Manila's CephFS driver
// refuses its own auth ID; manila-csi-plugin then waits for the rule's key past csi-provisioner's
// timeout, and the claim shows only ProvisioningFailed with DeadlineExceeded.
//
// Watches: Events with reason ProvisioningFailed on PersistentVolumeClaims, through an informer with
// that server-side field selector, run only while cephfs.enabled is true and the ClusterCSIDriver is
// Managed (started and stopped by the sync of the operator config and the ClusterCSIDriver); of those,
// only the CephFS driver's (source component cephfs.manila.csi.openstack.org_...) cost a request. The
// claim is read with one GET (no claim informer), its StorageClass from the shared class informer.
// For a claim of a class of the CephFS driver it asks Manila, through the Manila controller's session
// (no login of its own), for the claim's shares (by the metadata csi-provisioner puts on them) and
// their access rules.
//
// Writes: one Warning event CephxAccessRefused on the claim when one of its shares has a cephx rule in
// state error, naming the ID, the share and the setting to change; never a key. It writes no condition
// (a refused ID is the claim's problem, not the operator's) and nothing in Manila.
//
// Policy: one event per claim UID and rule: the event's name is derived from both, so a second
// create, by this process or the next, is AlreadyExists; a claim once diagnosed is not asked about
// again for an hour (the API server's event TTL), and one where Manila showed none not within 30 s
// (the claim is requeued for then). Failures (no session yet, Manila unreachable) are
// retried with the queue's backoff. It does nothing while the ClusterCSIDriver is not Managed.
type Controller struct {
	d        Deps
	syncCtx  factory.SyncContext
	recorder events.Recorder

	mu       sync.Mutex
	stop     context.CancelFunc
	informer cache.SharedIndexInformer
	said     map[types.UID]time.Time
	// checked is when Manila last showed no refused rule for a claim.
	checked map[types.UID]time.Time
}

// NewController returns the factory controller.
func NewController(d Deps) factory.Controller {
	if d.Clock == nil {
		d.Clock = clock.RealClock{}
	}
	recorder := d.Recorder.WithComponentSuffix("cephx-refusal")
	c := &Controller{d: d, recorder: recorder, said: map[types.UID]time.Time{}, checked: map[types.UID]time.Time{}}
	c.syncCtx = factory.NewSyncContext(ControllerName, recorder)
	return factory.New().
		WithSyncContext(c.syncCtx).
		WithSync(c.sync).
		WithInformers(d.OperatorClient.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(operatorconfig.ConfigMapName, operatorconfig.LegacyConfigMapName), d.OperatorConfigMaps.Informer()).
		WithBareInformers(d.StorageClasses.Informer()).
		ToController(ControllerName, recorder)
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	active, err := c.active()
	if err != nil {
		return err
	}
	key := syncCtx.QueueKey()
	if key == factory.DefaultQueueKey {
		if active {
			c.watch(ctx)
		} else {
			c.unwatch()
		}
		return nil
	}
	if !active {
		return nil
	}
	claim, ok := parseKey(key)
	if !ok {
		return nil
	}
	return c.diagnose(ctx, claim, func(after time.Duration) { syncCtx.Queue().AddAfter(key, after) })
}

// active is whether the controller has work: cephfs.enabled in the operator config in force and the
// ClusterCSIDriver Managed.
func (c *Controller) active() (bool, error) {
	cfg, _ := c.d.Config.Current()
	if cfg == nil || !cfg.CephFS.Enabled {
		return false, nil
	}
	return managementstate.Managed(c.d.OperatorClient)
}

// watch starts the events informer, unless it runs.
func (c *Controller) watch(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.informer != nil {
		return
	}
	informer := corev1informers.NewFilteredEventInformer(c.d.Kube, metav1.NamespaceAll, 0, cache.Indexers{},
		func(o *metav1.ListOptions) { o.FieldSelector = provisioningFailed })
	_ = informer.SetTransform(Slim) // cannot fail before Run
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueue(obj) },
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
	})
	run, stop := context.WithCancel(ctx)
	go informer.RunWithContext(run)
	c.informer, c.stop = informer, stop
	klog.V(2).Infof("%s: watching ProvisioningFailed events of claims (cephfs.enabled)", ControllerName)
}

// unwatch stops the events informer and forgets what it said: it is not needed while CephFS is off.
func (c *Controller) unwatch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop == nil {
		return
	}
	c.stop()
	c.informer, c.stop = nil, nil
	c.said, c.checked = map[types.UID]time.Time{}, map[types.UID]time.Time{}
	klog.V(2).Infof("%s: stopped watching events (cephfs.enabled is false or the ClusterCSIDriver is not Managed)", ControllerName)
}

func (c *Controller) enqueue(obj any) {
	if key, ok := KeyOf(obj); ok {
		c.syncCtx.Queue().Add(key)
	}
}

// Slim is the events informer's transform: of an event it keeps what KeyOf reads.
func Slim(obj any) (any, error) {
	ev, ok := obj.(*corev1.Event)
	if !ok {
		return obj, nil
	}
	return &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: ev.Name, Namespace: ev.Namespace, UID: ev.UID, ResourceVersion: ev.ResourceVersion},
		InvolvedObject:      ev.InvolvedObject,
		Reason:              ev.Reason,
		Source:              ev.Source,
		ReportingController: ev.ReportingController,
	}, nil
}

// KeyOf returns the queue key ("namespace/name/uid") of the claim a ProvisioningFailed event of the
// CephFS driver's csi-provisioner is about. Its source component is <driver>_<host>_<uuid>
// (sig-storage-lib-external-provisioner): the failures of other drivers' claims cost nothing more.
func KeyOf(obj any) (string, bool) {
	ev, ok := obj.(*corev1.Event)
	if !ok || ev.InvolvedObject.Kind != "PersistentVolumeClaim" || ev.Reason != "ProvisioningFailed" || ev.InvolvedObject.UID == "" {
		return "", false
	}
	prefix := names.CephFSDriverName + "_"
	if !strings.HasPrefix(ev.Source.Component, prefix) && !strings.HasPrefix(ev.ReportingController, prefix) {
		return "", false
	}
	o := ev.InvolvedObject
	return o.Namespace + "/" + o.Name + "/" + string(o.UID), true
}

func parseKey(key string) (Claim, bool) {
	parts := strings.Split(key, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return Claim{}, false
	}
	return Claim{Namespace: parts[0], Name: parts[1], UID: types.UID(parts[2])}, true
}

// diagnose reads the claim, its class and Manila, and records the event when a cephx rule is in error.
func (c *Controller) diagnose(ctx context.Context, claim Claim, requeue func(after time.Duration)) error {
	now := c.d.Clock.Now()
	said, wait := c.recall(claim.UID, now)
	if said {
		return nil
	}
	if wait > 0 {
		requeue(wait)
		return nil
	}
	pvc, err := c.d.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace).Get(ctx, claim.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if pvc.UID != claim.UID || pvc.Spec.StorageClassName == nil {
		return nil // another claim of that name now, or one without a class
	}
	class, err := c.d.StorageClasses.Lister().Get(*pvc.Spec.StorageClassName)
	if apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if class.Provisioner != names.CephFSDriverName {
		return nil
	}
	shares, err := c.d.Manila.Shares(ctx, claim.ShareMetadata())
	if err != nil {
		return err
	}
	var withRules []ShareRules
	for _, s := range SharesOf(claim, shares) {
		rules, err := c.d.Manila.AccessRules(ctx, s.ID)
		if err != nil {
			return err
		}
		withRules = append(withRules, ShareRules{Share: s, Rules: rules})
	}
	f := Diagnose(claim, class.Parameters, withRules)
	if f.Message == "" {
		klog.V(4).Infof("%s: claim %s/%s: no cephx access rule in error in Manila", ControllerName, claim.Namespace, claim.Name)
		c.mu.Lock()
		c.checked[claim.UID] = now
		c.mu.Unlock()
		return nil
	}
	if err := c.record(ctx, pvc, f, now); err != nil {
		return err
	}
	c.markSaid(claim.UID, now)
	return nil
}

// recall says whether the claim was diagnosed within saidFor, and how long to wait before asking Manila
// about it again when Manila showed nothing within recheckAfter; it forgets what is older.
func (c *Controller) recall(uid types.UID, now time.Time) (said bool, wait time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, at := range c.said {
		if now.Sub(at) >= saidFor {
			delete(c.said, k)
		}
	}
	for k, at := range c.checked {
		if now.Sub(at) >= recheckAfter {
			delete(c.checked, k)
		}
	}
	if _, ok := c.said[uid]; ok {
		return true, 0
	}
	if at, ok := c.checked[uid]; ok {
		return false, recheckAfter - now.Sub(at)
	}
	return false, 0
}

func (c *Controller) markSaid(uid types.UID, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.said[uid] = now
}

// record creates the Warning event on the claim, named by EventName: AlreadyExists means it was said.
func (c *Controller) record(ctx context.Context, pvc *corev1.PersistentVolumeClaim, f Finding, now time.Time) error {
	ts := metav1.NewTime(now)
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:        EventName(pvc.Name, pvc.UID, f.RuleID),
			Namespace:   pvc.Namespace,
			Annotations: map[string]string{AnnotationShare: f.ShareID, AnnotationAccessRule: f.RuleID},
		},
		InvolvedObject: corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace,
			Name: pvc.Name, UID: pvc.UID, ResourceVersion: pvc.ResourceVersion},
		Reason:         EventReason,
		Message:        f.Message,
		Type:           corev1.EventTypeWarning,
		Source:         corev1.EventSource{Component: names.OperatorName},
		FirstTimestamp: ts,
		LastTimestamp:  ts,
		Count:          1,
	}
	_, err := c.d.Kube.CoreV1().Events(pvc.Namespace).Create(ctx, ev, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	} else if err != nil {
		return err
	}
	klog.Infof("%s: Warning %s on claim %s/%s: %s", ControllerName, EventReason, pvc.Namespace, pvc.Name, f.Message)
	return nil
}

// maxName is the longest name an Event may have (a DNS subdomain).
const maxName = 253

// EventName is the name of the event about the claim's rule: the claim's name and a hash of its UID
// and the rule's ID, so that each claim and rule gets one event whoever creates it.
func EventName(claim string, uid types.UID, ruleID string) string {
	sum := sha256.Sum256([]byte(string(uid) + "/" + ruleID))
	suffix := ".cephx-" + hex.EncodeToString(sum[:])[:16]
	if len(claim)+len(suffix) > maxName {
		claim = strings.TrimRight(claim[:maxName-len(suffix)], ".-")
	}
	return claim + suffix
}
