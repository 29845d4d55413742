package framework

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	gcopenstack "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	"github.com/gophercloud/gophercloud/v2/openstack/sharedfilesystems/v2/sharetypes"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
)

// Region is the region the test Keystone bootstraps.
const Region = "RegionOne"

// SentinelPassword returns a password unique to this run and easy to find: the world's credentials
// carry it, and it must never show anywhere but in the two Secrets that hold them.
func SentinelPassword() string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return "Sentinel-" + hex.EncodeToString(b)
}

// OpenStack is a running Keystone + Manila API from Debian's packages (hack/openstack-peer.sh).
type OpenStack struct {
	Dir           string
	KeystonePort  int
	ManilaPort    int
	AdminPassword string
	// AppCredential is the admin's application credential, made at start with a sentinel secret.
	AppCredential AppCredential

	adminMu      sync.Mutex
	adminSession *gophercloud.ProviderClient
}

// AppCredential is a Keystone application credential.
type AppCredential struct {
	ID, Secret string
}

// Sentinels are the world's secrets: none may show outside the Secrets that hold credentials.
func (o *OpenStack) Sentinels() []string { return []string{o.AdminPassword, o.AppCredential.Secret} }

// OpenStackOptions choose what the world's OpenStack runs beyond Keystone and the Manila API.
type OpenStackOptions struct {
	// ShareService adds Manila's scheduler and a share service with the test backend
	// (hack/manila), on PostgreSQL (on SQLite, share deletion fails): shares can be created.
	ShareService bool
	// Ceph, with ShareService, adds the backend cephfs_native: Manila's own CephFS driver on this
	// real Ceph (native CEPHFS, cephx).
	Ceph *Ceph
	// NFS, with Ceph, adds the backend cephfs_nfs: the same driver with its NFS helper, exporting
	// the Ceph's subvolumes through this Ganesha (a Ganesha of that Ceph).
	NFS *Ganesha
}

// StartOpenStack configures and starts Keystone and the Manila API on free loopback ports, with
// Manila's share and sharev2 services in the catalog.
func StartOpenStack(ctx context.Context) (*OpenStack, error) {
	return StartOpenStackWith(ctx, OpenStackOptions{})
}

// StartOpenStackWith is StartOpenStack with options.
func StartOpenStackWith(ctx context.Context, opts OpenStackOptions) (*OpenStack, error) {
	if opts.ShareService {
		// hack/openstack-peer.sh install with SHARE_SERVICE=1 DB=postgresql brings these.
		if err := requireFiles("share service", "/usr/lib/postgresql/15/bin/initdb", "/usr/bin/manila-share",
			"/etc/init.d/manila-share"); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "manila-openstack-")
	if err != nil {
		return nil, err
	}
	o := &OpenStack{Dir: dir, AdminPassword: SentinelPassword()}
	if o.KeystonePort, err = FreePort(); err != nil {
		return nil, err
	}
	if o.ManilaPort, err = FreePort(); err != nil {
		return nil, err
	}
	env := []string{
		"KEYSTONE_PORT=" + strconv.Itoa(o.KeystonePort),
		"MANILA_PORT=" + strconv.Itoa(o.ManilaPort),
		"ADMIN_PASSWORD=" + o.AdminPassword,
		"SCHEMA_CACHE=" + SchemaCacheDir(),
	}
	if opts.ShareService {
		pgPort, err := FreePort()
		if err != nil {
			return nil, err
		}
		env = append(env, "SHARE_SERVICE=1", "DB=postgresql", "PG_PORT="+strconv.Itoa(pgPort))
		if opts.Ceph != nil {
			env = append(env, "CEPH_ENV="+opts.Ceph.Env)
			if opts.NFS != nil {
				env = append(env, "NFS_ENV="+opts.NFS.Env)
			}
		}
	}
	if _, err := runScript(env, "openstack-peer.sh", "setup", dir); err != nil {
		return nil, fmt.Errorf("openstack setup: %w", err)
	}
	if _, err := runScript(nil, "openstack-peer.sh", "start", dir); err != nil {
		o.Stop()
		return nil, fmt.Errorf("openstack start: %w", err)
	}
	if o.AppCredential, err = o.createAppCredential(ctx, "manila-csi-tests", SentinelPassword()); err != nil {
		o.Stop()
		return nil, err
	}
	return o, nil
}

