package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// podRoot stands in, on this machine, for the filesystem and identity a kubelet gives a Pod of a
// rendered Deployment: each volume is a directory under dir (a Secret or ConfigMap volume holds its
// keys as files, as the kubelet writes them), and a container's mount paths map to those
// directories. With it a container's rendered arguments and environment run as a process here:
// what the operator renders is what runs, only the paths move.
type podRoot struct {
	dir       string
	spec      corev1.PodSpec
	namespace string
	podName   string
	nodeName  string
	// hostRoot, when set, stands in for the node's filesystem: a hostPath volume is the directory
	// hostRoot+path, so pods of several DaemonSets on one node share it (e.g. a plugin socket), as on
	// a node. Unset, a hostPath volume is private to the pod like any other.
	hostRoot string
	// The Pod's own metadata, when a real Pod stands behind this root (the PodRunner): a projected
	// serviceAccountToken is then bound to the Pod by its UID, as the kubelet binds it, and downward
	// API files can name its labels and annotations. Unset, a token is bound to nothing.
	podUID      types.UID
	labels      map[string]string
	annotations map[string]string
}

// volumeDir is where the volume's content lives on this machine.
func (r *podRoot) volumeDir(name string) string {
	if r.hostRoot != "" {
		for _, v := range r.spec.Volumes {
			if v.Name == name && v.HostPath != nil {
				return filepath.Join(r.hostRoot, v.HostPath.Path)
			}
		}
	}
	return filepath.Join(r.dir, "volumes", name)
}

