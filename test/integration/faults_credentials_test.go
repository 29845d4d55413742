package integration

import (
	"bytes"
	"context"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// A region_name without Manila, on a cloud whose catalog has Manila in another region, is a
// credentials error naming both regions, at once; it never reads as "no Manila" (Disabled), which
// cluster-storage-operator would take for "driver disabled".
func TestRegionTypoIsACredentialsError(t *testing.T) {
	restoreCredentials(t)
	clouds := bytes.Replace(world.OpenStack.CloudsYAML(), []byte("region_name: "+framework.Region), []byte("region_name: RegionTwo"), 1)
	if bytes.Equal(clouds, world.OpenStack.CloudsYAML()) {
		t.Fatal("the world's clouds.yaml has no region_name to change")
	}
	if err := world.WriteCloudCredentials(context.Background(), clouds); err != nil {
		t.Fatal(err)
	}
	disabled := watchDisabled(t)
	// A grace no test outlives: a Degraded that shows at all came without waiting for failed polls.
	opts, counter := framework.OperatorOptions()
	opts.FailedPollGrace = 1000
	startOperatorWith(t, opts, counter, "", framework.ShareTypeSpec{Name: "default"})
	cond := world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionTrue)
	if cond.Reason != manila.ReasonInvalidCredentials || !strings.Contains(cond.Message, "region_name") ||
		!strings.Contains(cond.Message, "RegionTwo") || !strings.Contains(cond.Message, framework.Region) {
		t.Errorf("ManilaControllerDegraded %s: %q, want InvalidCredentials naming region_name, RegionTwo and %s", cond.Reason, cond.Message, framework.Region)
	}
	if got := disabled(); len(got) > 0 {
		t.Errorf("the region typo read as a cloud without Manila: %v", got)
	}
}
