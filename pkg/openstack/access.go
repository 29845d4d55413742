package openstack

import (
	"context"
	"encoding/json"
	"net/url"
	"sync"

	"github.com/gophercloud/gophercloud/v2"
)

// Share is a Manila share as the claim diagnosis reads it (GET /shares/detail).
type Share struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Status   string            `json:"status"`
	Metadata map[string]string `json:"metadata"`
}

// AccessRule is a share's access rule as the claim diagnosis reads it (GET /share-access-rules). It
// has no field for the rule's access_key: the key is never decoded, so it cannot reach a log or an
// event.
type AccessRule struct {
	ID         string `json:"id"`
	AccessType string `json:"access_type"`
	AccessTo   string `json:"access_to"`
	State      string `json:"state"`
}

// ListSharesByMetadata lists the shares (with details) whose metadata holds every pair of metadata, in
// one request (GET /shares/detail?metadata={...}). Manila does the filtering; the caller still checks
// each share's metadata.
func ListSharesByMetadata(ctx context.Context, manila *gophercloud.ServiceClient, metadata map[string]string) ([]Share, error) {
	client := *manila
	client.Microversion = ManilaMicroversion
	filter, err := json.Marshal(metadata) // a JSON object of strings is also the Python dict Manila parses
	if err != nil {
		return nil, err
	}
	var page struct {
		Shares []Share `json:"shares"`
	}
	query := url.Values{"metadata": []string{string(filter)}}
	if _, err := client.Get(ctx, client.ServiceURL("shares", "detail")+"?"+query.Encode(), &page, nil); err != nil {
		return nil, Redact(err)
	}
	return page.Shares, nil
}

// ListAccessRules lists a share's access rules in one request (GET /share-access-rules?share_id=,
// microversion 2.45 and later; the operator speaks ManilaMicroversion).
func ListAccessRules(ctx context.Context, manila *gophercloud.ServiceClient, shareID string) ([]AccessRule, error) {
	client := *manila
	client.Microversion = ManilaMicroversion
	var page struct {
		Rules []AccessRule `json:"access_list"`
	}
	query := url.Values{"share_id": []string{shareID}}
	if _, err := client.Get(ctx, client.ServiceURL("share-access-rules")+"?"+query.Encode(), &page, nil); err != nil {
		return nil, Redact(err)
	}
	return page.Rules, nil
}

// Shared hands the Manila controller's session (one Keystone login per content of the credentials and
// CA) to other readers of Manila, so that they log in with nothing of their own. It holds nothing until
// the Manila controller has logged in and found Manila, and nothing again after a failure made that
// controller drop its session.
type Shared struct {
	mu     sync.RWMutex
	client *Client
}

// Set publishes client (nil: none).
func (s *Shared) Set(client *Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.client = client
}

// Manila returns a client of the published session's sharev2 endpoint; false when none is published
// or its catalog has no Manila.
func (s *Shared) Manila() (*gophercloud.ServiceClient, bool) {
	s.mu.RLock()
	client := s.client
	s.mu.RUnlock()
	if client == nil {
		return nil, false
	}
	manila, err := client.Manila()
	return manila, err == nil
}
