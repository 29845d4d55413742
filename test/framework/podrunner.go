package framework

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
)

// PodRunnerOptions says which pods a PodRunner owns and how it runs them.
type PodRunnerOptions struct {
	// Namespace and Selector (a label selector, e.g. "name=manila-csi-driver-operator") are the pods
	// the runner schedules and runs; every other pod is left alone, as if another node ran it.
	Namespace string
	Selector  string
	// Images maps a container image to the binary on this machine that stands in for it. A container
	// whose image is not in the map never starts: it waits with reason ErrImagePull, as a kubelet
	// whose pull failed. Every binary run here must be a library-go controllercmd operator: the runner
	// gives it --listen and --kubeconfig.
	Images map[string]string
	// NodeName is the Node the runner stands for ("podrunner-0" when empty). It is created, Ready,
	// when missing (and deleted when the test ends), with the labels a kubelet gives its Node
	// (kubernetes.io/hostname, os, arch) and NodeLabels; a pod that does not fit it (nodeSelector,
	// required node affinity, taints, required anti-affinity) is left Pending, as the scheduler would
	// leave it. Several runners (one per Node) may serve the same pods: see bind.
	NodeName   string
	NodeLabels map[string]string
}

// PodRunner stands in, for the pods PodRunnerOptions selects and for those only, for the scheduler
// and the kubelet of one Node: it binds a pending pod that fits its Node through the pods/binding
// subresource (spreading an owner's pods over the Nodes of several runners), and for a pod bound
// there it writes the pod's volumes (podRoot), runs each container's image's binary as a process with
// the container's arguments and environment, probes readiness, restarts an exited container with a
// back-off, reports status through pods/status, and on deletion terminates the processes within the
// grace period and removes the pod (grace period 0), as the kubelet does. The Deployment and
// ReplicaSet controllers of a real kube-controller-manager (StartKubeControllers) make the pods, so a
// Deployment rolls here as on a cluster.
//
// Differences from a scheduler: resources, preferred affinities, pod affinity and topology keys
// other than kubernetes.io/hostname are not weighed. Differences from a kubelet: a process, not a
// container: no image, no cgroups, no resource limits (requests are only what resourceFieldRef
// reads), no network namespace; every pod's IP is 127.0.0.1 and, since pods share the host's ports,
// each container gets --listen=127.0.0.1:<a free port> and its probes go to that port whatever port
// they name. The ServiceAccount token is not mounted at /var/run/secrets/kubernetes.io/serviceaccount:
// the process gets --kubeconfig=<file> with a token of the pod's ServiceAccount bound to the pod
// (TokenRequest), not refreshed. Mounts below /etc are also mounted at their mountPaths
// (hack/container-mounts.sh, a private mount namespace; as root only), for programs that read a fixed
// path there. A readOnlyRootFilesystem container whose writable volumes are one
// emptyDir runs under hack/readonly-root.sh (when this process may unshare), the emptyDir then a
// tmpfs; otherwise the root is writable. Readiness probes are httpGet and tcpSocket only (an exec
// probe counts as success); liveness and startup probes, lifecycle hooks, init containers, ephemeral
// containers, the pod's hostname, KUBERNETES_SERVICE_* variables and volume updates after start are
// not done. Restarts back off 1 s, 2 s, 4 s, 8 s, then 10 s (a kubelet: 10 s doubling to 5 min),
// reset after a run of 20 s. The Node gets no heartbeats (no node lifecycle controller runs in the
// test world).
type PodRunner struct {
	w        *World
	t        testing.TB
	opts     PodRunnerOptions
	selector labels.Selector
	dir      string // the pods' directories (short: unix socket paths must stay under 108 bytes)
	logDir   string // the pods' logs, kept until the test's last cleanup
	ctx      context.Context
	cancel   context.CancelFunc
	queue    workqueue.TypedRateLimitingInterface[string]
	pods     cache.Indexer
	done     sync.WaitGroup
	stopOnce sync.Once

	mu          sync.Mutex
	workers     map[types.UID]*podWorker
	order       []*podWorker // every pod the runner ran, in the order it started them
	nodes       corelisters.NodeLister
	boundAt     map[types.UID]time.Time // until the pod's worker exists
	runnerLog   strings.Builder
	createdNode bool
}

// PodRecord is what the runner saw and did for one pod, for assertions on timing.
type PodRecord struct {
	Name string
	UID  types.UID
	// Image is the pod's first container's image.
	Image string
	// BoundAt is when the runner bound the pod to its Node (zero when it was bound already).
	BoundAt time.Time
	// StartedAt is when the first process of the pod started.
	StartedAt time.Time
	// ReadyAt is when the runner first wrote Ready=True into the pod's status.
	ReadyAt time.Time
	// TerminatingAt is when the runner first saw the pod's deletionTimestamp.
	TerminatingAt time.Time
	// Grace is the grace period it honoured: deletionGracePeriodSeconds, else
	// terminationGracePeriodSeconds (30 s when unset).
	Grace time.Duration
	// SIGTERMAt is when it sent SIGTERM to the pod's processes on deletion; SIGKILLAt, when it sent
	// SIGKILL because the grace period ran out (zero when none was needed).
	SIGTERMAt, SIGKILLAt time.Time
	// ExitedAt is when the last of the pod's processes exited after SIGTERM; ExitCode is the first
	// container's exit code then (128+signal when a signal ended it, as container runtimes report).
	ExitedAt time.Time
	ExitCode int
	// DeletedAt is when the runner deleted the pod with grace period 0.
	DeletedAt  time.Time
	Containers []ContainerRecord
}

// ContainerRecord is one container's processes: every start and every exit.
type ContainerRecord struct {
	Name     string
	Restarts int
	Starts   []time.Time
	Exits    []ContainerExit
}

// ContainerExit is one exit of a container's process.
type ContainerExit struct {
	At   time.Time
	Code int // 128+signal when a signal ended it
}

