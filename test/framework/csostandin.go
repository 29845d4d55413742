package framework

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	operatorinformers "github.com/openshift/client-go/operator/informers/externalversions"
	"github.com/openshift/library-go/pkg/crypto"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// CSOStandIn is one cluster's half of the hosted CSO stand-in (CSOHostedStandIn: the management
// cluster's and the guest's): it applies CSO's objects there and writes ClusterOperator storage from
// the ClusterCSIDriver's conditions. A standalone cluster runs the real CSO (StartCSO); the hosted
// shape stays stood in because the world does not run CSO's HyperShift mode. It mirrors this CSO code
// (github.com/openshift/cluster-storage-operator, main bb8d2fd1):
//
//   - pkg/operator/csidriveroperator/deploymentcontroller.go (CSIDriverOperatorDeploymentController.Sync):
//     the Deployment applied with the spec-hash annotation library-go's ApplyDeployment uses (a
//     changed image rolls it); postSync's isProgressing and checkDeploymentHealth:
//     ManilaCSIDriverOperatorDeployment{Progressing,Degraded}.
//   - pkg/operator/csidriveroperator/crcontroller.go (Sync, applyClusterCSIDriver, syncConditions):
//     the ClusterCSIDriver created when missing and never updated; its conditions turned into
//     ManilaCSIDriverOperatorCR{Available,Progressing,Degraded,Upgradeable}: Available the union of
//     every *Available (none at all: False, WaitForOperator; any *Disabled: True, DriverDisabled),
//     Progressing the union of *Progressing (none: True, WaitForOperator), Degraded the union of
//     *Degraded, Upgradeable the union of *Upgradeable (none: True), with library-go's
//     status.UnionCondition (unionCondition here).
//   - library-go's status.NewClusterOperatorStatusController (pkg/operator/operator_starter.go):
//     ClusterOperator storage's Available, Progressing, Degraded and Upgradeable, the unions of those
//     conditions, created when missing.
//
// Differences: the conditions go straight to ClusterOperator storage, not first into the Storage CR;
// CSO's other drivers, its other controllers and its ClusterOperator versions and relatedObjects are
// not stood in for; Degraded has library-go's 2-minute inertia, as CSO's ClusterOperator status
// controller; every ClusterCSIDriver update is turned into a status at once (CSO's work queue may
// coalesce quick changes, so this sees at least what CSO would).
type CSOStandIn struct {
	Generation CSOGeneration

	w      *World
	ctx    context.Context
	cancel context.CancelFunc
	done   sync.WaitGroup
	kick   chan struct{}

	mu       sync.Mutex
	image    string
	depState struct{ progressing, degraded operatorv1.OperatorCondition }
	history  []string
	// degradedSince is when each of CSO's own Degraded conditions turned True (its
	// lastTransitionTime in the Storage CR), for the ClusterOperator's Degraded inertia.
	degradedSince map[string]time.Time
	// latest are the driver conditions last written, for the write when an inertia runs out.
	latest []operatorv1.OperatorCondition
	logBuf strings.Builder
}

// csoStandInVersion is the release version the stand-in's images carry.
const csoStandInVersion = "5.0.0-test"

// Stop stops the stand-in's loops; it may be called more than once.
func (c *CSOStandIn) Stop() {
	c.cancel()
	c.done.Wait()
}

// ClusterOperator returns ClusterOperator storage.
func (c *CSOStandIn) ClusterOperator(ctx context.Context) (*configv1.ClusterOperator, error) {
	return c.w.ConfigV1.ConfigV1().ClusterOperators().Get(ctx, CSOClusterOperator, metav1.GetOptions{})
}

// History lists every change of ClusterOperator storage's conditions the stand-in wrote.
func (c *CSOStandIn) History() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string{}, c.history...)
}

// Log is what the stand-in did and the errors it met.
func (c *CSOStandIn) Log() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logBuf.String()
}

