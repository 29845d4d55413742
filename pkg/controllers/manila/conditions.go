package manila

import (
	"fmt"
	"slices"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/csoview"
)

// Condition types. cluster-storage-operator reads ANY condition whose type ends in "Disabled" as
// "driver disabled", whatever its status, so Disabled is removed, never set False.
const (
	ConditionDisabled = ControllerName + "Disabled"
	ConditionDegraded = ControllerName + "Degraded"
)

// ConditionTypes are the condition types the controller writes.
func ConditionTypes() []string { return []string{ConditionDisabled, ConditionDegraded} }

// Reasons of the Disabled and Degraded conditions.
const (
	ReasonNoManilaService    = "NoManilaService"
	ReasonNoShareTypes       = "NoShareTypes"
	ReasonInvalidCredentials = "InvalidCredentials"
	ReasonCredentialsMissing = "CredentialsMissing"
	ReasonOpenStackError     = "OpenStackError"
	// ReasonManilaNotReached: Keystone or Manila never answered since the operator was installed, so
	// nothing of the driver is installed yet (as both predecessors report it: Disabled, not Degraded).
	ReasonManilaNotReached = "ManilaNotReached"
	ReasonAsExpected       = "AsExpected"
	// ReasonDriverStarting: Manila was found where Disabled said it was not (yet); Disabled stays,
	// saying so, until an Available of the driver is True.
	ReasonDriverStarting = "DriverStarting"
	// ReasonPlatformNotOpenStack: Infrastructure/cluster names another platform; nothing is asked of OpenStack.
	ReasonPlatformNotOpenStack = "PlatformNotOpenStack"
)

// Outcome is what one poll found.
type Outcome int

const (
	// ManilaFound: the catalog has sharev2 and Manila lists at least one share type.
	ManilaFound Outcome = iota
	// NoManilaService: the catalog has no sharev2 endpoint.
	NoManilaService
	// NoShareTypes: Manila answered with zero share types.
	NoShareTypes
	// PollFailed: Keystone or Manila could not be asked (unreachable, 5xx, timeout, 401, ...).
	PollFailed
	// InputMissing: the credentials secret does not exist (yet).
	InputMissing
	// InputInvalid: the credentials are there but unusable as written.
	InputInvalid
)

// Observation is the outcome of one poll, with the error for the failing outcomes.
type Observation struct {
	Outcome    Outcome
	ShareTypes int
	Err        error
}

// Disabled reports whether the observation is positive evidence that the cloud has no usable Manila.
func (o Observation) Disabled() bool {
	return o.Outcome == NoManilaService || o.Outcome == NoShareTypes
}

// Answered reports whether OpenStack told whether Manila is there and, if so, its share types: a
// successful poll, whatever it found.
func (o Observation) Answered() bool {
	return o.Outcome == ManilaFound || o.Disabled()
}

// statusUpdates turns an observation into condition changes. failures counts consecutive failed
// polls including this one; grace is how many are tolerated before Degraded; everFound is whether
// Manila was ever found on this cluster (state.ManilaFoundKey).
// Once Manila was found, a failure never touches Disabled: a cloud that had Manila a minute ago still
// has it. Before, a failed poll reads as a driver not installed (Disabled, ManilaNotReached) unless a
// Disabled already says why, and never as Degraded: the driver has nothing to lose yet, and
// cluster-storage-operator would otherwise report storage unavailable from the first poll on.
func statusUpdates(obs Observation, failures, grace int, everFound bool) []condition.Change {
	notDegraded := condition.Set(operatorv1.OperatorCondition{
		Type: ConditionDegraded, Status: operatorv1.ConditionFalse, Reason: ReasonAsExpected})
	degraded := func(reason string) condition.Change {
		return condition.Set(operatorv1.OperatorCondition{
			Type: ConditionDegraded, Status: operatorv1.ConditionTrue, Reason: reason, Message: obs.Err.Error()})
	}
	disabled := func(reason, message string) condition.Change {
		return condition.Set(operatorv1.OperatorCondition{
			Type: ConditionDisabled, Status: operatorv1.ConditionTrue, Reason: reason, Message: message})
	}
	switch obs.Outcome {
	case ManilaFound:
		return []condition.Change{disabledUntilAvailable, notDegraded}
	case NoManilaService:
		return []condition.Change{notDegraded,
			disabled(ReasonNoManilaService, "The OpenStack service catalog has no Manila (sharev2) endpoint; the Manila CSI driver is not needed.")}
	case NoShareTypes:
		return []condition.Change{notDegraded,
			disabled(ReasonNoShareTypes, "Manila is available but has no share types visible to the credentials; create a share type to enable the driver.")}
	case InputInvalid:
		return []condition.Change{degraded(ReasonInvalidCredentials)}
	case InputMissing:
		if failures >= grace {
			return []condition.Change{degraded(ReasonCredentialsMissing)}
		}
	case PollFailed:
		if !everFound {
			return []condition.Change{clearIfReason(ConditionDegraded, ReasonInvalidCredentials), unlessPresent(ConditionDisabled,
				disabled(ReasonManilaNotReached, "Keystone or Manila has not answered since the operator was installed, so the Manila CSI driver is not installed yet: "+obs.Err.Error()))}
		}
		if failures >= grace {
			return []condition.Change{degraded(ReasonOpenStackError), notInstalledGoes}
		}
		return []condition.Change{clearIfReason(ConditionDegraded, ReasonInvalidCredentials), notInstalledGoes}
	}
	// Within the grace period the verdict on earlier, invalid credentials no longer holds.
	return []condition.Change{clearIfReason(ConditionDegraded, ReasonInvalidCredentials)}
}

