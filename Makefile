# manila-csi-driver-operator
#
#   make build       the operator binary at _output/bin/manila-csi-driver-operator
#   make bench       benchmark against the real test world; prints a table
#   make demo        the operator's main job on a local control plane + Keystone/Manila (DEMO_ONESHOT=1 exits once converged);
#                    installs/builds only what it uses first (make demo-deps)
#   make test        unit tests and fuzzing beside the dependency steps (make test-deps), then the integration tests
#   make test-unit   unit tests only (no control plane, no OpenStack)
#   make test-deps   apt packages (Keystone, Manila, Ceph, NFS-Ganesha), the Kubernetes-side binaries, CRDs, ceph-csi,
#                    csi-driver-nfs and fuse-nfs, CSO and the predecessors, in parallel streams, with a time table at
#                    the end; idempotent (make deps-STEP: one step)
#   make test-e2e-storage  Kubernetes' external storage suite, every spec, for the operator's NFS and CephFS drivers
#                    on the test world's real node; prints each driver's table (passed, skipped with the reason, failed)
#   make soak-swap   the image swap tests N times (N=10), each run's recorded versions printed (hack/soak-swap.sh)
#   make fuzz        each fuzz target for FUZZTIME executions (default 300000x); make test runs 10000x each
#   make verify      gofmt and go vet
#   make vendor      go mod tidy && go mod vendor (only when dependencies really change)

SHELL := /bin/bash
GO ?= go
# -dwarf=false: no debug info compiled that -s -w (release binary) and the tests never keep; every build of
# the project and of its test world uses it, so they compile about a tenth faster (the tests' cold cost).
export GOFLAGS := -mod=vendor -trimpath -gcflags=all=-dwarf=false
export GOTOOLCHAIN := local

OUTPUT     := $(CURDIR)/_output
BIN        := $(OUTPUT)/bin
K8S_VERSION ?= 1.36.2
K8S_BIN    := $(BIN)/k8s-$(K8S_VERSION)
CRD_DIR    := $(OUTPUT)/crds
# manila-csi-plugin, the CSI sidecars, kube-controller-manager, ceph-csi and the CSI node stand-in of the
# end-to-end provisioning world (hack/k8s-binaries.sh, hack/ceph-csi.sh).
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

# Unit packages build and run two at a time (no unit test starts a server of the world); go test keeps
# their results in its cache and runs a package again only when it, a dependency, or a file or variable
# its tests read changed (UNIT_TEST_FLAGS=-count=1 runs them all). The integration tests always run, in
# six shards side by side, each with its own control plane and OpenStack (hack/test-integration.sh,
# INTEGRATION_SHARDS).
UNIT_TEST_FLAGS ?=
TEST_FLAGS ?= $(UNIT_TEST_FLAGS) -p 2 -timeout 45m

.PHONY: all build bench demo test unit-and-fuzz test-e2e-storage soak-swap test-unit test-deps demo-deps deps-apt deps-ceph deps-nfs deps-node deps-k8s deps-crds deps-cso fuzz verify vendor clean

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

# The operator's build runs beside the dependency streams (hack/deps.sh prints only a line per step).
demo:
	@$(MAKE) --no-print-directory -j2 build demo-deps
	$(TEST_ENV) $(GO) run ./hack/demo

bench: build test-deps
	OPERATOR_BINARY=$(OPERATOR) $(TEST_ENV) $(GO) run ./hack/bench

# The unit tests and fuzzing need none of the dependency steps, so they run beside them, at the lowest
# CPU priority: on a cold machine the steps' builds are the critical path and the tests take only the
# cores they leave idle (at normal priority, a cold run's unit tests took 2692 s, competing with the
# builds for both cores); on a warm one the steps are a check and the tests run at once. The integration
# tests need all of the steps.
test:
	@$(MAKE) --no-print-directory -j2 test-deps unit-and-fuzz
	$(TEST_ENV) GO=$(GO) bash hack/test-integration.sh

# Unit tests, then each fuzz target for 10,000 executions. Beside the dependency streams their output
# goes to _output/unit-and-fuzz.log, printed whole once they are done (or fail).
unit-and-fuzz:
	@mkdir -p $(OUTPUT); start=$$(date +%s); \
		{ nice -n 19 $(GO) test $(TEST_FLAGS) $$($(GO) list ./... | grep -v /test/integration) && \
		  nice -n 19 $(MAKE) --no-print-directory fuzz FUZZTIME=10000x; } >$(OUTPUT)/unit-and-fuzz.log 2>&1; rc=$$?; \
		cat $(OUTPUT)/unit-and-fuzz.log; \
		echo "== unit tests and fuzzing $$([ $$rc -eq 0 ] && echo ok || echo FAILED) in $$(( $$(date +%s) - start )) s"; exit $$rc

# The whole external storage suite (make test runs a focused list of it): the two mounted tests with
# TEST_E2E_STORAGE_ALL set, side by side, run every spec of their driver but the disruptive ones; their
# output goes to _output/e2e-storage-TEST.log, each driver's table is printed at the end
# (hack/test-e2e-storage.sh).
test-e2e-storage: test-deps
	$(TEST_ENV) GO=$(GO) bash hack/test-e2e-storage.sh

N ?= 10
soak-swap: test-deps
	$(TEST_ENV) N=$(N) bash hack/soak-swap.sh

fuzz:
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "== fuzz $$fn in $$pkg for $(FUZZTIME)"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

test-unit:
	$(GO) test -count=1 ./pkg/... ./cmd/... ./assets/... ./manifests/...

# The steps run in parallel streams and print a time table at the end (hack/deps.sh); each is idempotent
# and cached under _output/. A failing step stops make, named, with the end of its log.
DEPS_ENV := K8S_VERSION=$(K8S_VERSION) K8S_BIN=$(K8S_BIN) PROV_BIN=$(PROV_BIN) CSO_BIN=$(CSO_BIN) CRD_DIR=$(CRD_DIR) PROJECT_GOFLAGS="$(GOFLAGS)"

# Everything make test uses.
test-deps:
	@$(DEPS_ENV) bash hack/deps.sh test

# Only what make demo uses: OpenStack's packages, the control plane, the CRDs and the provisioning
# world's parts the demo's claim needs.
demo-deps:
	@$(DEPS_ENV) bash hack/deps.sh demo

# Single steps: Debian's Keystone, Manila and PostgreSQL; Debian's Ceph and the real ceph-csi built from
# its checked source archive; NFS-Ganesha, fuse-nfs and csi-driver-nfs (hack/nfs.sh); containerd, runc and
# pause for the real node (hack/node.sh); the Kubernetes-side binaries from one module (hack/k8s-binaries.sh); the
# CRDs; cluster-storage-operator and the two predecessors from their checked archives (hack/cso.sh).
deps-apt deps-ceph deps-nfs deps-node deps-k8s deps-crds deps-cso:
	@$(DEPS_ENV) bash hack/deps.sh $(@:deps-%=%)

verify:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^vendor/')); \
		if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi
	$(GO) vet ./...

vendor:
	GOFLAGS=-mod=mod $(GO) mod tidy
	GOFLAGS=-mod=mod $(GO) mod vendor

clean:
	rm -rf $(OUTPUT)/bin/manila-csi-driver-operator