func (c *CSOStandIn) logf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(&c.logBuf, "%s %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

// ---------------------------------------------------------------- the Deployment controller

// tlsSettingsFromProfile is CSO's TLSSettingsFromProfile: the minimum version and IANA cipher names of
// the profile, Intermediate when there is none, it is empty or unknown, or Custom without settings.
func tlsSettingsFromProfile(profile *configv1.TLSSecurityProfile) (string, []string) {
	spec := configv1.TLSProfiles[configv1.TLSProfileIntermediateType]
	switch {
	case profile == nil || profile.Type == "":
	case profile.Type == configv1.TLSProfileCustomType:
		if profile.Custom != nil {
			spec = &profile.Custom.TLSProfileSpec
		}
	default:
		if s, ok := configv1.TLSProfiles[profile.Type]; ok && s != nil {
			spec = s
		}
	}
	return string(spec.MinTLSVersion), crypto.OpenSSLToIANACipherSuites(spec.Ciphers)
}

// specHashAnnotation is where library-go's ApplyDeployment keeps the hash of the spec it applied.
const specHashAnnotation = "operator.openshift.io/spec-hash"

// apply creates obj or updates the existing object to it, as library-go's resourceapply does: labels
// and annotations merged into the existing ones, everything else replaced; a Deployment only when
// its spec's hash changed.
func (c *CSOStandIn) apply(ctx context.Context, obj *unstructured.Unstructured) error {
	ri, err := c.w.resourceFor(obj)
	if err != nil {
		return err
	}
	if obj.GetKind() == "Deployment" {
		spec, _, _ := unstructured.NestedFieldCopy(obj.Object, "spec")
		b, err := json.Marshal(spec)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ann := obj.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[specHashAnnotation] = hex.EncodeToString(sum[:])
		obj.SetAnnotations(ann)
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = ri.Create(ctx, obj, metav1.CreateOptions{})
			if err == nil {
				c.logf("created %s %s/%s", obj.GetKind(), obj.GetNamespace(), obj.GetName())
			}
			return err
		}
		if err != nil {
			return err
		}
		want := obj.DeepCopy()
		labels, annotations := cur.GetLabels(), cur.GetAnnotations()
		want.SetLabels(mergeMaps(labels, obj.GetLabels()))
		want.SetAnnotations(mergeMaps(annotations, obj.GetAnnotations()))
		if obj.GetKind() == "Deployment" && cur.GetAnnotations()[specHashAnnotation] == obj.GetAnnotations()[specHashAnnotation] &&
			equalMaps(labels, want.GetLabels()) && equalMaps(annotations, want.GetAnnotations()) {
			return nil
		}
		// Keep what the server owns: identity, status, and the fields of the existing object that the
		// required one does not set (a Service's cluster IP, a Namespace's spec).
		for k, v := range cur.Object {
			if _, ok := want.Object[k]; !ok && k != "metadata" {
				want.Object[k] = v
			}
		}
		want.SetResourceVersion(cur.GetResourceVersion())
		want.SetUID(cur.GetUID())
		want.SetOwnerReferences(cur.GetOwnerReferences())
		want.SetFinalizers(cur.GetFinalizers())
		if obj.GetKind() != "Deployment" && sameObject(withoutMeta(cur), withoutMeta(want)) &&
			equalMaps(labels, want.GetLabels()) && equalMaps(annotations, want.GetAnnotations()) {
			return nil
		}
		if _, err := ri.Update(ctx, want, metav1.UpdateOptions{}); err != nil {
			return err
		}
		c.logf("updated %s %s/%s", obj.GetKind(), obj.GetNamespace(), obj.GetName())
		return nil
	})
}

