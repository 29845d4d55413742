package integration

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// faultWatch starts, on a settled operator, the continuous checks every fault test ends with.
type faultWatch struct {
	churn, degraded, disabled func() []string
}

func watchFault(t *testing.T) faultWatch {
	t.Helper()
	world.WaitForStorageClass(t, "csi-manila-gold", nil)
	world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	// Disabled goes only once the driver is Available: a first poll that failed (on a loaded machine,
	// Keystone slower than a test's short request timeout) sets it until then.
	world.OperandPodsReady(t)
	world.WaitForNoCondition(t, manila.ConditionDisabled)
	waitDriverSecret(t, "synced", func(map[string][]byte) error { return nil })
	return faultWatch{churn: watchSettledChurn(t), degraded: watchDegraded(t), disabled: watchDisabled(t)}
}

// watchSettledChurn waits for the operand to be in place, then watches for churn.
func watchSettledChurn(t *testing.T) func() []string {
	t.Helper()
	settledWorkloads(t)
	framework.Eventually(t, framework.DefaultTimeout, "the CSIDriver and the trusted-CA ConfigMap", func(ctx context.Context) error {
		if _, err := world.Kube.StorageV1().CSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{}); err != nil {
			return err
		}
		_, err := world.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, hooks.TrustedCAConfigMap, metav1.GetOptions{})
		return err
	})
	return watchChurn(t)
}

func noChurn(t *testing.T, churn func() []string) {
	t.Helper()
	if got := churn(); len(got) > 0 {
		t.Errorf("owned objects were deleted or created during the fault: %v", got)
	}
}

// check: nothing owned was deleted or created, nothing was ever Disabled, and the only Degraded
// condition was the Manila controller's failed polls.
func (f faultWatch) check(t *testing.T) {
	t.Helper()
	noChurn(t, f.churn)
	if disabled := f.disabled(); len(disabled) > 0 {
		t.Errorf("the fault showed %v", disabled)
	}
	for _, d := range f.degraded() {
		if !strings.HasPrefix(d, manila.ConditionDegraded+" ("+manila.ReasonOpenStackError+")") {
			t.Errorf("the fault showed %s", d)
		}
	}
}

// recovered waits until a good poll after the fault has cleared Degraded. The next poll is due within a
// poll interval, but on a loaded machine the poll, the status write (retried on a conflict) and the
// informer that shows it can take longer: how soon is a figure for the benchmark, not a deadline for
// a test; the deadline is generous, plus whatever the fault still holds (a slow answer in flight).
func recovered(t *testing.T, held time.Duration) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout+held, "ManilaControllerDegraded=False after the fault", func(context.Context) error {
		if c := world.Condition(t, manila.ConditionDegraded); c == nil || c.Status != operatorv1.ConditionFalse {
			return fmt.Errorf("%+v", c)
		}
		return nil
	})
}

