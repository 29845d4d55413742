package operator

import (
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestFoundBefore(t *testing.T) {
	created := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	driver := &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)}}
	for _, tc := range []struct {
		name     string
		driver   *storagev1.CSIDriver
		platform configv1.PlatformType
		wantAt   string
		wantOK   bool
	}{
		{"a predecessor's driver: found when it was created", driver, "", "2026-03-04T04:06:07Z", true},
		{"no driver: not known", nil, "", "", false},
		{"off OpenStack a driver counts for nothing", driver, configv1.AWSPlatformType, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, ok := foundBefore(tc.driver, tc.platform)
			if at != tc.wantAt || ok != tc.wantOK {
				t.Errorf("foundBefore = %q, %v; want %q, %v", at, ok, tc.wantAt, tc.wantOK)
			}
		})
	}
}
