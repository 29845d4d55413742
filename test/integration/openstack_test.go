package integration

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The generated clouds.yaml authenticates against the real Keystone, the catalog leads to the real
// Manila, and a share type created there is listed back with its visibility and extra specs.
func TestKeystoneAuthAndShareTypeListing(t *testing.T) {
	ctx := context.Background()
	client, err := openstack.Connect(ctx, world.OpenStack.CloudsYAML(), names.CloudName, openstack.Options{})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	manila, err := client.Manila()
	if err != nil {
		t.Fatalf("finding sharev2: %v", err)
	}
	if manila.Endpoint != world.OpenStack.ManilaURL()+"/" {
		t.Errorf("sharev2 endpoint = %q, want %q", manila.Endpoint, world.OpenStack.ManilaURL()+"/")
	}

	publicID := createShareType(t, framework.ShareTypeSpec{Name: "Gold_NFS", ExtraSpecs: map[string]string{"storage_protocol": "NFS"}})
	privateID := createShareType(t, framework.ShareTypeSpec{Name: "private-silver", Private: true})

	all, err := openstack.ListShareTypes(ctx, manila, openstack.AllShareTypes)
	if err != nil {
		t.Fatalf("listing all share types: %v", err)
	}
	gold := findType(all, publicID)
	if gold == nil {
		t.Fatalf("share type Gold_NFS (%s) not listed: %+v", publicID, all)
	}
	if gold.Name != "Gold_NFS" || !gold.IsPublic {
		t.Errorf("Gold_NFS listed as %+v, want its name kept and IsPublic", *gold)
	}
	if gold.ExtraSpecs["storage_protocol"] != "NFS" || gold.ExtraSpecs["driver_handles_share_servers"] != "False" {
		t.Errorf("Gold_NFS extra specs = %v", gold.ExtraSpecs)
	}
	private := findType(all, privateID)
	if private == nil || private.IsPublic {
		t.Fatalf("private type: got %+v, want listed with IsPublic=false", private)
	}

	public, err := openstack.ListShareTypes(ctx, manila, openstack.PublicShareTypes)
	if err != nil {
		t.Fatalf("listing public share types: %v", err)
	}
	if findType(public, privateID) != nil {
		t.Errorf("the public listing includes the private type")
	}
	if findType(public, publicID) == nil {
		t.Errorf("the public listing lacks Gold_NFS")
	}
}

// A catalog without sharev2 is reported as ErrNoManilaService, and registering Manila again is seen
// by the next login.
func TestCatalogWithoutManila(t *testing.T) {
	ctx := context.Background()
	if err := world.OpenStack.RemoveManilaFromCatalog(ctx); err != nil {
		t.Fatalf("removing Manila from the catalog: %v", err)
	}
	t.Cleanup(func() {
		if err := world.OpenStack.RegisterManilaInCatalog(context.Background()); err != nil {
			t.Errorf("registering Manila again: %v", err)
		}
	})
	client, err := openstack.Connect(ctx, world.OpenStack.CloudsYAML(), names.CloudName, openstack.Options{})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if _, err := client.Manila(); !errors.Is(err, openstack.ErrNoManilaService) {
		t.Fatalf("Manila() on a catalog without sharev2: err = %v, want ErrNoManilaService", err)
	}

	if err := world.OpenStack.RegisterManilaInCatalog(ctx); err != nil {
		t.Fatalf("registering Manila: %v", err)
	}
	client, err = openstack.Connect(ctx, world.OpenStack.CloudsYAML(), names.CloudName, openstack.Options{})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if _, err := client.Manila(); err != nil {
		t.Fatalf("Manila() after registering sharev2: %v", err)
	}
	if err := world.OpenStack.RemoveManilaFromCatalog(ctx); err != nil { // leave the cleanup one service to add
		t.Fatalf("removing Manila again: %v", err)
	}
}

func createShareType(t *testing.T, spec framework.ShareTypeSpec) string {
	t.Helper()
	id, err := world.OpenStack.CreateShareType(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := world.OpenStack.DeleteShareType(context.Background(), id); err != nil {
			t.Errorf("deleting share type %s: %v", spec.Name, err)
		}
	})
	return id
}

func findType(types []manilatypes.ShareType, id string) *manilatypes.ShareType {
	for i := range types {
		if types[i].ID == id {
			return &types[i]
		}
	}
	return nil
}

// The world's hanging outage: a hung Keystone (or Manila API) completes the TCP handshake and never
// answers, so a client waits for its own timeout; resumed, it answers again. (A stopped Keystone
// refuses the connection instead: TestKeystoneDownAcrossTokenExpiry.)
func TestOpenStackHangs(t *testing.T) {
	for _, svc := range []struct {
		name         string
		url          string
		hang, resume func() error
	}{
		{"Keystone", world.OpenStack.AuthURL(), world.OpenStack.HangKeystone, world.OpenStack.ResumeKeystone},
		{"Manila", world.OpenStack.ManilaURL(), world.OpenStack.HangManila, world.OpenStack.ResumeManila},
	} {
		t.Run(svc.name, func(t *testing.T) {
			if err := svc.hang(); err != nil {
				t.Fatal(err)
			}
			resumed := false
			t.Cleanup(func() {
				if !resumed {
					_ = svc.resume()
				}
			})
			conn, err := net.Dial("tcp", strings.TrimPrefix(strings.Split(svc.url, "/v")[0], "http://"))
			if err != nil {
				t.Fatalf("%s refused the connection while hung: %v", svc.name, err)
			}
			_ = conn.Close()
			// The client's own timeout ends the request: how long it is is the client's, not asserted.
			short := &http.Client{Timeout: 2 * time.Second}
			if resp, err := short.Get(svc.url); err == nil {
				_ = resp.Body.Close()
				t.Fatalf("%s answered while hung: %s", svc.name, resp.Status)
			} else if !os.IsTimeout(err) {
				t.Fatalf("%s while hung: %v, want a timeout", svc.name, err)
			}
			if err := svc.resume(); err != nil {
				t.Fatal(err)
			}
			resumed = true
			patient := &http.Client{Timeout: framework.DefaultTimeout}
			resp, err := patient.Get(svc.url)
			if err != nil {
				t.Fatalf("%s after resuming: %v", svc.name, err)
			}
			_ = resp.Body.Close()
		})
	}
}
