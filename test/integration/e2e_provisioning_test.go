package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// shareWorld is the shared world with an OpenStack of the test's own, whose Manila has a scheduler
// and a share service on PostgreSQL; the shared OpenStack (Manila API only, SQLite) stays as the
// other tests know it. The control plane is shared, so the end-of-run checks of TestMain see this
// test too; the new OpenStack's own secrets are checked for here.
func shareWorld(t *testing.T) *framework.World {
	t.Helper()
	return shareWorldWith(t, framework.OpenStackOptions{ShareService: true})
}

// shareWorldWith is shareWorld with the OpenStack's options (a real Ceph behind Manila).
func shareWorldWith(t *testing.T, opts framework.OpenStackOptions) *framework.World {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	o, err := framework.StartOpenStackWith(ctx, opts)
	if err != nil {
		t.Fatalf("starting an OpenStack with a share service: %v", err)
	}
	t.Cleanup(o.Stop)
	t.Logf("OpenStack with a share service up in %s", time.Since(start).Round(time.Millisecond))
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	w := world.WithOpenStack(o)
	if err := w.WriteCloudCredentials(ctx, o.CloudsYAML()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		for _, sentinel := range o.Sentinels() {
			leaks, err := w.FindSentinel(ctx, sentinel)
			if err != nil {
				t.Errorf("the sentinel check: %v", err)
			} else if len(leaks) > 0 {
				t.Errorf("a secret of the share world's OpenStack shows in %v", leaks)
			}
		}
		if err := world.WriteCloudCredentials(ctx, world.OpenStack.CloudsYAML()); err != nil {
			t.Errorf("restoring the shared world's credentials: %v", err)
		}
	})
	return w
}

// A ReadWriteMany claim on the class the operator made from Manila's "default" share type binds,
// through the real manila-csi-plugin and csi-provisioner running with what the operator rendered,
// and Manila then holds an available share of that type and size, tagged with the cluster ID and
// open to the class's clients. Expanding the claim extends the share (through csi-resizer, when it
// was built); deleting the claim deletes the share (the class's reclaim policy is Delete).
func TestE2EProvisioningDefaultClass(t *testing.T) {
	w := shareWorld(t)
	ctx := context.Background()
	if _, err := w.OpenStack.CreateShareType(ctx, framework.ShareTypeSpec{Name: "default"}); err != nil {
		t.Fatal(err)
	}
	w.CreateClusterCSIDriver(t, operatorv1.Managed)
	w.RunOperator(t)
	class := w.WaitForClassOfShareType(t, "default")
	w.WaitForDeployment(t, nil)

	start := time.Now()
	prov := w.StartProvisioning(t)
	t.Logf("provisioning world up in %s", time.Since(start).Round(time.Millisecond))

	claim := w.CreateClaim(t, "e2e-claims", "data", class.Name, "1Gi")
	start = time.Now()
	pv := w.WaitForClaimBound(t, claim)
	bound := time.Since(start)
	shareID := pv.Spec.CSI.VolumeHandle
	share := w.WaitForShareAvailable(t, shareID)
	t.Logf("claim -> bound %s, -> share available %s", bound.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	checkShare(t, w, share, class, claim, pv, "default", 1)

	if prov.Resizer {
		expandClaim(t, w, claim, "2Gi", shareID, 2)
	} else {
		t.Log("no csi-resizer built: expansion not tested")
	}

	deleteClaimAndWaitForShareGone(t, w, claim.Namespace, claim.Name, shareID)
	noSecretInLogs(t, w, prov)
}

// expandClaim asks for a larger claim and waits until Manila's share and the claim have that size.
func expandClaim(t *testing.T, w *framework.World, claim *corev1.PersistentVolumeClaim, size, shareID string, gb int) {
	t.Helper()
	start := time.Now()
	framework.Eventually(t, framework.DefaultTimeout, "claim "+claim.Name+" resized to "+size, func(ctx context.Context) error {
		c, err := w.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace).Get(ctx, claim.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(size)
		_, err = w.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace).Update(ctx, c, metav1.UpdateOptions{})
		return err
	})
	framework.Eventually(t, framework.ProvisioningTimeout, "share and claim at "+size, func(ctx context.Context) error {
		share, err := w.OpenStack.Share(ctx, shareID)
		if err != nil {
			return err
		}
		c, err := w.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace).Get(ctx, claim.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		got := c.Status.Capacity[corev1.ResourceStorage]
		if share.Size != gb || share.Status != "available" || got.Cmp(resource.MustParse(size)) != 0 {
			return fmt.Errorf("share %s %d GB, claim capacity %s; events: %s", share.Status, share.Size, got.String(), w.ClaimEvents(ctx, c))
		}
		return nil
	})
	t.Logf("claim expanded to %s in %s", size, time.Since(start).Round(time.Millisecond))
}

// driverArg returns the value of a flag of the driver container the operator rendered.
func driverArg(t *testing.T, w *framework.World, flag string) string {
	t.Helper()
	d := w.WaitForDeployment(t, nil)
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name != framework.DriverContainer {
			continue
		}
		for _, a := range c.Args {
			if v, ok := strings.CutPrefix(a, flag+"="); ok {
				return v
			}
		}
	}
	return ""
}

// noSecretInLogs checks that the world's secrets, which the driver secret carries into every CSI
// call, and any other secrets given (e.g. rotated passwords) show in none of the provisioning world's
// logs.
func noSecretInLogs(t *testing.T, w *framework.World, prov *framework.ProvisioningWorld, others ...string) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(prov.LogDir, "*.log"))
	for _, path := range logs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, sentinel := range append(w.OpenStack.Sentinels(), others...) {
			if strings.Contains(string(b), sentinel) {
				t.Errorf("%s shows one of the world's secrets", filepath.Base(path))
			}
		}
	}
}
