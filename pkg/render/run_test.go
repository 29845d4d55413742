package render

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseShareTypes(t *testing.T) {
	for _, tc := range []struct {
		name, text, wantErr string
		wantPublic          []bool
	}{
		{name: "yaml", text: "- name: a\n- name: b\n  public: false\n", wantPublic: []bool{true, false}},
		{name: "json", text: `[{"name": "a", "id": "1", "extraSpecs": {"storage_protocol": "NFS"}}]`, wantPublic: []bool{true}},
		{name: "empty list", text: "[]", wantPublic: []bool{}},
		{name: "unknown field", text: "- name: a\n  is_public: true\n", wantErr: "is_public"},
		{name: "no name", text: "- id: x\n", wantErr: "[0].name: required"},
		{name: "twice", text: "- name: a\n- name: a\n", wantErr: `[1].name: share type "a" is listed twice`},
		{name: "not a list", text: "name: a\n", wantErr: "not a list of share types"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			types, err := ParseShareTypes([]byte(tc.text))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(types) != len(tc.wantPublic) {
				t.Fatalf("%d share types, want %d", len(types), len(tc.wantPublic))
			}
			for i, st := range types {
				if st.IsPublic != tc.wantPublic[i] {
					t.Errorf("%s: public %v, want %v", st.Name, st.IsPublic, tc.wantPublic[i])
				}
			}
		})
	}
}

func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	types := write("types.yaml", "- name: a\n")
	for _, tc := range []struct {
		name    string
		o       Options
		wantErr string
	}{
		{name: "no input", o: Options{}, wantErr: "--clouds FILE or --share-types FILE is required"},
		{name: "missing file", o: Options{ShareTypesFile: filepath.Join(dir, "absent")}, wantErr: "reading --share-types"},
		{name: "bad share types", o: Options{ShareTypesFile: write("bad.yaml", "- name: a\n  color: red\n")}, wantErr: "color"},
		{name: "bad config", o: Options{ShareTypesFile: types, ConfigFile: write("config.yaml", "storageClasses: {colour: red}\n")}, wantErr: "colour"},
		{name: "unknown cloud", o: Options{ShareTypesFile: types, Cloud: "other",
			CloudsFile: write("clouds.yaml", "clouds: {openstack: {auth: {auth_url: https://k.example/v3, username: u, password: secret-pw-123}}}\n")},
			wantErr: "clouds in the file: openstack"},
		{name: "control plane", o: Options{ShareTypesFile: types, ControlPlaneNodes: -1}, wantErr: "--control-plane-nodes"},
		{name: "invalid export network", o: Options{ShareTypesFile: types, ConfigFile: write("el-bad.yaml", "exportLocations: {network: 10.0.0.0/40}\n")},
			wantErr: `field exportLocations.network: "10.0.0.0/40" is not a CIDR`},
		{name: "machineNetwork without --install-config", o: Options{ShareTypesFile: types, ConfigFile: write("el-mn.yaml", "exportLocations: {network: machineNetwork}\n")},
			wantErr: "the machine network is unknown (ConfigMap kube-system/cluster-config-v1 is absent); give the CIDR the nodes reach shares on instead (give --install-config FILE"},
		{name: "machineNetwork of a dual-stack install config", o: Options{ShareTypesFile: types, ConfigFile: write("el-mn2.yaml", "exportLocations: {network: machineNetwork}\n"),
			InstallConfigFile: write("ic.yaml", "networking:\n  machineNetwork:\n  - cidr: 10.0.0.0/16\n  - cidr: fd00::/48\n")},
			wantErr: "the cluster has 2 machine networks (10.0.0.0/16, fd00::/48)"},
		{name: "an install config without networking", o: Options{ShareTypesFile: types, InstallConfigFile: write("ic-bad.yaml", "metadata: {name: x}\n")},
			wantErr: "--install-config " + filepath.Join(dir, "ic-bad.yaml") + ": no networking section"},
		{name: "hosted without a namespace", o: Options{ShareTypesFile: types, Hosted: true}, wantErr: "--hosted needs --hosted-namespace NAME"},
		{name: "hosted into the operand namespace", o: Options{ShareTypesFile: types, Hosted: true, HostedNamespace: "openshift-manila-csi-driver"},
			wantErr: "is a namespace of the guest's operand"},
		{name: "hosted with an unknown policy", o: Options{ShareTypesFile: types, Hosted: true, HostedNamespace: "clusters-a", Availability: "Triple"},
			wantErr: `unknown controllerAvailabilityPolicy "Triple"`},
		{name: "a hosted namespace without --hosted", o: Options{ShareTypesFile: types, HostedNamespace: "clusters-a"},
			wantErr: "--hosted-namespace and --availability-policy are for --hosted only"},
		{name: "hosted with extraMounts for the controller", o: Options{ShareTypesFile: types, Hosted: true, HostedNamespace: "clusters-a",
			ConfigFile: write("mounts.yaml", "extraMounts:\n- propagation: [Controller]\n  volumes: [{name: h, hostPath: {path: /etc}}]\n  mounts: [{name: h, mountPath: /h}]\n")},
			wantErr: "extraMounts[0] reaches the controller plugin, which runs on the management cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.o.Cloud == "" {
				tc.o.Cloud = "openstack"
			}
			if tc.o.ControlPlaneNodes == 0 {
				tc.o.ControlPlaneNodes = 1
			}
			tc.o.Getenv = testImages
			var stdout, stderr bytes.Buffer
			if code := Run(context.Background(), tc.o, &stdout, &stderr); code != ExitBadInput {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, ExitBadInput, stderr.String())
			}
			if stdout.Len() > 0 {
				t.Errorf("bad input printed objects: %s", stdout.String())
			}
			if !strings.Contains(stderr.String(), tc.wantErr) || strings.Contains(stderr.String(), "secret-pw-123") {
				t.Errorf("stderr %q, want it to contain %q and no password", stderr.String(), tc.wantErr)
			}
		})
	}
}
