package operator

import (
	"strings"
	"testing"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// The validator sees each workload as the whole hook chain renders it, library-go's trusted-CA
// injection included, so an admin entry that collides with it is invalid config, not a stuck Deployment.
func TestMountsValidatorSeesTheHookChain(t *testing.T) {
	validate, err := mountsValidator(assets.Vars{FSGroupPolicy: "None"}.AssetFunc())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, config, wantErr string
	}{
		{name: "no extraMounts", config: ``},
		{name: "the trusted-CA path in the controller's driver", wantErr: "extraMounts[0]: field mounts[0].mountPath: /etc/pki/ca-trust/extracted/pem is already a mount path of container csi-driver in openstack-manila-csi-controllerplugin",
			config: `
extraMounts:
- propagation: [Controller]
  volumes: [{name: my-ca, configMap: {name: my-ca}}]
  mounts: [{name: my-ca, mountPath: /etc/pki/ca-trust/extracted/pem}]
`},
		{name: "library-go's CA volume name", wantErr: `volume "non-standard-root-system-trust-ca-bundle" in openstack-manila-csi-nodeplugin already exists`,
			config: `
nodePlugin:
  extraMounts:
  - volumes: [{name: non-standard-root-system-trust-ca-bundle, emptyDir: {}}]
    mounts: [{name: non-standard-root-system-trust-ca-bundle, mountPath: /x}]
`},
		{name: "that volume name in the NFS node plugin, which speaks only NFS and gets no CA", config: `
nfsNodePlugin:
  extraMounts:
  - volumes: [{name: non-standard-root-system-trust-ca-bundle, emptyDir: {}}]
    mounts: [{name: non-standard-root-system-trust-ca-bundle, mountPath: /x}]
`},
		{name: "the same path in the node plugin, which gets no CA mount", config: `
nodePlugin:
  extraMounts:
  - volumes: [{name: my-ca, configMap: {name: my-ca}}]
    mounts: [{name: my-ca, mountPath: /etc/pki/ca-trust/extracted/pem}]
`},
		{name: "the OpenStack CA path", wantErr: "is already a mount path of container csi-driver",
			config: `
extraMounts:
- propagation: [openstack-manila-csi-nodeplugin]
  volumes: [{name: x, emptyDir: {}}]
  mounts: [{name: x, mountPath: /etc/kubernetes/static-pod-resources/configmaps/cloud-config}]
`},
		{name: "an admin's /etc/ceph for every node plugin, CephFS off", config: cephConfEntry},
		{name: "the same with CephFS on: ceph-csi's /etc/ceph is the operator's", wantErr: "mounts[0].mountPath: /etc/ceph is already a mount path of container csi-driver in csi-nodeplugin-cephfsplugin",
			config: cephConfEntry + "cephfs: {enabled: true, image: quay.io/cephcsi/cephcsi:v3.16.0}\n"},
		{name: "the Node group reaches the CephFS node plugins when on", wantErr: "in openstack-manila-cephfs-csi-nodeplugin",
			config: `
cephfs: {enabled: true, image: quay.io/cephcsi/cephcsi:v3.16.0}
extraMounts:
- propagation: [Node]
  volumes: [{name: x, emptyDir: {}}]
  mounts: [{name: x, mountPath: ` + names.CephCSIPluginDir + `}]
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := operatorconfig.Parse([]byte(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			err = validate(cfg)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("want valid, got %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("want an error containing %q, got %v", tc.wantErr, err)
			}
		})
	}
}

const cephConfEntry = `
extraMounts:
- propagation: [Node]
  extraVolType: Ceph
  volumes: [{name: ceph, configMap: {name: ceph-conf}}]
  mounts: [{name: ceph, mountPath: /etc/ceph}]
`