// createOnly creates obj unless it exists (applyClusterCSIDriver).
func (c *CSOStandIn) createOnly(ctx context.Context, obj *unstructured.Unstructured) error {
	ri, err := c.w.resourceFor(obj)
	if err != nil {
		return err
	}
	_, err = ri.Create(ctx, obj, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err == nil {
		c.logf("created %s %s", obj.GetKind(), obj.GetName())
	}
	return err
}

// ---------------------------------------------------------------- the status

// startStatus starts the informers whose every event turns into ClusterOperator storage's status:
// the ClusterCSIDriver's conditions (the CR controller) and the Deployment's health (the deployment
// controller's postSync and checkDeploymentHealth).
func (c *CSOStandIn) startStatus() error {
	opsFactory := operatorinformers.NewSharedInformerFactoryWithOptions(c.w.Operator, 10*time.Minute,
		operatorinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + names.CSIDriverName }))
	kubeFactory := informers.NewSharedInformerFactoryWithOptions(c.w.Kube, 10*time.Minute, informers.WithNamespace(names.OperatorNamespace),
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
		if err := c.writeClusterOperator(c.ctx, conditions); err != nil && c.ctx.Err() == nil {
			c.logf("writing ClusterOperator storage: %v", err)
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
		c.mu.Lock()
		c.depState.progressing, c.depState.degraded = deploymentConditions(d)
		c.mu.Unlock()
		signal(c.kick) // CSO's deployment controller syncs on every event of its Deployment
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

// deploymentConditions are ManilaCSIDriverOperatorDeployment{Progressing,Degraded}: postSync's
// isProgressing, and checkDeploymentHealth's errors through WithSyncDegradedOnError.
func deploymentConditions(d *appsv1.Deployment) (progressing, degraded operatorv1.OperatorCondition) {
	progressing = operatorv1.OperatorCondition{Type: "ManilaCSIDriverOperatorDeploymentProgressing", Status: operatorv1.ConditionFalse}
	degraded = operatorv1.OperatorCondition{Type: "ManilaCSIDriverOperatorDeploymentDegraded", Status: operatorv1.ConditionFalse}
	replicas := ptr.Deref(d.Spec.Replicas, 1)
	finished := false
	var prog, avail *appsv1.DeploymentCondition
	for i := range d.Status.Conditions {
		switch cond := &d.Status.Conditions[i]; cond.Type {
		case appsv1.DeploymentProgressing:
			prog = cond
			finished = cond.Status == corev1.ConditionTrue && cond.Reason == "NewReplicaSetAvailable"
		case appsv1.DeploymentAvailable:
			avail = cond
		case appsv1.DeploymentReplicaFailure:
			if cond.Status == corev1.ConditionTrue {
				degraded.Status, degraded.Reason = operatorv1.ConditionTrue, "SyncError"
				degraded.Message = fmt.Sprintf("deployment has some pods failing; unavailable replicas=%d", d.Status.UnavailableReplicas)
			}
		}
	}
	switch {
	case d.Generation != d.Status.ObservedGeneration:
		progressing.Status, progressing.Reason, progressing.Message = operatorv1.ConditionTrue, "Deploying", "Waiting for Deployment to act on changes"
	case finished:
	case d.Status.UnavailableReplicas > 0 || d.Status.AvailableReplicas < replicas:
		progressing.Status, progressing.Reason, progressing.Message = operatorv1.ConditionTrue, "Deploying", "Waiting for Deployment to deploy pods"
	case d.Status.UpdatedReplicas < replicas:
		progressing.Status, progressing.Reason, progressing.Message = operatorv1.ConditionTrue, "Deploying", "Waiting for Deployment to update pods"
	}
	switch {
	case prog != nil && prog.Status == corev1.ConditionFalse && prog.Reason == "ProgressDeadlineExceeded":
		degraded.Status, degraded.Reason, degraded.Message = operatorv1.ConditionTrue, "SyncError", prog.Message
	case avail != nil && avail.Status == corev1.ConditionFalse && prog != nil && prog.Status == corev1.ConditionFalse:
		degraded.Status, degraded.Reason = operatorv1.ConditionTrue, "SyncError"
		degraded.Message = fmt.Sprintf("deployment is not available and not progressing; available replicas=%d of %d", d.Status.AvailableReplicas, d.Status.Replicas)
	}
	return progressing, degraded
}

// crConditions is syncConditions: CSO's ManilaCSIDriverOperatorCR* from the ClusterCSIDriver's
// conditions (AllowDisabled is true for Manila).
func crConditions(conditions []operatorv1.OperatorCondition) []operatorv1.OperatorCondition {
	prefix := CSOManilaConditionPfx
	disabled, msg := false, ""
	for _, cond := range conditions {
		if strings.HasSuffix(cond.Type, "Disabled") {
			disabled, msg = true, cond.Message
			break
		}
	}
	var available operatorv1.OperatorCondition
	if disabled {
		available = operatorv1.OperatorCondition{Status: operatorv1.ConditionTrue, Reason: "DriverDisabled",
			Message: "CSI driver for Manila is disabled: " + msg}
	} else {
		available = unionCondition("Available", operatorv1.ConditionTrue, conditions)
		if available.Status == operatorv1.ConditionUnknown {
			available.Status, available.Reason, available.Message = operatorv1.ConditionFalse, "WaitForOperator", "Waiting for Manila operator to report status"
		}
	}
	available.Type = prefix + "Available"
	progressing := unionCondition("Progressing", operatorv1.ConditionFalse, conditions)
	progressing.Type = prefix + "Progressing"
	if progressing.Status == operatorv1.ConditionUnknown {
		if disabled {
			progressing.Status = operatorv1.ConditionFalse
		} else {
			progressing.Status, progressing.Reason, progressing.Message = operatorv1.ConditionTrue, "WaitForOperator", "Waiting for Manila operator to report status"
		}
	}
	upgradeable := operatorv1.OperatorCondition{Type: prefix + "Upgradeable", Status: operatorv1.ConditionTrue}
	for _, cond := range conditions {
		if strings.HasSuffix(cond.Type, "Upgradeable") {
			upgradeable = unionCondition("Upgradeable", operatorv1.ConditionTrue, conditions)
			upgradeable.Type = prefix + "Upgradeable"
			break
		}
	}
	degraded := unionCondition("Degraded", operatorv1.ConditionFalse, conditions)
	degraded.Type = prefix + "Degraded"
	if degraded.Status == operatorv1.ConditionUnknown {
		degraded.Status = operatorv1.ConditionFalse
	}
	return []operatorv1.OperatorCondition{available, progressing, degraded, upgradeable}
}

// unionCondition is library-go's status.UnionCondition without inertia: of the conditions whose type
// ends in conditionType, those whose status is not def are bad; none at all gives Unknown (NoData), no
// bad one gives def (AsExpected), else the opposite of def when any bad one has it (Unknown when all
// bad ones are Unknown), with their types and reasons.
func unionCondition(conditionType string, def operatorv1.ConditionStatus, all []operatorv1.OperatorCondition) operatorv1.OperatorCondition {
	opposite := operatorv1.ConditionTrue
	if def == operatorv1.ConditionTrue {
		opposite = operatorv1.ConditionFalse
	}
	var interesting, bad []operatorv1.OperatorCondition
	badStatus := operatorv1.ConditionUnknown
	for _, cond := range all {
		if !strings.HasSuffix(cond.Type, conditionType) {
			continue
		}
		interesting = append(interesting, cond)
		if cond.Status != def {
			bad = append(bad, cond)
			if cond.Status == opposite {
				badStatus = opposite
			}
		}
	}
	sort.Slice(bad, func(i, j int) bool { return bad[i].Type < bad[j].Type })
	switch {
	case len(interesting) == 0:
		return operatorv1.OperatorCondition{Type: conditionType, Status: operatorv1.ConditionUnknown, Reason: "NoData"}
	case len(bad) == 0:
		return operatorv1.OperatorCondition{Type: conditionType, Status: def, Reason: "AsExpected", Message: unionMessage(interesting)}
	}
	var reasons []string
	for _, cond := range bad {
		r := strings.TrimSuffix(cond.Type, conditionType)
		if cond.Reason != "" {
			r += "_" + cond.Reason
		}
		reasons = append(reasons, r)
	}
	return operatorv1.OperatorCondition{Type: conditionType, Status: badStatus, Reason: strings.Join(reasons, "::"), Message: unionMessage(bad)}
}

func unionMessage(conditions []operatorv1.OperatorCondition) string {
	var lines []string
	for _, cond := range conditions {
		if cond.Message != "" {
			lines = append(lines, cond.Type+": "+cond.Message)
		}
	}
	return strings.Join(lines, "\n")
}

// degradedInertia is library-go's ClusterOperator status controller's default (status.StatusSyncer,
// MustNewInertia(2*time.Minute)), which CSO's keeps: a Degraded condition of the Storage CR counts
// toward ClusterOperator storage's Degraded only once it has been True that long.
const degradedInertia = 2 * time.Minute

// writeClusterOperator writes ClusterOperator storage's conditions, the unions of CSO's own (the CR
// controller's from the ClusterCSIDriver's conditions, the deployment controller's), creating it when
// it is missing; a condition's transition time changes only with its status. Degraded follows
// library-go's inertia: a Degraded condition younger than degradedInertia does not count yet, and the
// ClusterOperator is written again when it comes of age.
func (c *CSOStandIn) writeClusterOperator(ctx context.Context, driverConditions []operatorv1.OperatorCondition) error {
	now := time.Now()
	c.mu.Lock()
	own := append(crConditions(driverConditions), c.depState.progressing, c.depState.degraded)
	c.latest = driverConditions
	if c.degradedSince == nil {
		c.degradedSince = map[string]time.Time{}
	}
	var young time.Duration
	for i, cond := range own {
		if !strings.HasSuffix(cond.Type, "Degraded") {
			continue
		}
		if cond.Status != operatorv1.ConditionTrue {
			delete(c.degradedSince, cond.Type)
			continue
		}
		since, ok := c.degradedSince[cond.Type]
		if !ok {
			since = now
			c.degradedSince[cond.Type] = now
		}
		if left := since.Add(degradedInertia).Sub(now); left > 0 {
			own[i].Status = operatorv1.ConditionFalse // not yet, as the inertia says
			young = max(young, left)
		}
	}
	c.mu.Unlock()
	if young > 0 {
		time.AfterFunc(young, func() {
			c.mu.Lock()
			latest := c.latest
			c.mu.Unlock()
			if ctx.Err() == nil {
				if err := c.writeClusterOperator(ctx, latest); err != nil && ctx.Err() == nil {
					c.logf("writing ClusterOperator storage: %v", err)
				}
			}
		})
	}
	var want []configv1.ClusterOperatorStatusCondition
	for _, u := range []struct {
		t   configv1.ClusterStatusConditionType
		def operatorv1.ConditionStatus
	}{{configv1.OperatorAvailable, operatorv1.ConditionTrue}, {configv1.OperatorProgressing, operatorv1.ConditionFalse},
		{configv1.OperatorDegraded, operatorv1.ConditionFalse}, {configv1.OperatorUpgradeable, operatorv1.ConditionTrue}} {
		var mine []operatorv1.OperatorCondition
		for _, cond := range own {
			if cond.Type != "" {
				mine = append(mine, cond)
			}
		}
		cond := unionCondition(string(u.t), u.def, mine)
		want = append(want, configv1.ClusterOperatorStatusCondition{Type: u.t, Status: configv1.ConditionStatus(cond.Status),
			Reason: cond.Reason, Message: cond.Message})
	}
	cos := c.w.ConfigV1.ConfigV1().ClusterOperators()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		co, err := cos.Get(ctx, CSOClusterOperator, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			co, err = cos.Create(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: CSOClusterOperator}}, metav1.CreateOptions{})
		}
		if err != nil {
			return err
		}
		changed := []string{}
		for _, w := range want {
			i := -1
			for j := range co.Status.Conditions {
				if co.Status.Conditions[j].Type == w.Type {
					i = j
				}
			}
			switch {
			case i < 0:
				w.LastTransitionTime = metav1.Now()
				co.Status.Conditions = append(co.Status.Conditions, w)
			case co.Status.Conditions[i].Status != w.Status:
				w.LastTransitionTime = metav1.Now()
				co.Status.Conditions[i] = w
			case co.Status.Conditions[i].Reason != w.Reason || co.Status.Conditions[i].Message != w.Message:
				w.LastTransitionTime = co.Status.Conditions[i].LastTransitionTime
				co.Status.Conditions[i] = w
			default:
				continue
			}
			changed = append(changed, fmt.Sprintf("%s=%s (%s)", w.Type, w.Status, w.Reason))
		}
		if len(changed) == 0 {
			return nil
		}
		if _, err := cos.UpdateStatus(ctx, co, metav1.UpdateOptions{}); err != nil {
			return err
		}
		c.mu.Lock()
		c.history = append(c.history, time.Now().Format("15:04:05.000")+" "+strings.Join(changed, ", "))
		c.mu.Unlock()
		return nil
	})
}