// materialize creates the directory of every volume a container mounts and writes Secret and
// ConfigMap content into it.
func (r *podRoot) materialize(ctx context.Context, kube kubernetes.Interface) error {
	used := map[string]bool{}
	for _, c := range append(append([]corev1.Container{}, r.spec.InitContainers...), r.spec.Containers...) {
		for _, m := range c.VolumeMounts {
			used[m.Name] = true
		}
		for _, d := range c.VolumeDevices {
			used[d.Name] = true
		}
	}
	for _, v := range r.spec.Volumes {
		if !used[v.Name] {
			// The kubelet's volume manager skips a volume no container mounts (a Secret that does
			// not exist then holds nothing up).
			continue
		}
		dir := r.volumeDir(v.Name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		var data map[string][]byte
		var items []corev1.KeyToPath
		switch {
		case v.Secret != nil:
			s, err := kube.CoreV1().Secrets(r.namespace).Get(ctx, v.Secret.SecretName, metav1.GetOptions{})
			if err != nil {
				if apierrors.IsNotFound(err) && v.Secret.Optional != nil && *v.Secret.Optional {
					continue
				}
				return fmt.Errorf("volume %s: %w", v.Name, err)
			}
			data, items = s.Data, v.Secret.Items
		case v.ConfigMap != nil:
			cm, err := kube.CoreV1().ConfigMaps(r.namespace).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
			if err != nil {
				if apierrors.IsNotFound(err) && v.ConfigMap.Optional != nil && *v.ConfigMap.Optional {
					continue
				}
				return fmt.Errorf("volume %s: %w", v.Name, err)
			}
			data = map[string][]byte{}
			for k, s := range cm.Data {
				data[k] = []byte(s)
			}
			for k, b := range cm.BinaryData {
				data[k] = b
			}
			items = v.ConfigMap.Items
		case v.Projected != nil:
			if err := r.projected(ctx, kube, dir, v.Projected); err != nil {
				return fmt.Errorf("volume %s: %w", v.Name, err)
			}
			continue
		case v.DownwardAPI != nil:
			if err := r.downwardAPI(dir, v.DownwardAPI.Items); err != nil {
				return fmt.Errorf("volume %s: %w", v.Name, err)
			}
			continue
		}
		if err := writeKeys(dir, data, items); err != nil {
			return fmt.Errorf("volume %s: %w", v.Name, err)
		}
	}
	return nil
}

// projected writes each source of a projected volume into dir, as the kubelet does: Secret and
// ConfigMap keys (a missing optional source is skipped, a missing required one is an error, so the
// caller waits), a ServiceAccount token from the TokenRequest API for the pod's ServiceAccount with the
// source's audience and expiry, and downward API files.
func (r *podRoot) projected(ctx context.Context, kube kubernetes.Interface, dir string, p *corev1.ProjectedVolumeSource) error {
	for _, src := range p.Sources {
		switch {
		case src.Secret != nil:
			s, err := kube.CoreV1().Secrets(r.namespace).Get(ctx, src.Secret.Name, metav1.GetOptions{})
			if err != nil {
				if apierrors.IsNotFound(err) && src.Secret.Optional != nil && *src.Secret.Optional {
					continue
				}
				return fmt.Errorf("secret %s: %w", src.Secret.Name, err)
			}
			if err := writeKeys(dir, s.Data, src.Secret.Items); err != nil {
				return err
			}
		case src.ConfigMap != nil:
			cm, err := kube.CoreV1().ConfigMaps(r.namespace).Get(ctx, src.ConfigMap.Name, metav1.GetOptions{})
			if err != nil {
				if apierrors.IsNotFound(err) && src.ConfigMap.Optional != nil && *src.ConfigMap.Optional {
					continue
				}
				return fmt.Errorf("configmap %s: %w", src.ConfigMap.Name, err)
			}
			data := map[string][]byte{}
			for k, s := range cm.Data {
				data[k] = []byte(s)
			}
			for k, b := range cm.BinaryData {
				data[k] = b
			}
			if err := writeKeys(dir, data, src.ConfigMap.Items); err != nil {
				return err
			}
		case src.ServiceAccountToken != nil:
			token, err := r.serviceAccountToken(ctx, kube, src.ServiceAccountToken)
			if err != nil {
				return err
			}
			if err := writeKeys(dir, map[string][]byte{"token": []byte(token)},
				[]corev1.KeyToPath{{Key: "token", Path: src.ServiceAccountToken.Path}}); err != nil {
				return err
			}
		case src.DownwardAPI != nil:
			if err := r.downwardAPI(dir, src.DownwardAPI.Items); err != nil {
				return err
			}
		}
	}
	return nil
}

// serviceAccountToken asks the TokenRequest API for a token of the pod's ServiceAccount ("default"
// when the spec names none), bound to the pod when its UID is known, as the kubelet asks for it.
func (r *podRoot) serviceAccountToken(ctx context.Context, kube kubernetes.Interface, src *corev1.ServiceAccountTokenProjection) (string, error) {
	sa := r.spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: src.ExpirationSeconds}}
	if src.ExpirationSeconds == nil {
		req.Spec.ExpirationSeconds = ptr.To[int64](3600)
	}
	if src.Audience != "" {
		req.Spec.Audiences = []string{src.Audience}
	}
	if r.podUID != "" {
		req.Spec.BoundObjectRef = &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: r.podName, UID: r.podUID}
	}
	tr, err := kube.CoreV1().ServiceAccounts(r.namespace).CreateToken(ctx, sa, req, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for ServiceAccount %s: %w", sa, err)
	}
	return tr.Status.Token, nil
}

// downwardAPI writes the downward API files the kubelet writes: the pod's name, namespace, UID,
// labels and annotations (one key="value" line each, sorted), and resource requests.
func (r *podRoot) downwardAPI(dir string, items []corev1.DownwardAPIVolumeFile) error {
	data := map[string][]byte{}
	var keys []corev1.KeyToPath
	for _, it := range items {
		var v string
		switch {
		case it.FieldRef != nil:
			switch it.FieldRef.FieldPath {
			case "metadata.name":
				v = r.podName
			case "metadata.namespace":
				v = r.namespace
			case "metadata.uid":
				v = string(r.podUID)
			case "metadata.labels":
				v = formatMap(r.labels)
			case "metadata.annotations":
				v = formatMap(r.annotations)
			default:
				return fmt.Errorf("downward API field %s is not known to the test world", it.FieldRef.FieldPath)
			}
		case it.ResourceFieldRef != nil:
			var c corev1.Container
			for _, cc := range r.spec.Containers {
				if cc.Name == it.ResourceFieldRef.ContainerName {
					c = cc
				}
			}
			q := c.Resources.Requests[corev1.ResourceName(strings.TrimPrefix(it.ResourceFieldRef.Resource, "requests."))]
			v = fmt.Sprint(q.Value())
		}
		data[it.Path] = []byte(v)
		keys = append(keys, corev1.KeyToPath{Key: it.Path, Path: it.Path})
	}
	if len(keys) == 0 {
		return nil
	}
	return writeKeys(dir, data, keys)
}

