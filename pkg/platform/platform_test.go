package platform

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"
)

func TestOther(t *testing.T) {
	infra := func(status, deprecated configv1.PlatformType) *configv1.Infrastructure {
		i := &configv1.Infrastructure{}
		i.Status.Platform = deprecated
		if status != "" {
			i.Status.PlatformStatus = &configv1.PlatformStatus{Type: status}
		}
		return i
	}
	for _, tc := range []struct {
		name  string
		infra *configv1.Infrastructure
		want  configv1.PlatformType
	}{
		{"OpenStack", infra(configv1.OpenStackPlatformType, ""), ""},
		{"AWS", infra(configv1.AWSPlatformType, ""), configv1.AWSPlatformType},
		{"bare metal", infra(configv1.BareMetalPlatformType, configv1.BareMetalPlatformType), configv1.BareMetalPlatformType},
		{"None (UPI without a platform)", infra(configv1.NonePlatformType, ""), configv1.NonePlatformType},
		{"the deprecated field only", infra("", configv1.GCPPlatformType), configv1.GCPPlatformType},
		{"the deprecated field says OpenStack", infra("", configv1.OpenStackPlatformType), ""},
		{"platformStatus wins over the deprecated field", infra(configv1.OpenStackPlatformType, configv1.AWSPlatformType), ""},
		{"no type yet", infra("", ""), ""},
		{"no object", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Other(tc.infra); got != tc.want {
				t.Errorf("Other = %q, want %q", got, tc.want)
			}
		})
	}
}
