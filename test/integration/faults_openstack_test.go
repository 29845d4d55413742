package integration

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// manilaFront is a reverse proxy on its own loopback port in front of the Manila API: an endpoint
// that can be registered in the catalog and then taken away.
func manilaFront(t *testing.T) *httptest.Server {
	t.Helper()
	backend, err := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", world.OpenStack.ManilaPort))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httputil.NewSingleHostReverseProxy(backend))
	t.Cleanup(srv.Close)
	return srv
}

// restoreManilaEndpoint puts Manila's own endpoint back in the catalog when the test ends.
func restoreManilaEndpoint(t *testing.T) {
	t.Cleanup(func() {
		ctx := context.Background()
		if err := world.OpenStack.RemoveManilaFromCatalog(ctx); err != nil {
			t.Error(err)
		}
		if err := world.OpenStack.RegisterManilaInCatalog(ctx); err != nil {
			t.Error(err)
		}
	})
}

func moveManilaTo(t *testing.T, base string) {
	t.Helper()
	ctx := context.Background()
	if err := world.OpenStack.RemoveManilaFromCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	if err := world.OpenStack.RegisterManilaAtURL(ctx, base); err != nil {
		t.Fatal(err)
	}
}

// Manila's endpoint moves in the catalog and the old one stops answering: the operator logs in again
// and follows it within a poll or two, never Disabled, never Degraded, and the classes stay as they are.
func TestManilaEndpointMoves(t *testing.T) {
	first := manilaFront(t)
	moveManilaTo(t, first.URL)
	restoreManilaEndpoint(t)
	op := startOperator(t, "", framework.ShareTypeSpec{Name: "default"})
	before := world.WaitForStorageClass(t, "csi-manila-default", nil)
	world.WaitForNoCondition(t, manila.ConditionDisabled)
	churn := watchSettledChurn(t)
	degraded, disabled := watchDegraded(t), watchDisabled(t)

	second := manilaFront(t)
	moveManilaTo(t, second.URL)
	first.Close()
	requestsBefore := len(op.Requests.Log())
	framework.Eventually(t, 30*time.Second, "a share-type listing through the new endpoint", func(context.Context) error {
		for _, r := range op.Requests.Log()[requestsBefore:] {
			if u, err := url.Parse(second.URL); err == nil && strings.Contains(r, u.Host) {
				return nil
			}
		}
		return fmt.Errorf("no request to %s yet", second.URL)
	})
	world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	if got := append(degraded(), disabled()...); len(got) > 0 {
		t.Errorf("the move showed %v", got)
	}
	world.WaitForStorageClass(t, "csi-manila-default", func(sc *storagev1.StorageClass) error {
		if sc.UID != before.UID {
			return fmt.Errorf("recreated")
		}
		return nil
	})
	noChurn(t, churn)
}

// kube-apiserver restarts mid-run: the operator keeps running, re-establishes its watches and goes
// on reconciling (a CSIDriver deleted after the restart comes back); nothing it owns is deleted or
// recreated by it.
func TestKubeAPIServerRestartMidRun(t *testing.T) {
	op := startOperator(t, "", framework.ShareTypeSpec{Name: "gold"}, framework.ShareTypeSpec{Name: "silver"})
	op.SkipRBACCheck()
	converged(t, driverImage)
	before := ownedUIDs(t)
	if err := world.RestartAPIServer(); err != nil {
		t.Fatal(err)
	}
	deletions := watchDeletions(t)
	if err := world.Kube.StorageV1().CSIDrivers().Delete(context.Background(), "manila.csi.openstack.org", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForCSIDriver(t)
	converged(t, driverImage)
	after := ownedUIDs(t)
	for key, uid := range before {
		if key != "CSIDriver/manila.csi.openstack.org" && after[key] != uid {
			t.Errorf("%s was recreated across the restart: UID %s -> %s", key, uid, after[key])
		}
	}
	for _, d := range deletions() {
		if d != "CSIDriver/manila.csi.openstack.org" {
			t.Errorf("%s was deleted after the restart", d)
		}
	}
}

// sharev2 removed from the catalog after Manila was found: once the operator re-reads the catalog
// (CatalogRefresh, shortened here from 10 minutes), Disabled with its reason, as on a cloud without
// Manila, and the operand is kept so pods can unmount; registered again, Disabled goes away.
func TestManilaRemovedAfterFound(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t) // an earlier test's classes of another "default" type would be in the way
	world.OperandPodsReady(t)    // Disabled goes only once the driver is Available
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	opts, counter := framework.OperatorOptions()
	opts.CatalogRefresh = 3 * time.Second
	world.RunOperatorWith(t, opts, counter)
	converged := world.WaitForDeployment(t, nil)
	world.WaitForNoCondition(t, manila.ConditionDisabled)
	churn := watchSettledChurn(t)
	degraded := watchDegraded(t)
	ctx := context.Background()
	if err := world.OpenStack.RemoveManilaFromCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	registered := false
	t.Cleanup(func() {
		if registered {
			return
		}
		if err := world.OpenStack.RegisterManilaInCatalog(context.Background()); err != nil {
			t.Error(err)
		}
	})
	cond := world.WaitForCondition(t, manila.ConditionDisabled, operatorv1.ConditionTrue)
	if cond.Reason != manila.ReasonNoManilaService {
		t.Errorf("Disabled reason %s, want %s", cond.Reason, manila.ReasonNoManilaService)
	}
	deployment := world.WaitForDeployment(t, nil)
	if deployment.UID != converged.UID {
		t.Errorf("the controller Deployment was recreated")
	}
	waitForCSIDriver(t)
	if err := world.OpenStack.RegisterManilaInCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	registered = true
	world.WaitForNoCondition(t, manila.ConditionDisabled)
	if got := degraded(); len(got) > 0 {
		t.Errorf("Degraded while Manila was away: %v", got)
	}
	noChurn(t, churn)
}
