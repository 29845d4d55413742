package sharetypes

import (
	"testing"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
)

func TestPublishMarksUnchangedListings(t *testing.T) {
	gold := openstack.ShareType{ID: "1", Name: "gold", ExtraSpecs: map[string]string{"driver_handles_share_servers": "False"}}
	silver := openstack.ShareType{ID: "2", Name: "silver"}
	goldRenamed := gold
	goldRenamed.Name = "gold2"
	steps := []struct {
		types         []openstack.ShareType
		complete      bool
		wantUnchanged bool
	}{
		{[]openstack.ShareType{gold, silver}, true, false}, // the first listing
		{[]openstack.ShareType{gold, silver}, true, true},
		{[]openstack.ShareType{gold, silver}, false, false}, // only public types this time
		{[]openstack.ShareType{gold, silver}, false, true},
		{[]openstack.ShareType{gold}, false, false},
		{[]openstack.ShareType{goldRenamed}, false, false},
		{nil, false, false},
		{nil, false, true},
	}
	var s Store
	notified := 0
	s.Subscribe(func() { notified++ })
	for i, step := range steps {
		s.Publish(step.types, step.complete)
		l := s.Latest()
		if l.Seq != uint64(i+1) || l.Unchanged != step.wantUnchanged {
			t.Errorf("listing %d: Seq %d Unchanged %v; want %d %v", i+1, l.Seq, l.Unchanged, i+1, step.wantUnchanged)
		}
	}
	if notified != len(steps) {
		t.Errorf("subscribers were told of %d of %d listings", notified, len(steps))
	}
}
