package openstack

import (
	"context"
	"fmt"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/sharedfilesystems/v2/sharetypes"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
)

// ManilaMicroversion is the API microversion the operator speaks: 2.46 added is_default and
// description to share types, and every Manila since Rocky serves it.
const ManilaMicroversion = "2.46"

// ShareTypeVisibility selects which share types a listing returns.
type ShareTypeVisibility string

const (
	// PublicShareTypes lists only public types (what any project may see).
	PublicShareTypes ShareTypeVisibility = "true"
	// AllShareTypes lists public and private types; Manila allows it to admins only.
	AllShareTypes ShareTypeVisibility = "all"
)

// ListShareTypes lists share types in one request. Manila does not paginate share types, and the body
// is decoded straight into the fields the operator reads: gophercloud's pager would decode it into
// maps first, which with a thousand types was most of the operator's work at rest.
func ListShareTypes(ctx context.Context, manila *gophercloud.ServiceClient, visibility ShareTypeVisibility) ([]manilatypes.ShareType, error) {
	client := *manila
	client.Microversion = ManilaMicroversion
	query, err := sharetypes.ListOpts{IsPublic: string(visibility)}.ToShareTypeListQuery()
	if err != nil {
		return nil, err
	}
	var page shareTypeList
	if _, err := client.Get(ctx, client.ServiceURL("types")+query, &page, nil); err != nil {
		return nil, Redact(err)
	}
	return page.shareTypes(), nil
}

// shareTypeList is the body of GET /types.
type shareTypeList struct {
	ShareTypes []rawShareType `json:"share_types"`
}

// rawShareType decodes both spellings of the public flag: gophercloud's own extractor reads only
// the pre-2.7 key and reports every type as private at later microversions.
type rawShareType struct {
	ID            string         `json:"id"`
	Name          string         `json:"name"`
	Description   *string        `json:"description"`
	IsDefault     *bool          `json:"is_default"`
	PublicV27     *bool          `json:"share_type_access:is_public"`
	PublicLegacy  *bool          `json:"os-share-type-access:is_public"`
	ExtraSpecs    map[string]any `json:"extra_specs"`
	RequiredSpecs map[string]any `json:"required_extra_specs"`
}

func (l shareTypeList) shareTypes() []manilatypes.ShareType {
	out := make([]manilatypes.ShareType, 0, len(l.ShareTypes))
	for _, r := range l.ShareTypes {
		st := manilatypes.ShareType{ID: r.ID, Name: r.Name, ExtraSpecs: map[string]string{}}
		if r.Description != nil {
			st.Description = *r.Description
		}
		if r.IsDefault != nil {
			st.IsDefault = *r.IsDefault
		}
		switch {
		case r.PublicV27 != nil:
			st.IsPublic = *r.PublicV27
		case r.PublicLegacy != nil:
			st.IsPublic = *r.PublicLegacy
		}
		for k, v := range r.RequiredSpecs {
			st.ExtraSpecs[k] = specString(v)
		}
		for k, v := range r.ExtraSpecs {
			st.ExtraSpecs[k] = specString(v)
		}
		st.AvailabilityZones = splitZones(st.ExtraSpecs[extraSpecAvailabilityZones])
		out = append(out, st)
	}
	return out
}

// extraSpecAvailabilityZones limits a share type to some Manila zones: names separated by commas.
const extraSpecAvailabilityZones = "availability_zones"

// splitZones reads the availability_zones extra spec as Manila does (comma-separated, blanks
// trimmed, empty items dropped); nil when the type is not limited.
func splitZones(spec string) []string {
	var zones []string
	for _, z := range strings.Split(spec, ",") {
		if z = strings.TrimSpace(z); z != "" {
			zones = append(zones, z)
		}
	}
	return zones
}

func specString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case bool:
		if t {
			return "True"
		}
		return "False"
	case nil:
		return ""
	default:
		return fmt.Sprint(t)
	}
}
