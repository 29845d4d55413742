// +k8s:deepcopy-gen=package,register
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.samples.v1

// +groupName=samples.operator.openshift.io
// Package v1 ist he v1 version of the API.
package v1
