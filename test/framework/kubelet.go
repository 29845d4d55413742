package framework

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Kubelet stands in for the kubelet of the node world's node: for a bound claim's PersistentVolume it
// makes the node calls the kubelet makes for a pod using the claim, on the driver's registered socket,
// with the PV's volume attributes and mount options and the Secrets its nodeStageSecretRef and
// nodePublishSecretRef name, read from the API server when the call is made, as the kubelet does.
// It stages only when the driver reports STAGE_UNSTAGE_VOLUME, and uses the kubelet's paths
// (/var/lib/kubelet/plugins/kubernetes.io/csi/<driver>/<sha256 of the handle>/globalmount and
// /var/lib/kubelet/pods/<uid>/volumes/kubernetes.io~csi/<pv>/mount) under the node's HostDir.
//
// One difference from a kubelet, because the driver runs as a process here and not in its container:
// a secret value that is an absolute path under one of the driver container's mounts (the CA bundle
// of os-certAuthorityPath) is moved into the pod's volumes, as podRoot moves the paths of arguments.
// The gRPC calls themselves go through csi-node-standin --call (the project's module vendors no CSI
// types): the request is the CSI JSON this type builds.
type Kubelet struct {
	kube kubernetes.Interface
	node *NodeWorld
	// Stages is whether the driver reported STAGE_UNSTAGE_VOLUME.
	Stages bool
}

// Kubelet returns the node's kubelet stand-in after asking the driver for its node capabilities.
func (n *NodeWorld) Kubelet(ctx context.Context, w *World) (*Kubelet, error) {
	k := &Kubelet{kube: w.Kube, node: n}
	var caps struct {
		Capabilities []struct {
			RPC struct {
				Type string `json:"type"`
			} `json:"rpc"`
		} `json:"capabilities"`
	}
	if err := k.call(ctx, "NodeGetCapabilities", map[string]any{}, &caps); err != nil {
		return nil, err
	}
	for _, c := range caps.Capabilities {
		k.Stages = k.Stages || c.RPC.Type == "STAGE_UNSTAGE_VOLUME"
	}
	return k, nil
}

// csiCallTimeout bounds each node call, as the kubelet's CSI client bounds its calls (csiTimeout).
const csiCallTimeout = 2 * time.Minute

// NodeCallError is a node call the driver answered with a gRPC error.
type NodeCallError struct {
	Method string
	Status string // "<code>: <message>", e.g. "Unauthenticated: failed to create Manila v2 client: ..."
}

func (e *NodeCallError) Error() string { return e.Method + ": " + e.Status }

// call makes one node call on the driver's socket.
func (k *Kubelet) call(ctx context.Context, method string, req any, resp any) error {
	in, err := json.Marshal(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, csiCallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.node.standin, "--call="+method, "--endpoint=unix://"+k.node.DriverSocket)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() == 3 {
			return &NodeCallError{Method: method, Status: strings.TrimSpace(stderr.String())}
		}
		return fmt.Errorf("%s: %v: %s", method, err, strings.TrimSpace(stderr.String()))
	}
	if resp == nil {
		return nil
	}
	return json.Unmarshal(stdout.Bytes(), resp)
}

// StagingPath is where the kubelet stages the volume (a path on the node, under HostDir).
func (k *Kubelet) StagingPath(pv *corev1.PersistentVolume) string {
	sum := sha256.Sum256([]byte(pv.Spec.CSI.VolumeHandle))
	return filepath.Join(k.node.HostDir, "/var/lib/kubelet/plugins/kubernetes.io/csi", pv.Spec.CSI.Driver,
		fmt.Sprintf("%x", sum), "globalmount")
}

// TargetPath is where the kubelet publishes the volume for the pod.
func (k *Kubelet) TargetPath(pv *corev1.PersistentVolume, podUID string) string {
	return filepath.Join(k.node.HostDir, "/var/lib/kubelet/pods", podUID, "volumes/kubernetes.io~csi", pv.Name, "mount")
}

// NodeStage stages the volume with the Secret the PV's nodeStageSecretRef names.
func (k *Kubelet) NodeStage(ctx context.Context, pv *corev1.PersistentVolume) error {
	secrets, err := k.secrets(ctx, pv.Spec.CSI.NodeStageSecretRef)
	if err != nil {
		return err
	}
	path := k.StagingPath(pv)
	if err := os.MkdirAll(path, 0o750); err != nil {
		return err
	}
	return k.call(ctx, "NodeStageVolume", map[string]any{
		"volumeId":          pv.Spec.CSI.VolumeHandle,
		"stagingTargetPath": path,
		"volumeCapability":  capability(pv),
		"secrets":           secrets,
		"volumeContext":     pv.Spec.CSI.VolumeAttributes,
	}, nil)
}