// StartPodRunner starts a PodRunner for opts until the test ends; at cleanup it stops every process
// it started (SIGTERM, then SIGKILL after the pod's grace period, at most 30 s) and leaves the pods'
// API objects as they are, as a node that stopped.
func (w *World) StartPodRunner(t testing.TB, opts PodRunnerOptions) *PodRunner {
	t.Helper()
	if opts.NodeName == "" {
		opts.NodeName = "podrunner-0"
	}
	sel, err := labels.Parse(opts.Selector)
	if err != nil {
		t.Fatalf("pod runner selector %q: %v", opts.Selector, err)
	}
	dir, err := os.MkdirTemp("", "pods-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &PodRunner{w: w, t: t, opts: opts, selector: sel, dir: dir, logDir: t.TempDir(), ctx: ctx, cancel: cancel,
		workers: map[types.UID]*podWorker{}, boundAt: map[types.UID]time.Time{},
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
	t.Cleanup(func() {
		r.Stop()
		if t.Failed() {
			LogOnFailure(t, "pod runner "+opts.NodeName, 60, r.runnerLogString())
			for _, pw := range r.workersInOrder() {
				LogOnFailure(t, "pod "+pw.name+" log", 60, r.Log(pw.name))
			}
		}
		if r.createdNode {
			err := w.Kube.CoreV1().Nodes().Delete(context.Background(), opts.NodeName, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting node %s: %v", opts.NodeName, err)
			}
		}
		_ = os.RemoveAll(dir)
	})
	if err := r.ensureNode(ctx); err != nil {
		t.Fatalf("pod runner node %s: %v", opts.NodeName, err)
	}

	factory := informers.NewSharedInformerFactoryWithOptions(w.Kube, 0, informers.WithNamespace(opts.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = opts.Selector }))
	inf := factory.Core().V1().Pods().Informer()
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			r.queue.Add(key)
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: enqueue,
	}); err != nil {
		t.Fatal(err)
	}
	r.pods = inf.GetIndexer()
	nodeFactory := informers.NewSharedInformerFactory(w.Kube, 0)
	r.nodes = nodeFactory.Core().V1().Nodes().Lister()
	nodeInformer := nodeFactory.Core().V1().Nodes().Informer()
	nodesSynced := nodeInformer.HasSynced
	// A Node's change may make a pending pod fit: every pod is looked at again, as the scheduler
	// retries unschedulable pods on Node events.
	requeueAll := func(any) {
		for _, key := range r.pods.ListKeys() {
			r.queue.Add(key)
		}
	}
	if _, err := nodeInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: requeueAll, UpdateFunc: func(_, obj any) { requeueAll(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	nodeFactory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced, nodesSynced) {
		t.Fatal("pod runner: the pod and node informers did not sync")
	}
	r.done.Add(1)
	go func() {
		defer r.done.Done()
		for r.processNext() {
		}
	}()
	r.logf("started for pods %q in %s on node %s", opts.Selector, opts.Namespace, opts.NodeName)
	return r
}

// Stop stops every process the runner started and the runner itself; the test's cleanup calls it.
func (r *PodRunner) Stop() {
	r.stopOnce.Do(func() {
		r.cancel()
		r.queue.ShutDown()
		for _, pw := range r.workersInOrder() {
			<-pw.finished
		}
		r.done.Wait()
	})
}

// Record returns what the runner saw and did for the latest pod of that name.
func (r *PodRunner) Record(podName string) (PodRecord, bool) {
	pw := r.worker(podName)
	if pw == nil {
		return PodRecord{}, false
	}
	return pw.record(), true
}

// Records returns the record of every pod the runner ran, in the order it started them.
func (r *PodRunner) Records() []PodRecord {
	var out []PodRecord
	for _, pw := range r.workersInOrder() {
		out = append(out, pw.record())
	}
	return out
}

// Log returns everything the pod's processes wrote to stdout and stderr, every container and every
// restart, with a "podrunner:" line before each start and after each exit.
func (r *PodRunner) Log(podName string) string {
	b, _ := os.ReadFile(filepath.Join(r.logDir, podName+".log"))
	return string(b)
}

// Kill sends SIGKILL to every running process of the pod, as an OOM kill or a crash would end it; the
// containers then restart as any exited container does.
func (r *PodRunner) Kill(podName string) error {
	pw := r.worker(podName)
	if pw == nil {
		return fmt.Errorf("pod runner: no pod %s", podName)
	}
	killed := 0
	for _, c := range pw.containers() {
		c.mu.Lock()
		if c.proc != nil {
			if err := c.proc.Cmd.Process.Signal(syscall.SIGKILL); err == nil {
				killed++
			}
		}
		c.mu.Unlock()
	}
	if killed == 0 {
		return fmt.Errorf("pod runner: pod %s has no running process", podName)
	}
	r.logf("pod %s: SIGKILL to %d process(es) (Kill)", podName, killed)
	return nil
}

func (r *PodRunner) worker(podName string) *podWorker {
	ws := r.workersInOrder()
	for i := len(ws) - 1; i >= 0; i-- {
		if ws[i].name == podName {
			return ws[i]
		}
	}
	return nil
}

func (r *PodRunner) workersInOrder() []*podWorker {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*podWorker{}, r.order...)
}

func (r *PodRunner) logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(&r.runnerLog, "%s %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

func (r *PodRunner) runnerLogString() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runnerLog.String()
}

// ensureNode creates the Node, with a Ready condition through the status subresource as a kubelet
// registers itself, unless it exists.
func (r *PodRunner) ensureNode(ctx context.Context) error {
	nodes := r.w.Kube.CoreV1().Nodes()
	_, err := nodes.Get(ctx, r.opts.NodeName, metav1.GetOptions{})
	if err == nil || !apierrors.IsNotFound(err) {
		return err
	}
	// The labels every kubelet gives its Node, then the options'.
	nodeLabels := map[string]string{corev1.LabelHostname: r.opts.NodeName, corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64"}
	for k, v := range r.opts.NodeLabels {
		nodeLabels[k] = v
	}
	n, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: r.opts.NodeName, Labels: nodeLabels,
		Annotations: map[string]string{runnerNodeAnnotation: "true"}}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	r.createdNode = true
	now := metav1.Now()
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"),
		corev1.ResourcePods: resource.MustParse("110")}
	n.Status = corev1.NodeStatus{
		Capacity: capacity, Allocatable: capacity,
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "the test world's pod runner is ready", LastHeartbeatTime: now, LastTransitionTime: now}},
		Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}, {Type: corev1.NodeHostName, Address: r.opts.NodeName}},
		NodeInfo:  corev1.NodeSystemInfo{KubeletVersion: "v1.36.2-podrunner", OperatingSystem: "linux", Architecture: "amd64"},
	}
	if _, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		return err
	}
	// kube-apiserver taints a new Node not-ready (TaintNodesByCondition); the node lifecycle
	// controller lifts the taint once the kubelet reports Ready. None runs here: the runner lifts it.
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := nodes.Get(ctx, r.opts.NodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var kept []corev1.Taint
		for _, taint := range n.Spec.Taints {
			if taint.Key != corev1.TaintNodeNotReady {
				kept = append(kept, taint)
			}
		}
		if len(kept) == len(n.Spec.Taints) {
			return nil
		}
		n.Spec.Taints = kept
		_, err = nodes.Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
}

