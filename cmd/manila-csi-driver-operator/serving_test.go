package main

import (
	"os"
	"strings"
	"testing"

	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
	"sigs.k8s.io/yaml"
)

func TestServingCertFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
		config  bool
	}{
		{name: "none: controllercmd's defaults", args: nil},
		{name: "both", args: []string{"--tls-cert-file=/c/tls.crt", "--tls-private-key-file=/c/tls.key"}, config: true},
		{name: "cert only", args: []string{"--tls-cert-file=/c/tls.crt"}, wantErr: "go together"},
		{name: "with --config", args: []string{"--tls-cert-file=/c/tls.crt", "--tls-private-key-file=/c/tls.key", "--config=/x.yaml"}, wantErr: "--config"},
	} {
		cmd := newStartCommand()
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		err := cmd.PreRunE(cmd, nil)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		path := cmd.Flags().Lookup("config").Value.String()
		if !tc.config {
			if path != "" {
				t.Errorf("%s: --config set to %q", tc.name, path)
			}
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		_ = os.Remove(path)
		var cfg operatorv1alpha1.GenericOperatorConfig
		if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, data)
		}
		if cfg.Kind != "GenericOperatorConfig" || cfg.ServingInfo.CertFile != "/c/tls.crt" || cfg.ServingInfo.KeyFile != "/c/tls.key" {
			t.Errorf("%s: config %+v", tc.name, cfg)
		}
		if got := cmd.Flags().Lookup("terminate-on-files").Value.String(); got != "[/c/tls.crt,/c/tls.key]" {
			t.Errorf("%s: --terminate-on-files %s", tc.name, got)
		}
	}
}
