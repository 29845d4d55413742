# manila-csi-driver-operator
#
#   make build       the operator binary at _output/bin/manila-csi-driver-operator
#   make bench       benchmark against the real test world; prints a table
#   make demo        the operator's main job on a local control plane + Keystone/Manila (DEMO_ONESHOT=1 exits once converged)
#   make test        unit + integration tests; installs/builds what they need first (make test-deps)
#   make test-unit   unit tests only (no control plane, no OpenStack)
#   make test-deps   apt packages (Keystone, Manila, Ceph), kube-apiserver + etcd, CRDs, the provisioning world, ceph-csi; idempotent
#   make fuzz        each fuzz target for FUZZTIME executions (default 300000x); make test runs 10000x each
#   make verify      gofmt and go vet
#   make vendor      go mod tidy && go mod vendor (only when dependencies really change)

SHELL := /bin/bash
GO ?= go
export GOFLAGS := -mod=vendor -trimpath
export GOTOOLCHAIN := local

OUTPUT     := $(CURDIR)/_output
BIN        := $(OUTPUT)/bin
K8S_VERSION ?= 1.36.2
K8S_BIN    := $(BIN)/k8s-$(K8S_VERSION)
CRD_DIR    := $(OUTPUT)/crds
# manila-csi-plugin, csi-provisioner, csi-resizer, kube-controller-manager and the CSI node stand-in
# of the end-to-end provisioning world (hack/provisioning.sh).
PROV_BIN   := $(BIN)/provisioning
# cluster-storage-operator (main, release-4.20, release-4.17) and the two OpenShift Manila operators it ran
# before (hack/cso.sh), for test/framework/cso.go.
CSO_BIN    := $(BIN)/cso
TEST_ENV   := TEST_K8S_BIN_DIR=$(K8S_BIN) TEST_CRD_DIR=$(CRD_DIR) TEST_PROVISIONING_BIN_DIR=$(PROV_BIN) TEST_CSO_BIN_DIR=$(CSO_BIN)
OPERATOR   := $(BIN)/manila-csi-driver-operator

VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
GIT_COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
PKG        := github.com/manila-csi/manila-csi-driver-operator
# -s -w: no symbol table or DWARF in the release binary (stack traces keep their function names).
LDFLAGS    := -s -w -X $(PKG)/pkg/version.Version=$(VERSION) -X $(PKG)/pkg/version.GitCommit=$(GIT_COMMIT)

# Unit packages run one at a time; the integration tests run in six shards side by side, each with its
# own control plane and OpenStack (hack/test-integration.sh, INTEGRATION_SHARDS).
TEST_FLAGS ?= -count=1 -p 1 -timeout 45m

.PHONY: all build bench demo test test-unit test-deps deps-apt deps-ceph deps-controlplane deps-crds deps-provisioning deps-cso fuzz verify vendor clean

# Fuzz targets as package:function; their seed corpora live in each package's testdata/fuzz.
FUZZ_TARGETS := ./pkg/classplan:FuzzClassNames ./pkg/cloudcredentials:FuzzDriverSecret \
	./pkg/operatorconfig:FuzzParse ./pkg/extramounts:FuzzApply
# A count, not a duration: Go 1.26's fuzz coordinator can fail a duration-bounded run with a bare "context
# deadline exceeded" when the deadline fires while a worker is mid-call (golang/go#75804, fixed in Go 1.27).
# A count has no deadline to race; on a loaded machine it only takes longer.
FUZZTIME ?= 300000x

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(OPERATOR) ./cmd/manila-csi-driver-operator

demo: build test-deps
	$(TEST_ENV) $(GO) run ./hack/demo

bench: build test-deps
	OPERATOR_BINARY=$(OPERATOR) $(TEST_ENV) $(GO) run ./hack/bench

test: test-deps
	$(GO) test $(TEST_FLAGS) $$($(GO) list ./... | grep -v /test/integration)
	$(TEST_ENV) GO=$(GO) bash hack/test-integration.sh
	$(MAKE) --no-print-directory fuzz FUZZTIME=10000x

fuzz:
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "== fuzz $$fn in $$pkg for $(FUZZTIME)"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

test-unit:
	$(GO) test -count=1 ./pkg/... ./cmd/... ./assets/... ./manifests/...

test-deps: deps-apt deps-ceph deps-controlplane deps-crds deps-provisioning deps-cso

deps-apt:
	@echo "== step: apt packages (Keystone, Manila API, scheduler and share service, PostgreSQL, uwsgi, openssl, curl)"
	SHARE_SERVICE=1 DB=postgresql bash hack/openstack-peer.sh install

# A real Ceph (Debian's Pacific: mon, mgr, OSD, MDS, ceph-fuse) and the real ceph-csi, built from the
# checked source archive in UPSTREAM_DIR against Debian's Ceph libraries (hack/ceph-csi.sh); idempotent.
deps-ceph:
	@echo "== step: Ceph packages and ceph-csi"
	bash hack/ceph.sh install
	GOFLAGS= bash hack/ceph-csi.sh build $(PROV_BIN)

# Idempotent: each binary carries a version stamp and is built once (about 11 minutes with a cold Go cache).
deps-provisioning:
	@echo "== step: build the provisioning world (manila-csi-plugin, csi-provisioner, csi-resizer, csi-snapshotter, snapshot-controller, kube-controller-manager)"
	GOFLAGS= K8S_VERSION=$(K8S_VERSION) bash hack/provisioning.sh build $(PROV_BIN)

# Idempotent: each binary carries a version stamp naming its commit and source and is built once. The
# module proxy is asked first; it refuses these commits, so they are built from the checked source
# archives in UPSTREAM_DIR (default ../shared/upstream or /work/shared/upstream; see hack/cso.sh). The
# step fails naming the binary and why (no archive, checksum mismatch, build error).
deps-cso:
	@echo "== step: build cluster-storage-operator (main, 4.20, 4.17) and the 4.17 and 4.18+ Manila operators"
	GOFLAGS= bash hack/cso.sh build $(CSO_BIN)

deps-controlplane: $(K8S_BIN)/kube-apiserver $(K8S_BIN)/etcd

$(K8S_BIN)/kube-apiserver $(K8S_BIN)/etcd:
	@echo "== step: build kube-apiserver + etcd v$(K8S_VERSION) from the Go module proxy"
	GOFLAGS= K8S_VERSION=$(K8S_VERSION) BUILD_DIR=$(OUTPUT)/controlplane-build \
		bash hack/controlplane.sh build $(K8S_BIN)

deps-crds: $(CRD_DIR)/.done

$(CRD_DIR)/.done: hack/controlplane.sh
	@echo "== step: copy CRDs out of the module cache"
	GOFLAGS= K8S_VERSION=$(K8S_VERSION) bash hack/controlplane.sh crds $(CRD_DIR)
	touch $@

verify:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^vendor/')); \
		if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi
	$(GO) vet ./...

vendor:
	GOFLAGS=-mod=mod $(GO) mod tidy
	GOFLAGS=-mod=mod $(GO) mod vendor

clean:
	rm -rf $(OUTPUT)/bin/manila-csi-driver-operator
