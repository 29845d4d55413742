package checkcloud

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// Exit codes of check-cloud.
const (
	ExitUsable    = 0
	ExitNotUsable = 1
	ExitBadInput  = 2
)

// Options are the command's flags.
type Options struct {
	CloudsFile string
	Cloud      string
	// CACertFile is the PEM bundle the operator would get from cloud-provider-config.
	CACertFile string
	// ConfigFile is the operator's config.yaml, as in its ConfigMap.
	ConfigFile string
	// InstallConfigFile is the install config (key install-config of ConfigMap
	// kube-system/cluster-config-v1): the machine network that machineNetwork stands for.
	InstallConfigFile string
	Output            string
	// ValidateConfig is the operator's check of a parsed configuration beyond Parse (extraMounts
	// against the workloads); nil skips it. It is passed in so this package stays free of the
	// operator's controllers.
	ValidateConfig func(*operatorconfig.Config) error
	// Timeout bounds each request to OpenStack; zero means the operator's default.
	Timeout time.Duration
}

// inputError is bad input: exit code 2, reported on stderr without a report.
type inputError struct{ msg string }

func (e inputError) Error() string { return e.msg }

// Run runs check-cloud and returns its exit code: 0 when Manila is usable, 1 when it is not, 2 on
// bad input. The report goes to stdout, bad input to stderr.
func Run(ctx context.Context, o Options, stdout, stderr io.Writer) int {
	facts, secrets, err := gather(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "check-cloud: %s\n", scrub([]byte(openstack.RedactText(err.Error())), secrets))
		return ExitBadInput
	}
	report := Build(facts)
	var out bytes.Buffer
	if err := Render(&out, report, o.Output); err != nil {
		fmt.Fprintf(stderr, "check-cloud: %v\n", err)
		return ExitBadInput
	}
	_, _ = stdout.Write(scrub(out.Bytes(), secrets))
	if report.Usable {
		return ExitUsable
	}
	return ExitNotUsable
}

// minScrubbed keeps the output guard from mangling text around a very short secret.
const minScrubbed = 6

// scrub masks the secrets of clouds.yaml in text. Every field is redacted where it is filled; this is
// the last guard against a credential that an OpenStack error message might echo.
func scrub(text []byte, secrets []string) []byte {
	for _, s := range secrets {
		if len(s) >= minScrubbed {
			text = bytes.ReplaceAll(text, []byte(s), []byte("xxxxx"))
		}
	}
	return text
}

// gather reads the inputs and asks the cloud, as the operator's Manila controller does each poll.
func gather(ctx context.Context, o Options) (Facts, []string, error) {
	switch o.Output {
	case "", FormatText, FormatJSON, FormatYAML:
	default:
		return Facts{}, nil, inputError{fmt.Sprintf("unknown output format %q: use text, json or yaml", o.Output)}
	}
	in, err := ReadInputs(o)
	if err != nil {
		return Facts{}, in.Secrets, err
	}
	err = in.AskCloud(ctx, o.Timeout)
	return in.Facts, in.Secrets, err
}

// Inputs are the command's input files, read and checked: Facts holds the cloud and the operator
// config, and AskCloud fills in what the cloud answers.
type Inputs struct {
	Facts Facts
	// Clouds is the clouds.yaml text, nil without --clouds.
	Clouds   []byte
	CABundle []byte
	// ConfigYAML is the --config text, nil without it.
	ConfigYAML []byte
	// Secrets are the credentials of clouds.yaml, which Scrub masks in any output.
	Secrets    []string
	cloudsFile string
}

