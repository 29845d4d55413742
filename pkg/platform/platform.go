// Package platform tells from Infrastructure/cluster whether the cluster runs on OpenStack. The
// operator's manifests are a payload component applied on every platform; off OpenStack it must do
// nothing and say so without going Degraded.
package platform

import (
	configv1 "github.com/openshift/api/config/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"k8s.io/klog/v2"
)

// InfrastructureName is the cluster's one Infrastructure object.
const InfrastructureName = "cluster"

// Other returns the platform type Infrastructure/cluster reports when it is not OpenStack, from
// status.platformStatus.type or else the deprecated status.platform; "" when it is OpenStack or not
// known (no object, no type): an unknown platform never stops the operator, so an admin on OpenStack
// is never blocked by it.
func Other(infra *configv1.Infrastructure) configv1.PlatformType {
	if infra == nil {
		return ""
	}
	var t configv1.PlatformType
	if infra.Status.PlatformStatus != nil {
		t = infra.Status.PlatformStatus.Type
	}
	if t == "" {
		t = infra.Status.Platform
	}
	if t == configv1.OpenStackPlatformType {
		return ""
	}
	return t
}

// OtherFrom reads Infrastructure/cluster from the lister; a missing or unreadable object is logged and
// counts as not known.
func OtherFrom(lister configv1listers.InfrastructureLister) configv1.PlatformType {
	infra, err := lister.Get(InfrastructureName)
	if err != nil {
		klog.V(2).Infof("Infrastructure/%s: %v; going on as on OpenStack", InfrastructureName, err)
		return ""
	}
	return Other(infra)
}
