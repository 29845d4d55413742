package hosted

import corev1 "k8s.io/api/core/v1"

// controlPlaneImageEnv names, for the controller's containers that have one, the environment variable
// cluster-storage-operator's hosted Deployment sets to the image built for the management cluster's
// nodes, whose architecture may differ from the guest's (csi-operator's
// withHypershiftControlPlaneImages does the same).
var controlPlaneImageEnv = map[string]string{
	"csi-driver":         "DRIVER_CONTROL_PLANE_IMAGE",
	"csi-liveness-probe": "LIVENESS_PROBE_CONTROL_PLANE_IMAGE",
}

// ControlPlaneImages returns the control-plane images the environment sets, by container name.
func ControlPlaneImages(getenv func(string) string) map[string]string {
	images := map[string]string{}
	for container, env := range controlPlaneImageEnv {
		if image := getenv(env); image != "" {
			images[container] = image
		}
	}
	return images
}

// SetControlPlaneImages gives the named containers their control-plane images; the others keep theirs.
func SetControlPlaneImages(spec *corev1.PodSpec, images map[string]string) {
	for i := range spec.Containers {
		if image := images[spec.Containers[i].Name]; image != "" {
			spec.Containers[i].Image = image
		}
	}
}
