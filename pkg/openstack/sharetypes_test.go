package openstack

import (
	"encoding/json"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"reflect"
	"testing"
)

func TestDecodeShareTypes(t *testing.T) {
	body := `{"share_types": [
	  {"id": "1", "name": "Gold_NFS", "share_type_access:is_public": true, "is_default": true, "description": "d",
	   "extra_specs": {"driver_handles_share_servers": "False", "storage_protocol": "NFS"},
	   "required_extra_specs": {"driver_handles_share_servers": "False"}},
	  {"id": "2", "name": "legacy", "os-share-type-access:is_public": true, "extra_specs": {"snapshot_support": true}},
	  {"id": "3", "name": "private", "share_type_access:is_public": false, "required_extra_specs": {"driver_handles_share_servers": "True"}},
	  {"id": "4", "name": "zoned", "extra_specs": {"availability_zones": "az1,az2"}}
	]}`
	var list shareTypeList
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	got := list.shareTypes()
	want := []manilatypes.ShareType{
		{ID: "1", Name: "Gold_NFS", Description: "d", IsPublic: true, IsDefault: true,
			ExtraSpecs: map[string]string{"driver_handles_share_servers": "False", "storage_protocol": "NFS"}},
		{ID: "2", Name: "legacy", IsPublic: true, ExtraSpecs: map[string]string{"snapshot_support": "True"}},
		{ID: "3", Name: "private", ExtraSpecs: map[string]string{"driver_handles_share_servers": "True"}},
		{ID: "4", Name: "zoned", ExtraSpecs: map[string]string{"availability_zones": "az1,az2"}, AvailabilityZones: []string{"az1", "az2"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("shareTypes:\n got %+v\nwant %+v", got, want)
	}
}
