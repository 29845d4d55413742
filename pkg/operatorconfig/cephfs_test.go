package operatorconfig

import (
	"strings"
	"testing"
)

func TestCephFSConfig(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, err string
	}{
		{"off by default", "{}", ""},
		{"on with an image", "cephfs: {enabled: true, image: quay.io/cephcsi/cephcsi:v3.16.0}", ""},
		{"on without an image", "cephfs: {enabled: true}", "field cephfs.image: required when cephfs.enabled is true"},
		{"known-bad release", "cephfs: {enabled: true, image: quay.io/cephcsi/cephcsi:v3.17.0}", "field cephfs.image: ceph-csi v3.17.0 is known not to work"},
		{"class parameters", "storageClasses: {defaults: {cephfs-mounter: kernel, cephfs-clientID: ocp}, shareTypes: {gold: {cephfs-mounter: fuse, cephfs-fuseMountOptions: 'debug'}}}", ""},
		{"unknown mounter", "storageClasses: {shareTypes: {gold: {cephfs-mounter: nfs}}}", "field storageClasses.shareTypes.gold.cephfs-mounter: \"nfs\" is not one of kernel, fuse"},
		{"client ID with a period", "storageClasses: {defaults: {cephfs-clientID: client.ocp}}", "field storageClasses.defaults.cephfs-clientID: Manila refuses a cephx ID with a period"},
		{"client ID with a space", "storageClasses: {defaults: {cephfs-clientID: 'a b'}}", "field storageClasses.defaults.cephfs-clientID: one cephx ID"},
		{"empty client ID", "storageClasses: {defaults: {cephfs-clientID: ''}}", "field storageClasses.defaults.cephfs-clientID: empty"},
		{"empty mount options", "storageClasses: {defaults: {cephfs-kernelMountOptions: ' '}}", "field storageClasses.defaults.cephfs-kernelMountOptions: empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("Parse = %v, want %q", err, tc.err)
			}
		})
	}
}

func TestCephFSClassSettingsOverride(t *testing.T) {
	cfg, err := Parse([]byte("storageClasses: {defaults: {cephfs-mounter: kernel, cephfs-clientID: ocp}, shareTypes: {gold: {cephfs-mounter: fuse}}}"))
	if err != nil {
		t.Fatal(err)
	}
	gold := cfg.StorageClasses.For("gold")
	if *gold.CephFSMounter != "fuse" || *gold.CephFSClientID != "ocp" {
		t.Fatalf("gold: mounter %s, client %s", *gold.CephFSMounter, *gold.CephFSClientID)
	}
}
