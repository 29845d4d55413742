package integration

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// registerZones puts one share service record per zone in Manila, waits until Manila lists the
// zones, and disables the services when the test ends, so their zones vanish again.
func registerZones(t *testing.T, hostsByZone map[string]string) {
	t.Helper()
	for zone, host := range hostsByZone {
		if err := world.OpenStack.RegisterShareHost(host, zone); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := world.OpenStack.SetShareHostEnabled(context.Background(), host, false); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		})
	}
	framework.Eventually(t, 30*time.Second, "Manila lists the registered zones", func(ctx context.Context) error {
		zones, err := world.OpenStack.AvailabilityZones(ctx)
		if err != nil {
			return err
		}
		for zone := range hostsByZone {
			if !slices.Contains(zones, zone) {
				return fmt.Errorf("zones %v lack %s", zones, zone)
			}
		}
		return nil
	})
}

// topologyOf is what a class says about topology: its binding mode, autoTopology and availability
// parameters, and the compute zones of its allowedTopologies.
type topologyOf struct {
	binding      storagev1.VolumeBindingMode
	auto, avail  string
	computeZones []string
}

func classTopology(sc *storagev1.StorageClass) topologyOf {
	got := topologyOf{auto: sc.Parameters["autoTopology"], avail: sc.Parameters["availability"]}
	if sc.VolumeBindingMode != nil {
		got.binding = *sc.VolumeBindingMode
	}
	for _, term := range sc.AllowedTopologies {
		for _, req := range term.MatchLabelExpressions {
			if req.Key == classplan.TopologyKey {
				got.computeZones = append(got.computeZones, req.Values...)
			}
		}
	}
	return got
}

func waitForTopology(t *testing.T, name string, want topologyOf) *storagev1.StorageClass {
	t.Helper()
	return world.WaitForStorageClass(t, name, func(sc *storagev1.StorageClass) error {
		if got := classTopology(sc); !reflect.DeepEqual(got, want) {
			return fmt.Errorf("topology %+v, want %+v", got, want)
		}
		return nil
	})
}

// driverHasTopology says whether the Manila driver container runs with --with-topology.
func driverHasTopology(containers []corev1.Container) error {
	for _, c := range containers {
		if c.Name == "csi-driver" {
			if slices.Contains(c.Args, "--with-topology") {
				return nil
			}
			return fmt.Errorf("csi-driver args %v lack --with-topology", c.Args)
		}
	}
	return fmt.Errorf("no csi-driver container")
}

// Zonal mode on the real Manila: share types limited by their availability_zones extra spec get
// allowedTopologies listing the compute zones mapped from Manila's zones, every class binds on first
// consumer with autoTopology, per-zone classes name their zone, and the driver runs with topology.
// Then a zone vanishes from Manila (its only share service disabled through the admin API): the
// classes it affects are marked stale and kept, the class of a type still reaching another zone is
// recreated with the smaller allowedTopologies; when the zone comes back the marks go.
func TestTopologyZonal(t *testing.T) {
	registerZones(t, map[string]string{"topo-a": "topo-host-a@backend", "topo-b": "topo-host-b@backend"})
	counter := startZonalOperator(t, `
topology:
  mode: Zonal
  perZoneClasses: true
  zones:
    topo-a: [nova-1, nova-2]
`,
		framework.ShareTypeSpec{Name: "topo-open"},
		framework.ShareTypeSpec{Name: "topo-limited", ExtraSpecs: map[string]string{"availability_zones": "topo-a,topo-b"}},
		framework.ShareTypeSpec{Name: "topo-single", ExtraSpecs: map[string]string{"availability_zones": "topo-b"}})
	wffc := storagev1.VolumeBindingWaitForFirstConsumer

	waitForTopology(t, "csi-manila-topo-open", topologyOf{binding: wffc, auto: "true"})
	limited := waitForTopology(t, "csi-manila-topo-limited", topologyOf{binding: wffc, auto: "true", computeZones: []string{"nova-1", "nova-2", "topo-b"}})
	waitForTopology(t, "csi-manila-topo-single", topologyOf{binding: wffc, auto: "true", avail: "topo-b", computeZones: []string{"topo-b"}})
	waitForTopology(t, "csi-manila-topo-open-topo-a", topologyOf{binding: wffc, auto: "true", avail: "topo-a", computeZones: []string{"nova-1", "nova-2"}})
	waitForTopology(t, "csi-manila-topo-open-topo-b", topologyOf{binding: wffc, auto: "true", avail: "topo-b", computeZones: []string{"topo-b"}})
	waitForTopology(t, "csi-manila-topo-limited-topo-b", topologyOf{binding: wffc, auto: "true", avail: "topo-b", computeZones: []string{"topo-b"}})

	t.Run("the driver runs with topology", func(t *testing.T) {
		world.WaitForDeployment(t, func(d *appsv1.Deployment) error {
			return driverHasTopology(d.Spec.Template.Spec.Containers)
		})
		world.WaitForDaemonSet(t, framework.NodeDaemonSet, func(ds *appsv1.DaemonSet) error {
			return driverHasTopology(ds.Spec.Template.Spec.Containers)
		})
	})

	t.Run("Manila's zones are listed once per poll", func(t *testing.T) {
		var zoneRequests, typeRequests int
		for _, r := range counter.Log() {
			if strings.HasSuffix(r, "/availability-zones") {
				zoneRequests++
			}
			if strings.HasSuffix(r, "/types") {
				typeRequests++
			}
		}
		if zoneRequests == 0 || zoneRequests > typeRequests {
			t.Errorf("%d zone listings for %d share-type listings, want one per poll", zoneRequests, typeRequests)
		}
	})

	t.Run("a zone that vanishes marks its classes stale and keeps them", func(t *testing.T) {
		if err := world.OpenStack.SetShareHostEnabled(context.Background(), "topo-host-b@backend", false); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"csi-manila-topo-single", "csi-manila-topo-open-topo-b", "csi-manila-topo-limited-topo-b"} {
			world.WaitForStorageClass(t, name, func(sc *storagev1.StorageClass) error {
				if sc.Annotations[classplan.StaleAnnotation] == "" {
					return fmt.Errorf("not marked stale: %v", sc.Annotations)
				}
				return nil
			})
		}
		cond := world.WaitForCondition(t, storageclasses.ConditionStale, operatorv1.ConditionTrue)
		for _, name := range []string{"csi-manila-topo-single", "csi-manila-topo-open-topo-b"} {
			if !strings.Contains(cond.Message, name) {
				t.Errorf("Stale condition %q does not list %s", cond.Message, name)
			}
		}
		recreated := waitForTopology(t, "csi-manila-topo-limited", topologyOf{binding: wffc, auto: "true", avail: "topo-a", computeZones: []string{"nova-1", "nova-2"}})
		if recreated.UID == limited.UID {
			t.Errorf("csi-manila-topo-limited was not recreated")
		}
		waitForEvent(t, "StorageClassRecreated", "csi-manila-topo-limited")
		waitForTopology(t, "csi-manila-topo-open", topologyOf{binding: wffc, auto: "true"})
	})

	t.Run("the zone coming back clears the marks", func(t *testing.T) {
		if err := world.OpenStack.SetShareHostEnabled(context.Background(), "topo-host-b@backend", true); err != nil {
			t.Fatal(err)
		}
		world.WaitForStorageClass(t, "csi-manila-topo-single", func(sc *storagev1.StorageClass) error {
			if v, marked := sc.Annotations[classplan.StaleAnnotation]; marked {
				return fmt.Errorf("still marked stale since %s", v)
			}
			return nil
		})
		world.WaitForNoCondition(t, storageclasses.ConditionStale)
	})
}