func (r *PodRunner) processNext() bool {
	key, quit := r.queue.Get()
	if quit {
		return false
	}
	defer r.queue.Done(key)
	if err := r.sync(key); err != nil {
		if r.ctx.Err() == nil {
			r.logf("%s: %v (retrying)", key, err)
			r.queue.AddRateLimited(key)
		}
		return true
	}
	r.queue.Forget(key)
	return true
}

// sync binds a pending pod, as the scheduler does, and hands a pod bound to this Node to its worker,
// as the kubelet's pod workers get each update.
func (r *PodRunner) sync(key string) error {
	obj, exists, err := r.pods.GetByKey(key)
	if err != nil {
		return err
	}
	_, name, _ := cache.SplitMetaNamespaceKey(key)
	var pod *corev1.Pod
	if exists {
		pod = obj.(*corev1.Pod)
	}
	// A worker whose pod is no longer in the API server (or was replaced by one of the same name)
	// stops its processes.
	for _, pw := range r.workersInOrder() {
		if pw.name == name && (pod == nil || pod.UID != pw.uid) {
			pw.markGone()
		}
	}
	if pod == nil || !r.selector.Matches(labels.Set(pod.Labels)) {
		return nil
	}
	if pod.Spec.NodeName == "" {
		if pod.DeletionTimestamp != nil {
			return nil
		}
		return r.bind(pod)
	}
	if pod.Spec.NodeName != r.opts.NodeName {
		return nil
	}
	r.mu.Lock()
	pw := r.workers[pod.UID]
	if pw == nil {
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed || r.ctx.Err() != nil {
			r.mu.Unlock()
			return nil
		}
		pw = newPodWorker(r, pod)
		pw.rec.BoundAt = r.boundAt[pod.UID]
		delete(r.boundAt, pod.UID)
		r.workers[pod.UID] = pw
		r.order = append(r.order, pw)
		r.mu.Unlock()
		go pw.run()
	} else {
		r.mu.Unlock()
	}
	pw.update(pod)
	return nil
}

// bind is the scheduler's decision, for the nodes of pod runners: the pod may go to this Node when
// it fits (fits), and goes there when this Node is, among the runners' Nodes it fits, the one with
// the fewest pods of its owner (then the first by name), as the scheduler's default spreading would
// place a Deployment's replicas; if that Node's runner has not bound it within 5 s, any runner it
// fits binds it.
func (r *PodRunner) bind(pod *corev1.Pod) error {
	me, err := r.nodes.Get(r.opts.NodeName)
	if err != nil {
		return fmt.Errorf("node %s: %w", r.opts.NodeName, err)
	}
	if why := r.fits(pod, me); why != "" {
		r.logf("pod %s: does not fit node %s: %s", pod.Name, r.opts.NodeName, why)
		return nil
	}
	if best := r.spreadChoice(pod); best != r.opts.NodeName && time.Since(pod.CreationTimestamp.Time) < 5*time.Second {
		key, _ := cache.MetaNamespaceKeyFunc(pod)
		r.queue.AddAfter(key, time.Second) // node best's runner should bind it; if not, this one will
		return nil
	}
	err = r.w.Kube.CoreV1().Pods(pod.Namespace).Bind(r.ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", APIVersion: "v1", Name: r.opts.NodeName},
	}, metav1.CreateOptions{})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return nil // bound meanwhile, or gone
	}
	if err != nil {
		return fmt.Errorf("binding: %w", err)
	}
	r.logf("pod %s: bound to node %s", pod.Name, r.opts.NodeName)
	r.mu.Lock()
	r.boundAt[pod.UID] = time.Now()
	r.mu.Unlock()
	return nil
}

// runnerNodeAnnotation marks the Nodes pod runners created: the Nodes the spreading chooses among.
const runnerNodeAnnotation = "podrunner.test.manila-csi/node"

// fits returns why the scheduler would not place pod on node ("" when it would): its nodeSelector,
// its required node affinity, the node's NoSchedule and NoExecute taints it does not tolerate, and
// its required pod anti-affinity on kubernetes.io/hostname against the pods this runner sees (its
// namespace and selector). Resources and preferences are not weighed.
func (r *PodRunner) fits(pod *corev1.Pod, node *corev1.Node) string {
	if !labels.SelectorFromSet(pod.Spec.NodeSelector).Matches(labels.Set(node.Labels)) {
		return fmt.Sprintf("nodeSelector %v, node labels %v", pod.Spec.NodeSelector, node.Labels)
	}
	if !nodeAffinityAllows(pod, node) {
		return "required node affinity"
	}
	for _, taint := range node.Spec.Taints {
		if taint.Effect != corev1.TaintEffectNoSchedule && taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !slices.ContainsFunc(pod.Spec.Tolerations, func(t corev1.Toleration) bool { return tolerates(t, taint) }) {
			return "taint " + taint.ToString()
		}
	}
	if a := pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if term.TopologyKey != corev1.LabelHostname {
				continue
			}
			sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
			if err != nil {
				return err.Error()
			}
			for _, obj := range r.pods.List() {
				other := obj.(*corev1.Pod)
				if other.UID != pod.UID && r.onNode(other) == node.Name && sel.Matches(labels.Set(other.Labels)) {
					return "pod anti-affinity with " + other.Name
				}
			}
		}
	}
	return ""
}

// tolerates is the toleration's match of a taint (an empty key with Exists matches every taint).
func tolerates(t corev1.Toleration, taint corev1.Taint) bool {
	if (t.Effect != "" && t.Effect != taint.Effect) || (t.Key != "" && t.Key != taint.Key) {
		return false
	}
	if t.Operator == corev1.TolerationOpExists {
		return true
	}
	return t.Key != "" && t.Value == taint.Value
}

// onNode is the node a pod is bound to, or assumed bound by this runner (the scheduler's assumed
// pods: bound, not yet seen so by the informer).
func (r *PodRunner) onNode(pod *corev1.Pod) string {
	if pod.Spec.NodeName != "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return pod.Spec.NodeName
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.boundAt[pod.UID]; ok {
		return r.opts.NodeName
	}
	for _, pw := range r.order {
		if pw.uid == pod.UID {
			return r.opts.NodeName
		}
	}
	return ""
}

