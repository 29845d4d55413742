package manilatypes

import (
	"testing"
)

func TestPublishMarksUnchangedListings(t *testing.T) {
	gold := ShareType{ID: "1", Name: "gold", ExtraSpecs: map[string]string{"driver_handles_share_servers": "False"}}
	silver := ShareType{ID: "2", Name: "silver"}
	goldRenamed := gold
	goldRenamed.Name = "gold2"
	steps := []struct {
		types         []ShareType
		complete      bool
		wantUnchanged bool
	}{
		{[]ShareType{gold, silver}, true, false}, // the first listing
		{[]ShareType{gold, silver}, true, true},
		{[]ShareType{gold, silver}, false, false}, // only public types this time
		{[]ShareType{gold, silver}, false, true},
		{[]ShareType{gold}, false, false},
		{[]ShareType{goldRenamed}, false, false},
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

func TestPublishWithZonesComparesZones(t *testing.T) {
	gold := ShareType{ID: "1", Name: "gold", AvailabilityZones: []string{"az1"}}
	steps := []struct {
		zones         []string
		wantUnchanged bool
	}{
		{nil, false},
		{[]string{"az1", "az2"}, false}, // topology turned on: zones listed
		{[]string{"az1", "az2"}, true},
		{[]string{"az1"}, false}, // az2 vanished
		{nil, false},             // topology turned off
	}
	var s Store
	for i, step := range steps {
		s.PublishWithZones([]ShareType{gold}, true, step.zones)
		if l := s.Latest(); l.Unchanged != step.wantUnchanged {
			t.Errorf("listing %d: Unchanged %v, want %v", i+1, l.Unchanged, step.wantUnchanged)
		}
	}
}
