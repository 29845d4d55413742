package condition

import (
	"context"
	"errors"
	"fmt"

	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
)

// OperatorClient is library-go's operator client that also says which condition types its holder
// writes: what this operator's controllers are given.
type OperatorClient interface {
	v1helpers.OperatorClient
	Declares(conditionType string) bool
}

// Writer is the operator client of one writer of conditions, which declares the exact types it
// writes: Update refuses to add or change a condition of any other, and so does ApplyOperatorStatus
// (how library-go's controllers write theirs). The declarations are what a hand-back removes and a takeover keeps, so
// a type written but not declared would be left behind: here it fails the write that tries it.
type Writer struct {
	v1helpers.OperatorClientWithFinalizers
	types conditiontypes.Set
}

// Declared returns client for a writer of exactly types.
func Declared(client v1helpers.OperatorClientWithFinalizers, types conditiontypes.Set) *Writer {
	return &Writer{OperatorClientWithFinalizers: client, types: types}
}

// Declares is whether conditionType is one of the writer's.
func (w *Writer) Declares(conditionType string) bool { return w.types.Has(conditionType) }

// ApplyOperatorStatus applies status when every condition in it is of a declared type.
func (w *Writer) ApplyOperatorStatus(ctx context.Context, fieldManager string, status *applyoperatorv1.OperatorStatusApplyConfiguration) error {
	if status != nil {
		for _, c := range status.Conditions {
			if c.Type != nil && !w.types.Has(*c.Type) {
				return undeclared(*c.Type)
			}
		}
	}
	return w.OperatorClientWithFinalizers.ApplyOperatorStatus(ctx, fieldManager, status)
}

// ErrUndeclared is a write of a condition type its writer does not declare: a programming error,
// which the integration tests fail on wherever it shows in an operator's log.
var ErrUndeclared = errors.New("a condition type is not among the types its writer declares")

func undeclared(conditionType string) error {
	return fmt.Errorf("%w: %s", ErrUndeclared, conditionType)
}
