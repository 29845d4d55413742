//go:build panictrigger

package hooks

import (
	"encoding/json"
	"fmt"

	opv1 "github.com/openshift/api/operator/v1"
)

// This file exists for one test, TestPanicCrashesAndRestartConverges in test/integration: no real
// input makes a sync panic, yet the test must show on the built binary what a panic does (library-go
// writes <Controller>Degraded, the process exits, a restart converges). The test builds a second
// binary with -tags panictrigger; the release binary is built without the tag and has no trigger.

// PanicTriggerKey in the ClusterCSIDriver's spec.unsupportedConfigOverrides makes the operand
// Deployment's hook panic with PanicTriggerMessage and the key's value.
const (
	PanicTriggerKey     = "testPanic"
	PanicTriggerMessage = "panictrigger: the test asked for a panic"
)

func panicIfTriggered(spec *opv1.OperatorSpec) {
	var overrides map[string]any
	if spec == nil || len(spec.UnsupportedConfigOverrides.Raw) == 0 || json.Unmarshal(spec.UnsupportedConfigOverrides.Raw, &overrides) != nil {
		return
	}
	if v, ok := overrides[PanicTriggerKey]; ok {
		panic(fmt.Sprintf("%s: %v", PanicTriggerMessage, v))
	}
}
