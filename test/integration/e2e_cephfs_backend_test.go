package integration

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// checkCephFSBackend checks that the provisioning world's Manila serves native CephFS as Manila's
// CephFS driver does (hack/manila/manila_testbackend.py, CephFSTestDriver), through the Manila API
// alone: a CEPHFS share of a type bound to backend "cephfs" has one export location "<monitors>:
// /volumes/_nogroup/<share id>"; a cephx rule becomes active with a cephx key, the one manila-csi-plugin
// waits for and hands ceph-csi; a cephx rule for the backend's own identity (admin, manila) and a rule
// of another type end in error, as does every cephx rule on backend "cephfs_nocephx"; snapshots,
// shares from them and extension work; and the NFS backend beside them serves NFS shares as before
// (claims on NFS classes are the other end-to-end tests', on the same world).
func checkCephFSBackend(t *testing.T, w *framework.World) {
	ctx := context.Background()
	o := w.OpenStack
	cephType := framework.CephFSShareType("e2e-cephfs", framework.CephFSBackend, true)
	noCephxType := framework.CephFSShareType("e2e-cephfs-nocephx", framework.CephFSNoCephxBackend, false)
	nfsType := framework.ShareTypeSpec{Name: "e2e-nfs-beside-cephfs"}
	typeIDs, err := o.CreateShareTypes(ctx, []framework.ShareTypeSpec{cephType, noCephxType, nfsType})
	t.Cleanup(func() { // last: a type cannot be deleted while a share of it exists
		for _, id := range typeIDs {
			if id == "" {
				continue
			}
			if err := o.DeleteShareType(context.Background(), id); err != nil {
				t.Errorf("deleting share type %s: %v", id, err)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	const client = "ocp-client"
	share := createBackendShare(t, w, framework.ShareSpec{Name: "e2e-cephfs", Protocol: "CEPHFS", SizeGB: 1, ShareType: cephType.Name})
	if share.ShareProto != "CEPHFS" || share.Host != "manila-peer@cephfs#cephfs" {
		t.Fatalf("share %s: protocol %q on %q; want CEPHFS on manila-peer@cephfs#cephfs", share.ID, share.ShareProto, share.Host)
	}

	t.Run("OneExportLocationInCephFSForm", func(t *testing.T) {
		checkCephFSExportLocation(t, w, share.ID)
	})

	var key string
	t.Run("CephxRuleActiveWithKey", func(t *testing.T) {
		rule := grantAndWait(t, w, share.ID, "cephx", client, "active")
		key = rule.AccessKey
		raw, err := base64.StdEncoding.DecodeString(key)
		if len(key) != 40 || err != nil || len(raw) != 28 {
			t.Errorf("access key %q (%d characters, %d bytes, %v); want a cephx key: base64 of 28 bytes, 40 characters", key, len(key), len(raw), err)
		}
		// What manila-csi-plugin reads: the share's rules, listed, with the key.
		rules, err := o.AccessRules(ctx, share.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(rules) != 1 || rules[0].ID != rule.ID || rules[0].AccessKey != key || rules[0].State != "active" ||
			rules[0].AccessType != "cephx" || rules[0].AccessTo != client || rules[0].AccessLevel != "rw" {
			t.Errorf("the share's rules %+v; want only the active rw cephx rule for %s with key %q", rules, client, key)
		}
	})

	t.Run("RefusedIDsEndInError", func(t *testing.T) {
		for _, id := range framework.CephFSRefusedIDs {
			if rule := grantAndWait(t, w, share.ID, "cephx", id, "error"); rule.AccessKey != "" {
				t.Errorf("the refused rule for %s has key %q", id, rule.AccessKey)
			}
		}
		// The granted rule is untouched.
		for _, r := range mustAccessRules(t, w, share.ID) {
			if r.AccessTo == client && (r.State != "active" || r.AccessKey != key) {
				t.Errorf("the rule for %s after the refused ones: %+v", client, r)
			}
		}
	})

	t.Run("OtherAccessTypeEndsInError", func(t *testing.T) {
		if rule := grantAndWait(t, w, share.ID, "ip", "10.0.0.0/24", "error"); rule.AccessKey != "" {
			t.Errorf("the ip rule on a CephFS share has key %q", rule.AccessKey)
		}
	})

	t.Run("SnapshotShareFromItAndExtend", func(t *testing.T) {
		snap, err := o.CreateShareSnapshot(ctx, share.ID, "e2e-cephfs-snap")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { deleteSnapshotAndWait(t, w, snap.ID) })
		framework.Eventually(t, framework.ProvisioningTimeout, "snapshot "+snap.ID+" available", func(ctx context.Context) error {
			s, err := o.ShareSnapshot(ctx, snap.ID)
			if err != nil {
				return err
			}
			if s.Status != "available" {
				return fmt.Errorf("snapshot is %s", s.Status)
			}
			return nil
		})
		restored := createBackendShare(t, w, framework.ShareSpec{Name: "e2e-cephfs-restored", Protocol: "CEPHFS", SizeGB: 1,
			ShareType: cephType.Name, SnapshotID: snap.ID})
		if restored.SnapshotID != snap.ID || restored.Host != share.Host {
			t.Errorf("restored share %s: snapshot %q on %q; want snapshot %s on %s", restored.ID, restored.SnapshotID, restored.Host, snap.ID, share.Host)
		}
		checkCephFSExportLocation(t, w, restored.ID)
		// One key per cephx ID on the backend, as in a Ceph cluster.
		if rule := grantAndWait(t, w, restored.ID, "cephx", client, "active"); key != "" && rule.AccessKey != key {
			t.Errorf("%s's key on the restored share %q; want its key on the first share, %q", client, rule.AccessKey, key)
		}

		if err := o.ExtendShare(ctx, share.ID, 2); err != nil {
			t.Fatal(err)
		}
		framework.Eventually(t, framework.ProvisioningTimeout, "share "+share.ID+" extended to 2 GB", func(ctx context.Context) error {
			s, err := o.Share(ctx, share.ID)
			if err != nil {
				return err
			}
			if s.Status != "available" || s.Size != 2 {
				return fmt.Errorf("share is %s, %d GB", s.Status, s.Size)
			}
			return nil
		})
	})

	t.Run("NoCephxBackendRefusesCephx", func(t *testing.T) {
		s := createBackendShare(t, w, framework.ShareSpec{Name: "e2e-cephfs-nocephx", Protocol: "CEPHFS", SizeGB: 1, ShareType: noCephxType.Name})
		if s.ShareProto != "CEPHFS" || s.Host != "manila-peer@cephfs_nocephx#cephfs_nocephx" {
			t.Errorf("share %s: protocol %q on %q; want CEPHFS on manila-peer@cephfs_nocephx#cephfs_nocephx", s.ID, s.ShareProto, s.Host)
		}
		checkCephFSExportLocation(t, w, s.ID)
		if rule := grantAndWait(t, w, s.ID, "cephx", client, "error"); rule.AccessKey != "" {
			t.Errorf("the cephx rule on the backend without cephx has key %q", rule.AccessKey)
		}
	})

	t.Run("NFSAsBefore", func(t *testing.T) {
		s := createBackendShare(t, w, framework.ShareSpec{Name: "e2e-nfs", Protocol: "NFS", SizeGB: 1, ShareType: nfsType.Name})
		if s.ShareProto != "NFS" || s.Host != "manila-peer@testnfs#testnfs" {
			t.Errorf("share %s: protocol %q on %q; want NFS on manila-peer@testnfs#testnfs", s.ID, s.ShareProto, s.Host)
		}
		locs, err := o.ExportLocations(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		path := "/exports/share-" + s.ID
		want := []framework.ExportLocation{{Path: "127.0.0.1:" + path, Preferred: true}, {Path: "192.0.2.10:" + path}}
		if !sameExportLocations(locs, want) {
			t.Errorf("export locations %+v; want %+v", locs, want)
		}
		if rule := grantAndWait(t, w, s.ID, "ip", "10.0.0.0/24", "active"); rule.AccessKey != "" {
			t.Errorf("the ip rule on an NFS share has key %q", rule.AccessKey)
		}

	})
}

// createBackendShare creates a share through the Manila API, waits until it is available and deletes
// it, waiting until it is gone, when the test ends.
func createBackendShare(t *testing.T, w *framework.World, spec framework.ShareSpec) framework.Share {
	t.Helper()
	s, err := w.OpenStack.CreateShare(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.OpenStack.DeleteShare(context.Background(), s.ID); err != nil {
			t.Error(err)
			return
		}
		waitForShareGone(t, w, s.ID)
	})
	return w.WaitForShareAvailable(t, s.ID)
}

// grantAndWait adds an rw access rule and waits until the share service leaves it in state.
func grantAndWait(t *testing.T, w *framework.World, shareID, accessType, accessTo, state string) framework.AccessRule {
	t.Helper()
	rule, err := w.OpenStack.GrantShareAccess(context.Background(), shareID, accessType, accessTo, "rw")
	if err != nil {
		t.Fatal(err)
	}
	got := w.OpenStack.WaitForAccessRuleState(t, rule.ID, state)
	if got.AccessType != accessType || got.AccessTo != accessTo || got.AccessLevel != "rw" {
		t.Errorf("rule %+v; want rw %s access for %s", got, accessType, accessTo)
	}
	return got
}

func mustAccessRules(t *testing.T, w *framework.World, shareID string) []framework.AccessRule {
	t.Helper()
	rules, err := w.OpenStack.AccessRules(context.Background(), shareID)
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

// checkCephFSExportLocation checks that the share has one export location, in the form of Manila's
// CephFS driver, which manila-csi-plugin splits into monitors and root path.
func checkCephFSExportLocation(t *testing.T, w *framework.World, shareID string) {
	t.Helper()
	locs, err := w.OpenStack.ExportLocations(context.Background(), shareID)
	if err != nil {
		t.Fatal(err)
	}
	want := framework.CephFSTestMonitors + ":" + framework.CephFSRootPath(shareID)
	if len(locs) != 1 || locs[0].Path != want || locs[0].IsAdminOnly {
		t.Fatalf("export locations of share %s: %+v; want one, %s, not admin-only", shareID, locs, want)
	}
	monitors, root, err := framework.SplitCephFSExportLocation(locs[0].Path)
	if err != nil || monitors != framework.CephFSTestMonitors || root != "/volumes/_nogroup/"+shareID ||
		len(strings.Split(monitors, ",")) != 2 {
		t.Errorf("%s splits into monitors %q and root path %q (%v)", locs[0].Path, monitors, root, err)
	}
}

// sameExportLocations: the same locations, in any order (Manila's list has none it promises).
func sameExportLocations(got, want []framework.ExportLocation) bool {
	return len(got) == len(want) && !slices.ContainsFunc(want, func(l framework.ExportLocation) bool {
		return !slices.Contains(got, l)
	})
}

// deleteSnapshotAndWait deletes a Manila snapshot and waits until it is gone.
func deleteSnapshotAndWait(t *testing.T, w *framework.World, id string) {
	t.Helper()
	if err := w.OpenStack.DeleteShareSnapshot(context.Background(), id); err != nil {
		t.Error(err)
		return
	}
	framework.Eventually(t, framework.ProvisioningTimeout, "snapshot "+id+" deleted", func(ctx context.Context) error {
		s, err := w.OpenStack.ShareSnapshot(ctx, id)
		if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return nil
		}
		return fmt.Errorf("snapshot is %s (err=%v)", s.Status, err)
	})
}