// ---------------------------------------------------------------- helpers

// resourceFor is the dynamic client of obj's kind, in its namespace when it has one.
func (w *World) resourceFor(obj *unstructured.Unstructured) (interface {
	Create(context.Context, *unstructured.Unstructured, metav1.CreateOptions, ...string) (*unstructured.Unstructured, error)
	Update(context.Context, *unstructured.Unstructured, metav1.UpdateOptions, ...string) (*unstructured.Unstructured, error)
	UpdateStatus(context.Context, *unstructured.Unstructured, metav1.UpdateOptions) (*unstructured.Unstructured, error)
	Delete(context.Context, string, metav1.DeleteOptions, ...string) error
	Get(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
	Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (*unstructured.Unstructured, error)
}, error) {
	mapping, err := w.RESTMapping(obj.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	return w.resource(snapshotKind{gvr: mapping.Resource, namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace}, obj.GetNamespace()), nil
}

func toUnstructured(obj any) (*unstructured.Unstructured, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}

func withoutMeta(o *unstructured.Unstructured) *unstructured.Unstructured {
	c := o.DeepCopy()
	delete(c.Object, "metadata")
	delete(c.Object, "status")
	return c
}

func mergeMaps(base, over map[string]string) map[string]string {
	if len(base) == 0 && len(over) == 0 {
		return nil
	}
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// csoClusterRoleRules are the rules both generations' ClusterRole starts with.
const csoClusterRoleRules = `
- {apiGroups: [security.openshift.io], resourceNames: [privileged], resources: [securitycontextconstraints], verbs: [use]}
- {apiGroups: [""], resources: [configmaps], verbs: [watch, list, get, create, delete, patch, update]}
- {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles, clusterrolebindings, roles, rolebindings], verbs: [watch, list, get, create, delete, patch, update]}
- {apiGroups: [""], resources: [serviceaccounts], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [apiextensions.k8s.io], resources: [customresourcedefinitions], verbs: [get, list, create, watch, delete]}
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [""], resources: [nodes], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [""], resources: [secrets], verbs: [get, list, watch, create, patch, update]}
- {apiGroups: [""], resources: [namespaces], verbs: [get, list, watch, create, patch, delete, update]}
- {apiGroups: [""], resources: [persistentvolumes], verbs: [create, delete, list, get, watch, update, patch]}
- {apiGroups: [""], resources: [persistentvolumeclaims], verbs: [get, list, watch, update]}
- {apiGroups: [""], resources: [persistentvolumeclaims/status], verbs: [patch, update]}
- {apiGroups: [apps], resources: [deployments, daemonsets, replicasets, statefulsets], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [storage.k8s.io], resources: [volumeattachments], verbs: [get, list, watch, update, delete, create, patch]}
- {apiGroups: [snapshot.storage.k8s.io], resources: [volumesnapshotcontents/status], verbs: [update, patch]}
- {apiGroups: [storage.k8s.io], resources: [storageclasses, csinodes], verbs: [create, get, list, watch, update, delete]}
- {apiGroups: ["*"], resources: [events], verbs: [get, patch, create, list, watch, update, delete]}
- {apiGroups: [snapshot.storage.k8s.io], resources: [volumesnapshotclasses], verbs: [get, list, watch, create, update, delete]}
- {apiGroups: [snapshot.storage.k8s.io], resources: [volumesnapshotcontents], verbs: [create, get, list, watch, update, delete, patch]}
- {apiGroups: [snapshot.storage.k8s.io], resources: [volumesnapshots], verbs: [get, list, watch, update, patch]}
- {apiGroups: [snapshot.storage.k8s.io], resources: [volumesnapshots/status], verbs: [patch]}
- {apiGroups: [storage.k8s.io], resources: [csidrivers], verbs: [create, get, list, watch, update, delete]}`

// csoOperatorEnv is the operator container's environment in both generations.
const csoOperatorEnv = `
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
          valueFrom: {fieldRef: {fieldPath: metadata.name}}`

// CSOStandInImages are the images the stand-in's Deployment names besides the operator's, for a pod
// runner's image map: what the operator puts into the operand's pods.
func CSOStandInImages() []string {
	var out []string
	for _, n := range []string{"csi-driver-manila", "csi-driver-nfs", "csi-external-provisioner", "csi-external-attacher",
		"csi-external-resizer", "csi-external-snapshotter", "csi-node-driver-registrar", "csi-livenessprobe", "kube-rbac-proxy"} {
		out = append(out, "registry.test/openshift/"+n+":"+csoStandInVersion)
	}
	return out
}

// csoGuestClusterObjects are CSO main's cluster-scoped Manila objects, the same in its standalone and
// hosted (guest) shapes: the operator's ClusterRole and its binding, and the ClusterCSIDriver.
const csoGuestClusterObjects = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: manila-csi-driver-operator-clusterrole, annotations: {storage.openshift.io/remove-from: mgmt}}
rules:` + csoClusterRoleRules + `
- {apiGroups: [config.openshift.io], resources: [infrastructures, proxies, apiservers], verbs: [get, list, watch]}
- {apiGroups: [operator.openshift.io], resources: [clustercsidrivers, clustercsidrivers/status], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [authentication.k8s.io], resources: [tokenreviews], verbs: [create]}
- {apiGroups: [monitoring.coreos.com], resources: [servicemonitors], verbs: [get, create, update, patch, delete]}
- {apiGroups: [""], resources: [services], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [""], resources: [pods, endpoints], verbs: [get, list, watch]}
- {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [get, list, watch]}
- {apiGroups: [policy], resources: [poddisruptionbudgets], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [networking.k8s.io], resources: [networkpolicies], verbs: [watch, list, get, create, delete, patch, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: manila-csi-driver-operator-clusterrolebinding, annotations: {storage.openshift.io/remove-from: mgmt}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: manila-csi-driver-operator-clusterrole}
subjects: [{kind: ServiceAccount, name: manila-csi-driver-operator, namespace: openshift-cluster-csi-drivers}]
---
apiVersion: operator.openshift.io/v1
kind: ClusterCSIDriver
metadata: {name: manila.csi.openstack.org, annotations: {storage.openshift.io/remove-from: mgmt}}
spec: {logLevel: Normal, managementState: Managed, operatorLogLevel: Normal}
`
