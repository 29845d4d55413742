// Package storageclasses keeps one StorageClass per Manila share type and protocol (NFS, and CEPHFS
// while cephfs.enabled is true).
package storageclasses

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/csi/csistorageclasscontroller"
	"github.com/openshift/library-go/pkg/operator/events"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/kubernetes"
	storageclient "k8s.io/client-go/kubernetes/typed/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/claimwatch"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/metrics"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// ControllerName prefixes the controller's conditions.
const ControllerName = "StorageClassController"

// Conditions: Degraded when an admin must act (a foreign class in the way, a DHSS share type without a
// share network); Stale lists the operator's classes whose share type is gone (removed when none).
const (
	ConditionDegraded = ControllerName + "Degraded"
	ConditionStale    = ControllerName + "Stale"
)

// ConditionTypes are the condition types the controller writes.
func ConditionTypes() []string {
	return []string{ConditionDegraded, ConditionStale, ConditionNotAdopted, ConditionOpenNFSAccess, ConditionNodesExcluded, ConditionProgressing, ConditionCephFSRetained}
}

// Controller keeps one StorageClass per Manila share type and protocol: an NFS class (csi-manila-*)
// for a type that may serve NFS, and while cephfs.enabled is true a CephFS class (manila-cephfs-*,
// annotation manila.csi.openstack.org/protocol: CEPHFS) for a type whose storage_protocol names CEPHFS.
//
// Watches: each successful share-type listing of the Manila controller (no OpenStack request of its
// own), StorageClasses named csi-manila-* or manila-cephfs-* or carrying its owner label, the operator
// ConfigMap and the ClusterCSIDriver (spec.storageClassState); for nfs-shareClient: machineNetwork,
// ConfigMap kube-system/cluster-config-v1; while any nfs-shareClient is set (machineNetwork
// included), the Nodes' InternalIP addresses (only changes of those);
// while one of its CephFS classes is being retired (cephfs.enabled false), PersistentVolumeClaims
// naming a manila-cephfs-* class (created or deleted only), through a watch that runs only then
// (claimwatch): the cluster's claims are not cached otherwise.
//
// Writes: StorageClasses (only differences, compared through the informer cache, so a poll that
// changes nothing writes nothing; a class it just created is read back from client-go's mutation cache
// until the informer shows it), conditions StorageClassControllerDegraded,
// StorageClassControllerStale, StorageClassControllerProgressing,
// StorageClassControllerOpenNFSAccess, StorageClassControllerNodesExcluded (NFS classes whose
// nfs-shareClient admits no InternalIP of some Nodes) and StorageClassControllerCephFSRetained, events, and metric
// storage_classes (classes by state).
//
// Adoption: a class without the owner label whose provisioner is the driver, whose `type` names a
// listed share type and whose secret parameters all name the driver secret (what OpenShift's own
// Manila operator leaves) is adopted while storageClassState is Managed: an update adds the owner
// label and annotations, keeping the admin's; a class whose immutable fields must change (4.17's lack
// controller-expand-secret-*) is recreated, one per sync, with its labels and annotations. Classes of
// the driver it does not adopt are named with the reason in StorageClassControllerNotAdopted.
//
// Policy: it writes nothing unless the ClusterCSIDriver is Managed (checked again at each write:
// managementstate.GatedStorageClasses). It never touches a class without
// its owner label unless it adopts it, nor a copy of one of its classes under another name (the
// label, and a class-name annotation naming another class: classplan.Owned), which it never adopts.
// Every recreate carries the class's labels and annotations over.
// It deletes classes it created only when storageClassState is Removed (adopted ones are released:
// its label and annotations removed), or when pruning is configured and the share type was absent
// from that many successful listings in a row. A failed listing changes nothing. A class follows its share type
// by ID: a type renamed in Manila keeps its class, recreated under the same name with the new `type`
// and a ShareTypeRenamed event, never marked stale. A class whose nfs-shareClient names
// machineNetwork while the machine network is not known is neither created nor updated; when it
// changes, the classes are recreated with the new list (parameters are immutable). While
// cephfs.enabled is false its CephFS classes are retired: each one no claim names (spec.storageClassName)
// is deleted, each one a claim names is kept, with a StorageClassRetained event and
// StorageClassControllerCephFSRetained, until no claim names it; while the claims are still being
// listed such a class is left as it is (and the condition as last written), the others planned as ever.
type Controller struct {
	operatorClient condition.OperatorClient
	evaluator      *csistorageclasscontroller.StorageClassStateEvaluator
	client         storageclient.StorageClassesGetter
	listings       *manilatypes.Store
	config         *operatorconfig.Source
	clock          clock.PassiveClock
	machineNetwork machineNetworkInputs
	claims         claimSource

	lastSeq  uint64
	absent   map[string]int
	reported map[string]bool
	// recent is the informer's view with the classes this controller created since (newRecentClasses).
	recent cache.MutationCache
	// counting is whether some owned class's share type is missing from listings (len(absent) > 0
	// after the last sync), read by the listing subscription on the poller's goroutine.
	counting atomic.Bool
}

