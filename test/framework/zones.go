package framework

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
)

// RegisterShareHost records a share service on host in a Manila availability zone, as a manila-share
// started there with storage_availability_zone = zone would, so that Manila lists the zone
// (hack/manila/register_share_host.py). No share service runs for it. A host registered again moves
// to zone and is enabled.
func (o *OpenStack) RegisterShareHost(host, zone string) error {
	_, err := runScript(nil, "openstack-peer.sh", "register-share-host", o.Dir, host, zone)
	return err
}

// SetShareHostEnabled enables or disables a share service through Manila's admin API
// (PUT /services/enable|disable), as a cloud operator does: a zone whose services are all disabled
// is no longer listed.
func (o *OpenStack) SetShareHostEnabled(ctx context.Context, host string, enabled bool) error {
	client, err := o.manila(ctx)
	if err != nil {
		return err
	}
	action := "disable"
	if enabled {
		action = "enable"
	}
	body := map[string]any{"host": host, "binary": "manila-share"}
	if _, err := client.Put(ctx, client.ServiceURL("services", action), body, nil, &gophercloud.RequestOpts{OkCodes: []int{200}}); err != nil {
		return fmt.Errorf("%s share service %s: %w", action, host, err)
	}
	return nil
}

// AvailabilityZones lists Manila's availability zones as the operator does.
func (o *OpenStack) AvailabilityZones(ctx context.Context) ([]string, error) {
	client, err := o.manila(ctx)
	if err != nil {
		return nil, err
	}
	return openstack.ListAvailabilityZones(ctx, client)
}
