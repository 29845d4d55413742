package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
)

// Share is what the end-to-end tests check of a share in the real Manila.
type Share struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Status        string            `json:"status"`
	Size          int               `json:"size"`
	ShareProto    string            `json:"share_proto"`
	ShareTypeName string            `json:"share_type_name"`
	Metadata      map[string]string `json:"metadata"`
	// SnapshotID is the snapshot the share was created from, if any.
	SnapshotID string `json:"snapshot_id"`
}

// SharesByMetadata lists the shares of every project whose metadata holds all the given pairs, as the
// admin: GET /v2/shares/detail?all_tenants=1&metadata={...}, what the recipe in docs/tools.md (and
// `openstack share list --all-projects --property k=v`) asks Manila.
func (o *OpenStack) SharesByMetadata(ctx context.Context, metadata map[string]string) ([]Share, error) {
	client, err := o.manila(ctx)
	if err != nil {
		return nil, err
	}
	filter, err := json.Marshal(metadata)
	if err != nil {
		return nil, err
	}
	query := url.Values{"all_tenants": {"1"}, "metadata": {string(filter)}}
	var resp struct {
		Shares []Share `json:"shares"`
	}
	if _, err := client.Get(ctx, client.ServiceURL("shares", "detail")+"?"+query.Encode(), &resp, nil); err != nil {
		return nil, fmt.Errorf("shares with metadata %v: %w", metadata, err)
	}
	return resp.Shares, nil
}

// AccessRule is one access rule of a share.
type AccessRule struct {
	ID          string `json:"id"`
	AccessType  string `json:"access_type"`
	AccessTo    string `json:"access_to"`
	AccessLevel string `json:"access_level"`
	State       string `json:"state"`
}

// Share reads a share by ID, as the admin.
func (o *OpenStack) Share(ctx context.Context, id string) (Share, error) {
	client, err := o.manila(ctx)
	if err != nil {
		return Share{}, err
	}
	var resp struct {
		Share Share `json:"share"`
	}
	if _, err := client.Get(ctx, client.ServiceURL("shares", id), &resp, nil); err != nil {
		return Share{}, fmt.Errorf("share %s: %w", id, err)
	}
	return resp.Share, nil
}

// AccessRules lists a share's access rules, as the admin.
func (o *OpenStack) AccessRules(ctx context.Context, shareID string) ([]AccessRule, error) {
	client, err := o.manila(ctx)
	if err != nil {
		return nil, err
	}
	var resp struct {
		AccessList []AccessRule `json:"access_list"`
	}
	if _, err := client.Get(ctx, client.ServiceURL("share-access-rules")+"?share_id="+shareID, &resp, nil); err != nil {
		return nil, fmt.Errorf("access rules of share %s: %w", shareID, err)
	}
	return resp.AccessList, nil
}

// ExportLocation is where a share is exported; the test backend's are fake (nothing can mount them).
type ExportLocation struct {
	Path        string `json:"path"`
	Preferred   bool   `json:"preferred"`
	IsAdminOnly bool   `json:"is_admin_only"`
}

// ExportLocations lists a share's export locations, as the admin: since microversion 2.9 they are no
// longer part of the share itself.
func (o *OpenStack) ExportLocations(ctx context.Context, shareID string) ([]ExportLocation, error) {
	client, err := o.manila(ctx)
	if err != nil {
		return nil, err
	}
	var resp struct {
		ExportLocations []ExportLocation `json:"export_locations"`
	}
	if _, err := client.Get(ctx, client.ServiceURL("shares", shareID, "export_locations"), &resp, nil); err != nil {
		return nil, fmt.Errorf("export locations of share %s: %w", shareID, err)
	}
	return resp.ExportLocations, nil
}
