package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/secretsync"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The manifests are applied on every platform. On AWS the operator installs nothing, asks nothing of
// OpenStack (although the world's credentials Secret is there) and says so with one condition that
// cluster-storage-operator reads as "not needed here", never Degraded; when Infrastructure/cluster
// turns to OpenStack it finds Manila and installs the driver without a restart.
func TestQuietOffOpenStack(t *testing.T) {
	world.OperandPodsReady(t) // Disabled goes only once the driver is Available
	setPlatform(t, configv1.AWSPlatformType)
	degraded := watchDegraded(t)
	opts, counter := framework.OperatorOptions()
	startOperatorWith(t, opts, counter, "", framework.ShareTypeSpec{Name: "default"})

	cond := world.WaitForCondition(t, manila.ConditionDisabled, operatorv1.ConditionTrue)
	if cond.Reason != manila.ReasonPlatformNotOpenStack || !strings.Contains(cond.Message, "AWS") {
		t.Errorf("%s: %s %q", manila.ConditionDisabled, cond.Reason, cond.Message)
	}
	framework.Eventually(t, framework.DefaultTimeout, "the secret sync quiet", func(context.Context) error {
		if c := world.Condition(t, secretsync.ConditionDegraded); c == nil || c.Reason != secretsync.ReasonPlatformNotOpenStack {
			return fmt.Errorf("%s: %+v", secretsync.ConditionDegraded, c)
		}
		return nil
	})
	openstackHosts := []string{hostOf(world.OpenStack.AuthURL()), hostOf(world.OpenStack.ManilaURL())}
	framework.Consistently(t, 5*time.Second, "nothing installed, nothing asked of OpenStack", func(ctx context.Context) error {
		for _, host := range openstackHosts {
			if n := counter.Count(host); n > 0 {
				return fmt.Errorf("%d requests to %s", n, host)
			}
		}
		if _, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the controller Deployment: %v", err)
		}
		if _, err := world.Kube.StorageV1().CSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the CSIDriver: %v", err)
		}
		if classes, err := world.OwnedStorageClasses(ctx); err != nil || len(classes) > 0 {
			return fmt.Errorf("StorageClasses %v (%v)", classes, err)
		}
		return nil
	})

	setPlatform(t, configv1.OpenStackPlatformType)
	world.WaitForNoCondition(t, manila.ConditionDisabled)
	world.WaitForClassOfShareType(t, "default")
	world.WaitForDeployment(t, nil)
	if got := degraded(); len(got) > 0 {
		t.Errorf("Degraded at some moment: %v", got)
	}
}

// setPlatform sets Infrastructure/cluster's platform (status and the deprecated field) and puts
// OpenStack back when the test ends.
func setPlatform(t *testing.T, p configv1.PlatformType) {
	t.Helper()
	ctx := context.Background()
	infras := world.ConfigV1.ConfigV1().Infrastructures()
	set := func(p configv1.PlatformType) error {
		infra, err := infras.Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return err
		}
		infra.Status.Platform, infra.Status.PlatformStatus = p, &configv1.PlatformStatus{Type: p}
		_, err = infras.UpdateStatus(ctx, infra, metav1.UpdateOptions{})
		return err
	}
	if err := set(p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := set(configv1.OpenStackPlatformType); err != nil {
			t.Errorf("putting OpenStack back in Infrastructure/cluster: %v", err)
		}
	})
}

// hostOf is the host:port of a URL.
func hostOf(url string) string {
	rest := url[strings.Index(url, "//")+2:]
	if i := strings.Index(rest, "/"); i >= 0 {
		return rest[:i]
	}
	return rest
}
