package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/checkcloud"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// checkCloudResult is one run of an operator binary's command (check-cloud, render).
type checkCloudResult struct {
	code           int
	stdout, stderr string
}

// runCheckCloud runs the built binary, as an admin would, with clouds.yaml written to a file, and
// fails the test if any of the world's credentials, or extra secrets, shows in its output.
func runCheckCloud(t *testing.T, clouds []byte, secrets []string, args ...string) checkCloudResult {
	t.Helper()
	return runWithClouds(t, "check-cloud", clouds, secrets, args...)
}

// runWithClouds runs the built binary's command with --clouds, failing the test on a credential in
// its output.
func runWithClouds(t *testing.T, command string, clouds []byte, secrets []string, args ...string) checkCloudResult {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "clouds.yaml")
	if err := os.WriteFile(path, clouds, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, operatorBinary(t), append([]string{command, "--clouds", path}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := checkCloudResult{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running %s: %v", command, err)
	}
	for _, s := range append(world.OpenStack.Sentinels(), secrets...) {
		if strings.Contains(res.stdout+res.stderr, s) {
			t.Errorf("%s printed a credential:\n%s%s", command, res.stdout, res.stderr)
		}
	}
	return res
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func decodeReport(t *testing.T, res checkCloudResult) checkcloud.Report {
	t.Helper()
	var r checkcloud.Report
	if err := json.Unmarshal([]byte(res.stdout), &r); err != nil {
		t.Fatalf("check-cloud -o json: %v\nstdout: %s\nstderr: %s", err, res.stdout, res.stderr)
	}
	return r
}

func reportedType(r checkcloud.Report, name string) *checkcloud.ShareTypeReport {
	for i := range r.ShareTypes {
		if r.ShareTypes[i].Name == name {
			return &r.ShareTypes[i]
		}
	}
	return nil
}

// A usable cloud: exit 0, the sharev2 entry and the admin role shown, public and private types listed,
// each with the class the operator would make (config applied) or why it gets none, and the risky
// settings of the config warned about.
func TestCheckCloudUsable(t *testing.T) {
	suffix := fmt.Sprint(time.Now().UnixNano())
	nfs, private, cephfs, dhss := "cc_nfs_"+suffix, "cc-private-"+suffix, "cc-cephfs-"+suffix, "cc-dhss-"+suffix
	createShareType(t, framework.ShareTypeSpec{Name: nfs, ExtraSpecs: map[string]string{"storage_protocol": "NFS"}})
	createShareType(t, framework.ShareTypeSpec{Name: private, Private: true})
	createShareType(t, framework.ShareTypeSpec{Name: cephfs, ExtraSpecs: map[string]string{"storage_protocol": "CEPHFS"}})
	createShareType(t, framework.ShareTypeSpec{Name: dhss, DHSS: true})
	configYAML := fmt.Sprintf(`storageClasses:
  defaults:
    nfs-shareClient: 10.0.0.0/16
  shareTypes:
    %s:
      nfs-shareClient: 0.0.0.0/0
      reclaimPolicy: Retain
extraMounts:
- propagation: [Node]
  volumes:
  - name: host-etc
    hostPath: {path: /etc}
  mounts:
  - name: host-etc
    mountPath: /host-etc
`, private)
	config := writeTemp(t, "config.yaml", configYAML)

	res := runCheckCloud(t, world.OpenStack.CloudsYAML(), nil, "--config", config, "-o", "json")
	r := decodeReport(t, res)
	if res.code != checkcloud.ExitUsable || !r.Usable {
		t.Fatalf("exit %d, usable %v, want 0: %s%s", res.code, r.Usable, res.stdout, res.stderr)
	}
	if r.Manila == nil || r.Manila.URL != world.OpenStack.ManilaURL()+"/" || r.Manila.Region != framework.Region || r.Manila.Interface != "public" {
		t.Errorf("sharev2 entry = %+v, want %s/ in %s, public", r.Manila, world.OpenStack.ManilaURL(), framework.Region)
	}
	if r.Admin == nil || !*r.Admin || r.Listing != "public and private" {
		t.Errorf("admin %v, listing %q: want admin, public and private", r.Admin, r.Listing)
	}
	if st := reportedType(r, nfs); st == nil || st.StorageClass == nil || st.StorageClass.Name != "csi-manila-cc-nfs-"+suffix ||
		st.StorageClass.Parameters["type"] != nfs || st.StorageClass.Parameters["nfs-shareClient"] != "10.0.0.0/16" {
		t.Errorf("%s: %+v, want class csi-manila-cc-nfs-%s of type %s with the default client list", nfs, st, suffix, nfs)
	}
	if st := reportedType(r, private); st == nil || st.Public || st.StorageClass == nil || st.StorageClass.ReclaimPolicy != "Retain" {
		t.Errorf("%s: %+v, want a private type with a Retain class", private, st)
	}
	if st := reportedType(r, cephfs); st == nil || st.StorageClass != nil || !strings.Contains(st.NoClass, "NFS only") {
		t.Errorf("%s: %+v, want no class, the protocol said", cephfs, st)
	}
	if st := reportedType(r, dhss); st == nil || st.StorageClass != nil || !st.NeedsAction || !strings.Contains(st.NoClass, "shareNetworkID") {
		t.Errorf("%s: %+v, want no class until a share network is set", dhss, st)
	}
	warnings := strings.Join(r.Warnings, "\n")
	for _, want := range []string{"csi-manila-" + private + ": nfs-shareClient opens every share", `hostPath volume "host-etc" (/etc)`} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings lack %q:\n%s", want, warnings)
		}
	}

	text := runCheckCloud(t, world.OpenStack.CloudsYAML(), nil)
	for _, want := range []string{"Manila:      " + world.OpenStack.ManilaURL(), "(admin:", "StorageClass csi-manila-cc-nfs-" + suffix, "Result: Manila is usable."} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, text.stdout)
		}
	}
	if !strings.Contains(text.stdout, "nfs-shareClient is not set, so the driver opens every share to 0.0.0.0/0") {
		t.Errorf("without a config, no warning about the driver's open default:\n%s", text.stdout)
	}

	// The operator, given the same config, makes exactly the classes check-cloud predicted.
	startOperator(t, configYAML)
	framework.Eventually(t, framework.DefaultTimeout, "the operator's classes as check-cloud said", func(ctx context.Context) error {
		owned, err := world.OwnedStorageClasses(ctx)
		if err != nil {
			return err
		}
		predicted := 0
		for _, st := range r.ShareTypes {
			sc, made := owned[st.Name]
			switch want := st.StorageClass; {
			case want == nil && made:
				return fmt.Errorf("share type %s got class %s, check-cloud said none: %s", st.Name, sc.Name, st.NoClass)
			case want == nil:
				continue
			case !made:
				return fmt.Errorf("no class yet for share type %s (check-cloud said %s)", st.Name, want.Name)
			case sc.Name != want.Name || !reflect.DeepEqual(sc.Parameters, want.Parameters) || string(*sc.ReclaimPolicy) != want.ReclaimPolicy:
				return fmt.Errorf("share type %s: the operator made %s %v %s, check-cloud said %s %v %s", st.Name,
					sc.Name, sc.Parameters, *sc.ReclaimPolicy, want.Name, want.Parameters, want.ReclaimPolicy)
			}
			predicted++
		}
		if len(owned) != predicted {
			return fmt.Errorf("the operator owns %d classes, check-cloud predicted %d", len(owned), predicted)
		}
		return nil
	})
}

