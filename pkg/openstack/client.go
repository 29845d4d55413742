package openstack

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	gcopenstack "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/utils/v2/openstack/clientconfig"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/metrics"
)

// ManilaServiceType is the catalog type of Manila's v2 API.
const ManilaServiceType = "sharev2"

// ErrNoManilaService means the catalog has no sharev2 endpoint for the region and interface.
var ErrNoManilaService = errors.New("the OpenStack catalog has no " + ManilaServiceType + " service")

// Client is an authenticated OpenStack session. gophercloud re-authenticates with the same
// credentials when the token expires, so one Client serves many requests with one login.
type Client struct {
	provider     *gophercloud.ProviderClient
	cloud        string
	region       string
	availability gophercloud.Availability
	// endpoints tells the request metrics which service a URL belongs to.
	endpoints *metrics.Endpoints
}

// Options are the inputs of Connect besides clouds.yaml.
type Options struct {
	// CABundle is extra PEM the client trusts, on top of the system roots and clouds.yaml's cacert.
	CABundle []byte
	// Timeout bounds each HTTP request; zero means 30 s.
	Timeout time.Duration
	// Transport, if set, wraps the TLS-configured transport (tests use it to count requests).
	Transport func(http.RoundTripper) http.RoundTripper
}

// noEnvPrefix keeps OS_* variables of the operator's own environment out of its authentication:
// the only source of credentials is the clouds.yaml it was handed.
const noEnvPrefix = "MANILA_CSI_OPERATOR_IGNORED_"

// Connect authenticates to Keystone with the named cloud of clouds.yaml.
func Connect(ctx context.Context, cloudsYAML []byte, cloudName string, opts Options) (*Client, error) {
	cloud, err := ParseCloud(cloudsYAML, cloudName)
	if err != nil {
		return nil, err
	}
	clientOpts := &clientconfig.ClientOpts{
		Cloud:     cloudName,
		EnvPrefix: noEnvPrefix,
		YAMLOpts:  parsedClouds{name: cloudName, cloud: *cloud},
	}
	authOpts, err := clientconfig.AuthOptions(clientOpts)
	if err != nil {
		// clientconfig only reads what is written: its complaint is about the input, reported at once.
		return nil, &FieldError{Field: "clouds." + cloudName + ".auth", Reason: RedactText(err.Error())}
	}
	authOpts.AllowReauth = true

	tlsConfig, err := tlsConfigFor(cloud, opts.CABundle)
	if err != nil {
		return nil, err
	}
	var transport http.RoundTripper = &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     90 * time.Second,
	}
	endpoints := &metrics.Endpoints{}
	endpoints.Add(metrics.ServiceIdentity, authOpts.IdentityEndpoint)
	transport = metrics.InstrumentTransport(transport, endpoints)
	if opts.Transport != nil {
		transport = opts.Transport(transport)
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}

	provider, err := gcopenstack.NewClient(authOpts.IdentityEndpoint)
	if err != nil {
		return nil, &FieldError{Field: "clouds." + cloudName + ".auth.auth_url", Reason: "not a valid URL"}
	}
	provider.HTTPClient = http.Client{Transport: transport, Timeout: timeout}
	provider.UserAgent.Prepend("manila-csi-driver-operator")
	if err := gcopenstack.Authenticate(ctx, provider, *authOpts); err != nil {
		if gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) {
			// Keystone answered: these credentials do not log in. Retrying will not change that.
			return nil, &FieldError{Field: "clouds." + cloudName + ".auth", Reason: "Keystone refused these credentials (401 Unauthorized)", cause: ErrCredentialsRefused}
		}
		return nil, Redact(fmt.Errorf("authentication to Keystone at %s failed: %w", redactURL(authOpts.IdentityEndpoint), err))
	}
	availability := gophercloud.AvailabilityPublic
	if cloud.EndpointType != "" {
		availability = gophercloud.Availability(cloud.EndpointType)
	} else if cloud.Interface != "" {
		availability = gophercloud.Availability(cloud.Interface)
	}
	return &Client{provider: provider, cloud: cloudName, region: cloud.RegionName, availability: availability, endpoints: endpoints}, nil
}

// HasRole reports whether the token carries the named role; known is false when the token does not
// say (a non-v3 login).
func (c *Client) HasRole(name string) (has, known bool) {
	roles, known := c.Roles()
	for _, r := range roles {
		if r == name {
			return true, true
		}
	}
	return false, known
}

// Roles returns the names of the token's roles, sorted; known is false when the token does not say
// (a non-v3 login). check-cloud shows them so an admin sees why private share types are hidden.
func (c *Client) Roles() (roles []string, known bool) {
	result, ok := c.provider.GetAuthResult().(tokens.CreateResult)
	if !ok {
		return nil, false
	}
	found, err := result.ExtractRoles()
	if err != nil {
		return nil, false
	}
	for _, r := range found {
		roles = append(roles, r.Name)
	}
	sort.Strings(roles)
	return roles, true
}