// formatMap is the downward API's format of labels and annotations.
func formatMap(m map[string]string) string {
	var lines []string
	for k, v := range m {
		lines = append(lines, fmt.Sprintf("%s=%q", k, v))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// writeKeys writes each key as a file, or only the listed items at their paths.
func writeKeys(dir string, data map[string][]byte, items []corev1.KeyToPath) error {
	paths := map[string]string{}
	for k := range data {
		paths[k] = k
	}
	if len(items) > 0 {
		paths = map[string]string{}
		for _, it := range items {
			paths[it.Key] = it.Path
		}
	}
	for key, p := range paths {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(full, data[key], 0o600); err != nil {
			return err
		}
	}
	return nil
}

// hostPath maps a path inside container c to this machine: under the volume of the deepest mount
// that holds it, or unchanged when no mount does (the image's own files are the host's here).
func (r *podRoot) hostPath(c corev1.Container, p string) string {
	mounts := append([]corev1.VolumeMount{}, c.VolumeMounts...)
	sort.Slice(mounts, func(i, j int) bool { return len(mounts[i].MountPath) > len(mounts[j].MountPath) })
	for _, m := range mounts {
		mp := strings.TrimSuffix(m.MountPath, "/")
		if p == mp || strings.HasPrefix(p, mp+"/") {
			return filepath.Join(r.volumeDir(m.Name), m.SubPath, strings.TrimPrefix(p, mp))
		}
	}
	return p
}

// hostValue maps a flag value that names a path in the container: an absolute path, or a unix://
// endpoint, read as the CSI components do ("unix://plugin/x.sock" is /plugin/x.sock).
func (r *podRoot) hostValue(c corev1.Container, v string) string {
	if rest, ok := strings.CutPrefix(v, "unix://"); ok {
		if !strings.HasPrefix(rest, "/") {
			rest = "/" + rest
		}
		return "unix://" + r.hostPath(c, rest)
	}
	if strings.HasPrefix(v, "/") {
		return r.hostPath(c, v)
	}
	return v
}

var envRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)

// expand replaces $(NAME) with the variable's value when it is defined, as the kubelet does.
func expand(s string, vars map[string]string) string {
	return envRef.ReplaceAllStringFunc(s, func(ref string) string {
		if v, ok := vars[envRef.FindStringSubmatch(ref)[1]]; ok {
			return v
		}
		return ref
	})
}

// environment resolves the container's env as the kubelet would, in order, for this pod.
func (r *podRoot) environment(ctx context.Context, kube kubernetes.Interface, c corev1.Container) (map[string]string, []string, error) {
	vars := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			set(e.Name, expand(e.Value, vars))
			continue
		}
		v, err := r.valueFrom(ctx, kube, c, e.ValueFrom)
		if err != nil {
			return nil, nil, fmt.Errorf("env %s: %w", e.Name, err)
		}
		set(e.Name, v)
	}
	return vars, order, nil
}

