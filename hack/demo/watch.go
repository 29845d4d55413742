package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/openshift/library-go/pkg/operator/v1helpers"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// watcher prints what changed since the last look: conditions of the CR and operand objects.
type watcher struct {
	world          *framework.World
	conditions     map[string]string
	objects        map[string]bool
	disabledReason string
	degraded       string
	announced      bool
}

func newWatcher(w *framework.World) *watcher {
	return &watcher{world: w, conditions: map[string]string{}, objects: map[string]bool{}}
}

var watched = []struct {
	kind string
	gvr  schema.GroupVersionResource
	ns   string
}{
	{"Deployment", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, names.OperandNamespace},
	{"DaemonSet", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, names.OperandNamespace},
	{"CSIDriver", schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "csidrivers"}, ""},
	{"VolumeSnapshotClass", schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshotclasses"}, ""},
	{"ServiceMonitor", schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}, names.OperandNamespace},
	{"Service", schema.GroupVersionResource{Version: "v1", Resource: "services"}, names.OperandNamespace},
	{"ServiceAccount", schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, names.OperandNamespace},
	{"StorageClass", schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"}, ""},
}

func (w *watcher) report(ctx context.Context) {
	driver, err := w.world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err == nil {
		seen := map[string]bool{}
		for _, c := range driver.Status.Conditions {
			seen[c.Type] = true
			line := fmt.Sprintf("%s=%s", c.Type, c.Status)
			if c.Reason != "" {
				line += " (" + c.Reason + ")"
			}
			if c.Message != "" {
				line += ": " + c.Message
			}
			if w.conditions[c.Type] != line {
				say("condition %s", line)
				w.conditions[c.Type] = line
			}
		}
		for t := range w.conditions {
			if !seen[t] {
				say("condition %s removed", t)
				delete(w.conditions, t)
			}
		}
		w.disabledReason = ""
		if c := v1helpers.FindOperatorCondition(driver.Status.Conditions, manila.ConditionDisabled); c != nil {
			w.disabledReason = c.Reason
		}
		w.degraded = ""
		if c := v1helpers.FindOperatorCondition(driver.Status.Conditions, manila.ConditionDegraded); c != nil {
			w.degraded = string(c.Status)
		}
	}
	for _, o := range watched {
		list, err := w.world.Dynamic.Resource(o.gvr).Namespace(o.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		var names []string
		for _, item := range list.Items {
			key := o.kind + " " + qualified(item.GetNamespace(), item.GetName())
			if !w.objects[key] && (o.ns == "" || item.GetNamespace() == o.ns) {
				w.objects[key] = true
				names = append(names, key)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			if strings.HasPrefix(n, "ServiceAccount ") && strings.HasSuffix(n, "/default") {
				continue
			}
			say("created %s", n)
		}
	}
}

func qualified(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// converged: Manila found, Degraded False and the driver's objects created. Disabled may still stand
// with DriverStarting: it goes once the driver is Available, which needs the operand's pods running on
// nodes, and this local world has no kubelet (the claim step runs the controller's containers as
// processes, outside any pod).
func (w *watcher) converged() bool {
	return (w.disabledReason == "" || w.disabledReason == manila.ReasonDriverStarting) && w.degraded == "False" &&
		w.objects["Deployment "+names.OperandNamespace+"/"+framework.ControllerDeployment] &&
		w.objects["DaemonSet "+names.OperandNamespace+"/"+framework.NodeDaemonSet] &&
		w.objects["DaemonSet "+names.OperandNamespace+"/"+framework.NFSNodeDaemonSet] &&
		w.objects["CSIDriver "+names.CSIDriverName]
}