// Deps are the Controller's collaborators.
type Deps struct {
	OperatorClient           condition.OperatorClient
	Evaluator                *csistorageclasscontroller.StorageClassStateEvaluator
	ClusterCSIDriverInformer cache.SharedIndexInformer
	StorageClasses           storageinformers.StorageClassInformer
	ConfigMaps               corev1informers.ConfigMapInformer
	Client                   storageclient.StorageClassesGetter
	Listings                 *manilatypes.Store
	Config                   *operatorconfig.Source
	Recorder                 events.Recorder
	Clock                    clock.PassiveClock

	// InstallConfig holds ConfigMap kube-system/cluster-config-v1 only; Nodes every Node.
	InstallConfig corev1informers.ConfigMapInformer
	Nodes         corev1informers.NodeInformer
	// Kube lists and watches the cluster's PersistentVolumeClaims while a CephFS class is retired
	// (cephfs.enabled false): it is deleted only when no claim names it.
	Kube kubernetes.Interface
}

// NewController returns the factory controller, triggered also by every published listing.
func NewController(d Deps) factory.Controller {
	c := &Controller{
		operatorClient: d.OperatorClient,
		evaluator:      d.Evaluator,
		client:         managementstate.GatedStorageClasses(d.Client, d.OperatorClient),
		listings:       d.Listings,
		config:         d.Config,
		clock:          d.Clock,
		absent:         map[string]int{},
		reported:       map[string]bool{},
		recent:         newRecentClasses(d.StorageClasses.Informer()),

		machineNetwork: machineNetworkInputs{
			installConfig: d.InstallConfig.Lister().ConfigMaps(machinenetwork.InstallConfigNamespace),
			nodes:         d.Nodes.Lister(),
		},
	}
	recorder := d.Recorder.WithComponentSuffix("storageclass-controller")
	syncCtx := factory.NewSyncContext(ControllerName, recorder)
	c.claims = claimwatch.New(d.Kube, namesCephFSClass, func() { syncCtx.Queue().Add(factory.DefaultQueueKey) })
	d.Listings.Subscribe(func() {
		if needsSync(d.Listings.Latest(), c.counting.Load()) {
			syncCtx.Queue().Add(factory.DefaultQueueKey)
		}
	})
	return factory.New().
		WithSyncContext(syncCtx).
		WithSync(c.sync).
		WithFilteredEventsInformers(ours, d.StorageClasses.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(operatorconfig.ConfigMapName, operatorconfig.LegacyConfigMapName), d.ConfigMaps.Informer()).
		WithInformers(d.ClusterCSIDriverInformer, d.InstallConfig.Informer(),
			&addressEvents{informer: d.Nodes.Informer(), wanted: c.judgesNodeAddresses}).
		ToController(ControllerName, recorder)
}

// needsSync says whether a new listing can change anything: one like the previous cannot, unless
// classes are counting listings toward pruning. Every other input (classes, the operator config, the
// ClusterCSIDriver) triggers a sync through its informer.
func needsSync(l *manilatypes.Listing, counting bool) bool {
	return l == nil || !l.Unchanged || counting
}