// spreadChoice is the runners' Node the pod fits with the fewest pods of the pod's owner, then the
// first by name.
func (r *PodRunner) spreadChoice(pod *corev1.Pod) string {
	owner := metav1.GetControllerOf(pod)
	count := map[string]int{}
	if owner != nil {
		for _, obj := range r.pods.List() {
			other := obj.(*corev1.Pod)
			if o := metav1.GetControllerOf(other); o != nil && o.UID == owner.UID && other.DeletionTimestamp == nil {
				count[r.onNode(other)]++
			}
		}
	}
	best, bestCount := r.opts.NodeName, -1
	nodes, _ := r.nodes.List(labels.Everything())
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	for _, n := range nodes {
		if (n.Name != r.opts.NodeName && n.Annotations[runnerNodeAnnotation] == "") || r.fits(pod, n) != "" {
			continue
		}
		if bestCount < 0 || count[n.Name] < bestCount {
			best, bestCount = n.Name, count[n.Name]
		}
	}
	return best
}

// nodeAffinityAllows says whether the pod's required node affinity allows the node: a term allows it
// when all its matchExpressions (on labels) and matchFields (on metadata.name, what the DaemonSet
// controller gives each of its pods) hold; an empty term allows nothing.
func nodeAffinityAllows(pod *corev1.Pod, node *corev1.Node) bool {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
			continue
		}
		ok := true
		for _, req := range term.MatchExpressions {
			v, has := node.Labels[req.Key]
			ok = ok && requirementHolds(req, v, has)
		}
		for _, req := range term.MatchFields {
			ok = ok && req.Key == "metadata.name" && requirementHolds(req, node.Name, true)
		}
		if ok {
			return true
		}
	}
	return false
}

func requirementHolds(req corev1.NodeSelectorRequirement, value string, has bool) bool {
	switch req.Operator {
	case corev1.NodeSelectorOpIn:
		return has && slices.Contains(req.Values, value)
	case corev1.NodeSelectorOpNotIn:
		return !has || !slices.Contains(req.Values, value)
	case corev1.NodeSelectorOpExists:
		return has
	case corev1.NodeSelectorOpDoesNotExist:
		return !has
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !has || len(req.Values) != 1 {
			return false
		}
		v, err1 := strconv.ParseInt(value, 10, 64)
		bound, err2 := strconv.ParseInt(req.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		return (req.Operator == corev1.NodeSelectorOpGt && v > bound) || (req.Operator == corev1.NodeSelectorOpLt && v < bound)
	}
	return false
}

// podWorker runs one pod, as one of the kubelet's pod workers.
type podWorker struct {
	r        *PodRunner
	name     string
	uid      types.UID
	dir      string
	changed  chan struct{} // a new version of the pod, or it is gone
	kick     chan struct{} // the status changed
	finished chan struct{} // closed when run returns
	quit     chan struct{} // closed when run is done with the pod: the status loop ends
	goneOnce sync.Once
	gone     chan struct{}
	statusMu sync.Mutex // one status write at a time

	mu           sync.Mutex
	pod          *corev1.Pod
	rec          PodRecord
	ctrs         []*containerRun
	startTime    *metav1.Time
	volumesReady bool
	setupMessage string
	terminated   bool // every process has exited after deletion: the status is final
}

func newPodWorker(r *PodRunner, pod *corev1.Pod) *podWorker {
	pw := &podWorker{r: r, name: pod.Name, uid: pod.UID, dir: filepath.Join(r.dir, string(pod.UID)[:8]),
		changed: make(chan struct{}, 1), kick: make(chan struct{}, 1), finished: make(chan struct{}), quit: make(chan struct{}), gone: make(chan struct{}),
		pod: pod, rec: PodRecord{Name: pod.Name, UID: pod.UID, Image: pod.Spec.Containers[0].Image}}
	for _, c := range pod.Spec.Containers {
		pw.ctrs = append(pw.ctrs, &containerRun{pw: pw, spec: c, stopCh: make(chan struct{}), stopped: make(chan struct{})})
		pw.rec.Containers = append(pw.rec.Containers, ContainerRecord{Name: c.Name})
	}
	return pw
}

func (pw *podWorker) update(pod *corev1.Pod) {
	pw.mu.Lock()
	pw.pod = pod
	if pod.DeletionTimestamp != nil && pw.rec.TerminatingAt.IsZero() {
		pw.rec.TerminatingAt = time.Now()
	}
	pw.mu.Unlock()
	signal(pw.changed)
}

func (pw *podWorker) markGone() {
	pw.goneOnce.Do(func() { close(pw.gone) })
	signal(pw.changed)
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (pw *podWorker) containers() []*containerRun { return pw.ctrs }

func (pw *podWorker) record() PodRecord {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	rec := pw.rec
	rec.Containers = nil
	for i, c := range pw.rec.Containers {
		c.Starts = append([]time.Time{}, c.Starts...)
		c.Exits = append([]ContainerExit{}, c.Exits...)
		c.Restarts = pw.ctrs[i].restartCount()
		rec.Containers = append(rec.Containers, c)
	}
	return rec
}

func (pw *podWorker) current() *corev1.Pod {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	return pw.pod
}

func (pw *podWorker) deleting() bool { return pw.current().DeletionTimestamp != nil }

func (pw *podWorker) isGone() bool {
	select {
	case <-pw.gone:
		return true
	default:
		return false
	}
}

// run sets the pod up, starts its containers and waits for its deletion (or the runner's stop).
func (pw *podWorker) run() {
	r := pw.r
	defer close(pw.finished)
	statusDone := make(chan struct{})
	go func() { defer close(statusDone); pw.statusLoop() }()
	defer func() { close(pw.quit); <-statusDone }()
	pw.mu.Lock()
	pw.startTime = ptr.To(metav1.Now())
	pw.mu.Unlock()
	signal(pw.kick)
	pod := pw.current()
	root := &podRoot{dir: pw.dir, spec: pod.Spec, namespace: pod.Namespace, podName: pod.Name, nodeName: r.opts.NodeName,
		podUID: pod.UID, labels: pod.Labels, annotations: pod.Annotations}
	kubeconfig := filepath.Join(pw.dir, "kubeconfig")
	// The kubelet waits for what the volumes need (a Secret service-ca has yet to issue) and retries.
	for {
		err := root.materialize(r.ctx, r.w.Kube)
		if err == nil {
			err = pw.writeKubeconfig(r.ctx, root, kubeconfig)
		}
		if err == nil {
			break
		}
		pw.mu.Lock()
		changed := pw.setupMessage != err.Error()
		pw.setupMessage = err.Error()
		pw.mu.Unlock()
		if changed {
			r.logf("pod %s: setting up: %v", pw.name, err)
			signal(pw.kick)
		}
		if pw.deleting() || pw.isGone() || r.ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(time.Second):
		case <-pw.changed:
		case <-r.ctx.Done():
		}
	}
	if !pw.deleting() && !pw.isGone() && r.ctx.Err() == nil {
		pw.mu.Lock()
		pw.volumesReady, pw.setupMessage = true, ""
		pw.mu.Unlock()
		for _, c := range pw.ctrs {
			c.mu.Lock()
			c.looping = true
			c.mu.Unlock()
			go c.loop(root, kubeconfig)
		}
		for !pw.deleting() && !pw.isGone() && r.ctx.Err() == nil {
			select {
			case <-pw.changed:
			case <-r.ctx.Done():
			}
		}
	}
	switch {
	case r.ctx.Err() != nil:
		pw.stopContainers(min(pw.gracePeriod(), 30*time.Second), false)
	case pw.isGone():
		// Deleted with grace period 0 by someone else: the kubelet still stops the processes.
		r.logf("pod %s: gone from the API server", pw.name)
		pw.stopContainers(pw.gracePeriod(), true)
	default:
		pw.terminate()
	}
}

// gracePeriod is how long the pod's processes get after SIGTERM.
func (pw *podWorker) gracePeriod() time.Duration {
	pod := pw.current()
	switch {
	case pod.DeletionGracePeriodSeconds != nil:
		return time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		return time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	}
	return 30 * time.Second
}

// terminate is the kubelet's graceful deletion: SIGTERM, SIGKILL after the grace period, the final
// status (every container terminated, phase Succeeded when all exited 0, else Failed), then the pod
// deleted with grace period 0 and its UID as precondition.
func (pw *podWorker) terminate() {
	r := pw.r
	grace := pw.gracePeriod()
	pw.mu.Lock()
	pw.rec.Grace = grace
	pw.mu.Unlock()
	r.logf("pod %s: deletion requested; SIGTERM with a grace period of %s", pw.name, grace)
	pw.stopContainers(grace, true)
	pw.mu.Lock()
	pw.terminated = true
	pw.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := pw.writeStatus(ctx); err != nil && !apierrors.IsNotFound(err) {
		r.logf("pod %s: final status: %v", pw.name, err)
	}
	err := r.w.Kube.CoreV1().Pods(r.opts.Namespace).Delete(ctx, pw.name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To[int64](0), Preconditions: &metav1.Preconditions{UID: &pw.uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		r.logf("pod %s: deleting with grace period 0: %v", pw.name, err)
		return
	}
	pw.mu.Lock()
	pw.rec.DeletedAt = time.Now()
	pw.mu.Unlock()
	r.logf("pod %s: deleted", pw.name)
}

// stopContainers stops every container at once: SIGTERM, then SIGKILL after grace. record says
// whether this is the pod's termination, whose times go into its record.
func (pw *podWorker) stopContainers(grace time.Duration, record bool) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var sigterm, sigkill time.Time
	for _, c := range pw.ctrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			termAt, killAt := c.stop(grace)
			mu.Lock()
			defer mu.Unlock()
			if !termAt.IsZero() && (sigterm.IsZero() || termAt.Before(sigterm)) {
				sigterm = termAt
			}
			if !killAt.IsZero() && sigkill.IsZero() {
				sigkill = killAt
			}
		}()
	}
	wg.Wait()
	if !record {
		return
	}
	pw.mu.Lock()
	defer pw.mu.Unlock()
	pw.rec.SIGTERMAt, pw.rec.SIGKILLAt = sigterm, sigkill
	if !sigterm.IsZero() {
		pw.rec.ExitedAt = time.Now()
		if exits := pw.rec.Containers[0].Exits; len(exits) > 0 {
			pw.rec.ExitCode = exits[len(exits)-1].Code
		}
		pw.r.logf("pod %s: processes exited (first container's code %d)", pw.name, pw.rec.ExitCode)
	}
}

