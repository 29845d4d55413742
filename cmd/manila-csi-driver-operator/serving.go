package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
)

// servingCert is the certificate of the health and metrics endpoint, from flags. controllercmd reads
// it only from its --config file (servingInfo) or from a fixed directory; the flags name the files the
// Deployment mounts from the service-ca Secret, so the same args run the binary wherever the Secret's
// files are.
type servingCert struct {
	certFile, keyFile string
}

func (s *servingCert) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&s.certFile, "tls-cert-file", "", "serving certificate (PEM, leaf first) of the health and metrics endpoint; the process exits when it changes, to be restarted with the new one")
	cmd.Flags().StringVar(&s.keyFile, "tls-private-key-file", "", "private key (PEM) of --tls-cert-file")
}

// servingConfig is the controllercmd config file that serves with the given certificate and key.
func servingConfig(certFile, keyFile string) ([]byte, error) {
	cfg := operatorv1alpha1.GenericOperatorConfig{
		ServingInfo: configv1.HTTPServingInfo{ServingInfo: configv1.ServingInfo{
			CertInfo: configv1.CertInfo{CertFile: certFile, KeyFile: keyFile}}},
	}
	cfg.APIVersion, cfg.Kind = operatorv1alpha1.GroupVersion.String(), "GenericOperatorConfig"
	return yaml.Marshal(cfg)
}

// apply hands the certificate to controllercmd: a config file in dir naming it, and both files among
// those whose change ends the process (controllercmd watches only its own fixed directory).
func (s *servingCert) apply(cmd *cobra.Command, dir string) error {
	if s.certFile == "" && s.keyFile == "" {
		return nil
	}
	if s.certFile == "" || s.keyFile == "" {
		return fmt.Errorf("--tls-cert-file and --tls-private-key-file go together")
	}
	if cmd.Flags().Changed("config") {
		return fmt.Errorf("--tls-cert-file cannot be combined with --config: set servingInfo in the config file instead")
	}
	data, err := servingConfig(s.certFile, s.keyFile)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "serving-config-*.yaml")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for name, value := range map[string]string{"config": filepath.Clean(f.Name()), "terminate-on-files": s.certFile} {
		if err := cmd.Flags().Set(name, value); err != nil {
			return err
		}
	}
	return cmd.Flags().Set("terminate-on-files", s.keyFile)
}