// ReadInputs reads and checks --clouds (when given), --cacert and --config. Its errors are bad input.
func ReadInputs(o Options) (*Inputs, error) {
	in := &Inputs{Facts: Facts{CloudName: o.Cloud}, cloudsFile: o.CloudsFile}
	if o.CloudsFile != "" {
		clouds, err := os.ReadFile(o.CloudsFile)
		if err != nil {
			return in, inputError{"reading --clouds: " + err.Error()}
		}
		cloud, err := openstack.ParseCloud(clouds, o.Cloud)
		var fe *openstack.FieldError
		if errors.As(err, &fe) && fe.Field == "clouds."+o.Cloud {
			return in, inputError{fmt.Sprintf("%s: %v (clouds in the file: %s)", o.CloudsFile, err, strings.Join(cloudNames(clouds), ", "))}
		} else if err != nil {
			return in, inputError{o.CloudsFile + ": " + err.Error()}
		}
		a := cloud.AuthInfo
		in.Secrets = []string{a.Password, a.ApplicationCredentialSecret, a.Token}
		in.Clouds, in.Facts.Cloud = clouds, cloud
	}
	if o.CACertFile != "" {
		caBundle, err := os.ReadFile(o.CACertFile)
		if err != nil {
			return in, inputError{"reading --cacert: " + err.Error()}
		}
		if problem := openstack.CABundleProblem(caBundle, time.Now()); problem != "" {
			return in, inputError{"--cacert " + o.CACertFile + " " + problem}
		}
		in.CABundle = caBundle
	}
	if o.ConfigFile != "" {
		cfg, data, err := readConfig(o.ConfigFile, o.ValidateConfig)
		if err != nil {
			return in, err
		}
		in.Facts.Config, in.ConfigYAML = *cfg, data
	}
	if o.InstallConfigFile != "" {
		data, err := os.ReadFile(o.InstallConfigFile)
		if err != nil {
			return in, inputError{"reading --install-config: " + err.Error()}
		}
		text := string(data)
		r := machinenetwork.Resolve(&text, nil)
		if r.From != machinenetwork.FromInstallConfig {
			why := strings.TrimSuffix(r.Fallback, "; using "+machinenetwork.FromNodes+" instead")
			return in, inputError{"--install-config " + o.InstallConfigFile + ": " + strings.TrimPrefix(why, machinenetwork.FromInstallConfig+" key "+machinenetwork.InstallConfigKey+": ")}
		}
		in.Facts.MachineNetwork = &r
	}
	return in, nil
}

// AskCloud logs in with the clouds.yaml read and lists the share types, recording each step's
// outcome in Facts. It returns an error only for bad input (a clouds.yaml the login cannot use).
func (in *Inputs) AskCloud(ctx context.Context, timeout time.Duration) error {
	facts := &in.Facts
	client, err := openstack.Connect(ctx, in.Clouds, facts.CloudName, openstack.Options{CABundle: in.CABundle, Timeout: timeout})
	if openstack.IsFieldError(err) && !errors.Is(err, openstack.ErrCredentialsRefused) {
		return inputError{in.cloudsFile + ": " + err.Error()}
	} else if err != nil {
		facts.LoginErr = err
		return nil
	}
	ep, err := client.ManilaEndpoint()
	if err != nil {
		facts.ManilaErr = err
		return nil
	}
	facts.Endpoint = &ep
	facts.Roles, facts.RolesKnown = client.Roles()
	manila, _ := client.Manila() // ManilaEndpoint found it
	facts.ShareTypes, facts.PublicOnly, facts.ListErr = listShareTypes(ctx, client, manila)
	return nil
}

// Scrub masks the credentials of clouds.yaml in text: the last guard against a credential that an
// OpenStack error message might echo.
func Scrub(text []byte, secrets []string) []byte { return scrub(text, secrets) }

// cloudNames lists the clouds of a clouds.yaml, for an admin who mistyped --cloud. Names are not
// secret; nothing below them is read.
func cloudNames(cloudsYAML []byte) []string {
	var doc struct {
		Clouds map[string]json.RawMessage `json:"clouds"`
	}
	if yaml.Unmarshal(cloudsYAML, &doc) != nil {
		return nil
	}
	return slices.Sorted(maps.Keys(doc.Clouds))
}

func readConfig(path string, validate func(*operatorconfig.Config) error) (*operatorconfig.Config, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, inputError{"reading --config: " + err.Error()}
	}
	cfg, err := operatorconfig.Parse(data)
	if err == nil && validate != nil {
		err = validate(cfg)
	}
	if err != nil {
		return nil, nil, inputError{path + ": " + err.Error()}
	}
	return cfg, data, nil
}

// listShareTypes follows the operator's choice (pkg/controllers/manila): credentials without the
// admin role, or a 403 on the full listing, list public share types only.
func listShareTypes(ctx context.Context, client *openstack.Client, manila *gophercloud.ServiceClient) ([]manilatypes.ShareType, string, error) {
	if admin, known := client.HasRole("admin"); known && !admin {
		types, err := openstack.ListShareTypes(ctx, manila, openstack.PublicShareTypes)
		return types, "the credentials have no admin role", err
	}
	types, err := openstack.ListShareTypes(ctx, manila, openstack.AllShareTypes)
	if !gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return types, "", err
	}
	types, err = openstack.ListShareTypes(ctx, manila, openstack.PublicShareTypes)
	return types, "Manila refused the full listing (403)", err
}

// IsBadInput tells the errors of ReadInputs and AskCloud that are bad input (exit code 2).
func IsBadInput(err error) bool {
	var ie inputError
	return errors.As(err, &ie)
}
