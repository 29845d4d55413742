// +k8s:deepcopy-gen=package,register
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.config.v1alpha2

// +groupName=config.openshift.io
// Package v1alpha2 is the v1alpha2 version of the API.
package v1alpha2
