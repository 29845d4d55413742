package manila

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
)

func TestEndpointGone(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: "http://manila:8786/v2/types", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"404 from the old endpoint", gophercloud.ErrUnexpectedResponseCode{Actual: 404}, true},
		{"connection refused, wrapped and redacted", openstack.Redact(fmt.Errorf("listing: %w", refused)), true},
		{"a 500 is Manila's own trouble", gophercloud.ErrUnexpectedResponseCode{Actual: 500}, false},
		{"a decoding error", errors.New("decoding the share type list"), false},
	} {
		if got := endpointGone(tc.err); got != tc.want {
			t.Errorf("%s: endpointGone = %v, want %v", tc.name, got, tc.want)
		}
	}
}
