// A module of its own, so the main module's ./... and vendor/ never see it; built by
// hack/provisioning.sh with the versions manila-csi-plugin v1.36.0 uses (shared module cache).
module github.com/manila-csi/manila-csi-driver-operator/hack/csi-node-standin

go 1.26.0

require (
	github.com/container-storage-interface/spec v1.12.0
	google.golang.org/grpc v1.80.0
	google.golang.org/protobuf v1.36.11
)

require (
	golang.org/x/net v0.49.0 // indirect
	golang.org/x/sys v0.40.0 // indirect
	golang.org/x/text v0.33.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260120221211-b8f7ae30c516 // indirect
)