func (r *podRoot) valueFrom(ctx context.Context, kube kubernetes.Interface, c corev1.Container, src *corev1.EnvVarSource) (string, error) {
	switch {
	case src.FieldRef != nil:
		switch src.FieldRef.FieldPath {
		case "spec.nodeName":
			return r.nodeName, nil
		case "metadata.name":
			return r.podName, nil
		case "metadata.namespace":
			return r.namespace, nil
		case "spec.serviceAccountName":
			return r.spec.ServiceAccountName, nil
		case "status.podIP", "status.hostIP":
			return "127.0.0.1", nil
		}
		return "", fmt.Errorf("field %s is not known to the test world", src.FieldRef.FieldPath)
	case src.ResourceFieldRef != nil:
		q := c.Resources.Requests[corev1.ResourceName(strings.TrimPrefix(src.ResourceFieldRef.Resource, "requests."))]
		return fmt.Sprint(q.Value()), nil
	case src.SecretKeyRef != nil:
		s, err := kube.CoreV1().Secrets(r.namespace).Get(ctx, src.SecretKeyRef.Name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		return string(s.Data[src.SecretKeyRef.Key]), nil
	case src.ConfigMapKeyRef != nil:
		cm, err := kube.CoreV1().ConfigMaps(r.namespace).Get(ctx, src.ConfigMapKeyRef.Name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		return cm.Data[src.ConfigMapKeyRef.Key], nil
	}
	return "", fmt.Errorf("unsupported value source")
}

// command returns the container's arguments and environment for a process on this machine: $(VAR)
// expanded, paths mapped into the pod's volumes, and the values in override (by flag name, e.g.
// "--http-endpoint") replaced.
func (r *podRoot) command(ctx context.Context, kube kubernetes.Interface, c corev1.Container, override map[string]string) ([]string, []string, error) {
	vars, order, err := r.environment(ctx, kube, c)
	if err != nil {
		return nil, nil, err
	}
	var args []string
	for _, a := range append(append([]string{}, c.Command[min(len(c.Command), 1):]...), c.Args...) {
		a = expand(a, vars)
		if name, value, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "-") {
			if v, ok := override[name]; ok {
				value = v
			}
			a = name + "=" + r.hostValue(c, value)
		} else {
			a = r.hostValue(c, a)
		}
		args = append(args, a)
	}
	env := []string{"PATH=" + os.Getenv("PATH")}
	for _, k := range order {
		env = append(env, k+"="+vars[k])
	}
	return args, env, nil
}

// inContainerMounts returns the command that runs binary with args under hack/container-mounts.sh,
// so the process finds container c's volumes that are mounted below the top-level directories tops
// (e.g. "/etc") at their mountPaths, as in the container, and not only at the paths its arguments
// were moved to: a path it learns at run time (the CA path of the driver secret that reaches the
// driver over CSI) then names the volume's file. A mount is read-only when the container mounts it so
// or its volume is a Secret, ConfigMap, projected or downward API volume, as the kubelet mounts them.
// scratch is an empty directory of the caller's for the overlays' upper layers. ok is false when c
// mounts nothing below tops.
func (r *podRoot) inContainerMounts(c corev1.Container, scratch, binary string, args []string, tops ...string) (path string, wrapped []string, ok bool) {
	readOnlyVolume := map[string]bool{}
	for _, v := range r.spec.Volumes {
		readOnlyVolume[v.Name] = v.Secret != nil || v.ConfigMap != nil || v.Projected != nil || v.DownwardAPI != nil
	}
	mounts := append([]corev1.VolumeMount{}, c.VolumeMounts...)
	// Shallower first, so a mount inside another's directory lands on top of it.
	sort.SliceStable(mounts, func(i, j int) bool { return len(mounts[i].MountPath) < len(mounts[j].MountPath) })
	wrapped = []string{script("container-mounts.sh"), scratch}
	for _, m := range mounts {
		mp := filepath.Clean(m.MountPath)
		below := false
		for _, top := range tops {
			below = below || mp == filepath.Clean(top) || strings.HasPrefix(mp, filepath.Clean(top)+"/")
		}
		if !below {
			continue
		}
		mode := "rw"
		if m.ReadOnly || readOnlyVolume[m.Name] {
			mode = "ro"
		}
		wrapped = append(wrapped, mode, r.hostPath(c, mp), mp)
		ok = true
	}
	return "bash", append(append(wrapped, "--", binary), args...), ok
}
