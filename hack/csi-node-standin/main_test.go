package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The arguments the operator renders for ceph-csi's CephFS node plugin container, and more.
func TestParseCephFS(t *testing.T) {
	args := []string{"--type=cephfs", "--nodeserver=true", "--drivername=cephfs.csi.ceph.com",
		"--endpoint=unix:///csi/csi.sock", "--nodeid=node-1", "--v=5", "--pidlimit", "-1",
		"--stagingpath=/var/lib/kubelet/plugins/kubernetes.io/csi/", "--enableprofiling", "--a-newer-flag=x",
		"--record=/tmp/r.jsonl"}
	if !isCephFSArgs(args) || isCephFSArgs([]string{"--endpoint=unix:///csi/csi.sock", "--nodeid=n", "--v=5"}) {
		t.Fatal("the mode is not told by --type")
	}
	c, ignored, err := parseCephFS(args)
	if err != nil {
		t.Fatal(err)
	}
	want := cephfsConfig{vtype: "cephfs", endpoint: "unix:///csi/csi.sock", driverName: "cephfs.csi.ceph.com",
		nodeID: "node-1", record: "/tmp/r.jsonl", nodeServer: true, stage: true}
	if c != want || !slices.Equal(ignored, []string{"--a-newer-flag=x"}) {
		t.Fatalf("parsed %+v, ignored %q; want %+v and the unknown flag", c, ignored, want)
	}
	// The controller Deployment's ceph-csi container: the Manila driver forwards Probe to it.
	if c, _, err := parseCephFS([]string{"--type=cephfs", "--controllerserver=true", "--nodeid=n", "--endpoint=unix:///plugin/csi-cephfs.sock"}); err != nil || !c.controllerServer {
		t.Errorf("controller server refused: %+v, %v", c, err)
	}
	for _, bad := range [][]string{
		{"--type=rbd", "--nodeserver=true", "--nodeid=n"},
		{"--type=cephfs", "--nodeid=n"},
		{"--type=cephfs", "--nodeserver=true", "--controllerserver=true", "--nodeid=n"},
		{"--type=cephfs", "--nodeserver=true"},
		{"--type=cephfs", "--nodeserver=true", "--nodeid=n", "stray"},
	} {
		if _, _, err := parseCephFS(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func records(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func TestCephFSNodeStage(t *testing.T) {
	dir := t.TempDir()
	rec, err := os.Create(filepath.Join(dir, "calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	s := &standin{name: "cephfs.csi.ceph.com", nodeID: "n1", stage: true, cephfs: true, record: rec}
	ctx := context.Background()

	caps, err := s.NodeGetCapabilities(ctx, &csi.NodeGetCapabilitiesRequest{})
	if err != nil || len(caps.GetCapabilities()) != 1 ||
		caps.GetCapabilities()[0].GetRpc().GetType() != csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME {
		t.Fatalf("NodeGetCapabilities: %v, %v", caps, err)
	}
	req := func() *csi.NodeStageVolumeRequest {
		return &csi.NodeStageVolumeRequest{
			VolumeId:          "4b8a7a2e-1f1e-4f4e-9d3c-2a2f5b6c7d8e",
			StagingTargetPath: dir,
			VolumeCapability: &csi.VolumeCapability{
				AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{MountFlags: []string{"noatime"}}},
				AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER},
			},
			VolumeContext: map[string]string{"monitors": "192.0.2.21:6789,192.0.2.22:6789",
				"rootPath": "/volumes/_nogroup/4b8a7a2e", "mounter": "kernel", "provisionVolume": "false", "fsName": "cephfs"},
			Secrets: map[string]string{"userID": "manila-user", "userKey": "AQB-secret-key=="},
		}
	}
	if _, err := s.NodeStageVolume(ctx, req()); err != nil {
		t.Fatal(err)
	}
	// What ceph-csi v3.12.2 answers (checked against the binary).
	for _, c := range []struct {
		change func(*csi.NodeStageVolumeRequest)
		code   codes.Code
		msg    string
	}{
		{func(r *csi.NodeStageVolumeRequest) { delete(r.VolumeContext, "monitors") }, codes.Internal,
			"rpc error: code = Internal desc = missing required field monitors"},
		{func(r *csi.NodeStageVolumeRequest) { delete(r.VolumeContext, "rootPath") }, codes.Internal,
			"rpc error: code = Internal desc = missing required field rootPath"},
		{func(r *csi.NodeStageVolumeRequest) { r.VolumeContext["mounter"] = "nfs" }, codes.Internal,
			"rpc error: code = Internal desc = unknown mounter 'nfs'. Valid options are 'fuse' and 'kernel'"},
		{func(r *csi.NodeStageVolumeRequest) { delete(r.Secrets, "userID") }, codes.Internal,
			"failed to get user credentials from node stage secrets: missing ID field 'userID' in secrets"},
		{func(r *csi.NodeStageVolumeRequest) { delete(r.Secrets, "userKey") }, codes.Internal,
			"failed to get user credentials from node stage secrets: missing key field 'userKey' in secrets"},
		{func(r *csi.NodeStageVolumeRequest) { r.Secrets = nil }, codes.InvalidArgument, "stage secrets cannot be nil or empty"},
		{func(r *csi.NodeStageVolumeRequest) { r.StagingTargetPath = filepath.Join(dir, "absent") }, codes.InvalidArgument,
			"staging path " + filepath.Join(dir, "absent") + " does not exist on node"},
	} {
		r := req()
		c.change(r)
		_, err := s.NodeStageVolume(ctx, r)
		if st := status.Convert(err); st.Code() != c.code || st.Message() != c.msg {
			t.Errorf("got %v; want %v: %s", err, c.code, c.msg)
		}
	}

	got := records(t, rec.Name())
	if len(got) != 1 {
		t.Fatalf("%d calls recorded, want the one accepted: %v", len(got), got)
	}
	b, _ := json.Marshal(got[0])
	for _, want := range []string{`"method":"NodeStageVolume"`, `"userID":"manila-user"`,
		`"userKeySHA256":"` + sha256Hex("AQB-secret-key==") + `"`, `"secretKeys":["userID","userKey"]`,
		`"fsName":"cephfs"`, `"rootPath":"/volumes/_nogroup/4b8a7a2e"`, `"mountFlags":["noatime"]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("record %s lacks %s", b, want)
		}
	}
	if strings.Contains(string(b), "AQB-secret-key") {
		t.Errorf("record %s holds the key", b)
	}
}

// The NFS mode records no user fields, even when given secrets.
func TestNFSRecordUnchanged(t *testing.T) {
	rec, err := os.Create(filepath.Join(t.TempDir(), "calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	s := &standin{name: "nfs.csi.k8s.io", record: rec}
	if _, err := s.NodeStageVolume(context.Background(), &csi.NodeStageVolumeRequest{VolumeId: "v",
		StagingTargetPath: "/absent", VolumeContext: map[string]string{"server": "127.0.0.1"},
		Secrets: map[string]string{"userID": "u", "userKey": "k"}}); err != nil {
		t.Fatal(err)
	}
	got := records(t, rec.Name())
	want := map[string]any{"method": "NodeStageVolume", "volumeID": "v", "stagingTargetPath": "/absent",
		"volumeContext": map[string]any{"server": "127.0.0.1"}, "secretKeys": []any{"userID", "userKey"}}
	if len(got) != 1 || !jsonEqual(got[0], want) {
		t.Fatalf("recorded %v, want %v", got, want)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
