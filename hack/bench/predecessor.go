package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// predecessorRun is the predecessor measured in this run, one result per share-type count.
type predecessorRun struct {
	bin     string
	results []result
}

// measurePredecessor measures BENCH_PREDECESSOR_BINARY, a build of OpenShift's
// csi-driver-manila-operator (docs/benchmark.md says which and how), exactly as the operator is
// measured, in a fresh world of its own: same Keystone, Manila and share types, same idle window,
// same identity (the operator's ServiceAccount, so the audit log counts it the same way) but bound to
// cluster-admin, since its RBAC is not ours; with the environment of our manifest, whose image
// variables are the ones it reads, and its own `start` arguments as cluster-storage-operator runs it.
func measurePredecessor(ctx context.Context, t *testing.T, bin string, counts []int, idle time.Duration) *predecessorRun {
	world, err := framework.StartWorldWith(ctx, framework.OpenStackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A cleanup, not a defer: the ClusterCSIDriver's own cleanup must run while the world is up.
	t.Cleanup(world.Stop)
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	s := predecessorSubject(ctx, t, world, bin)
	run := &predecessorRun{bin: bin}
	created := 0
	for _, n := range counts {
		if created < n {
			createTypes(ctx, t, world, created, n)
		}
		run.results = append(run.results, measure(t, world, s, n, idle, time.Minute, ""))
		created = n + 1
	}
	return run
}

// bindClusterAdmin binds cluster-admin to the operator's ServiceAccount in namespace ns of cp, for
// a binary whose RBAC is not ours (what it may do is not what the bench measures).
func bindClusterAdmin(ctx context.Context, t *testing.T, cp *framework.ControlPlane, ns string) {
	_, err := cp.Kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "bench-cluster-admin-" + ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: names.OperatorName}},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// atPaths returns a subject's wrap that runs it through hack/at-paths.sh with binds ("DIR=PATH"): in
// a mount namespace of its own where each DIR is at its PATH under /etc, the host's /etc untouched.
func atPaths(t *testing.T, binds ...string) func(bin string, args []string) (string, []string) {
	script, err := filepath.Abs("hack/at-paths.sh")
	if err != nil {
		t.Fatal(err)
	}
	return func(bin string, args []string) (string, []string) {
		return "bash", append(append(append([]string{script}, binds...), "--", bin), args...)
	}
}

// predecessorSubject is the predecessor binary as the bench runs it in world: under the operator's
// ServiceAccount bound to cluster-admin, with the Secret's clouds.yaml at /etc/openstack, the fixed
// path it reads (its Deployment mounts the Secret there), through atPaths.
func predecessorSubject(ctx context.Context, t *testing.T, world *framework.World, bin string) subject {
	bindClusterAdmin(ctx, t, world.ControlPlane, names.OperatorNamespace)
	cloudDir := t.TempDir()
	secret, err := world.Kube.CoreV1().Secrets(names.OperatorNamespace).Get(ctx, names.CloudCredentialsSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cloudDir, "clouds.yaml"), secret.Data[names.CloudsYAMLKey], 0o600); err != nil {
		t.Fatal(err)
	}
	wrap := atPaths(t, cloudDir+"=/etc/openstack")
	return subject{bin: bin, wrap: wrap, command: func(t *testing.T, world *framework.World, tmp string) framework.OperatorCommand {
		ours := world.OperatorCommandFor(t, tmp)
		port, err := framework.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		kubeconfig := ours.Args[len(ours.Args)-1] // OperatorCommandFor ends with --kubeconfig FILE
		return framework.OperatorCommand{Port: port, Env: ours.Env, Args: []string{"start", "-v=2",
			"--namespace=" + names.OperatorNamespace, "--listen=127.0.0.1:" + strconv.Itoa(port), "--kubeconfig", kubeconfig}}
	}}
}
