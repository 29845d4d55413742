package operator

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// Options are the operator's settings beyond what controllercmd provides.
type Options struct {
	// PollInterval is how often Manila is asked for its share types.
	PollInterval time.Duration
	// OpenStackTransport, if set, wraps every HTTP transport to Keystone and Manila (tests count requests).
	OpenStackTransport func(http.RoundTripper) http.RoundTripper
	// Getenv reads the operand images and settings; nil means os.Getenv.
	Getenv func(string) string
	// SecretGrace is how long a missing credentials secret is waited for before Degraded.
	SecretGrace time.Duration
	// CatalogRefresh is how long a login's service catalog is trusted: after it, the next poll logs in
	// again, so Manila removed from (or moved in) the catalog is seen without waiting for the token
	// to expire.
	CatalogRefresh time.Duration
	// FailedPollGrace is how many failed polls in a row are tolerated before ManilaControllerDegraded
	// (0: the Manila controller's default). Input errors never wait for it.
	FailedPollGrace int
	// RequestTimeout bounds each request to Keystone or Manila, so a hung API fails the poll (and is
	// reported) instead of holding it.
	RequestTimeout time.Duration
	// GuestKubeconfig, when set, runs the hosted flavour (docs/hosted.md): the operator runs in the
	// hosted control plane's namespace of the management cluster (--namespace) and serves the guest
	// cluster this kubeconfig file reaches.
	GuestKubeconfig string
	// PredecessorGrace is how long a predecessor's leader may keep its lease before
	// PredecessorLeaseDegraded: longer than a graceful handover (the old pod releases its lease when
	// stopped) and than library-go's longest non-graceful one (163 s, the lease running out).
	PredecessorGrace time.Duration
	// Election is the start command's leader election (RunElected).
	Election Election
	// HandOverWait is the longest a stopping process waits for whoever leads next, to hand the
	// ClusterCSIDriver back to a predecessor (0: it does not wait, as the in-process tests run it). In a
	// pod, the pod's grace period decides first (handOverDeadline); outside one, this does.
	HandOverWait time.Duration
	// ServingConfigProblem says what is wrong with the start command's --config file (cluster-storage-
	// operator's GenericOperatorConfig), which was then left out; reported as ServingConfigDegraded.
	ServingConfigProblem string
	// identity is this process's holder identity in the operator's lease (RunElected).
	identity string
}

// DefaultOptions polls every 60 s and re-reads the catalog every 10 minutes.
func DefaultOptions() *Options {
	return &Options{PollInterval: time.Minute, SecretGrace: 30 * time.Second, CatalogRefresh: 10 * time.Minute,
		RequestTimeout: 30 * time.Second, PredecessorGrace: 3 * time.Minute, HandOverWait: 2 * time.Minute}
}

// AddFlags binds the options to the start command's flags.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&o.PollInterval, "manila-poll-interval", o.PollInterval,
		"How often to ask Manila for its share types (at least 5s).")
	fs.DurationVar(&o.RequestTimeout, "openstack-request-timeout", o.RequestTimeout,
		"How long one request to Keystone or Manila may take before the poll fails (0: 30s).")
	// Zero keeps library-go's defaults (137 s, 107 s, 26 s; longer on a single-node control plane): a
	// replacement for a killed process waits up to 163 s for its lease. Tests shorten them.
	fs.DurationVar(&o.Election.LeaseDuration, "leader-election-lease-duration", 0, "how long a leader's lease lasts without renewal (0: library-go's default)")
	fs.DurationVar(&o.Election.RenewDeadline, "leader-election-renew-deadline", 0, "how long the leader keeps trying to renew (0: library-go's default)")
	fs.DurationVar(&o.Election.RetryPeriod, "leader-election-retry-period", 0, "how often candidates try to acquire the lease (0: library-go's default)")
	fs.DurationVar(&o.HandOverWait, "hand-over-wait", o.HandOverWait,
		"The longest a stopping operator waits for the next leader, to hand the ClusterCSIDriver back to OpenShift's previous Manila operator; in a pod, its grace period less a margin decides first (0: no wait).")
	fs.DurationVar(&o.PredecessorGrace, "predecessor-grace", o.PredecessorGrace,
		"How long OpenShift's previous Manila operator may keep leading before PredecessorLeaseDegraded.")
	fs.StringVar(&o.GuestKubeconfig, "guest-kubeconfig", o.GuestKubeconfig,
		"Hosted control planes: the kubeconfig file of the guest cluster, followed as it is rotated. The operator then runs in the hosted control plane's namespace (--namespace) of the management cluster.")
}