// writeKubeconfig writes a kubeconfig with a token of the pod's ServiceAccount bound to the pod, what
// the kubelet mounts into the pod as its projected token.
func (pw *podWorker) writeKubeconfig(ctx context.Context, root *podRoot, path string) error {
	token, err := root.serviceAccountToken(ctx, pw.r.w.Kube, &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr.To[int64](24 * 3600)})
	if err != nil {
		return err
	}
	cfg := rest.AnonymousClientConfig(pw.r.w.Config)
	ca := cfg.TLSClientConfig.CAData
	if len(ca) == 0 && cfg.TLSClientConfig.CAFile != "" {
		if ca, err = os.ReadFile(cfg.TLSClientConfig.CAFile); err != nil {
			return err
		}
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["world"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: ca}
	kc.AuthInfos["pod"] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts["pod"] = &clientcmdapi.Context{Cluster: "world", AuthInfo: "pod"}
	kc.CurrentContext = "pod"
	return clientcmd.WriteToFile(*kc, path)
}

// statusLoop writes the pod's status whenever it changes, as the kubelet's status manager does.
func (pw *podWorker) statusLoop() {
	for {
		select {
		case <-pw.kick:
		case <-pw.r.ctx.Done():
			return
		case <-pw.gone:
			return
		case <-pw.quit:
			return
		}
		pw.mu.Lock()
		final := pw.terminated
		pw.mu.Unlock()
		if final {
			return
		}
		err := pw.writeStatus(pw.r.ctx)
		if apierrors.IsNotFound(err) {
			return
		}
		if err != nil && pw.r.ctx.Err() == nil {
			pw.r.logf("pod %s: status: %v (retrying)", pw.name, err)
			time.AfterFunc(500*time.Millisecond, func() { signal(pw.kick) })
		}
	}
}

