package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckGenericConfig(t *testing.T) {
	for content, want := range map[string]string{
		"apiVersion: operator.openshift.io/v1alpha1\nkind: GenericOperatorConfig\nservingInfo:\n  minTLSVersion: VersionTLS13\n": "",
		"": "",
		"apiVersion: operator.openshift.io/v1alpha1\nkind: GenericOperatorConfig\nservingInfo: [secret-value]\n": "no GenericOperatorConfig",
		"servingInfo:\n  minTLSVersion: VersionTLS13\n":                                                          "no object with an apiVersion and a kind",
		"apiVersion: [\n  secret-value: {\n":                                                                     "not YAML",
		"\t- secret-value\n :::":                                                                                 "not YAML",
	} {
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		err := checkGenericConfig(path)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v, want no error", content, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want %q", content, err, want)
		case err != nil && strings.Contains(err.Error(), "secret-value"):
			t.Errorf("%q: the error quotes the file: %v", content, err)
		}
	}
}