// Keystone goes down while the operator's token is still valid: Manila accepts the token until it
// expires, so a listing is served and nothing is reported; once it has expired every poll fails, and
// Degraded says so after the grace; Keystone back, the next poll logs in again. Nothing owned is
// touched throughout. The token lives long enough (lifetime) for several polls after the stop on a
// loaded machine; the test waits for one to be served.
func TestKeystoneDownAcrossTokenExpiry(t *testing.T) {
	const lifetime = 40 * time.Second
	os := world.OpenStack
	restartKeystone := func(start func() error) {
		if err := os.StopKeystone(); err != nil {
			t.Fatal(err)
		}
		if err := start(); err != nil {
			t.Fatal(err)
		}
	}
	restartKeystone(func() error { return os.StartKeystoneWithTokenLifetime(lifetime) })
	defaultLifetime := false
	t.Cleanup(func() {
		if !defaultLifetime {
			_ = os.StopKeystone()
			if err := os.StartKeystone(); err != nil {
				t.Errorf("restarting Keystone: %v", err)
			}
		}
	})
	op := startOperator(t, "", framework.ShareTypeSpec{Name: "gold"})
	fault := watchFault(t)
	// Keystone issued the token after the login was sent: the token is valid at least until then
	// plus its lifetime (the login itself may take seconds on a loaded machine).
	login := lastLoginSent(t, op.Requests)

	if err := os.StopKeystone(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	expiry := login.Add(lifetime)
	framework.Eventually(t, time.Until(expiry), "a share-type listing served with the token after Keystone stopped", func(context.Context) error {
		if listingsBetween(op.Requests, stopped, expiry, http.StatusOK) == 0 {
			return errors.New("none yet")
		}
		return nil
	})
	var degraded *operatorv1.OperatorCondition
	framework.Eventually(t, lifetime+framework.DefaultTimeout, "Degraded once the token has expired", func(context.Context) error {
		if degraded = world.Condition(t, manila.ConditionDegraded); degraded == nil || degraded.Status != operatorv1.ConditionTrue {
			return fmt.Errorf("%+v", degraded)
		}
		return nil
	})
	// Ordering, not timing: Degraded came after the expiry (its transition time is stamped in whole
	// seconds), and no listing that ended while the token was surely valid was refused (a second's
	// margin for Keystone's own stamp of the token's expiry).
	if at := degraded.LastTransitionTime.Time; at.Before(expiry.Truncate(time.Second)) {
		t.Errorf("Degraded at %s, before the token expired at %s", at.Format(time.TimeOnly), expiry.Format(time.TimeOnly))
	}
	if failed := listingsBetween(op.Requests, stopped, expiry.Add(-time.Second), http.StatusUnauthorized); failed > 0 {
		t.Errorf("%d share-type listings refused while the token was valid and Keystone down", failed)
	}

	if err := os.StartKeystone(); err != nil {
		t.Fatal(err)
	}
	defaultLifetime = true
	recovered(t, 0)
	fault.check(t)
}

// lastLoginSent is when the operator's last successful Keystone login was sent.
func lastLoginSent(t *testing.T, requests *framework.RequestCounter) time.Time {
	t.Helper()
	var at time.Time
	for _, o := range requests.Outcomes() {
		if strings.HasSuffix(o.Request, "/v3/auth/tokens") && strings.HasPrefix(o.Request, "POST ") && o.Status == http.StatusCreated {
			at = o.Sent
		}
	}
	if at.IsZero() {
		t.Fatal("the operator never logged in")
	}
	return at
}

// listingsBetween counts share-type listings that ended with status between from and to.
func listingsBetween(requests *framework.RequestCounter, from, to time.Time, status int) int {
	n := 0
	for _, o := range requests.Outcomes() {
		if strings.Contains(o.Request, "/types") && o.Status == status && o.At.After(from) && o.At.Before(to) {
			n++
		}
	}
	return n
}

// Manila's API goes down and comes back: Degraded after the grace, then not Degraded, nothing owned
// touched, never Disabled.
func TestManilaDownThenUp(t *testing.T) {
	startOperator(t, "", framework.ShareTypeSpec{Name: "gold"})
	fault := watchFault(t)
	os := world.OpenStack
	if err := os.StopManila(); err != nil {
		t.Fatal(err)
	}
	manilaUp := false
	t.Cleanup(func() {
		if !manilaUp {
			if err := os.StartManila(); err != nil {
				t.Errorf("restarting Manila: %v", err)
			}
		}
	})
	world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionTrue)
	if err := os.StartManila(); err != nil {
		t.Fatal(err)
	}
	manilaUp = true
	recovered(t, 0)
	fault.check(t)
}

// Manila answers, but slower than the operator's request timeout: every poll fails by timeout (never
// more than one request in flight, so nothing piles up), Degraded names the timeout after the grace,
// and once Manila is quick again the next poll succeeds. Nothing owned is touched.
func TestManilaSlowerThanRequestTimeout(t *testing.T) {
	const timeout = 2 * time.Second
	slow := &slowFront{}
	front := slow.start(t)
	moveManilaTo(t, front.URL)
	restoreManilaEndpoint(t)
	opts, counter := framework.OperatorOptions()
	opts.RequestTimeout = timeout
	startOperatorWith(t, opts, counter, "", framework.ShareTypeSpec{Name: "gold"})
	fault := watchFault(t)

	slow.delay.Store(int64(2 * timeout))
	cond := world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionTrue)
	if !strings.Contains(cond.Message, "Timeout") && !strings.Contains(cond.Message, "deadline") {
		t.Errorf("Degraded does not say the requests timed out: %s", cond.Message)
	}
	slow.delay.Store(0)
	recovered(t, 2*timeout) // a request that timed out may still be held by the slow front
	if n := slow.maxInFlight.Load(); n > 1 {
		t.Errorf("%d requests were in flight at once: slow answers pile up", n)
	}
	fault.check(t)
}

// slowFront is a reverse proxy in front of Manila that holds each answer for delay.
type slowFront struct {
	delay, inFlight, maxInFlight atomic.Int64
}

func (s *slowFront) start(t *testing.T) *httptest.Server {
	backend, err := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", world.OpenStack.ManilaPort))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(backend)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for m := s.maxInFlight.Load(); n > m && !s.maxInFlight.CompareAndSwap(m, n); m = s.maxInFlight.Load() {
		}
		if d := time.Duration(s.delay.Load()); d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}
