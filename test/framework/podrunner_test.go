package framework

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// A projected volume is written as the kubelet writes it: Secret and ConfigMap keys (items at their
// paths), a missing optional source skipped, a ServiceAccount token bound to the pod, downward API
// files; a plain downward API volume too; a volume no container mounts is skipped. A missing required
// source is an error, so the caller waits.
func TestPodRunnerProjectedVolume(t *testing.T) {
	dir := t.TempDir()
	kube := fake.NewClientset(
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}, Data: map[string][]byte{"a": []byte("A"), "b": []byte("B")}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}, Data: map[string]string{"ca.crt": "CA"}})
	var asked *authenticationv1.TokenRequest
	kube.PrependReactor("create", "serviceaccounts", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "token" {
			return false, nil, nil
		}
		asked = a.(k8stesting.CreateAction).GetObject().(*authenticationv1.TokenRequest)
		return true, &authenticationv1.TokenRequest{Status: authenticationv1.TokenRequestStatus{Token: "t0k"}}, nil
	})
	projected := corev1.Volume{Name: "api", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
		{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Items: []corev1.KeyToPath{{Key: "a", Path: "sub/a.txt"}}}},
		{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "absent"}, Optional: ptr.To(true)}},
		{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}},
		{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", Audience: "aud", ExpirationSeconds: ptr.To[int64](600)}},
		{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
			{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}},
	}}}}
	downward := corev1.Volume{Name: "info", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
		{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}},
		{Path: "name", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}},
	}}}}
	// A volume no container mounts, as csi-operator's Manila node DaemonSet has one of a Secret
	// nobody makes: the kubelet skips it.
	unmounted := corev1.Volume{Name: "unused", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "absent"}}}
	pod := &podRoot{dir: dir, namespace: "ns", podName: "p-1", podUID: "uid-1", labels: map[string]string{"b": "2", "a": "1"},
		spec: corev1.PodSpec{ServiceAccountName: "sa", Volumes: []corev1.Volume{projected, downward, unmounted},
			Containers: []corev1.Container{{Name: "c", VolumeMounts: []corev1.VolumeMount{{Name: "api", MountPath: "/api"}, {Name: "info", MountPath: "/info"}}}}}}
	if err := pod.materialize(context.Background(), kube); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"api/sub/a.txt": "A", "api/ca.crt": "CA", "api/token": "t0k", "api/namespace": "ns",
		"info/labels": "a=\"1\"\nb=\"2\"", "info/name": "p-1",
	} {
		b, err := os.ReadFile(filepath.Join(dir, "volumes", path))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", path, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "volumes", "api", "b")); err == nil {
		t.Errorf("key b was written though the items list only a")
	}
	if asked == nil || !slices.Equal(asked.Spec.Audiences, []string{"aud"}) || *asked.Spec.ExpirationSeconds != 600 ||
		asked.Spec.BoundObjectRef == nil || asked.Spec.BoundObjectRef.UID != "uid-1" || asked.Spec.BoundObjectRef.Name != "p-1" {
		t.Errorf("token request %+v: want audience aud, 600 s, bound to pod p-1/uid-1", asked)
	}

	missing := &podRoot{dir: t.TempDir(), namespace: "ns", spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", VolumeMounts: []corev1.VolumeMount{{Name: "x", MountPath: "/x"}}}},
		Volumes: []corev1.Volume{{Name: "x",
			VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "absent"}}}}}}}}}}
	if err := missing.materialize(context.Background(), kube); err == nil {
		t.Errorf("a projected volume whose required Secret is missing was materialized")
	}
}

// Restarts back off 1 s, 2 s, 4 s, 8 s, then 10 s; a process that ran 20 s starts over at 1 s.
func TestPodRunnerBackOff(t *testing.T) {
	var got []time.Duration
	var b time.Duration
	for range 6 {
		b = nextBackOff(b, time.Second)
		got = append(got, b)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("back-offs %v, want %v", got, want)
	}
	if b := nextBackOff(10*time.Second, 25*time.Second); b != time.Second {
		t.Errorf("after a long run the back-off is %s, want 1s", b)
	}
}

