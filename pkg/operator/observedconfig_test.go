package operator

import (
	"context"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/runtime"
)

// A conflict (a status write came first) is retried onto the latest spec, carrying only observedConfig:
// the write succeeds and another writer's spec change stays.
func TestObservedConfigClientRetriesOntoTheLatestSpec(t *testing.T) {
	fake := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed, LogLevel: operatorv1.TraceAll},
		&operatorv1.OperatorStatus{}, nil)
	_, _, current, err := fake.GetOperatorState()
	if err != nil {
		t.Fatal(err)
	}
	stale := &operatorv1.OperatorSpec{ManagementState: operatorv1.Managed, LogLevel: operatorv1.Normal,
		ObservedConfig: runtime.RawExtension{Raw: []byte(`{"targetcsiconfig":{}}`)}}
	if _, _, err := (observedConfigClient{fake}).UpdateOperatorSpec(context.Background(), current+"-stale", stale); err != nil {
		t.Fatalf("the update failed: %v", err)
	}
	spec, _, _, _ := fake.GetOperatorState()
	if string(spec.ObservedConfig.Raw) != `{"targetcsiconfig":{}}` || spec.LogLevel != operatorv1.TraceAll {
		t.Errorf("spec after the retried write: observedConfig %s, logLevel %s; want the new observedConfig and TraceAll kept",
			spec.ObservedConfig.Raw, spec.LogLevel)
	}
}