// writeStatus writes the status the runner's state gives, keeping conditions others own (readiness
// gates), retrying on conflicts.
func (pw *podWorker) writeStatus(ctx context.Context) error {
	pw.statusMu.Lock()
	defer pw.statusMu.Unlock()
	pods := pw.r.w.Kube.CoreV1().Pods(pw.r.opts.Namespace)
	var wroteReady bool
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pod, err := pods.Get(ctx, pw.name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if pod.UID != pw.uid {
			return apierrors.NewNotFound(corev1.Resource("pods"), pw.name)
		}
		pod.Status = pw.status(pod)
		wroteReady = podReady(pod.Status)
		_, err = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
		return err
	})
	if err == nil && wroteReady {
		pw.mu.Lock()
		if pw.rec.ReadyAt.IsZero() {
			pw.rec.ReadyAt = time.Now()
			pw.r.logf("pod %s: Ready", pw.name)
		}
		pw.mu.Unlock()
	}
	return err
}

func podReady(st corev1.PodStatus) bool {
	for _, c := range st.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// status is the pod's status from the runner's state, over pod's current one.
func (pw *podWorker) status(pod *corev1.Pod) corev1.PodStatus {
	pw.mu.Lock()
	volumesReady, setupMessage, terminated, startTime := pw.volumesReady, pw.setupMessage, pw.terminated, pw.startTime
	pw.mu.Unlock()
	st := *pod.Status.DeepCopy()
	st.HostIP, st.PodIP = "127.0.0.1", "127.0.0.1"
	st.HostIPs, st.PodIPs = []corev1.HostIP{{IP: "127.0.0.1"}}, []corev1.PodIP{{IP: "127.0.0.1"}}
	st.StartTime = startTime
	st.ObservedGeneration = pod.Generation
	st.ContainerStatuses = nil
	allReady, allStarted, exitedNonZero := true, true, false
	for _, c := range pw.ctrs {
		cs := c.status(volumesReady, setupMessage, terminated)
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
		allReady = allReady && cs.Ready
		allStarted = allStarted && (cs.State.Running != nil || cs.LastTerminationState.Terminated != nil || cs.State.Terminated != nil)
		if cs.State.Terminated != nil && cs.State.Terminated.ExitCode != 0 {
			exitedNonZero = true
		}
	}
	switch {
	case terminated && exitedNonZero:
		st.Phase = corev1.PodFailed
	case terminated:
		st.Phase = corev1.PodSucceeded
	case volumesReady && allStarted:
		st.Phase = corev1.PodRunning
	default:
		st.Phase = corev1.PodPending
	}
	if terminated {
		allReady = false
	}
	gatesReady := true
	for _, g := range pod.Spec.ReadinessGates {
		ok := false
		for _, c := range st.Conditions {
			if c.Type == g.ConditionType && c.Status == corev1.ConditionTrue {
				ok = true
			}
		}
		gatesReady = gatesReady && ok
	}
	set := func(t corev1.PodConditionType, ok bool, reason string) {
		setPodCondition(&st, pod.Generation, t, ok, reason)
	}
	set(corev1.PodReadyToStartContainers, volumesReady && !terminated, "")
	set(corev1.PodInitialized, true, "")
	set(corev1.ContainersReady, allReady, "ContainersNotReady")
	readyReason := "ContainersNotReady"
	if allReady {
		readyReason = "ReadinessGatesNotReady"
	}
	set(corev1.PodReady, allReady && gatesReady, readyReason)
	return st
}

// setPodCondition sets a condition, its transition time kept unless its status changes.
func setPodCondition(st *corev1.PodStatus, generation int64, t corev1.PodConditionType, ok bool, reason string) {
	status := corev1.ConditionFalse
	if ok {
		status, reason = corev1.ConditionTrue, ""
	}
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = metav1.Now()
		}
		c.Status, c.Reason, c.ObservedGeneration = status, reason, generation
		return
	}
	st.Conditions = append(st.Conditions, corev1.PodCondition{Type: t, Status: status, Reason: reason,
		LastTransitionTime: metav1.Now(), ObservedGeneration: generation})
}

// containerRun is one container of a pod: its current process and its history.
type containerRun struct {
	pw      *podWorker
	spec    corev1.Container
	stopCh  chan struct{} // closed by stop
	stopped chan struct{} // closed when loop returns

	mu        sync.Mutex
	proc      *Process
	port      int
	startedAt time.Time
	ready     bool
	restarts  int
	lastTerm  *corev1.ContainerStateTerminated
	waiting   *corev1.ContainerStateWaiting
	stopping  bool
	looping   bool
}

func (c *containerRun) restartCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.restarts
}

// Back-off between restarts of an exited container, and the run after which it is forgotten.
const (
	restartBackOffInitial = time.Second
	restartBackOffMax     = 10 * time.Second
	restartBackOffReset   = 2 * restartBackOffMax
)

// nextBackOff is the wait before the next restart after one of prev, for a process that ran ran.
func nextBackOff(prev, ran time.Duration) time.Duration {
	switch {
	case prev == 0 || ran >= restartBackOffReset:
		return restartBackOffInitial
	case 2*prev > restartBackOffMax:
		return restartBackOffMax
	}
	return 2 * prev
}

