// Package extramounts is the volume model that brings files into the driver pods: entries shaped like
// lib-common's storage.VolMounts, propagated to workloads by target and validated against each
// workload's own volumes and mounts.
package extramounts

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// PropagationType selects which workloads receive an entry.
type PropagationType string

// Propagation targets, from wide to narrow.
const (
	// All is every workload the operator runs.
	All PropagationType = "All"
	// Controller is the group of controller-plugin workloads.
	Controller PropagationType = "Controller"
	// Node is the group of node-plugin workloads (the Manila node plugin and the NFS node plugin).
	Node PropagationType = "Node"
	// ControllerPlugin, NodePlugin and NFSNodePlugin name single workloads.
	ControllerPlugin PropagationType = "openstack-manila-csi-controllerplugin"
	NodePlugin       PropagationType = "openstack-manila-csi-nodeplugin"
	NFSNodePlugin    PropagationType = "csi-nodeplugin-nfsplugin"
	// The CephFS instance's workloads (operator config cephfs.enabled), in the Controller and Node
	// groups as their NFS counterparts.
	CephFSControllerPlugin PropagationType = "openstack-manila-cephfs-csi-controllerplugin"
	CephFSNodePlugin       PropagationType = "openstack-manila-cephfs-csi-nodeplugin"
	CephCSINodePlugin      PropagationType = "csi-nodeplugin-cephfsplugin"
)

// VolMounts is one entry: volumes for the pod and mounts for its containers. The JSON shape is
// lib-common's, plus Containers to choose the containers (the driver container when empty).
type VolMounts struct {
	Propagation  []PropagationType    `json:"propagation,omitempty"`
	ExtraVolType string               `json:"extraVolType,omitempty"`
	Volumes      []corev1.Volume      `json:"volumes"`
	Mounts       []corev1.VolumeMount `json:"mounts"`
	Containers   []string             `json:"containers,omitempty"`
}

// Entry is a VolMounts with the place it came from, used in error messages (e.g. "extraMounts[2]").
type Entry struct {
	Source string
	VolMounts
}

// Target is a workload entries can reach.
type Target struct {
	Name   PropagationType
	Group  PropagationType
	Driver string // the container that gets mounts when an entry names none
}

// The operand's workloads as targets.
var (
	ControllerTarget = Target{Name: ControllerPlugin, Group: Controller, Driver: "csi-driver"}
	NodeTarget       = Target{Name: NodePlugin, Group: Node, Driver: "csi-driver"}
	NFSNodeTarget    = Target{Name: NFSNodePlugin, Group: Node, Driver: "csi-driver"}

	CephFSControllerTarget = Target{Name: CephFSControllerPlugin, Group: Controller, Driver: "csi-driver"}
	CephFSNodeTarget       = Target{Name: CephFSNodePlugin, Group: Node, Driver: "csi-driver"}
	CephCSINodeTarget      = Target{Name: CephCSINodePlugin, Group: Node, Driver: "csi-driver"}
)

// Targets are all of the operand's workloads.
var Targets = []Target{ControllerTarget, NodeTarget, NFSNodeTarget, CephFSControllerTarget, CephFSNodeTarget, CephCSINodeTarget}

// TargetNamed returns the target for a workload name.
func TargetNamed(name string) (Target, bool) {
	for _, t := range Targets {
		if string(t.Name) == name {
			return t, true
		}
	}
	return Target{}, false
}

// Matches reports whether the entry goes to the target: no propagation means everywhere; otherwise
// any value equal to All, the target's group or the target's name.
func (v VolMounts) Matches(t Target) bool {
	if len(v.Propagation) == 0 {
		return true
	}
	for _, p := range v.Propagation {
		if p == All || p == t.Group || p == t.Name {
			return true
		}
	}
	return false
}

// Propagate returns the entries that reach the target, each at most once however many of its
// propagation values match (upstream returns one copy per matching value).
func Propagate(entries []Entry, t Target) []Entry {
	var out []Entry
	for _, e := range entries {
		if e.Matches(t) {
			out = append(out, e)
		}
	}
	return out
}

// EntryError names the entry and the field at fault.
type EntryError struct {
	Entry  string
	Field  string
	Reason string
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("%s: field %s: %s", e.Entry, e.Field, e.Reason)
}

// ValidatePropagation checks that every propagation value is a known target.
func ValidatePropagation(e Entry) error {
	known := []PropagationType{All, Controller, Node}
	for _, t := range Targets {
		known = append(known, t.Name)
	}
	for i, p := range e.Propagation {
		if !slices.Contains(known, p) {
			return &EntryError{Entry: e.Source, Field: fmt.Sprintf("propagation[%d]", i), Reason: fmt.Sprintf("unknown target %q; use one of %v", p, known)}
		}
	}
	return nil
}
