// Command manila-csi-driver-operator runs the OpenStack Manila CSI driver operator.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/controllercmd"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/checkcloud"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/render"
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
	root.AddCommand(newStartCommand(), newVersionCommand(), newCheckCloudCommand(os.Exit), newRenderCommand(os.Exit))
	return root
}

func newStartCommand() *cobra.Command {
	opts := operator.DefaultOptions()
	config := controllercmd.NewControllerCommandConfig(
		names.OperatorName,
		version.Get(),
		opts.RunElected,
		clock.RealClock{},
	)
	// The operator elects itself (operator.Election): controllercmd's election ends the process right
	// after the lease is released, leaving no time to hand the ClusterCSIDriver over.
	config.DisableLeaderElection = true
	cmd := config.NewCommandWithContext(context.Background())
	cmd.Use = "start"
	cmd.Short = "Start the operator"
	opts.AddFlags(cmd.Flags())
	var cert servingCert
	cert.addFlags(cmd)
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		// Hosted, the operator holds no cluster-scoped right on the management cluster, where
		// kube-system/extension-apiserver-authentication lives: its endpoint serves the kubelet's
		// probes (always allowed) without the request-header CA. Bearer tokens would still be reviewed;
		// nothing scrapes a hosted operator's metrics (docs/hosted.md).
		config.SkipInClusterAuthenticationLookup = opts.GuestKubeconfig != ""
		if path, _ := cmd.Flags().GetString("config"); path != "" {
			if err := checkGenericConfig(path); err != nil {
				// Served with library-go's defaults instead; --terminate-on-files still restarts the
				// process once the file is fixed.
				opts.ServingConfigProblem = fmt.Sprintf("--config file %s: %v", path, err)
				klog.Errorf("%s: running without it", opts.ServingConfigProblem)
				if err := cmd.Flags().Set("config", ""); err != nil {
					return err
				}
			}
		}
		return cert.apply(cmd, os.TempDir())
	}
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

// newCheckCloudCommand runs checkcloud and ends the process with its exit code (0 usable, 1 not
// usable, 2 bad input) through exit, which tests replace.
func newCheckCloudCommand(exit func(int)) *cobra.Command {
	o := checkcloud.Options{Cloud: names.CloudName, Output: checkcloud.FormatText}
	cmd := &cobra.Command{
		Use:   "check-cloud --clouds FILE [--cloud openstack] [--cacert FILE] [--config FILE] [-o text|json|yaml]",
		Short: "Check that the operator could use Manila with a clouds.yaml, and show the StorageClasses it would make",
		// stdout is the report (-o json for scripts): usage after a bad flag would spoil it.
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 || o.CloudsFile == "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "check-cloud: --clouds FILE is required and no arguments are taken")
				exit(checkcloud.ExitBadInput)
				return nil
			}
			validate, err := operator.ConfigValidator()
			if err != nil {
				return err
			}
			o.ValidateConfig = validate
			exit(checkcloud.Run(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr()))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.CloudsFile, "clouds", "", "clouds.yaml to check (required)")
	f.StringVar(&o.Cloud, "cloud", o.Cloud, "the cloud of clouds.yaml to use")
	f.StringVar(&o.CACertFile, "cacert", "", "PEM CA bundle for Keystone and Manila, as in cloud-provider-config's ca-bundle.pem")
	f.StringVar(&o.ConfigFile, "config", "", "the operator's config.yaml, as in ConfigMap "+operatorconfig.ConfigMapName)
	f.StringVar(&o.InstallConfigFile, "install-config", "", "the install config (ConfigMap kube-system/cluster-config-v1 key install-config): what exportLocations.network: machineNetwork resolves to")
	f.StringVarP(&o.Output, "output", "o", o.Output, "output format: text, json or yaml")
	cmd.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		fmt.Fprintf(cmd.ErrOrStderr(), "check-cloud: %v\n", err)
		exit(checkcloud.ExitBadInput)
		return err
	})
	return cmd
}

// newRenderCommand runs render and ends the process with its exit code (0 rendered, 1 OpenStack
// unusable, 2 bad input) through exit, which tests replace.
func newRenderCommand(exit func(int)) *cobra.Command {
	o := render.Options{Cloud: names.CloudName, ClusterID: "cluster", ControlPlaneNodes: 3}
	cmd := &cobra.Command{
		Use:   "render --clouds FILE | --share-types FILE [--config FILE] [--install-config FILE] [--cloud openstack] [--cacert FILE]",
		Short: "Print as YAML every object the operator would apply for a cloud or a list of share types, without a cluster",
		// stdout is the YAML stream: a usage error must not write into it.
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "render: no arguments are taken")
				exit(render.ExitBadInput)
				return nil
			}
			validate, err := operator.ConfigValidator()
			if err != nil {
				return err
			}
			o.ValidateConfig = validate
			// library-go's hooks log as on a cluster; the command reports on its own.
			klog.LogToStderr(false)
			klog.SetOutput(io.Discard)
			exit(render.Run(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr()))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.CloudsFile, "clouds", "", "clouds.yaml: lists the share types from its cloud (without --share-types) and fills the driver secret, redacted")
	f.StringVar(&o.ShareTypesFile, "share-types", "", "YAML or JSON list of share types to render instead of asking Manila")
	f.StringVar(&o.Cloud, "cloud", o.Cloud, "the cloud of clouds.yaml to use")
	f.StringVar(&o.CACertFile, "cacert", "", "PEM CA bundle, as in cloud-provider-config's ca-bundle.pem")
	f.StringVar(&o.ConfigFile, "config", "", "the operator's config.yaml, as in ConfigMap "+operatorconfig.ConfigMapName)
	f.StringVar(&o.InstallConfigFile, "install-config", "", "the install config (ConfigMap kube-system/cluster-config-v1 key install-config): what exportLocations.network: machineNetwork resolves to")
	f.StringVar(&o.ClusterID, "cluster-id", o.ClusterID, "the cluster's infrastructure name (Infrastructure/cluster)")
	f.IntVar(&o.ControlPlaneNodes, "control-plane-nodes", o.ControlPlaneNodes, "control-plane nodes of the cluster (the controller's replicas)")
	f.BoolVar(&o.Hosted, "hosted", false, "render the hosted control plane flavour (docs/hosted.md): the management cluster's objects, then the guest's")
	f.StringVar(&o.HostedNamespace, "hosted-namespace", "", "with --hosted: the hosted control plane's namespace on the management cluster")
	f.StringVar(&o.Availability, "availability-policy", "", "with --hosted: the HostedControlPlane's controllerAvailabilityPolicy, SingleReplica or HighlyAvailable (default), which sets the controller's replicas")
	cmd.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		fmt.Fprintf(cmd.ErrOrStderr(), "render: %v\n", err)
		exit(render.ExitBadInput)
		return err
	})
	return cmd
}
