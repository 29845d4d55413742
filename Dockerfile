# Multi-stage build: compile with the Go toolchain and the committed vendor/, ship a minimal image.
FROM golang:1.26 AS builder
WORKDIR /src
# .git is not in the build context (.dockerignore): the version and commit come as build arguments.
ARG VERSION=v0.0.0-dev
ARG GIT_COMMIT=unknown
COPY . .
RUN make build VERSION="$VERSION" GIT_COMMIT="$GIT_COMMIT"

FROM registry.access.redhat.com/ubi9/ubi-minimal:latest
COPY --from=builder /src/_output/bin/manila-csi-driver-operator /usr/bin/manila-csi-driver-operator
# No /manifests and no io.openshift.release.operator label: cluster-storage-operator runs this image in
# its own Deployment (docs/deploying.md), and a payload copy of manifests/ would fight it over the name.
USER 65532:65532
ENTRYPOINT ["/usr/bin/manila-csi-driver-operator"]
CMD ["start"]
LABEL io.k8s.display-name="OpenStack Manila CSI driver operator" \
      io.k8s.description="Installs and runs the OpenStack Manila CSI driver and the NFS CSI driver."
