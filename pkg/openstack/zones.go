package openstack

import (
	"context"
	"sort"

	"github.com/gophercloud/gophercloud/v2"
)

// ListAvailabilityZones returns the names of Manila's availability zones, sorted, in one request
// (GET /availability-zones, microversion 2.7 and later). Manila lists a zone while an enabled share
// or scheduler service is in it, so a zone whose services are all gone or disabled drops out.
// The body is decoded straight into the names, as ListShareTypes does.
func ListAvailabilityZones(ctx context.Context, manila *gophercloud.ServiceClient) ([]string, error) {
	client := *manila
	client.Microversion = ManilaMicroversion
	var page zoneList
	if _, err := client.Get(ctx, client.ServiceURL("availability-zones"), &page, nil); err != nil {
		return nil, Redact(err)
	}
	return page.names(), nil
}

// zoneList is the body of GET /availability-zones.
type zoneList struct {
	Zones []struct {
		Name string `json:"name"`
	} `json:"availability_zones"`
}

// names are the distinct zone names, sorted, never nil: an empty list still says zones were listed.
func (l zoneList) names() []string {
	seen := map[string]bool{}
	out := []string{}
	for _, z := range l.Zones {
		if z.Name != "" && !seen[z.Name] {
			seen[z.Name] = true
			out = append(out, z.Name)
		}
	}
	sort.Strings(out)
	return out
}