// Endpoint is one catalog endpoint as an admin reads it in `openstack catalog list`.
type Endpoint struct {
	Region    string `json:"region"`
	Interface string `json:"interface"`
	URL       string `json:"url"`
}

// ManilaEndpoint returns the catalog entry Manila() uses, found by the same rules, with the region it
// is in (the credentials may name none). URL has any userinfo password masked.
func (c *Client) ManilaEndpoint() (Endpoint, error) {
	manila, err := c.Manila()
	if err != nil {
		return Endpoint{}, err
	}
	ep := Endpoint{Region: c.region, Interface: string(c.availability), URL: redactURL(manila.Endpoint)}
	if result, ok := c.provider.GetAuthResult().(tokens.CreateResult); ok {
		if catalog, err := result.ExtractServiceCatalog(); err == nil {
			ep.Region = endpointRegion(catalog, manila.Endpoint, ep)
		}
	}
	return ep, nil
}

// endpointRegion finds the region of the sharev2 endpoint at url (gophercloud adds a trailing "/").
func endpointRegion(catalog *tokens.ServiceCatalog, url string, want Endpoint) string {
	for _, entry := range catalog.Entries {
		if entry.Type != ManilaServiceType {
			continue
		}
		for _, e := range entry.Endpoints {
			if e.Interface == want.Interface && strings.TrimSuffix(e.URL, "/") == strings.TrimSuffix(url, "/") &&
				(want.Region == "" || e.Region == want.Region) {
				return e.Region
			}
		}
	}
	return want.Region
}

// Manila returns a client for the sharev2 endpoint of the catalog, or ErrNoManilaService.
func (c *Client) Manila() (*gophercloud.ServiceClient, error) {
	// Aliases is set so gophercloud does not widen the search to the v1 "share" service.
	client, err := gcopenstack.NewSharedFileSystemV2(c.provider, gophercloud.EndpointOpts{
		Type:         ManilaServiceType,
		Aliases:      []string{"shared-file-system"},
		Region:       c.region,
		Availability: c.availability,
	})
	if err != nil {
		var notFound *gophercloud.ErrEndpointNotFound
		if errors.As(err, &notFound) {
			if elsewhere := c.manilaRegions(); len(elsewhere) > 0 {
				// Manila exists, just not where the credentials point: a typo, not a cloud without Manila.
				return nil, &FieldError{Field: "clouds." + c.cloud + ".region_name", Reason: fmt.Sprintf(
					"region %q has no %s endpoint (interface %s); regions with Manila: %s", c.region, ManilaServiceType, c.availability, strings.Join(elsewhere, ", "))}
			}
			return nil, ErrNoManilaService
		}
		return nil, Redact(err)
	}
	c.endpoints.Add(metrics.ServiceManila, client.Endpoint)
	return client, nil
}

// manilaRegions lists the regions whose catalog entries offer sharev2 at the client's interface.
func (c *Client) manilaRegions() []string {
	result, ok := c.provider.GetAuthResult().(tokens.CreateResult)
	if !ok {
		return nil
	}
	catalog, err := result.ExtractServiceCatalog()
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	for _, entry := range catalog.Entries {
		if entry.Type != ManilaServiceType {
			continue
		}
		for _, ep := range entry.Endpoints {
			if ep.Interface == string(c.availability) && ep.Region != "" {
				seen[ep.Region] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

func tlsConfigFor(cloud *clientconfig.Cloud, caBundle []byte) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if cloud.Verify != nil && !*cloud.Verify {
		cfg.InsecureSkipVerify = true //nolint:gosec // the admin asked for it with verify: false
		return cfg, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	extra := false
	if len(caBundle) > 0 {
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, errors.New("the OpenStack CA bundle holds no PEM certificate")
		}
		extra = true
	}
	if cloud.CACertFile != "" {
		pem, err := os.ReadFile(cloud.CACertFile)
		switch {
		case err == nil && pool.AppendCertsFromPEM(pem):
			extra = true
		case err == nil:
			return nil, &FieldError{Field: "cacert", Reason: "the file holds no PEM certificate"}
		case !errors.Is(err, os.ErrNotExist):
			return nil, &FieldError{Field: "cacert", Reason: "cannot read the file: " + err.Error()}
		}
		// A cacert path that does not exist in the operator's pod is normal: the CA then
		// reaches the operator through caBundle instead.
	}
	if extra {
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// parsedClouds hands clientconfig an already parsed clouds.yaml instead of files on disk.
type parsedClouds struct {
	name  string
	cloud clientconfig.Cloud
}

func (p parsedClouds) LoadCloudsYAML() (map[string]clientconfig.Cloud, error) {
	return map[string]clientconfig.Cloud{p.name: p.cloud}, nil
}
func (p parsedClouds) LoadSecureCloudsYAML() (map[string]clientconfig.Cloud, error) { return nil, nil }
func (p parsedClouds) LoadPublicCloudsYAML() (map[string]clientconfig.Cloud, error) {
	return map[string]clientconfig.Cloud{}, nil
}