// ours keeps events of classes the operator may own or collide with.
func ours(obj interface{}) bool {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	sc, ok := obj.(*storagev1.StorageClass)
	return ok && (strings.HasPrefix(sc.Name, classplan.NamePrefix) || strings.HasPrefix(sc.Name, classplan.CephFSNamePrefix) ||
		classplan.Owned(sc) || sc.Provisioner == names.CSIDriverName || sc.Provisioner == names.CephFSDriverName)
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	if managed, err := managementstate.Managed(c.operatorClient); err != nil || !managed {
		return err // Unmanaged and Removed: the admin owns the classes; not a single write
	}
	listing := c.listings.Latest()
	cfg, _ := c.config.Current()
	if listing == nil || cfg == nil {
		return nil // no listing yet, or no valid configuration ever: change nothing
	}
	if cfg.Topology.Zonal() && listing.Zones == nil {
		return nil // topology just turned on: the Manila controller polls for the zones at once
	}
	state := c.evaluator.GetStorageClassState(names.CSIDriverName)
	all, err := c.listClasses()
	if err != nil {
		return err
	}
	owners := map[string]classplan.Owner{}
	existing := map[string]*storagev1.StorageClass{}
	byName := map[string]*storagev1.StorageClass{}
	for _, sc := range all {
		byName[sc.Name] = sc
		if classplan.Owned(sc) {
			existing[sc.Name] = sc
			owners[sc.Name] = classplan.OwnerOf(sc)
		}
	}
	// OpenShift's own Manila operator's classes (and ones made the same way) are taken over: treated as
	// the operator's, by share-type ID, from here on.
	adoption := classplan.Adoptions(all, listing.Types, owners)
	for name, st := range adoption.Adopt {
		owners[name] = classplan.Owner{ID: st.ID, Name: st.Name}
	}
	settings, resolution, err := c.resolveShareClients(cfg.StorageClasses)
	if err != nil {
		return err
	}
	cephFS := cfg.CephFS.Enabled
	wanted, skipped := classplan.DesiredFor(listing.Types, settings, cephFS, owners)
	var zones map[string]bool
	if cfg.Topology.Zonal() {
		var zoneSkipped []classplan.Skipped
		wanted, zoneSkipped = classplan.Zonal(wanted, cfg.Topology, listing.Zones, owners)
		skipped = append(skipped, zoneSkipped...)
		zones = map[string]bool{}
		for _, z := range listing.Zones {
			zones[z] = true
		}
	}
	notices := classplan.ApplyDefault(wanted, all, cfg.StorageClasses.DefaultShareType)
	access := nfsAccess{resolution: resolution}
	wanted, access.held = classplan.HoldUnresolved(wanted)
	if state == operatorv1.RemovedStorageClass {
		access.held = nil // no class is written anyway
	}
	for _, w := range wanted {
		if sc, ok := byName[w.Class.Name]; ok {
			existing[sc.Name] = sc
		}
	}
	for _, name := range access.held {
		// Held for the machine network: neither wanted nor stale (a per-zone class would otherwise
		// read as gone), so the plan leaves it as it is.
		delete(existing, name)
	}
	listed := map[string]bool{}
	for _, st := range listing.Types {
		listed[st.ID] = true
	}
	if listing.Complete {
		c.countAbsences(listing.Seq, existing, wanted, listed, zones, cephFS)
	} else {
		// A partial listing proves no absence: every owned class counts as listed.
		for _, sc := range existing {
			if classplan.Owned(sc) {
				listed[sc.Annotations[classplan.ShareTypeIDAnnotation]] = true
			}
		}
	}

	adopt := map[string]bool{}
	for name := range adoption.Adopt {
		adopt[name] = true
	}
	// While the claims are being listed the retiring classes wait (the watch runs this sync again once
	// they are in); every other class is planned now.
	claims, known, err := c.claimsNaming(ctx, existing, cephFS)
	if err != nil {
		return err
	}
	plan := classplan.Plan(classplan.Input{
		State: state, Wanted: wanted, Existing: existing, Adopt: adopt, Listed: listed, Zones: zones,
		Absent: c.absent, PruneAfter: cfg.StorageClasses.PruneAfter(), Now: c.clock.Now(),
		CephFS: cephFS, Claims: claims, ClaimsUnknown: !known,
	})
	if state != operatorv1.RemovedStorageClass {
		access.open = openClasses(wanted, plan.Conflicts)
		if access.excluding, err = c.excludingClasses(wanted, plan.Conflicts); err != nil {
			return err
		}
	}
	applyErr := c.apply(ctx, syncCtx.Recorder(), plan.Actions)
	if errors.Is(applyErr, managementstate.ErrNotManaged) {
		return nil // set Unmanaged while this sync ran: no more writes, events or conditions
	}
	c.counting.Store(len(c.absent) > 0)
	notAdoptedCond, notAdoptedEvents := notAdopted(adoption.Refused, plan.Conflicts)
	more := append(append(accessEvents(access), notAdoptedEvents...), retainedEvents(plan.Retained)...)
	c.reportOnce(syncCtx.Recorder(), skipped, plan.Conflicts, notices, more)
	// A class held for the machine network serves its share type all the same (kept or to come).
	metrics.SetClasses(census(state, len(wanted)+len(access.held), skipped, plan))
	if len(plan.Deferred) > 0 {
		// The created class's event brings the next sync; this covers a failed create.
		syncCtx.Queue().AddAfter(factory.DefaultQueueKey, 5*time.Second)
	}
	if creates(plan.Actions) {
		// A class created and at once deleted by someone else reads as present until writeSettleTimeout:
		// look again then.
		syncCtx.Queue().AddAfter(factory.DefaultQueueKey, writeSettleTimeout+time.Second)
	}
	updates := append(conditions(skipped, plan, adoption.Refused), accessConditions(access)...)
	updates = append(updates, notAdoptedCond)
	if known {
		// Unknown, what is retained stays as last said.
		updates = append(updates, retainedCondition(plan.Retained))
	}
	if _, err := condition.Update(ctx, c.operatorClient, updates...); err != nil {
		return errors.Join(applyErr, err)
	}
	return applyErr
}