// loop runs the container's process and restarts it when it exits, as restartPolicy says.
func (c *containerRun) loop(root *podRoot, kubeconfig string) {
	pw, r := c.pw, c.pw.r
	defer close(c.stopped)
	var backOff time.Duration
	for {
		cmd, err := c.command(root, kubeconfig)
		if err != nil {
			c.setWaiting(waitingReason(err), err.Error())
			r.logf("pod %s container %s: %v", pw.name, c.spec.Name, err)
			select {
			case <-time.After(time.Second):
				continue
			case <-c.stopCh:
				return
			}
		}
		logOut, err := os.OpenFile(filepath.Join(r.logDir, pw.name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			c.setWaiting("RunContainerError", err.Error())
			return
		}
		cmd.Stdout, cmd.Stderr = logOut, logOut
		c.mu.Lock()
		if c.stopping {
			c.mu.Unlock()
			logOut.Close()
			return
		}
		fmt.Fprintf(logOut, "podrunner: %s container %s starting (restart %d): %s\n", time.Now().Format(time.RFC3339Nano), c.spec.Name, c.restarts, strings.Join(cmd.Args, " "))
		p, err := StartProcess(cmd)
		if err != nil {
			c.mu.Unlock()
			logOut.Close()
			c.setWaiting("RunContainerError", err.Error())
			return
		}
		now := time.Now()
		c.proc, c.startedAt, c.ready, c.waiting = p, now, false, nil
		port := c.port
		c.mu.Unlock()
		pw.mu.Lock()
		i := c.index()
		pw.rec.Containers[i].Starts = append(pw.rec.Containers[i].Starts, now)
		if pw.rec.StartedAt.IsZero() {
			pw.rec.StartedAt = now
		}
		pw.mu.Unlock()
		r.logf("pod %s container %s: started pid %d, listening on 127.0.0.1:%d", pw.name, c.spec.Name, p.Cmd.Process.Pid, port)
		signal(pw.kick)

		probeCtx, stopProbe := context.WithCancel(r.ctx)
		go c.probeReadiness(probeCtx, port)
		<-p.Exited
		stopProbe()
		code := exitCode(p)
		finished := time.Now()
		fmt.Fprintf(logOut, "podrunner: %s container %s exited with code %d\n", finished.Format(time.RFC3339Nano), c.spec.Name, code)
		logOut.Close()
		reason := "Completed"
		if code != 0 {
			reason = "Error"
		}
		c.mu.Lock()
		c.proc, c.ready = nil, false
		c.lastTerm = &corev1.ContainerStateTerminated{ExitCode: int32(code), Reason: reason, StartedAt: metav1.NewTime(now),
			FinishedAt: metav1.NewTime(finished), ContainerID: containerID(p)}
		if code >= 128 {
			c.lastTerm.Signal = int32(code - 128)
		}
		stopping := c.stopping
		c.mu.Unlock()
		pw.mu.Lock()
		pw.rec.Containers[i].Exits = append(pw.rec.Containers[i].Exits, ContainerExit{At: finished, Code: code})
		pw.mu.Unlock()
		r.logf("pod %s container %s: exited with code %d", pw.name, c.spec.Name, code)
		signal(pw.kick)
		if stopping || r.ctx.Err() != nil {
			return
		}
		switch pw.current().Spec.RestartPolicy {
		case corev1.RestartPolicyNever:
			return
		case corev1.RestartPolicyOnFailure:
			if code == 0 {
				return
			}
		}
		backOff = nextBackOff(backOff, finished.Sub(now))
		c.setWaiting("CrashLoopBackOff", fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", backOff, c.spec.Name, pw.name))
		select {
		case <-time.After(backOff):
		case <-c.stopCh:
			return
		}
		c.mu.Lock()
		c.restarts++
		c.mu.Unlock()
	}
}

func waitingReason(err error) string {
	var missing *missingImageError
	if errors.As(err, &missing) {
		return "ErrImagePull"
	}
	return "CreateContainerConfigError"
}

type missingImageError struct{ image string }

func (e *missingImageError) Error() string {
	return fmt.Sprintf("image %s: no binary stands in for it (PodRunnerOptions.Images)", e.image)
}

func (c *containerRun) index() int {
	for i, cc := range c.pw.ctrs {
		if cc == c {
			return i
		}
	}
	return 0
}

func (c *containerRun) setWaiting(reason, message string) {
	c.mu.Lock()
	c.waiting = &corev1.ContainerStateWaiting{Reason: reason, Message: message}
	c.mu.Unlock()
	signal(c.pw.kick)
}

// command is the process for the container: its image's binary, its arguments and environment as
// podRoot resolves them (paths into the pod's volumes), --listen on a free loopback port,
// --kubeconfig with the pod's token, TMPDIR mapped into its volume (or the pod's own directory) and
// HOSTNAME the pod's name.
func (c *containerRun) command(root *podRoot, kubeconfig string) (*exec.Cmd, error) {
	r := c.pw.r
	binary, ok := r.opts.Images[c.spec.Image]
	if !ok {
		return nil, &missingImageError{image: c.spec.Image}
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	listen := "127.0.0.1:" + strconv.Itoa(port)
	args, env, err := root.command(r.ctx, r.w.Kube, c.spec, map[string]string{"--listen": listen, "--kubeconfig": kubeconfig})
	if err != nil {
		return nil, err
	}
	args = ensureFlag(args, "--listen", listen)
	args = ensureFlag(args, "--kubeconfig", kubeconfig)
	tmp := filepath.Join(c.pw.dir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, err
	}
	hasTMPDIR := false
	for i, e := range env {
		name, value, _ := strings.Cut(e, "=")
		hasTMPDIR = hasTMPDIR || name == "TMPDIR"
		if name == "PATH" || !strings.HasPrefix(value, "/") {
			continue
		}
		// A path in the container's mounts is the same place here (TMPDIR in its emptyDir); a TMPDIR
		// elsewhere is the pod's own directory.
		if mapped := root.hostPath(c.spec, value); mapped != value || name == "TMPDIR" {
			if mapped == value {
				mapped = tmp
			}
			env[i] = name + "=" + mapped
		}
	}
	if !hasTMPDIR {
		// Without TMPDIR a process writes to /tmp: the container's volume mounted there, if any.
		if mapped := root.hostPath(c.spec, "/tmp"); mapped != "/tmp" {
			tmp = mapped
		}
		env = append(env, "TMPDIR="+tmp)
	}
	env = append(env, "HOSTNAME="+c.pw.name)
	path, argv := binary, args
	if dir, ok := c.readOnlyRoot(root); ok {
		path, argv = "bash", append([]string{script("readonly-root.sh"), dir, binary}, args...)
	}
	if os.Geteuid() == 0 {
		// A process that reads a file at a fixed path (OpenShift's Manila operators read
		// /etc/openstack/clouds.yaml) finds the volume there, as in its container.
		scratch := filepath.Join(c.pw.dir, "mnt-"+c.spec.Name)
		if err := os.MkdirAll(scratch, 0o700); err != nil {
			return nil, err
		}
		if p, wrapped, ok := root.inContainerMounts(c.spec, scratch, path, argv, "/etc"); ok {
			path, argv = p, wrapped
		}
	}
	cmd := exec.Command(path, argv...)
	cmd.Env, cmd.Dir = env, c.pw.dir
	// The process dies with the test binary, should that die first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	c.mu.Lock()
	c.port = port
	c.mu.Unlock()
	return cmd, nil
}

// readOnlyRoot says whether the container runs with a read-only root, and its one writable directory
// (its emptyDir, a tmpfs then): when it asks for readOnlyRootFilesystem, mounts at most one emptyDir
// and this process may make a mount namespace.
func (c *containerRun) readOnlyRoot(root *podRoot) (string, bool) {
	sc := c.spec.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || os.Geteuid() != 0 {
		return "", false
	}
	var dirs []string
	for _, m := range c.spec.VolumeMounts {
		for _, v := range root.spec.Volumes {
			if v.Name == m.Name && v.EmptyDir != nil {
				dirs = append(dirs, root.volumeDir(v.Name))
			}
		}
	}
	switch len(dirs) {
	case 0:
		return filepath.Join(c.pw.dir, "tmp"), true
	case 1:
		return dirs[0], true
	}
	return "", false
}

// ensureFlag appends --name=value unless args set it.
func ensureFlag(args []string, name, value string) []string {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return args
		}
	}
	return append(args, name+"="+value)
}

// exitCode is what a container runtime reports: the code, or 128+signal.
func exitCode(p *Process) int {
	ps := p.Cmd.ProcessState
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

func containerID(p *Process) string { return fmt.Sprintf("process://%d", p.Cmd.Process.Pid) }

// probeReadiness runs the container's readiness probe against its process, as the kubelet's prober:
// at start (after initialDelaySeconds), then every periodSeconds; successThreshold successes make it
// ready, failureThreshold failures unready. Without a readiness probe it is ready once it runs.
func (c *containerRun) probeReadiness(ctx context.Context, port int) {
	p := c.spec.ReadinessProbe
	if p == nil || (p.HTTPGet == nil && p.TCPSocket == nil) {
		c.setReady(true)
		return
	}
	period := time.Duration(max(p.PeriodSeconds, 1)) * time.Second
	if p.PeriodSeconds == 0 {
		period = 10 * time.Second
	}
	timeout := time.Duration(max(p.TimeoutSeconds, 1)) * time.Second
	success, failure := max(int(p.SuccessThreshold), 1), int(p.FailureThreshold)
	if failure == 0 {
		failure = 3
	}
	select {
	case <-time.After(time.Duration(p.InitialDelaySeconds) * time.Second):
	case <-ctx.Done():
		return
	}
	oks, fails := 0, 0
	for {
		err := probeOnce(ctx, p, port, timeout)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			oks, fails = oks+1, 0
			if oks >= success {
				c.setReady(true)
			}
		} else {
			oks, fails = 0, fails+1
			if fails >= failure {
				c.setReady(false)
			}
		}
		select {
		case <-time.After(period):
		case <-ctx.Done():
			return
		}
	}
}

func (c *containerRun) setReady(ready bool) {
	c.mu.Lock()
	changed := c.ready != ready && c.proc != nil
	if c.proc != nil {
		c.ready = ready
	}
	c.mu.Unlock()
	if changed {
		c.pw.r.logf("pod %s container %s: ready=%v", c.pw.name, c.spec.Name, ready)
		signal(c.pw.kick)
	}
}

// probeOnce probes the process's listen port, whatever port the probe names: every process here
// listens where --listen says.
func probeOnce(ctx context.Context, p *corev1.Probe, port int, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if p.TCPSocket != nil {
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err == nil {
			conn.Close()
		}
		return err
	}
	scheme := "http"
	if p.HTTPGet.Scheme == corev1.URISchemeHTTPS {
		scheme = "https"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+addr+p.HTTPGet.Path, nil)
	if err != nil {
		return err
	}
	for _, h := range p.HTTPGet.HTTPHeaders {
		req.Header.Add(h.Name, h.Value)
	}
	// As the kubelet: no certificate verification, no redirects to other hosts followed.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}, //nolint:gosec // as the kubelet probes
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		return fmt.Errorf("probe %s: status %d", p.HTTPGet.Path, resp.StatusCode)
	}
	return nil
}