// Stop stops Keystone and Manila and removes their state.
func (o *OpenStack) Stop() {
	if out, err := runScript(nil, "openstack-peer.sh", "stop", o.Dir); err != nil {
		fmt.Fprintf(os.Stderr, "stopping openstack: %v\n%s", err, out)
		return
	}
	_ = os.RemoveAll(o.Dir)
}

// StopKeystone, StartKeystone, StopManila and StartManila are for fault tests.
func (o *OpenStack) StopKeystone() error  { return o.peer("stop-keystone") }
func (o *OpenStack) StartKeystone() error { return o.peer("start-keystone") }
func (o *OpenStack) StopManila() error    { return o.peer("stop-manila") }
func (o *OpenStack) StartManila() error   { return o.peer("start-manila") }

// StartKeystoneWithTokenLifetime starts Keystone issuing tokens that expire after lifetime (whole
// seconds); StartKeystone restores the default of a day.
func (o *OpenStack) StartKeystoneWithTokenLifetime(lifetime time.Duration) error {
	_, err := runScript([]string{fmt.Sprintf("KEYSTONE_TOKEN_EXPIRATION=%d", int(lifetime.Seconds()))}, "openstack-peer.sh", "start-keystone", o.Dir)
	return err
}

func (o *OpenStack) peer(cmd string) error {
	_, err := runScript(nil, "openstack-peer.sh", cmd, o.Dir)
	return err
}

// AuthURL is Keystone's v3 URL.
func (o *OpenStack) AuthURL() string { return fmt.Sprintf("http://127.0.0.1:%d/v3", o.KeystonePort) }

// ManilaURL is the sharev2 endpoint registered in the catalog.
func (o *OpenStack) ManilaURL() string { return fmt.Sprintf("http://127.0.0.1:%d/v2", o.ManilaPort) }

// CloudsYAML is a clouds.yaml whose cloud "openstack" is the admin user of the admin project.
func (o *OpenStack) CloudsYAML() []byte {
	b, err := os.ReadFile(filepath.Join(o.Dir, "clouds.yaml"))
	if err != nil {
		panic(err)
	}
	return b
}

// CloudsYAMLAt is CloudsYAML with Keystone's host name replaced, e.g. by one only a proxy resolves.
func (o *OpenStack) CloudsYAMLAt(host string) []byte {
	return bytes.ReplaceAll(o.CloudsYAML(), []byte("127.0.0.1"), []byte(host))
}

// Log returns a service's log ("keystone", "keystone-uwsgi", "manila-api").
func (o *OpenStack) Log(name string) string {
	b, _ := os.ReadFile(filepath.Join(o.Dir, "log", name+".log"))
	return string(b)
}

// admin is the admin's session, logged in once and again whenever Keystone refuses its token
// (gophercloud's re-authentication): each login costs Keystone a token and Manila a validation, and
// the tests ask many times a second while they wait. The identity endpoint never moves and Manila's
// is the world's own (ManilaURL), so a catalog read at the login stays good.
func (o *OpenStack) admin(ctx context.Context) (*gophercloud.ProviderClient, error) {
	o.adminMu.Lock()
	defer o.adminMu.Unlock()
	if o.adminSession != nil {
		return o.adminSession, nil
	}
	provider, err := gcopenstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{
		IdentityEndpoint: o.AuthURL(),
		Username:         "admin",
		Password:         o.AdminPassword,
		DomainID:         "default",
		Scope:            &gophercloud.AuthScope{ProjectName: "admin", DomainID: "default"},
		AllowReauth:      true,
	})
	if err != nil {
		return nil, err
	}
	o.adminSession = provider
	return provider, nil
}

func (o *OpenStack) identity(ctx context.Context) (*gophercloud.ServiceClient, error) {
	provider, err := o.admin(ctx)
	if err != nil {
		return nil, err
	}
	return gcopenstack.NewIdentityV3(provider, gophercloud.EndpointOpts{})
}