// countAbsences advances, once per listing, how many listings in a row lacked each owned class's type
// (or, for a class limited to Manila zones, its zones). A CephFS class retired while cephfs.enabled
// is false is never stale, so it counts nothing.
func (c *Controller) countAbsences(seq uint64, existing map[string]*storagev1.StorageClass, wanted []classplan.Wanted, listed, zones map[string]bool, cephFS bool) {
	if seq == c.lastSeq {
		return
	}
	c.lastSeq = seq
	wantedNames := map[string]bool{}
	for _, w := range wanted {
		wantedNames[w.Class.Name] = true
	}
	for name, sc := range existing {
		if !classplan.Owned(sc) || wantedNames[name] || classplan.Retiring(sc, cephFS) || !classplan.Gone(sc, listed, zones) {
			delete(c.absent, name)
			continue
		}
		c.absent[name]++
	}
}

func (c *Controller) apply(ctx context.Context, recorder events.Recorder, actions []classplan.Action) error {
	var errs []error
	api := c.client.StorageClasses()
	for _, a := range actions {
		var err error
		switch a.Kind {
		case classplan.Create:
			var created *storagev1.StorageClass
			if created, err = api.Create(ctx, a.Class, metav1.CreateOptions{}); err == nil {
				c.recent.Mutation(created)
				recorder.Eventf("StorageClassCreated", "Created StorageClass %s for share type %q", a.Class.Name, a.Class.Annotations[classplan.ShareTypeNameAnnotation])
			}
		case classplan.Update:
			_, err = api.Update(ctx, a.Class, metav1.UpdateOptions{})
			if err == nil && a.Adopting {
				adoptionEvent(recorder, a)
			} else if err == nil {
				recorder.Eventf("StorageClassUpdated", "Updated StorageClass %s", a.Class.Name)
			}
		case classplan.Release:
			_, err = api.Update(ctx, a.Class, metav1.UpdateOptions{})
			if err == nil {
				recorder.Eventf("StorageClassReleased", "Released StorageClass %s (storageClassState Removed): it was adopted, not created, so it keeps existing without the operator's label and annotations",
					a.Class.Name)
			}
		case classplan.Recreate:
			err = api.Delete(ctx, a.Class.Name, preconditions(a.Existing))
			if err == nil || apierrors.IsNotFound(err) {
				var created *storagev1.StorageClass
				if created, err = api.Create(ctx, a.Class, metav1.CreateOptions{}); err == nil {
					c.recent.Mutation(created)
				}
			}
			if from, to, renamed := classplan.Renamed(a); err == nil && a.Adopting {
				adoptionEvent(recorder, a)
			} else if err == nil && renamed {
				recorder.Eventf("ShareTypeRenamed", "Share type %s was renamed from %q to %q in Manila: recreated StorageClass %s (same name) with type=%s; existing volumes are not affected",
					a.Class.Annotations[classplan.ShareTypeIDAnnotation], from, to, a.Class.Name, to)
			} else if err == nil {
				recorder.Eventf("StorageClassRecreated", "Recreated StorageClass %s with its labels and annotations: %s changed, which a StorageClass cannot update in place; existing volumes are not affected",
					a.Class.Name, strings.Join(classplan.ImmutableChanges(a.Class, a.Existing), ", "))
			}
		case classplan.Delete:
			err = api.Delete(ctx, a.Class.Name, preconditions(a.Class))
			if apierrors.IsNotFound(err) {
				err = nil
			}
			if err == nil {
				delete(c.absent, a.Class.Name)
				if a.Why != "" {
					recorder.Eventf("StorageClassDeleted", "Deleted StorageClass %s: %s", a.Class.Name, a.Why)
				} else {
					recorder.Eventf("StorageClassDeleted", "Deleted StorageClass %s", a.Class.Name)
				}
			}
		}
		if errors.Is(err, managementstate.ErrNotManaged) {
			return err // no longer Managed: the rest of the plan is not tried either
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s StorageClass %s: %w", strings.ToLower(string(a.Kind)), a.Class.Name, err))
		}
	}
	return errors.Join(errs...)
}