// imageEnv lists the environment variables that name the operand images; all are required.
var imageEnv = []string{
	"DRIVER_IMAGE", "NFS_DRIVER_IMAGE", "PROVISIONER_IMAGE", "RESIZER_IMAGE", "SNAPSHOTTER_IMAGE",
	"NODE_DRIVER_REGISTRAR_IMAGE", "LIVENESS_PROBE_IMAGE", "KUBE_RBAC_PROXY_IMAGE",
}

// fsGroupPolicyEnv sets the CSIDriver's fsGroupPolicy; None when unset.
const fsGroupPolicyEnv = "CSI_FSGROUP_POLICY"

// settings is what the environment decided, checked once at start.
type settings struct {
	images        map[string]string
	fsGroupPolicy string
}

func (o *Options) settings() (settings, error) {
	getenv := o.getenv()
	if o.PollInterval < operatorconfig.MinPollInterval {
		return settings{}, fmt.Errorf("--manila-poll-interval %s is below the minimum of %s", o.PollInterval, operatorconfig.MinPollInterval)
	}
	if o.RequestTimeout < 0 {
		return settings{}, fmt.Errorf("--openstack-request-timeout %s is negative", o.RequestTimeout)
	}
	return envSettings(getenv)
}

// OperandAssets renders the operand's assets as the operator would with the given environment:
// the images and fsGroupPolicy it names, checked as at start.
func OperandAssets(getenv func(string) string) (assets.Vars, error) {
	s, err := envSettings(getenv)
	if err != nil {
		return assets.Vars{}, err
	}
	return s.assetVars(), nil
}

func (s settings) assetVars() assets.Vars {
	return assets.Vars{Images: s.images, FSGroupPolicy: s.fsGroupPolicy}
}

func envSettings(getenv func(string) string) (settings, error) {
	s := settings{images: map[string]string{}}
	var missing []string
	for _, name := range imageEnv {
		if v := getenv(name); v != "" {
			s.images[name] = v
		} else {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return settings{}, fmt.Errorf("operand images are not set: environment variable(s) %s must name the images", strings.Join(missing, ", "))
	}
	s.fsGroupPolicy = getenv(fsGroupPolicyEnv)
	if s.fsGroupPolicy == "" {
		s.fsGroupPolicy = string(storagev1.NoneFSGroupPolicy)
	}
	valid := []string{string(storagev1.NoneFSGroupPolicy), string(storagev1.FileFSGroupPolicy), string(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)}
	sort.Strings(valid)
	if !contains(valid, s.fsGroupPolicy) {
		return settings{}, fmt.Errorf("environment variable %s=%q is not a valid fsGroupPolicy; use one of %s", fsGroupPolicyEnv, s.fsGroupPolicy, strings.Join(valid, ", "))
	}
	return s, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (o *Options) getenv() func(string) string {
	if o.Getenv == nil {
		return os.Getenv
	}
	return o.Getenv
}

// flavour chooses the operand's flavour, once: hosted in the HCP namespace hcp when a guest
// kubeconfig is given.
func (o *Options) flavour(hcp string) Flavour {
	if o.GuestKubeconfig == "" {
		return StandaloneFlavour()
	}
	return HostedFlavour(hcp, o.getenv())
}