// The status the runner reports is the kubelet's: Pending with ContainerCreating while the volumes
// wait; Running, with Ready and ContainersReady once the process runs and is ready; Ready waits for a
// readiness gate; after a crash, CrashLoopBackOff with the last termination and the restart count;
// after deletion, Succeeded (or Failed) with terminated containers.
func TestPodRunnerStatus(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "0123456789", Generation: 2},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}}}
	r := &PodRunner{opts: PodRunnerOptions{Images: map[string]string{"img": "/bin/true"}}, dir: t.TempDir()}
	pw := newPodWorker(r, pod)
	c := pw.ctrs[0]
	condition := func(st corev1.PodStatus, ct corev1.PodConditionType) corev1.ConditionStatus {
		for _, cond := range st.Conditions {
			if cond.Type == ct {
				return cond.Status
			}
		}
		return ""
	}

	pw.setupMessage = `volume x: secrets "s" not found`
	st := pw.status(pod)
	if st.Phase != corev1.PodPending || st.ContainerStatuses[0].State.Waiting == nil ||
		st.ContainerStatuses[0].State.Waiting.Reason != "ContainerCreating" || condition(st, corev1.PodReady) != corev1.ConditionFalse {
		t.Errorf("waiting for volumes: %+v", st)
	}

	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pw.volumesReady, pw.setupMessage = true, ""
	c.proc, c.startedAt, c.ready = &Process{Cmd: cmd}, time.Now(), true
	st = pw.status(pod)
	if st.Phase != corev1.PodRunning || st.PodIP != "127.0.0.1" || !st.ContainerStatuses[0].Ready || st.ContainerStatuses[0].State.Running == nil ||
		condition(st, corev1.PodReady) != corev1.ConditionTrue || condition(st, corev1.ContainersReady) != corev1.ConditionTrue || st.ObservedGeneration != 2 {
		t.Errorf("running and ready: %+v", st)
	}
	pod.Status = st

	gated := pod.DeepCopy()
	gated.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/ready"}}
	if st := pw.status(gated); condition(st, corev1.PodReady) != corev1.ConditionFalse || condition(st, corev1.ContainersReady) != corev1.ConditionTrue {
		t.Errorf("with an unmet readiness gate: %+v", st.Conditions)
	}

	c.proc, c.ready, c.restarts = nil, false, 1
	c.lastTerm = &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", Signal: 9}
	c.waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}
	st = pw.status(pod)
	cs := st.ContainerStatuses[0]
	if st.Phase != corev1.PodRunning || cs.RestartCount != 1 || cs.State.Waiting == nil || cs.State.Waiting.Reason != "CrashLoopBackOff" ||
		cs.LastTerminationState.Terminated == nil || cs.LastTerminationState.Terminated.ExitCode != 137 || condition(st, corev1.PodReady) != corev1.ConditionFalse {
		t.Errorf("backing off after a kill: %+v", st)
	}

	c.waiting, pw.terminated = nil, true
	c.lastTerm = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}
	if st := pw.status(pod); st.Phase != corev1.PodSucceeded || st.ContainerStatuses[0].State.Terminated == nil {
		t.Errorf("terminated after deletion: %+v", st)
	}
	c.lastTerm.ExitCode = 143
	if st := pw.status(pod); st.Phase != corev1.PodFailed {
		t.Errorf("terminated by SIGTERM: phase %s, want Failed", st.Phase)
	}
}

// A container's command: its image's binary, --listen on a free loopback port and --kubeconfig
// added, paths moved into the pod's volumes, TMPDIR in its emptyDir, field references resolved.
func TestPodRunnerCommand(t *testing.T) {
	dir := t.TempDir()
	r := &PodRunner{opts: PodRunnerOptions{Images: map[string]string{"img": "/usr/bin/op"}}, dir: dir, ctx: context.Background(),
		w: &World{ControlPlane: &ControlPlane{Kube: fake.NewClientset()}}}
	c := corev1.Container{Name: "c", Image: "img", SecurityContext: &corev1.SecurityContext{ReadOnlyRootFilesystem: ptr.To(true)},
		Args: []string{"start", "--listen=0.0.0.0:8443", "--tls-cert-file=/var/run/secrets/serving-cert/tls.crt"},
		Env: []corev1.EnvVar{{Name: "TMPDIR", Value: "/tmp"},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
		VolumeMounts: []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}, {Name: "cert", MountPath: "/var/run/secrets/serving-cert"}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "op-1", Namespace: "ns", UID: "0123456789"}, Spec: corev1.PodSpec{Containers: []corev1.Container{c},
		Volumes: []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "cert", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}}}}}
	pw := newPodWorker(r, pod)
	root := &podRoot{dir: pw.dir, spec: pod.Spec, namespace: "ns", podName: pod.Name}
	cmd, err := pw.ctrs[0].command(root, "/k/kubeconfig")
	if err != nil {
		t.Fatal(err)
	}
	vol := func(name, rest string) string { return filepath.Join(pw.dir, "volumes", name, rest) }
	args := cmd.Args[1:]
	if cmd.Args[0] == "bash" { // read-only root (as root): readonly-root.sh, the emptyDir, the binary
		if cmd.Args[2] != filepath.Clean(vol("tmp", "")) || cmd.Args[3] != "/usr/bin/op" {
			t.Errorf("read-only root command %q", cmd.Args)
		}
		args = cmd.Args[4:]
	} else if cmd.Path != "/usr/bin/op" {
		t.Errorf("binary %s, want /usr/bin/op", cmd.Path)
	}
	want := []string{"start", "--listen=127.0.0.1:" + strconv.Itoa(pw.ctrs[0].port), "--tls-cert-file=" + vol("cert", "tls.crt"), "--kubeconfig=/k/kubeconfig"}
	if !slices.Equal(args, want) {
		t.Errorf("args\n got %q\nwant %q", args, want)
	}
	for _, e := range []string{"TMPDIR=" + filepath.Clean(vol("tmp", "")), "POD_NAME=op-1", "HOSTNAME=op-1"} {
		if !slices.Contains(cmd.Env, e) {
			t.Errorf("env %q lacks %s", cmd.Env, e)
		}
	}
}