// creates tells whether actions create a class (also by recreating one).
func creates(actions []classplan.Action) bool {
	return slices.ContainsFunc(actions, func(a classplan.Action) bool {
		return a.Kind == classplan.Create || a.Kind == classplan.Recreate
	})
}

// preconditions make a delete apply only to the very object the plan saw (same UID, unchanged since):
// a class deleted and recreated by someone else in between, or edited, fails with a conflict and is
// planned again from the fresh cache.
func preconditions(seen *storagev1.StorageClass) metav1.DeleteOptions {
	uid, rv := seen.UID, seen.ResourceVersion
	return metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}}
}

// reportOnce sends one event per skipped share type, per conflicting class, per default-class
// notice and per NFS access finding (more) while they last.
func (c *Controller) reportOnce(recorder events.Recorder, skipped []classplan.Skipped, conflicts, notices []string, more []event) {
	current := map[string]bool{}
	for _, s := range skipped {
		key := "skip/" + s.ShareType.ID + "/" + s.Reason
		current[key] = true
		if !c.reported[key] {
			recorder.Warningf("ShareTypeSkipped", "No StorageClass for %s", s.Reason)
		}
	}
	for _, name := range conflicts {
		key := "conflict/" + name
		current[key] = true
		if !c.reported[key] {
			recorder.Warningf("StorageClassConflict", "%s", conflictMessage(name))
		}
	}
	for _, notice := range notices {
		key := "notice/" + notice
		current[key] = true
		if !c.reported[key] {
			recorder.Warningf("DefaultStorageClass", "%s", notice)
		}
	}
	for _, e := range more {
		key := "event/" + e.reason + "/" + e.message
		current[key] = true
		if !c.reported[key] {
			e.send(recorder)
		}
	}
	c.reported = current
}

func conflictMessage(name string) string {
	return fmt.Sprintf("StorageClass %s exists without label %s=%s, so the operator leaves it alone; delete or rename it to let the operator create its class",
		name, classplan.OwnerLabel, classplan.OwnerLabelValue)
}

func conditions(skipped []classplan.Skipped, plan classplan.Result, refused map[string]string) []condition.Change {
	var problems []string
	for _, name := range plan.Conflicts {
		problems = append(problems, conflictMessage(name)+conflictReason(name, refused))
	}
	for _, s := range skipped {
		if s.NeedsAction {
			problems = append(problems, "No StorageClass for "+s.Reason)
		}
	}
	sort.Strings(problems)
	problems = slices.Compact(problems) // a type's NFS and CephFS classes may be skipped for one reason
	degraded := operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionFalse, Reason: "AsExpected"}
	if len(problems) > 0 {
		degraded = operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionTrue,
			Reason: "ActionRequired", Message: strings.Join(problems, "; ")}
	}
	stale := operatorv1.OperatorCondition{Type: ConditionStale}
	if len(plan.Stale) > 0 {
		stale = operatorv1.OperatorCondition{Type: ConditionStale, Status: operatorv1.ConditionTrue, Reason: "ShareTypesGone",
			Message: "StorageClasses whose Manila share type (or availability zone) no longer exists (kept for new claims; set storageClasses.prune to delete them): " + strings.Join(plan.Stale, ", ")}
	}
	return []condition.Change{condition.Set(degraded), trueOrRemoved(stale)}
}
