package hooks

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestNoPlaceholders(t *testing.T) {
	tests := []struct {
		name string
		c    corev1.Container
		want string // "" = no error
	}{
		{"rendered", corev1.Container{Name: "a", Image: "img:1", Args: []string{"--v=2"}}, ""},
		{"arg", corev1.Container{Name: "proxy", Image: "img", Args: []string{"--tls-cipher-suites=${OBSERVED_TLS_CIPHER_SUITES}"}}, "container proxy: ${OBSERVED_TLS_CIPHER_SUITES} is not filled in"},
		{"image", corev1.Container{Name: "d", Image: "${DRIVER_IMAGE}"}, "${DRIVER_IMAGE}"},
		{"env", corev1.Container{Name: "d", Image: "i", Env: []corev1.EnvVar{{Name: "X", Value: "${LOG_LEVEL}"}}}, "${LOG_LEVEL}"},
		{"env from field is fine", corev1.Container{Name: "d", Image: "i", Args: []string{"--nodeid=$(NODE_ID)"}}, ""},
	}
	for _, tt := range tests {
		err := NoPlaceholders(&corev1.PodSpec{Containers: []corev1.Container{tt.c}})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want one naming %s", tt.name, err, tt.want)
		}
	}
}
