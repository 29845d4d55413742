package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"k8s.io/apimachinery/pkg/util/wait"
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
	// Host is where Manila placed the share, host@backend#pool (the admin sees it).
	Host string `json:"host"`
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
	// AccessKey is what the backend answered the rule with (microversion 2.21+): a cephx rule's key on
	// a CephFS backend, once the rule is active; empty for other rules.
	AccessKey string `json:"access_key"`
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

// ShareSpec describes a share to create through the Manila API.
type ShareSpec struct {
	Name string
	// Protocol is the share protocol: NFS, CEPHFS.
	Protocol string
	SizeGB   int
	// ShareType is the share type's name or ID.
	ShareType string
	// SnapshotID, when set, makes a share from that snapshot.
	SnapshotID string
	Metadata   map[string]string
}

// CreateShare creates a share, as the admin: POST /v2/shares. It returns the share as Manila answers
// the request (status "creating"); WaitForShareAvailable waits for it.
func (o *OpenStack) CreateShare(ctx context.Context, spec ShareSpec) (Share, error) {
	client, err := o.manila(ctx)
	if err != nil {
		return Share{}, err
	}
	share := map[string]any{"share_proto": spec.Protocol, "size": spec.SizeGB}
	for k, v := range map[string]string{"name": spec.Name, "share_type": spec.ShareType, "snapshot_id": spec.SnapshotID} {
		if v != "" {
			share[k] = v
		}
	}
	if len(spec.Metadata) > 0 {
		share["metadata"] = spec.Metadata
	}
	var resp struct {
		Share Share `json:"share"`
	}
	if _, err := client.Post(ctx, client.ServiceURL("shares"), map[string]any{"share": share}, &resp,
		&gophercloud.RequestOpts{OkCodes: []int{200, 202}}); err != nil {
		return Share{}, fmt.Errorf("creating %s share %q of type %q: %w", spec.Protocol, spec.Name, spec.ShareType, err)
	}
	return resp.Share, nil
}

// DeleteShare deletes a share, as the admin: DELETE /v2/shares/{id}. A share already gone is not an
// error. Manila deletes it asynchronously.
func (o *OpenStack) DeleteShare(ctx context.Context, id string) error {
	client, err := o.manila(ctx)
	if err != nil {
		return err
	}
	_, err = client.Delete(ctx, client.ServiceURL("shares", id), &gophercloud.RequestOpts{OkCodes: []int{202}})
	if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting share %s: %w", id, err)
	}
	return nil
}

// ExtendShare grows a share to sizeGB, as the admin: the share action "extend".
func (o *OpenStack) ExtendShare(ctx context.Context, id string, sizeGB int) error {
	return o.shareAction(ctx, id, "extend", map[string]any{"new_size": sizeGB}, nil)
}

// GrantShareAccess adds an access rule to a share, as the admin: the share action "allow_access"
// (accessType ip, user, cert or cephx; accessLevel rw or ro). Manila answers at once with the rule
// "queued_to_apply"; the share service then applies it (WaitForAccessRuleState).
func (o *OpenStack) GrantShareAccess(ctx context.Context, shareID, accessType, accessTo, accessLevel string) (AccessRule, error) {
	var resp struct {
		Access AccessRule `json:"access"`
	}
	body := map[string]any{"access_type": accessType, "access_to": accessTo, "access_level": accessLevel}
	if err := o.shareAction(ctx, shareID, "allow_access", body, &resp); err != nil {
		return AccessRule{}, err
	}
	return resp.Access, nil
}

func (o *OpenStack) shareAction(ctx context.Context, shareID, action string, args map[string]any, resp any) error {
	client, err := o.manila(ctx)
	if err != nil {
		return err
	}
	if _, err := client.Post(ctx, client.ServiceURL("shares", shareID, "action"), map[string]any{action: args}, resp,
		&gophercloud.RequestOpts{OkCodes: []int{200, 202}}); err != nil {
		return fmt.Errorf("%s on share %s: %w", action, shareID, err)
	}
	return nil
}

// ShareAccessRule reads one access rule by ID, as the admin: GET /v2/share-access-rules/{id}
// (microversion 2.45+).
func (o *OpenStack) ShareAccessRule(ctx context.Context, id string) (AccessRule, error) {
	client, err := o.manila(ctx)
	if err != nil {
		return AccessRule{}, err
	}
	var resp struct {
		Access AccessRule `json:"access"`
	}
	if _, err := client.Get(ctx, client.ServiceURL("share-access-rules", id), &resp, nil); err != nil {
		return AccessRule{}, fmt.Errorf("access rule %s: %w", id, err)
	}
	return resp.Access, nil
}

// WaitForAccessRuleState waits until the access rule is in state ("active" or "error": where the
// share service leaves a rule it applied or refused) and returns it. A rule that settles in the
// other of the two fails the test at once.
func (o *OpenStack) WaitForAccessRuleState(t testing.TB, id, state string) AccessRule {
	t.Helper()
	settled := map[string]bool{"active": true, "error": true}
	var rule AccessRule
	var last error
	err := poll(ProvisioningTimeout, func(ctx context.Context) (bool, error) {
		var err error
		if rule, err = o.ShareAccessRule(ctx, id); err != nil {
			last = err
			return false, nil
		}
		if rule.State == state {
			return true, nil
		}
		if settled[rule.State] {
			return false, fmt.Errorf("the rule settled in %q: %+v", rule.State, rule)
		}
		last = fmt.Errorf("the rule is %q", rule.State)
		return false, nil
	})
	if err != nil {
		if last != nil && wait.Interrupted(err) {
			err = last
		}
		t.Fatalf("waiting for access rule %s to be %s: %v", id, state, err)
	}
	return rule
}

// CreateShareSnapshot snapshots a share, as the admin: POST /v2/snapshots. It returns the snapshot
// as Manila answers the request (status "creating").
func (o *OpenStack) CreateShareSnapshot(ctx context.Context, shareID, name string) (ShareSnapshot, error) {
	client, err := o.manila(ctx)
	if err != nil {
		return ShareSnapshot{}, err
	}
	var resp struct {
		Snapshot ShareSnapshot `json:"snapshot"`
	}
	body := map[string]any{"snapshot": map[string]any{"share_id": shareID, "name": name}}
	if _, err := client.Post(ctx, client.ServiceURL("snapshots"), body, &resp, &gophercloud.RequestOpts{OkCodes: []int{200, 202}}); err != nil {
		return ShareSnapshot{}, fmt.Errorf("snapshotting share %s: %w", shareID, err)
	}
	return resp.Snapshot, nil
}

// DeleteShareSnapshot deletes a snapshot, as the admin: DELETE /v2/snapshots/{id}. A snapshot already
// gone is not an error. Manila deletes it asynchronously.
func (o *OpenStack) DeleteShareSnapshot(ctx context.Context, id string) error {
	client, err := o.manila(ctx)
	if err != nil {
		return err
	}
	_, err = client.Delete(ctx, client.ServiceURL("snapshots", id), &gophercloud.RequestOpts{OkCodes: []int{202}})
	if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting snapshot %s: %w", id, err)
	}
	return nil
}
