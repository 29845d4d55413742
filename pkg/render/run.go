package render

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/manila-csi/manila-csi-driver-operator/manifests"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/checkcloud"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hosted"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// Exit codes, as check-cloud's.
const (
	ExitOK            = checkcloud.ExitUsable
	ExitCloudUnusable = checkcloud.ExitNotUsable
	ExitBadInput      = checkcloud.ExitBadInput
)

// Options are the command's flags.
type Options struct {
	// CloudsFile is a clouds.yaml: without ShareTypesFile the share types are listed from its cloud;
	// with it, it only fills the driver secret.
	CloudsFile     string
	ShareTypesFile string
	Cloud          string
	CACertFile     string
	ConfigFile     string
	// InstallConfigFile gives the machine network (exportLocations.network: machineNetwork).
	InstallConfigFile string
	ClusterID         string
	// ControlPlaneNodes sets the controller's replicas, as the cluster's control-plane nodes would.
	ControlPlaneNodes int
	// Hosted renders the hosted flavour (docs/hosted.md) for the hosted control plane in namespace
	// HostedNamespace with controllerAvailabilityPolicy Availability, which sets the replicas instead
	// of ControlPlaneNodes.
	Hosted          bool
	HostedNamespace string
	Availability    string
	// Getenv reads the image variables; nil means the environment, then the operator's manifest.
	Getenv  func(string) string
	Timeout time.Duration
	// ValidateConfig is the operator's check of a configuration beyond parsing (operator.ConfigValidator).
	ValidateConfig func(*operatorconfig.Config) error
}

// Run renders and returns the exit code: 0 rendered, 1 the cloud could not be asked for its share
// types, 2 bad input. The objects go to stdout, problems to stderr.
func Run(ctx context.Context, o Options, stdout, stderr io.Writer) int {
	in, err := checkcloud.ReadInputs(checkcloud.Options{CloudsFile: o.CloudsFile, Cloud: o.Cloud,
		CACertFile: o.CACertFile, ConfigFile: o.ConfigFile, InstallConfigFile: o.InstallConfigFile, ValidateConfig: o.ValidateConfig})
	fail := func(code int, format string, args ...any) int {
		msg := fmt.Sprintf("render: "+format+"\n", args...)
		var secrets []string
		if in != nil {
			secrets = in.Secrets
		}
		_, _ = stderr.Write(checkcloud.Scrub([]byte(openstack.RedactText(msg)), secrets))
		return code
	}
	switch {
	case err != nil:
		return fail(ExitBadInput, "%v", err)
	case o.CloudsFile == "" && o.ShareTypesFile == "":
		return fail(ExitBadInput, "--clouds FILE or --share-types FILE is required")
	case o.ControlPlaneNodes < 1:
		return fail(ExitBadInput, "--control-plane-nodes must be at least 1")
	case !o.Hosted && (o.HostedNamespace != "" || o.Availability != ""):
		return fail(ExitBadInput, "--hosted-namespace and --availability-policy are for --hosted only")
	}
	var cp *hosted.ControlPlane
	if o.Hosted {
		if o.HostedNamespace == "" {
			return fail(ExitBadInput, "--hosted needs --hosted-namespace NAME, the hosted control plane's namespace on the management cluster")
		}
		cp = &hosted.ControlPlane{Namespace: o.HostedNamespace, Availability: hosted.AvailabilityPolicy(o.Availability)}
		if cp.Availability == "" {
			cp.Availability = hosted.HighlyAvailable
		}
		if err := cp.Validate(); err != nil {
			return fail(ExitBadInput, "--hosted: %v", err)
		}
	}
	getenv := o.Getenv
	if getenv == nil {
		if getenv, err = manifestEnv(); err != nil {
			return fail(ExitBadInput, "%v", err)
		}
	}
	vars, err := operator.OperandAssets(getenv)
	if err != nil {
		return fail(ExitBadInput, "%v", err)
	}
	flavour := operator.StandaloneFlavour()
	if cp != nil {
		// As start chooses it, with the availability policy a HostedControlPlane would give.
		flavour = operator.HostedFlavour(cp.Namespace, getenv)
		flavour.Hosted = cp
	}
	var types []manilatypes.ShareType
	if o.ShareTypesFile != "" {
		if types, err = ReadShareTypes(o.ShareTypesFile); err != nil {
			return fail(ExitBadInput, "%v", err)
		}
	} else {
		if err := in.AskCloud(ctx, o.Timeout); err != nil {
			return fail(ExitBadInput, "%v", err)
		}
		if f := in.Facts; f.LoginErr != nil || f.ManilaErr != nil || f.ListErr != nil {
			report := checkcloud.Build(f)
			if report.Hint != "" {
				return fail(ExitCloudUnusable, "cannot list the share types: %s\nHint: %s", report.Problem, report.Hint)
			}
			return fail(ExitCloudUnusable, "cannot list the share types: %s", report.Problem)
		}
		types = in.Facts.ShareTypes
	}
	result, err := Objects(Input{ShareTypes: types, Cloud: in.Facts.Cloud, CABundle: in.CABundle, ConfigYAML: in.ConfigYAML,
		MachineNetwork: in.Facts.MachineNetwork, Assets: vars, ClusterID: o.ClusterID, ControlPlaneNodes: o.ControlPlaneNodes,
		Flavour: flavour})
	if err != nil {
		return fail(ExitBadInput, "%v", err)
	}
	var out bytes.Buffer
	if err := Write(&out, result); err != nil {
		return fail(ExitBadInput, "%v", err)
	}
	_, _ = stdout.Write(checkcloud.Scrub(out.Bytes(), in.Secrets))
	return ExitOK
}

// manifestEnv reads an image variable from the environment, else from the operator's Deployment in
// manifests/, so a plain `render` shows the payload's images.
func manifestEnv() (func(string) string, error) {
	d, err := manifests.Deployment()
	if err != nil {
		return nil, err
	}
	return func(name string) string {
		if v := os.Getenv(name); v != "" {
			return v
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if v := manifests.EnvValue(c, name); v != "" {
				return v
			}
		}
		return ""
	}, nil
}