// Bad input is exit 2 with the reason on stderr: an unknown cloud name, an invalid operator config.
func TestCheckCloudBadInput(t *testing.T) {
	res := runCheckCloud(t, world.OpenStack.CloudsYAML(), nil, "--cloud", "no-such-cloud")
	if res.code != checkcloud.ExitBadInput || !strings.Contains(res.stderr, "clouds.no-such-cloud: missing") {
		t.Errorf("unknown cloud: exit %d, stderr %q; want 2 naming the cloud", res.code, res.stderr)
	}
	config := writeTemp(t, "config.yaml", "storageClasses:\n  defaults:\n    nfs-shareClient: everyone\n")
	res = runCheckCloud(t, world.OpenStack.CloudsYAML(), nil, "--config", config)
	if res.code != checkcloud.ExitBadInput || !strings.Contains(res.stderr, "storageClasses.defaults.nfs-shareClient") {
		t.Errorf("invalid config: exit %d, stderr %q; want 2 naming the field", res.code, res.stderr)
	}
}

// A password Keystone refuses: exit 1, said so, and neither password printed.
func TestCheckCloudWrongPassword(t *testing.T) {
	wrong := "Wrong-" + framework.SentinelPassword()
	clouds := bytes.Replace(world.OpenStack.CloudsYAML(), []byte(world.OpenStack.AdminPassword), []byte(wrong), 1)
	res := runCheckCloud(t, clouds, []string{wrong})
	if res.code != checkcloud.ExitNotUsable || !strings.Contains(res.stdout, "401") {
		t.Errorf("exit %d, want 1 with Keystone's 401 said:\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// A catalog without sharev2: exit 1, said so; the catalog is restored after.
func TestCheckCloudNoManilaInCatalog(t *testing.T) {
	ctx := context.Background()
	if err := world.OpenStack.RemoveManilaFromCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := world.OpenStack.RegisterManilaInCatalog(context.Background()); err != nil {
			t.Errorf("registering Manila again: %v", err)
		}
	})
	res := runCheckCloud(t, world.OpenStack.CloudsYAML(), nil)
	if res.code != checkcloud.ExitNotUsable || !strings.Contains(res.stdout, "no sharev2 service") {
		t.Errorf("exit %d, want 1 saying sharev2 is missing:\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// Keystone over TLS with a private CA: without the CA the login fails on the certificate and the hint
// names --cacert; with --cacert the cloud is usable.
func TestCheckCloudTLS(t *testing.T) {
	createShareType(t, framework.ShareTypeSpec{Name: fmt.Sprint("cc-tls-", time.Now().UnixNano())})
	proxy := framework.StartTLSProxy(t, fmt.Sprintf("http://127.0.0.1:%d", world.OpenStack.KeystonePort))
	clouds := bytes.Replace(world.OpenStack.CloudsYAML(), []byte(world.OpenStack.AuthURL()), []byte(proxy.URL+"/v3"), 1)
	res := runCheckCloud(t, clouds, nil)
	if res.code != checkcloud.ExitNotUsable || !strings.Contains(res.stdout, "x509") || !strings.Contains(res.stdout, "--cacert") {
		t.Errorf("without the CA: exit %d, want 1 with the x509 error and a --cacert hint:\n%s%s", res.code, res.stdout, res.stderr)
	}
	ca := writeTemp(t, "ca.pem", string(proxy.CAPEM))
	res = runCheckCloud(t, clouds, nil, "--cacert", ca)
	if res.code != checkcloud.ExitUsable {
		t.Errorf("with --cacert: exit %d, want 0:\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// A project member without the admin role: told it is not admin, and only public types are listed,
// as the operator lists them.
func TestCheckCloudNonAdmin(t *testing.T) {
	suffix := fmt.Sprint(time.Now().UnixNano())
	public, private := "cc-public-"+suffix, "cc-hidden-"+suffix
	createShareType(t, framework.ShareTypeSpec{Name: public})
	createShareType(t, framework.ShareTypeSpec{Name: private, Private: true})
	password := framework.SentinelPassword()
	clouds, err := world.OpenStack.CreateProjectMember(context.Background(), "cc-member-"+suffix, password)
	if err != nil {
		t.Fatal(err)
	}
	res := runCheckCloud(t, clouds, []string{password}, "-o", "json")
	r := decodeReport(t, res)
	if res.code != checkcloud.ExitUsable {
		t.Fatalf("exit %d, want 0:\n%s%s", res.code, res.stdout, res.stderr)
	}
	if r.Admin == nil || *r.Admin || !strings.HasPrefix(r.Listing, "public only") {
		t.Errorf("admin %v, listing %q: want not admin, public only", r.Admin, r.Listing)
	}
	if reportedType(r, public) == nil || reportedType(r, private) != nil {
		t.Errorf("want %s listed and %s not: %+v", public, private, r.ShareTypes)
	}
	text := runCheckCloud(t, clouds, []string{password})
	if !strings.Contains(text.stdout, "not admin") {
		t.Errorf("the text output does not say the user is not admin:\n%s", text.stdout)
	}
}
