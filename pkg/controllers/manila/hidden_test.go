package manila

import (
	"testing"

	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/utils/clock"
)

// PrivateShareTypesHidden is said once per credentials content and cause, however often the operator
// logs in again with the same credentials or retries the full listing.
func TestPrivateHiddenSentOncePerCredentials(t *testing.T) {
	type step struct{ inputs, cause string }
	for _, tc := range []struct {
		name  string
		steps []step
		want  int
	}{
		{"re-logins with the same credentials", []step{{"a", "no-admin"}, {"a", "no-admin"}, {"a", "no-admin"}}, 1},
		{"403 retried every forbiddenRetry polls", []step{{"a", "forbidden"}, {"a", "forbidden"}}, 1},
		{"rotated credentials, still without admin", []step{{"a", "no-admin"}, {"b", "no-admin"}, {"b", "no-admin"}}, 2},
		{"another cause with the same credentials", []step{{"a", "no-admin"}, {"a", "forbidden"}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
			c := &Controller{recorder: recorder}
			for _, s := range tc.steps {
				c.sessionHash = s.inputs
				c.warnPrivateHidden(s.cause, "hidden")
			}
			got := 0
			for _, e := range recorder.Events() {
				if e.Reason == "PrivateShareTypesHidden" {
					got++
				}
			}
			if got != tc.want {
				t.Errorf("%d PrivateShareTypesHidden events, want %d", got, tc.want)
			}
		})
	}
}
