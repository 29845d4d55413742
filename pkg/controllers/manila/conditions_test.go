package manila

import (
	"errors"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
)

func TestStatusUpdates(t *testing.T) {
	boom := errors.New("keystone unreachable")
	disabledBefore := operatorv1.OperatorCondition{Type: ConditionDisabled, Status: operatorv1.ConditionTrue, Reason: ReasonNoManilaService}
	available := func(s operatorv1.ConditionStatus) operatorv1.OperatorCondition {
		return operatorv1.OperatorCondition{Type: "ManilaDriverControllerServiceControllerAvailable", Status: s}
	}
	available2 := func(s operatorv1.ConditionStatus) operatorv1.OperatorCondition {
		return operatorv1.OperatorCondition{Type: "ManilaDriverNodeServiceControllerAvailable", Status: s}
	}
	tests := []struct {
		name         string
		obs          Observation
		failures     int
		start        []operatorv1.OperatorCondition
		wantDisabled string // reason, "" = absent
		wantDegraded operatorv1.ConditionStatus
		wantReason   string
		neverFound   bool
	}{
		{name: "found: Disabled stays, saying the driver starts, while no Available is True", obs: Observation{Outcome: ManilaFound, ShareTypes: 2},
			start: []operatorv1.OperatorCondition{disabledBefore}, wantDisabled: ReasonDriverStarting, wantDegraded: operatorv1.ConditionFalse},
		{name: "found: Disabled stays while an Available is False", obs: Observation{Outcome: ManilaFound, ShareTypes: 2},
			start:        []operatorv1.OperatorCondition{disabledBefore, available(operatorv1.ConditionTrue), available2(operatorv1.ConditionFalse)},
			wantDisabled: ReasonDriverStarting, wantDegraded: operatorv1.ConditionFalse},
		{name: "found: Disabled goes once the Availables are True", obs: Observation{Outcome: ManilaFound, ShareTypes: 2},
			start:        []operatorv1.OperatorCondition{disabledBefore, available(operatorv1.ConditionTrue), available2(operatorv1.ConditionTrue)},
			wantDegraded: operatorv1.ConditionFalse},
		{name: "found without Disabled: nothing to remove", obs: Observation{Outcome: ManilaFound, ShareTypes: 2},
			wantDegraded: operatorv1.ConditionFalse},
		{name: "no service", obs: Observation{Outcome: NoManilaService},
			wantDisabled: ReasonNoManilaService, wantDegraded: operatorv1.ConditionFalse},
		{name: "no share types", obs: Observation{Outcome: NoShareTypes},
			wantDisabled: ReasonNoShareTypes, wantDegraded: operatorv1.ConditionFalse},
		{name: "failure within grace changes nothing", obs: Observation{Outcome: PollFailed, Err: boom}, failures: 2},
		{name: "failure past grace degrades, keeps Disabled absent", obs: Observation{Outcome: PollFailed, Err: boom}, failures: 3,
			wantDegraded: operatorv1.ConditionTrue, wantReason: ReasonOpenStackError},
		{name: "failure keeps an earlier Disabled as it was", obs: Observation{Outcome: PollFailed, Err: boom}, failures: 3,
			start: []operatorv1.OperatorCondition{disabledBefore}, wantDisabled: ReasonNoManilaService,
			wantDegraded: operatorv1.ConditionTrue, wantReason: ReasonOpenStackError},
		{name: "found before: a predecessor's Disabled goes on a failure once the Availables are True", obs: Observation{Outcome: PollFailed, Err: boom}, failures: 1,
			start: []operatorv1.OperatorCondition{{Type: ConditionDisabled, Status: operatorv1.ConditionTrue, Reason: "NoManila"},
				available(operatorv1.ConditionTrue), available2(operatorv1.ConditionTrue)}},
		{name: "found before: a predecessor's Disabled says the driver starts while an Available is not True", obs: Observation{Outcome: PollFailed, Err: boom}, failures: 3,
			start:        []operatorv1.OperatorCondition{{Type: ConditionDisabled, Status: operatorv1.ConditionTrue, Reason: "NoManila"}, available(operatorv1.ConditionFalse)},
			wantDisabled: ReasonDriverStarting, wantDegraded: operatorv1.ConditionTrue, wantReason: ReasonOpenStackError},
		{name: "found before: an earlier ManilaNotReached goes on a failure once the Availables are True", obs: Observation{Outcome: PollFailed, Err: boom}, failures: 1,
			start: []operatorv1.OperatorCondition{{Type: ConditionDisabled, Status: operatorv1.ConditionTrue, Reason: ReasonManilaNotReached},
				available(operatorv1.ConditionTrue)}},
		{name: "never found: a failure reads as not installed, not Degraded", obs: Observation{Outcome: PollFailed, Err: boom}, failures: 5,
			neverFound: true, wantDisabled: ReasonManilaNotReached},
		{name: "never found: a failure keeps an earlier Disabled's reason", obs: Observation{Outcome: PollFailed, Err: boom}, failures: 1,
			neverFound: true, start: []operatorv1.OperatorCondition{disabledBefore}, wantDisabled: ReasonNoManilaService},
		{name: "never found: invalid credentials still degrade", obs: Observation{Outcome: InputInvalid, Err: boom}, failures: 1,
			neverFound: true, wantDegraded: operatorv1.ConditionTrue, wantReason: ReasonInvalidCredentials},
		{name: "missing secret within grace", obs: Observation{Outcome: InputMissing, Err: boom}, failures: 1},
		{name: "missing secret past grace", obs: Observation{Outcome: InputMissing, Err: boom}, failures: 3,
			wantDegraded: operatorv1.ConditionTrue, wantReason: ReasonCredentialsMissing},
		{name: "invalid credentials degrade at once", obs: Observation{Outcome: InputInvalid, Err: boom}, failures: 1,
			wantDegraded: operatorv1.ConditionTrue, wantReason: ReasonInvalidCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := &operatorv1.OperatorStatus{Conditions: append([]operatorv1.OperatorCondition(nil), tt.start...)}
			for _, update := range statusUpdates(tt.obs, tt.failures, 3, !tt.neverFound) {
				if err := update(status); err != nil {
					t.Fatal(err)
				}
			}
			disabled := v1helpers.FindOperatorCondition(status.Conditions, ConditionDisabled)
			switch {
			case tt.wantDisabled == "" && disabled != nil:
				t.Errorf("Disabled present: %+v", *disabled)
			case tt.wantDisabled != "" && (disabled == nil || disabled.Reason != tt.wantDisabled || disabled.Status != operatorv1.ConditionTrue):
				t.Errorf("Disabled = %+v, want True/%s", disabled, tt.wantDisabled)
			}
			degraded := v1helpers.FindOperatorCondition(status.Conditions, ConditionDegraded)
			switch {
			case tt.wantDegraded == "" && degraded != nil:
				t.Errorf("Degraded written: %+v", *degraded)
			case tt.wantDegraded != "" && (degraded == nil || degraded.Status != tt.wantDegraded):
				t.Errorf("Degraded = %+v, want %s", degraded, tt.wantDegraded)
			case tt.wantReason != "" && degraded.Reason != tt.wantReason:
				t.Errorf("Degraded reason %s, want %s", degraded.Reason, tt.wantReason)
			}
		})
	}
}