func (o *OpenStack) manila(ctx context.Context) (*gophercloud.ServiceClient, error) {
	provider, err := o.admin(ctx)
	if err != nil {
		return nil, err
	}
	client := &gophercloud.ServiceClient{ProviderClient: provider, Endpoint: o.ManilaURL() + "/", Type: "sharev2"}
	client.Microversion = openstack.ManilaMicroversion
	return client, nil
}

// ShareTypeSpec describes a share type to create.
type ShareTypeSpec struct {
	Name       string
	Private    bool
	DHSS       bool
	ExtraSpecs map[string]string
}

// CreateShareType creates a share type in the real Manila and returns its ID.
func (o *OpenStack) CreateShareType(ctx context.Context, spec ShareTypeSpec) (string, error) {
	client, err := o.manila(ctx)
	if err != nil {
		return "", err
	}
	return createShareType(ctx, client, spec)
}

// CreateShareTypes creates many share types with one login and a few requests in flight.
func (o *OpenStack) CreateShareTypes(ctx context.Context, specs []ShareTypeSpec) ([]string, error) {
	client, err := o.manila(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(specs))
	errs := make([]error, len(specs))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ids[i], errs[i] = createShareType(ctx, client, spec)
		}()
	}
	wg.Wait()
	return ids, errors.Join(errs...)
}

func createShareType(ctx context.Context, client *gophercloud.ServiceClient, spec ShareTypeSpec) (string, error) {
	specs := map[string]any{"driver_handles_share_servers": spec.DHSS}
	for k, v := range spec.ExtraSpecs {
		specs[k] = v
	}
	// The post-2.7 spelling of the public flag: the pre-2.7 one that gophercloud's CreateOpts sends
	// is not what a current client would send.
	body := map[string]any{"share_type": map[string]any{
		"name":                        spec.Name,
		"share_type_access:is_public": !spec.Private,
		"extra_specs":                 specs,
	}}
	var resp struct {
		ShareType struct {
			ID string `json:"id"`
		} `json:"share_type"`
	}
	if _, err := client.Post(ctx, client.ServiceURL("types"), body, &resp, &gophercloud.RequestOpts{OkCodes: []int{200, 202}}); err != nil {
		return "", fmt.Errorf("creating share type %q: %w", spec.Name, err)
	}
	return resp.ShareType.ID, nil
}

// DeleteShareType deletes a share type from the real Manila.
func (o *OpenStack) DeleteShareType(ctx context.Context, id string) error {
	client, err := o.manila(ctx)
	if err != nil {
		return err
	}
	err = sharetypes.Delete(ctx, client, id).ExtractErr()
	if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return nil // a test may have deleted it already
	}
	return err
}

// ShareTypeRenameMicroversion is the first Manila API microversion that can rename a share type.
const ShareTypeRenameMicroversion = "2.50"

// RenameShareType renames a share type in the real Manila, in place (same ID), as an admin does with
// `openstack share type set --name`: PUT /v2/types/{id} at microversion 2.50.
func (o *OpenStack) RenameShareType(ctx context.Context, id, name string) error {
	client, err := o.manila(ctx)
	if err != nil {
		return err
	}
	client.Microversion = ShareTypeRenameMicroversion
	st, err := sharetypes.Update(ctx, client, id, sharetypes.UpdateOpts{Name: &name}).Extract()
	if err != nil {
		return fmt.Errorf("renaming share type %s to %q: %w", id, name, err)
	}
	if st.ID != id || st.Name != name {
		return fmt.Errorf("renaming share type %s to %q: Manila answered %s %q", id, name, st.ID, st.Name)
	}
	return nil
}

var manilaServices = []struct{ name, typ, path string }{
	{"manila", "share", "/v1/%(project_id)s"},
	{"manilav2", "sharev2", "/v2"},
}