// stop ends the container for good: no more restarts; SIGTERM to its process and SIGKILL if it has
// not exited after grace. It returns when SIGTERM and SIGKILL were sent (zero: not sent), once the
// process has exited.
func (c *containerRun) stop(grace time.Duration) (termAt, killAt time.Time) {
	c.mu.Lock()
	if !c.stopping {
		c.stopping = true
		close(c.stopCh)
	}
	p, looping := c.proc, c.looping
	c.mu.Unlock()
	if p != nil {
		termAt = time.Now()
		_ = p.Cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.Exited:
		case <-time.After(grace):
			killAt = time.Now()
			_ = p.Cmd.Process.Kill()
			<-p.Exited
		}
	}
	if looping {
		<-c.stopped
	}
	return termAt, killAt
}

// status is the container's status as the kubelet reports it.
func (c *containerRun) status(volumesReady bool, setupMessage string, terminated bool) corev1.ContainerStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs := corev1.ContainerStatus{Name: c.spec.Name, Image: c.spec.Image, RestartCount: int32(c.restarts),
		ImageID: "binary://" + c.pw.r.opts.Images[c.spec.Image], Ready: c.ready && c.proc != nil}
	if c.lastTerm != nil {
		cs.LastTerminationState.Terminated = c.lastTerm.DeepCopy()
	}
	switch {
	case c.proc != nil:
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(c.startedAt)}
		cs.ContainerID = containerID(c.proc)
		cs.Started = ptr.To(true)
	case terminated && c.lastTerm != nil:
		cs.State.Terminated = c.lastTerm.DeepCopy()
		cs.LastTerminationState = corev1.ContainerState{}
		cs.ContainerID = c.lastTerm.ContainerID
		cs.Started = ptr.To(false)
	case c.waiting != nil:
		cs.State.Waiting = c.waiting.DeepCopy()
		cs.Started = ptr.To(false)
	default:
		msg := setupMessage
		if volumesReady {
			msg = ""
		}
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating", Message: msg}
		cs.Started = ptr.To(false)
	}
	return cs
}

// InPodNamespace returns an executable in dir that runs binary with its arguments and
// --namespace=namespace: what a library-go controllercmd process reads from the ServiceAccount
// mount's namespace file in a pod (/var/run/secrets/kubernetes.io/serviceaccount/namespace), which
// the pod runner does not write. For Deployments whose arguments name no namespace (CSO's).
func InPodNamespace(dir, binary, namespace string) (string, error) {
	path := filepath.Join(dir, filepath.Base(binary)+"-in-"+namespace)
	script := fmt.Sprintf("#!/bin/sh\nexec %q \"$@\" --namespace=%q\n", binary, namespace)
	return path, os.WriteFile(path, []byte(script), 0o755)
}

// IdleContainer returns an executable in dir that stands in for a container that runs and does
// nothing else (it sleeps until it is signalled, whatever its arguments): for operand pods that only
// need to be running and Ready.
func IdleContainer(dir string) (string, error) {
	path := filepath.Join(dir, "idle-container")
	return path, os.WriteFile(path, []byte("#!/bin/sh\nexec sleep infinity\n"), 0o755)
}
