// Command manila-csi-driver-operator runs the OpenStack Manila CSI driver operator.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/controllercmd"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	// Before anything creates a work queue: queues without metrics goroutines (see the package).
	_ "github.com/manila-csi/manila-csi-driver-operator/pkg/queuemetrics"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/version"
)

func main() {
	os.Exit(cli.Run(newRootCommand()))
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "manila-csi-driver-operator",
		Short: "OpenShift operator for the OpenStack Manila CSI driver",
		Run: func(cmd *cobra.Command, args []string) {
			_ = cmd.Help()
			os.Exit(1)
		},
	}
	root.AddCommand(newStartCommand(), newVersionCommand())
	return root
}

func newStartCommand() *cobra.Command {
	opts := operator.DefaultOptions()
	config := controllercmd.NewControllerCommandConfig(
		names.OperatorName,
		version.Get(),
		opts.Run,
		clock.RealClock{},
	)
	cmd := config.NewCommandWithContext(context.Background())
	cmd.Use = "start"
	cmd.Short = "Start the operator"
	opts.AddFlags(cmd.Flags())
	// Zero keeps library-go's defaults (137 s, 107 s, 26 s): a replacement for a killed process waits
	// up to 163 s for its lease. Single-node clusters lengthen them; tests shorten them.
	cmd.Flags().DurationVar(&config.LeaseDuration.Duration, "leader-election-lease-duration", 0, "how long a leader's lease lasts without renewal (0: library-go's default)")
	cmd.Flags().DurationVar(&config.RenewDeadline.Duration, "leader-election-renew-deadline", 0, "how long the leader keeps trying to renew (0: library-go's default)")
	cmd.Flags().DurationVar(&config.RetryPeriod.Duration, "leader-election-retry-period", 0, "how often candidates try to acquire the lease (0: library-go's default)")
	return cmd
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and git commit",
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Fprintln(cmd.OutOrStdout(), version.String())
		},
	}
}