// RemoveManilaFromCatalog deletes Manila's services and endpoints from Keystone, as on a cloud
// without Manila.
func (o *OpenStack) RemoveManilaFromCatalog(ctx context.Context) error {
	identity, err := o.identity(ctx)
	if err != nil {
		return err
	}
	for _, svc := range manilaServices {
		err := services.List(identity, services.ListOpts{ServiceType: svc.typ}).EachPage(ctx, func(ctx context.Context, page pagination.Page) (bool, error) {
			found, err := services.ExtractServices(page)
			if err != nil {
				return false, err
			}
			for _, s := range found {
				if err := deleteEndpoints(ctx, identity, s.ID); err != nil {
					return false, err
				}
				if err := services.Delete(ctx, identity, s.ID).ExtractErr(); err != nil {
					return false, err
				}
			}
			return true, nil
		})
		if err != nil {
			return fmt.Errorf("removing %s from the catalog: %w", svc.typ, err)
		}
	}
	return nil
}

func deleteEndpoints(ctx context.Context, identity *gophercloud.ServiceClient, serviceID string) error {
	return endpoints.List(identity, endpoints.ListOpts{ServiceID: serviceID}).EachPage(ctx, func(ctx context.Context, page pagination.Page) (bool, error) {
		found, err := endpoints.ExtractEndpoints(page)
		if err != nil {
			return false, err
		}
		for _, e := range found {
			if err := endpoints.Delete(ctx, identity, e.ID).ExtractErr(); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// RegisterManilaInCatalog adds Manila's services with public, internal and admin endpoints.
func (o *OpenStack) RegisterManilaInCatalog(ctx context.Context) error {
	return o.RegisterManilaInCatalogAt(ctx, "127.0.0.1")
}

// RegisterManilaInCatalogAt registers Manila with endpoints on the given host name instead of
// 127.0.0.1, e.g. one only a test's forward proxy resolves.
func (o *OpenStack) RegisterManilaInCatalogAt(ctx context.Context, host string) error {
	return o.RegisterManilaAtURL(ctx, fmt.Sprintf("http://%s:%d", host, o.ManilaPort))
}

// RegisterManilaAtURL registers Manila with endpoints under base (scheme://host:port), e.g. a proxy
// in front of the Manila API, as when Manila's endpoint moves.
func (o *OpenStack) RegisterManilaAtURL(ctx context.Context, base string) error {
	identity, err := o.identity(ctx)
	if err != nil {
		return err
	}
	enabled := true
	for _, svc := range manilaServices {
		created, err := services.Create(ctx, identity, services.CreateOpts{Name: svc.name, Type: svc.typ, Enabled: &enabled}).Extract()
		if err != nil {
			return fmt.Errorf("registering %s: %w", svc.typ, err)
		}
		for _, iface := range []gophercloud.Availability{gophercloud.AvailabilityPublic, gophercloud.AvailabilityInternal, gophercloud.AvailabilityAdmin} {
			_, err := endpoints.Create(ctx, identity, endpoints.CreateOpts{
				Availability: iface, Region: Region, ServiceID: created.ID,
				URL: base + svc.path,
			}).Extract()
			if err != nil {
				return fmt.Errorf("registering the %s %s endpoint: %w", iface, svc.typ, err)
			}
		}
	}
	return nil
}

// CreateProjectMember creates a user with the member role (not admin) in the admin project and
// returns a clouds.yaml for it as cloud "openstack".
func (o *OpenStack) CreateProjectMember(ctx context.Context, name, password string) ([]byte, error) {
	return o.CreateProjectUser(ctx, name, password, "member")
}

// CreateProjectUser creates a user with the given role ("member" or "admin") in the admin project and
// returns a clouds.yaml for it as cloud "openstack".
func (o *OpenStack) CreateProjectUser(ctx context.Context, name, password, roleName string) ([]byte, error) {
	identity, err := o.identity(ctx)
	if err != nil {
		return nil, err
	}
	var user struct {
		User struct {
			ID string `json:"id"`
		} `json:"user"`
	}
	body := map[string]any{"user": map[string]any{"name": name, "password": password, "domain_id": "default"}}
	if _, err := identity.Post(ctx, identity.ServiceURL("users"), body, &user, &gophercloud.RequestOpts{OkCodes: []int{201}}); err != nil {
		return nil, fmt.Errorf("creating user %s: %w", name, err)
	}
	id := func(collection, name string) (string, error) {
		var page map[string]json.RawMessage
		if _, err := identity.Get(ctx, identity.ServiceURL(collection)+"?name="+name, &page, nil); err != nil {
			return "", err
		}
		var items []struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(page[collection], &items); err != nil || len(items) == 0 {
			return "", fmt.Errorf("no %s named %s (%v)", collection, name, err)
		}
		return items[0].ID, nil
	}
	project, err := id("projects", "admin")
	if err != nil {
		return nil, err
	}
	role, err := id("roles", roleName)
	if err != nil {
		return nil, err
	}
	if _, err := identity.Put(ctx, identity.ServiceURL("projects", project, "users", user.User.ID, "roles", role), nil, nil,
		&gophercloud.RequestOpts{OkCodes: []int{204}}); err != nil {
		return nil, fmt.Errorf("granting %s: %w", roleName, err)
	}
	return []byte(fmt.Sprintf(`clouds:
  openstack:
    auth:
      auth_url: %s
      username: %s
      password: %s
      project_name: admin
      user_domain_name: Default
      project_domain_name: Default
    region_name: %s
`, o.AuthURL(), name, password, Region)), nil
}

// createAppCredential makes an application credential of the admin user (for the admin project)
// with the given secret.
func (o *OpenStack) createAppCredential(ctx context.Context, name, secret string) (AppCredential, error) {
	identity, err := o.identity(ctx)
	if err != nil {
		return AppCredential{}, err
	}
	user, err := userID(ctx, identity, "admin")
	if err != nil {
		return AppCredential{}, err
	}
	var created struct {
		Credential struct {
			ID string `json:"id"`
		} `json:"application_credential"`
	}
	body := map[string]any{"application_credential": map[string]any{"name": name, "secret": secret}}
	if _, err := identity.Post(ctx, identity.ServiceURL("users", user, "application_credentials"), body, &created,
		&gophercloud.RequestOpts{OkCodes: []int{201}}); err != nil {
		return AppCredential{}, fmt.Errorf("creating application credential %s: %w", name, err)
	}
	return AppCredential{ID: created.Credential.ID, Secret: secret}, nil
}

// CloudsYAMLAppCredential is a clouds.yaml whose cloud "openstack" authenticates with the given
// application credential.
func (o *OpenStack) CloudsYAMLAppCredential(c AppCredential) []byte {
	return []byte(fmt.Sprintf(`clouds:
  openstack:
    auth_type: v3applicationcredential
    auth:
      auth_url: %s
      application_credential_id: %s
      application_credential_secret: %s
    region_name: %s
`, o.AuthURL(), c.ID, c.Secret, Region))
}

// SetUserPassword changes a user's password in Keystone, as an admin rotating it would.
func (o *OpenStack) SetUserPassword(ctx context.Context, name, password string) error {
	identity, err := o.identity(ctx)
	if err != nil {
		return err
	}
	user, err := userID(ctx, identity, name)
	if err != nil {
		return err
	}
	body := map[string]any{"user": map[string]any{"password": password}}
	_, err = identity.Patch(ctx, identity.ServiceURL("users", user), body, nil, &gophercloud.RequestOpts{OkCodes: []int{200}})
	return err
}

// userID finds a Keystone user's ID by name.
func userID(ctx context.Context, identity *gophercloud.ServiceClient, name string) (string, error) {
	var page struct {
		Users []struct {
			ID string `json:"id"`
		} `json:"users"`
	}
	if _, err := identity.Get(ctx, identity.ServiceURL("users")+"?name="+name, &page, nil); err != nil {
		return "", err
	}
	if len(page.Users) == 0 {
		return "", fmt.Errorf("no user named %s", name)
	}
	return page.Users[0].ID, nil
}

// SetShareTypeExtraSpecs sets (adds or replaces) extra specs of a share type in the real Manila.
func (o *OpenStack) SetShareTypeExtraSpecs(ctx context.Context, id string, specs map[string]string) error {
	client, err := o.manila(ctx)
	if err != nil {
		return err
	}
	opts := sharetypes.SetExtraSpecsOpts{ExtraSpecs: map[string]any{}}
	for k, v := range specs {
		opts.ExtraSpecs[k] = v
	}
	return sharetypes.SetExtraSpecs(ctx, client, id, opts).Err
}
