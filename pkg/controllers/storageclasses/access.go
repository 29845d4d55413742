package storageclasses

import (
	"fmt"
	"slices"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// Conditions about who may mount the shares. Neither is Degraded: a class open to any host is the
// driver's default and may be meant; a machine network not known yet is a cluster still coming up.
const (
	// ConditionOpenNFSAccess lists the classes whose shares any host may mount (removed when none).
	ConditionOpenNFSAccess = ControllerName + "OpenNFSAccess"
	// ConditionProgressing is True while classes wait for the machine network to be known.
	ConditionProgressing = ControllerName + "Progressing"
	// ConditionNodesExcluded lists the classes whose nfs-shareClient admits no InternalIP of some
	// Nodes (removed when none): a mount there is refused by the NFS server.
	ConditionNodesExcluded = ControllerName + "NodesExcluded"
)

// nfsAccess is what one sync found about the classes' NFS access lists.
type nfsAccess struct {
	// resolution is the machine network, nil when no nfs-shareClient names machineNetwork.
	resolution *machinenetwork.Resolution
	// held are the classes not written because the machine network is not known yet.
	held []string
	// open are the classes the operator owns or will write whose shares any host may mount.
	open []string
	// excluding are those whose nfs-shareClient admits no InternalIP of some Nodes.
	excluding []classplan.Exclusion
}

// resolveShareClients returns the class settings with machineNetwork resolved, and the resolution.
func (c *Controller) resolveShareClients(settings operatorconfig.StorageClasses) (operatorconfig.StorageClasses, *machinenetwork.Resolution, error) {
	if !classplan.UsesMachineNetwork(settings) {
		return settings, nil, nil
	}
	r, err := c.machineNetwork.resolve()
	if err != nil {
		return settings, nil, err
	}
	return classplan.WithMachineNetwork(settings, r.CIDRs), &r, nil
}

// judgesNodeAddresses tells the Node event filter whether node addresses matter now: while the config
// names the machine network, or any class's NFS access list (whose nodes it may exclude).
func (c *Controller) judgesNodeAddresses() bool {
	cfg, _ := c.config.Current()
	return cfg != nil && classplan.NamesShareClients(cfg.StorageClasses) // machineNetwork is a listed host too
}

// excludingClasses returns the classes the operator owns or will write whose nfs-shareClient admits
// no InternalIP of some Nodes (a conflict's class is not the operator's).
func (c *Controller) excludingClasses(wanted []classplan.Wanted, conflicts []string) ([]classplan.Exclusion, error) {
	nodes, err := c.machineNetwork.nodes.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	ips := map[string][]string{}
	for _, n := range nodes {
		ips[n.Name] = machinenetwork.NodeInternalIPs(n)
	}
	return slices.DeleteFunc(classplan.Excluding(wanted, ips), func(e classplan.Exclusion) bool {
		return slices.Contains(conflicts, e.Class)
	}), nil
}

// openClasses returns, sorted, the classes the operator owns or will write whose shares any host may
// mount: a wanted name held by a foreign class (a conflict) is left out, since that class is not the
// operator's and its access list is not the operator's to warn about or fix.
func openClasses(wanted []classplan.Wanted, conflicts []string) []string {
	return slices.DeleteFunc(classplan.OpenToAnyHost(wanted), func(name string) bool {
		return slices.Contains(conflicts, name)
	})
}

// accessEvents are the events of a sync's findings, each sent once while it lasts (keyed in reported).
func accessEvents(a nfsAccess) []event {
	var out []event
	if len(a.open) > 0 {
		out = append(out, event{warning: true, reason: "StorageClassOpenToAnyHost", message: classplan.OpenToAnyHostMessage(a.open)})
	}
	if len(a.excluding) > 0 {
		out = append(out, event{warning: true, reason: "StorageClassExcludesNodes", message: classplan.ExcludingMessage(a.excluding)})
	}
	if r := a.resolution; r != nil {
		if r.Fallback != "" {
			out = append(out, event{warning: true, reason: "MachineNetworkFallback", message: r.Fallback})
		}
		if len(r.CIDRs) > 0 {
			out = append(out, event{reason: "MachineNetworkResolved", message: fmt.Sprintf(
				"nfs-shareClient %s is %s (from %s)", machinenetwork.Keyword, strings.Join(r.CIDRs, ","), r.From)})
		}
	}
	if len(a.held) > 0 {
		out = append(out, event{warning: true, reason: "MachineNetworkUnknown", message: heldMessage(a.held)})
	}
	return out
}

type event struct {
	warning         bool
	reason, message string
}

func (e event) send(recorder events.Recorder) {
	klog.Info(e.message)
	if e.warning {
		recorder.Warning(e.reason, e.message)
	} else {
		recorder.Event(e.reason, e.message)
	}
}

func heldMessage(held []string) string {
	return fmt.Sprintf("nfs-shareClient names %s, but neither ConfigMap %s/%s nor any Node's InternalIP gives the machine network yet: StorageClasses %s are not created or updated until one does (existing ones keep their access list)",
		machinenetwork.Keyword, machinenetwork.InstallConfigNamespace, machinenetwork.InstallConfigName, strings.Join(held, ", "))
}

func accessConditions(a nfsAccess) []condition.Change {
	progressing := operatorv1.OperatorCondition{Type: ConditionProgressing, Status: operatorv1.ConditionFalse, Reason: "AsExpected"}
	if len(a.held) > 0 {
		progressing = operatorv1.OperatorCondition{Type: ConditionProgressing, Status: operatorv1.ConditionTrue,
			Reason: "WaitingForMachineNetwork", Message: heldMessage(a.held)}
	}
	open := operatorv1.OperatorCondition{Type: ConditionOpenNFSAccess}
	if len(a.open) > 0 {
		open = operatorv1.OperatorCondition{Type: ConditionOpenNFSAccess, Status: operatorv1.ConditionTrue,
			Reason: "OpenToAnyHost", Message: classplan.OpenToAnyHostMessage(a.open)}
	}
	excluded := operatorv1.OperatorCondition{Type: ConditionNodesExcluded}
	if len(a.excluding) > 0 {
		excluded = operatorv1.OperatorCondition{Type: ConditionNodesExcluded, Status: operatorv1.ConditionTrue,
			Reason: "NFSAccessExcludesNodes", Message: classplan.ExcludingMessage(a.excluding)}
	}
	return []condition.Change{condition.Set(progressing), trueOrRemoved(open), trueOrRemoved(excluded)}
}

// trueOrRemoved sets a condition that is only ever True, or removes it when its status is empty: a
// warning that no longer holds leaves no False condition behind.
func trueOrRemoved(cond operatorv1.OperatorCondition) condition.Change {
	if cond.Status == operatorv1.ConditionTrue {
		return condition.Set(cond)
	}
	return condition.Remove(cond.Type)
}