// The scheduler's part: a pod fits a node by nodeSelector, required node affinity (labels and the
// metadata.name field a DaemonSet's pod names its node by), taints and required anti-affinity on the
// hostname; among the runners' nodes it fits, a pod goes to the one with the fewest pods of its owner.
func TestPodRunnerScheduling(t *testing.T) {
	node := func(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: map[string]string{runnerNodeAnnotation: "true"}},
			Spec: corev1.NodeSpec{Taints: taints}}
	}
	master := map[string]string{"node-role.kubernetes.io/master": ""}
	n0, n1 := node("n-0", master), node("n-1", master)
	tainted := node("n-2", master, corev1.Taint{Key: "node-role.kubernetes.io/master", Effect: corev1.TaintEffectNoSchedule})
	worker := node("w-0", map[string]string{"zone": "3"})
	nodes := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, n := range []*corev1.Node{n0, n1, tainted, worker} {
		_ = nodes.Add(n)
	}
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	r := &PodRunner{opts: PodRunnerOptions{NodeName: "n-0"}, pods: pods, nodes: corelisters.NewNodeLister(nodes), boundAt: map[types.UID]time.Time{}}
	owner := []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: "rs-uid", Controller: ptr.To(true)}}
	pod := func(name string, spec corev1.PodSpec) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name), Labels: map[string]string{"app": "a"},
			OwnerReferences: owner}, Spec: spec}
	}
	daemon := corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n-1"}}}}}}}}}
	zoned := corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpGt, Values: []string{"2"}}}}}}}}}
	tolerant := corev1.PodSpec{NodeSelector: master, Tolerations: []corev1.Toleration{{Key: "node-role.kubernetes.io/master", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}}
	lonely := corev1.PodSpec{Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}}}}}
	for _, tc := range []struct {
		pod  *corev1.Pod
		node *corev1.Node
		fits bool
	}{
		{pod("p", corev1.PodSpec{NodeSelector: master}), n0, true},
		{pod("p", corev1.PodSpec{NodeSelector: master}), worker, false},
		{pod("p", corev1.PodSpec{NodeSelector: master}), tainted, false},
		{pod("p", tolerant), tainted, true},
		{pod("p", daemon), n1, true},
		{pod("p", daemon), n0, false},
		{pod("p", zoned), worker, true},
		{pod("p", zoned), n0, false},
		{pod("p", lonely), n0, true},
	} {
		if got := r.fits(tc.pod, tc.node) == ""; got != tc.fits {
			t.Errorf("pod %+v on %s: fits %v, want %v (%s)", tc.pod.Spec, tc.node.Name, got, tc.fits, r.fits(tc.pod, tc.node))
		}
	}

	// Spreading: n-0 (first by name) while both are empty; n-1 once n-0 has a pod of the owner.
	if got := r.spreadChoice(pod("p", corev1.PodSpec{NodeSelector: master})); got != "n-0" {
		t.Errorf("spread onto empty nodes chose %s, want n-0", got)
	}
	running := pod("running", corev1.PodSpec{NodeName: "n-0"})
	_ = pods.Add(running)
	if got := r.spreadChoice(pod("p", corev1.PodSpec{NodeSelector: master})); got != "n-1" {
		t.Errorf("spread with a pod on n-0 chose %s, want n-1", got)
	}
	if why := r.fits(pod("p", lonely), n0); why == "" {
		t.Errorf("a pod with anti-affinity to app=a fits n-0, where %s runs", running.Name)
	}
}
