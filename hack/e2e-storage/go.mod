// The external storage suite's test binary is built inside hack/k8s-binaries.sh's scratch module,
// with its pins (k8s.io/kubernetes K8S_VERSION); this go.mod only keeps the package out of the
// operator's own module, which does not require k8s.io/kubernetes.
module example.com/k8s-binaries/e2estorage

go 1.26.0