// In the default mode a share type's availability_zones change nothing, and Manila's zones are never
// asked for: a poll stays one Manila request. Turning Zonal on takes effect at once, not at the next
// poll (the interval here is 10 minutes): the operator polls for the zones, and the class is recreated
// with topology; turning it off recreates it without.
func TestTopologyModeSwitch(t *testing.T) {
	registerZones(t, map[string]string{"topo-switch-a": "topo-switch-host@backend"})
	opts, counter := framework.OperatorOptions()
	opts.PollInterval = 10 * time.Minute
	startOperatorWith(t, opts, counter, "", framework.ShareTypeSpec{Name: "topo-switch", ExtraSpecs: map[string]string{"availability_zones": "topo-switch-a"}})
	none := topologyOf{binding: storagev1.VolumeBindingImmediate}
	waitForTopology(t, "csi-manila-topo-switch", none)
	world.WaitForDaemonSet(t, framework.NodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		if driverHasTopology(ds.Spec.Template.Spec.Containers) == nil {
			return fmt.Errorf("the node plugin runs with --with-topology in mode None")
		}
		return nil
	})
	for _, r := range counter.Log() {
		if strings.HasSuffix(r, "/availability-zones") {
			t.Errorf("mode None asked Manila for its zones: %s", r)
		}
	}

	world.WriteOperatorConfig(t, "topology:\n  mode: Zonal\n")
	waitForTopology(t, "csi-manila-topo-switch", topologyOf{binding: storagev1.VolumeBindingWaitForFirstConsumer, auto: "true", avail: "topo-switch-a", computeZones: []string{"topo-switch-a"}})
	world.WaitForDaemonSet(t, framework.NodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		return driverHasTopology(ds.Spec.Template.Spec.Containers)
	})
	waitForEvent(t, "StorageClassRecreated", "csi-manila-topo-switch")

	world.WriteOperatorConfig(t, "topology:\n  mode: None\n")
	waitForTopology(t, "csi-manila-topo-switch", none)
	world.WaitForDaemonSet(t, framework.NodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		if driverHasTopology(ds.Spec.Template.Spec.Containers) == nil {
			return fmt.Errorf("the node plugin still runs with --with-topology")
		}
		return nil
	})
}

func startZonalOperator(t *testing.T, config string, types ...framework.ShareTypeSpec) *framework.RequestCounter {
	t.Helper()
	opts, counter := framework.OperatorOptions()
	startOperatorWith(t, opts, counter, config, types...)
	return counter
}