// NodePublish publishes the volume for the pod with the Secret the PV's nodePublishSecretRef names.
func (k *Kubelet) NodePublish(ctx context.Context, pv *corev1.PersistentVolume, podUID string) error {
	secrets, err := k.secrets(ctx, pv.Spec.CSI.NodePublishSecretRef)
	if err != nil {
		return err
	}
	target := k.TargetPath(pv, podUID)
	if err := os.MkdirAll(filepath.Dir(target), 0o750); err != nil {
		return err
	}
	req := map[string]any{
		"volumeId":         pv.Spec.CSI.VolumeHandle,
		"targetPath":       target,
		"volumeCapability": capability(pv),
		"readonly":         pv.Spec.CSI.ReadOnly,
		"secrets":          secrets,
		"volumeContext":    pv.Spec.CSI.VolumeAttributes,
	}
	if k.Stages {
		req["stagingTargetPath"] = k.StagingPath(pv)
	}
	return k.call(ctx, "NodePublishVolume", req, nil)
}

// NodeUnpublish unpublishes the volume from the pod.
func (k *Kubelet) NodeUnpublish(ctx context.Context, pv *corev1.PersistentVolume, podUID string) error {
	return k.call(ctx, "NodeUnpublishVolume", map[string]any{"volumeId": pv.Spec.CSI.VolumeHandle, "targetPath": k.TargetPath(pv, podUID)}, nil)
}

// NodeUnstage unstages the volume.
func (k *Kubelet) NodeUnstage(ctx context.Context, pv *corev1.PersistentVolume) error {
	return k.call(ctx, "NodeUnstageVolume", map[string]any{"volumeId": pv.Spec.CSI.VolumeHandle, "stagingTargetPath": k.StagingPath(pv)}, nil)
}

// MountForPod makes the calls the kubelet makes to start a pod using the volume: NodeStage (when
// the driver stages), then NodePublish.
func (k *Kubelet) MountForPod(ctx context.Context, pv *corev1.PersistentVolume, podUID string) error {
	if k.Stages {
		if err := k.NodeStage(ctx, pv); err != nil {
			return err
		}
	}
	return k.NodePublish(ctx, pv, podUID)
}

// UnmountForPod makes the calls the kubelet makes once the pod is gone: NodeUnpublish, then
// NodeUnstage (when the driver stages).
func (k *Kubelet) UnmountForPod(ctx context.Context, pv *corev1.PersistentVolume, podUID string) error {
	if err := k.NodeUnpublish(ctx, pv, podUID); err != nil {
		return err
	}
	if k.Stages {
		return k.NodeUnstage(ctx, pv)
	}
	return nil
}

// capability is the volume capability the kubelet sends for a filesystem PV: its fsType, the PV's
// mount options as mount flags, and the access mode of its first access mode.
func capability(pv *corev1.PersistentVolume) map[string]any {
	mode := "MULTI_NODE_MULTI_WRITER"
	if len(pv.Spec.AccessModes) > 0 {
		switch pv.Spec.AccessModes[0] {
		case corev1.ReadWriteOnce:
			mode = "SINGLE_NODE_WRITER"
		case corev1.ReadOnlyMany:
			mode = "MULTI_NODE_READER_ONLY"
		case corev1.ReadWriteOncePod:
			mode = "SINGLE_NODE_SINGLE_WRITER"
		}
	}
	mount := map[string]any{"fsType": pv.Spec.CSI.FSType}
	if len(pv.Spec.MountOptions) > 0 {
		mount["mountFlags"] = pv.Spec.MountOptions
	}
	return map[string]any{"mount": mount, "accessMode": map[string]any{"mode": mode}}
}

// secrets reads the referenced Secret as the kubelet does (nil reference: no secrets), with paths
// into the driver container moved into the pod's volumes.
func (k *Kubelet) secrets(ctx context.Context, ref *corev1.SecretReference) (map[string]string, error) {
	if ref == nil {
		return nil, nil
	}
	s, err := k.kube.CoreV1().Secrets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	out := make(map[string]string, len(s.Data))
	for key, v := range s.Data {
		value := string(v)
		if strings.HasPrefix(value, "/") {
			value = k.node.driverPod.hostPath(k.node.driver, value)
		}
		out[key] = value
	}
	return out, nil
}