// unlessPresent applies update only while the condition type is absent.
func unlessPresent(condType string, update condition.Change) condition.Change {
	return func(status *operatorv1.OperatorStatus) error {
		if v1helpers.FindOperatorCondition(status.Conditions, condType) != nil {
			return nil
		}
		return update(status)
	}
}

// clearIfReason sets the condition False when it is True for the given reason.
func clearIfReason(condType, reason string) condition.Change {
	return func(status *operatorv1.OperatorStatus) error {
		if c := v1helpers.FindOperatorCondition(status.Conditions, condType); c != nil && c.Status == operatorv1.ConditionTrue && c.Reason == reason {
			v1helpers.SetOperatorCondition(&status.Conditions, operatorv1.OperatorCondition{
				Type: condType, Status: operatorv1.ConditionFalse, Reason: ReasonAsExpected})
		}
		return nil
	}
}

// disabledUntilAvailable removes Disabled once an Available is True without it, and until then says
// the driver is starting. cluster-storage-operator reads storage Available from a Disabled or from
// Availables that are all True; removing Disabled as Manila is found, before the driver's Deployment
// has a pod, would leave it neither for that while. It is decided on the status being written, and
// each write of the ClusterCSIDriver (the Deployment's Available among them) brings a sync.
func disabledUntilAvailable(status *operatorv1.OperatorStatus) error {
	if v1helpers.FindOperatorCondition(status.Conditions, ConditionDisabled) == nil {
		return nil
	}
	others := slices.DeleteFunc(slices.Clone(status.Conditions), func(c operatorv1.OperatorCondition) bool {
		return strings.HasSuffix(c.Type, "Disabled")
	})
	if csoview.Available(others) {
		v1helpers.RemoveOperatorCondition(&status.Conditions, ConditionDisabled)
		return nil
	}
	v1helpers.SetOperatorCondition(&status.Conditions, operatorv1.OperatorCondition{Type: ConditionDisabled, Status: operatorv1.ConditionTrue,
		Reason: ReasonDriverStarting, Message: "Manila was found and the Manila CSI driver is being installed; this condition goes once the driver is Available."})
	return nil
}

// notInstalledGoes: once Manila was found, a Disabled that says the driver is not installed is false:
// this operator's ManilaNotReached from before, or a predecessor's own reason (4.17 writes its
// NoManila when a poll fails, and a takeover may find it so). It goes as on a good poll
// (disabledUntilAvailable), while Manila cannot be asked. A Disabled that tells what this operator's
// last good poll saw of Manila (NoManilaService, NoShareTypes) stays.
func notInstalledGoes(status *operatorv1.OperatorStatus) error {
	d := v1helpers.FindOperatorCondition(status.Conditions, ConditionDisabled)
	if d == nil || d.Reason == ReasonNoManilaService || d.Reason == ReasonNoShareTypes {
		return nil
	}
	return disabledUntilAvailable(status)
}

// errMissingSecret and errMissingKey name the object and key the operator waits for.
func errMissingSecret(namespace, name string) error {
	return fmt.Errorf("waiting for Secret %s/%s with the OpenStack credentials", namespace, name)
}

func errMissingKey(namespace, name, key string) error {
	return fmt.Errorf("Secret %s/%s has no key %q", namespace, name, key)
}

// offOpenStack is the status off OpenStack: Disabled, never Degraded.
func offOpenStack(other configv1.PlatformType) []condition.Change {
	return []condition.Change{
		condition.Set(operatorv1.OperatorCondition{Type: ConditionDisabled, Status: operatorv1.ConditionTrue,
			Reason: ReasonPlatformNotOpenStack, Message: fmt.Sprintf(
				"Infrastructure/cluster reports platform %s (status.platformStatus.type); the Manila CSI driver runs only on OpenStack, so nothing is installed and OpenStack is not asked", other)}),
		condition.Set(operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionFalse, Reason: ReasonAsExpected}),
	}
}