// A failed poll within the grace period, after the credentials were fixed, clears the verdict on the
// earlier invalid credentials instead of leaving its message behind; other Degraded reasons stay.
func TestGraceClearsAnInvalidCredentialsVerdict(t *testing.T) {
	for _, tc := range []struct {
		reason string
		want   operatorv1.ConditionStatus
	}{
		{ReasonInvalidCredentials, operatorv1.ConditionFalse},
		{ReasonOpenStackError, operatorv1.ConditionTrue},
	} {
		status := &operatorv1.OperatorStatus{Conditions: []operatorv1.OperatorCondition{
			{Type: ConditionDegraded, Status: operatorv1.ConditionTrue, Reason: tc.reason, Message: "old"}}}
		for _, update := range statusUpdates(Observation{Outcome: PollFailed, Err: errors.New("timeout")}, 1, 3, true) {
			if err := update(status); err != nil {
				t.Fatal(err)
			}
		}
		if c := v1helpers.FindOperatorCondition(status.Conditions, ConditionDegraded); c.Status != tc.want {
			t.Errorf("after a failed poll within the grace, Degraded(%s) is %s, want %s", tc.reason, c.Status, tc.want)
		}
	}
}

func TestAnswered(t *testing.T) {
	for outcome, want := range map[Outcome]bool{
		ManilaFound: true, NoManilaService: true, NoShareTypes: true,
		PollFailed: false, InputMissing: false, InputInvalid: false,
	} {
		if got := (Observation{Outcome: outcome}).Answered(); got != want {
			t.Errorf("outcome %d: Answered() = %v, want %v", outcome, got, want)
		}
	}
}
