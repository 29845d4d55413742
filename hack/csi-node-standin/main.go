// Command csi-node-standin answers the CSI Identity and Node calls that manila-csi-plugin forwards to
// its NFS node plugin (--fwdendpoint). In the controller Deployment and the NFS node DaemonSet that is
// csi-driver-nfs; the test world cannot run it (no mounts, no NFS), yet the controller plugin forwards
// Probe to it (the provisioner's start-up probe fails without an answer) and the node plugin forwards
// every NodeStage/NodePublish/NodeUnpublish/NodeUnstage to it. It takes csi-driver-nfs's flags, so the
// test world can start it with the container's rendered arguments, and answers every node call with
// success instead of mounting; with --record it appends each such call to a JSON-lines file, so a test
// can read what the node plugin forwarded (volume context: server, share; mount flags; paths).
//
// With --type=cephfs (ceph-csi's flags: the test world starts it with the rendered arguments of the
// csi-cephfsplugin container) it stands in for ceph-csi's CephFS node plugin instead, which the CEPHFS
// instance of manila-csi-plugin forwards to: it answers as cephfs.csi.ceph.com, reports
// STAGE_UNSTAGE_VOLUME, refuses the NodeStage/NodePublish/NodeUnpublish/NodeUnstage requests ceph-csi
// refuses (same codes and messages, read from ceph-csi v3.12.2 and checked against it) and records the
// others, a NodeStage with the cephx user of its secrets and the SHA-256 of the user's key, never the key.
// ceph-csi flags it does not need are accepted and ignored (see cephfsFlags).
//
// With --call it is instead the gRPC half of the test world's kubelet stand-in (the test framework
// decides what to call; the project's own module vendors no CSI types): it calls one Node method on
// --endpoint with the request read from stdin as protobuf JSON, prints the response as JSON, and on a
// gRPC error prints "<code>: <message>" to stderr and exits 3. Besides the Node methods it makes the
// Identity calls Probe, GetPluginInfo and GetPluginCapabilities, and NodeGetInfo.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// standin serves the identity of an NFS (or CephFS) node plugin and a node that "mounts" by recording
// the call.
type standin struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedNodeServer
	name, nodeID string
	stage        bool // report STAGE_UNSTAGE_VOLUME
	cephfs       bool // ceph-csi's CephFS node plugin: its checks, and the stage secrets' user recorded

	mu     sync.Mutex
	record *os.File // nil: record nothing
}

// Call is one recorded node call. Secrets are never recorded, only the names of their keys: the
// NFS node plugin gets none from manila-csi-plugin, and a test can check that it got none. In the
// CephFS mode a NodeStage also records the value of the secrets' userID (a cephx user name, not secret)
// and the SHA-256 (hex) of their userKey, so a test can compare it with the access rule's key.
type Call struct {
	Method            string            `json:"method"`
	VolumeID          string            `json:"volumeID"`
	StagingTargetPath string            `json:"stagingTargetPath,omitempty"`
	TargetPath        string            `json:"targetPath,omitempty"`
	VolumeContext     map[string]string `json:"volumeContext,omitempty"`
	MountFlags        []string          `json:"mountFlags,omitempty"`
	FsType            string            `json:"fsType,omitempty"`
	AccessMode        string            `json:"accessMode,omitempty"`
	Readonly          bool              `json:"readonly,omitempty"`
	SecretKeys        []string          `json:"secretKeys,omitempty"`
	UserID            string            `json:"userID,omitempty"`
	UserKeySHA256     string            `json:"userKeySHA256,omitempty"`
}

// capabilityFields fills the fields a volume capability carries.
func (c *Call) capabilityFields(vc *csi.VolumeCapability) {
	if m := vc.GetMount(); m != nil {
		c.MountFlags, c.FsType = m.GetMountFlags(), m.GetFsType()
	}
	if vc.GetAccessMode() != nil {
		c.AccessMode = vc.GetAccessMode().GetMode().String()
	}
}

func secretKeys(secrets map[string]string) []string { return slices.Sorted(maps.Keys(secrets)) }

// write appends the call to the record file, one JSON object a line; a call that cannot be recorded
// fails, so a test never reads a record that silently misses a call.
func (s *standin) write(c Call) error {
	log.Printf("%s volume %s", c.Method, c.VolumeID)
	if s.record == nil {
		return nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err = s.record.Write(append(b, '\n'))
	return err
}

func (s *standin) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: s.name, VendorVersion: "standin"}, nil
}

func (s *standin) GetPluginCapabilities(context.Context, *csi.GetPluginCapabilitiesRequest) (*csi.GetPluginCapabilitiesResponse, error) {
	return &csi.GetPluginCapabilitiesResponse{}, nil
}

func (s *standin) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	return &csi.ProbeResponse{Ready: wrapperspb.Bool(true)}, nil
}

func (s *standin) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	return &csi.NodeGetInfoResponse{NodeId: s.nodeID}, nil
}

func (s *standin) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	if !s.stage {
		return &csi.NodeGetCapabilitiesResponse{}, nil
	}
	return &csi.NodeGetCapabilitiesResponse{Capabilities: []*csi.NodeServiceCapability{{
		Type: &csi.NodeServiceCapability_Rpc{Rpc: &csi.NodeServiceCapability_RPC{Type: csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME}},
	}}}, nil
}

func (s *standin) NodeStageVolume(_ context.Context, req *csi.NodeStageVolumeRequest) (*csi.NodeStageVolumeResponse, error) {
	c := Call{Method: "NodeStageVolume", VolumeID: req.GetVolumeId(), StagingTargetPath: req.GetStagingTargetPath(),
		VolumeContext: req.GetVolumeContext(), SecretKeys: secretKeys(req.GetSecrets())}
	c.capabilityFields(req.GetVolumeCapability())
	if s.cephfs {
		if err := cephfsStageCheck(req); err != nil {
			return nil, s.refuse(c, err)
		}
		c.UserID, c.UserKeySHA256 = req.GetSecrets()["userID"], sha256Hex(req.GetSecrets()["userKey"])
	}
	return &csi.NodeStageVolumeResponse{}, s.write(c)
}

func (s *standin) NodePublishVolume(_ context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	if s.cephfs {
		if err := cephfsPublishCheck(req); err != nil {
			return nil, s.refuse(Call{Method: "NodePublishVolume", VolumeID: req.GetVolumeId()}, err)
		}
	}
	c := Call{Method: "NodePublishVolume", VolumeID: req.GetVolumeId(), StagingTargetPath: req.GetStagingTargetPath(),
		TargetPath: req.GetTargetPath(), VolumeContext: req.GetVolumeContext(), Readonly: req.GetReadonly(),
		SecretKeys: secretKeys(req.GetSecrets())}
	c.capabilityFields(req.GetVolumeCapability())
	return &csi.NodePublishVolumeResponse{}, s.write(c)
}

func (s *standin) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	if s.cephfs {
		if err := cephfsRequire(req.GetVolumeId(), "volume ID", req.GetTargetPath(), "target path"); err != nil {
			return nil, s.refuse(Call{Method: "NodeUnpublishVolume", VolumeID: req.GetVolumeId()}, err)
		}
	}
	return &csi.NodeUnpublishVolumeResponse{}, s.write(Call{Method: "NodeUnpublishVolume", VolumeID: req.GetVolumeId(), TargetPath: req.GetTargetPath()})
}

func (s *standin) NodeUnstageVolume(_ context.Context, req *csi.NodeUnstageVolumeRequest) (*csi.NodeUnstageVolumeResponse, error) {
	if s.cephfs {
		if err := cephfsRequire(req.GetVolumeId(), "volume ID", req.GetStagingTargetPath(), "staging target path"); err != nil {
			return nil, s.refuse(Call{Method: "NodeUnstageVolume", VolumeID: req.GetVolumeId()}, err)
		}
	}
	return &csi.NodeUnstageVolumeResponse{}, s.write(Call{Method: "NodeUnstageVolume", VolumeID: req.GetVolumeId(), StagingTargetPath: req.GetStagingTargetPath()})
}

// refuse logs a call the stand-in refuses, as ceph-csi would; a refused call is not recorded.
func (s *standin) refuse(c Call, err error) error {
	log.Printf("%s volume %s refused: %v (volume context %v, secret keys %v)", c.Method, c.VolumeID, err, c.VolumeContext, c.SecretKeys)
	return err
}

func sha256Hex(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:])
}

// cephfsRequire refuses empty fields as ceph-csi's request validation does: pairs of value, name.
func cephfsRequire(fields ...string) error {
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i] == "" {
			return status.Error(codes.InvalidArgument, fields[i+1]+" missing in request")
		}
	}
	return nil
}

// cephfsStageCheck refuses what ceph-csi's CephFS NodeStageVolume refuses before it mounts, for a volume
// whose ID is not a ceph-csi volume ID and whose context has no staticVolume: Manila's case, read from
// ceph-csi v3.12.2 (util.ValidateNodeStageVolumeRequest, store.NewVolumeOptionsFromMonitorList,
// util.NewUserCredentials) and checked against that binary. The request's form is InvalidArgument; a
// missing or empty volume context field or stage secret is Internal, its message wrapped in a status
// message as ceph-csi wraps it ("rpc error: code = Internal desc = missing required field monitors"),
// except the credentials ("failed to get user credentials from node stage secrets: missing ID field
// 'userID' in secrets"). Encryption (KMS) options are not checked.
func cephfsStageCheck(req *csi.NodeStageVolumeRequest) error {
	if req.GetVolumeCapability() == nil {
		return status.Error(codes.InvalidArgument, "volume capability missing in request")
	}
	if err := cephfsRequire(req.GetVolumeId(), "volume ID", req.GetStagingTargetPath(), "staging target path"); err != nil {
		return err
	}
	secrets := req.GetSecrets()
	if len(secrets) == 0 {
		return status.Error(codes.InvalidArgument, "stage secrets cannot be nil or empty")
	}
	// The kubelet creates the staging directory (the test world's kubelet stand-in too, on this machine).
	if _, err := os.Stat(req.GetStagingTargetPath()); err != nil {
		return status.Errorf(codes.InvalidArgument, "staging path %s does not exist on node", req.GetStagingTargetPath())
	}
	if err := cephfsVolumeOptions(req.GetVolumeContext()); err != nil {
		return status.Error(codes.Internal, status.Error(codes.Internal, err.Error()).Error())
	}
	provision, _ := strconv.ParseBool(req.GetVolumeContext()["provisionVolume"])
	idField, keyField, kind := "userID", "userKey", "user"
	if provision { // a volume ceph-csi provisioned itself mounts with the admin credentials
		idField, keyField, kind = "adminID", "adminKey", "admin"
	}
	if _, ok := secrets[idField]; !ok {
		return status.Errorf(codes.Internal, "failed to get %s credentials from node stage secrets: missing ID field '%s' in secrets", kind, idField)
	}
	if secrets[keyField] == "" {
		return status.Errorf(codes.Internal, "failed to get %s credentials from node stage secrets: missing key field '%s' in secrets", kind, keyField)
	}
	return nil
}

// cephfsVolumeOptions is ceph-csi's store.NewVolumeOptionsFromMonitorList on the volume context.
func cephfsVolumeOptions(vc map[string]string) error {
	option := func(name string, required bool) (string, error) {
		v, ok := vc[name]
		switch {
		case !ok && required:
			return "", fmt.Errorf("missing required field %s", name)
		case ok && v == "":
			return "", fmt.Errorf("parameter '%s' cannot be empty", name)
		}
		return v, nil
	}
	if _, err := option("monitors", true); err != nil {
		return err
	}
	pv, err := option("provisionVolume", true)
	if err != nil {
		return err
	}
	provision, err := strconv.ParseBool(pv)
	if err != nil {
		return fmt.Errorf("failed to parse provisionVolume: %w", err)
	}
	names := []string{"rootPath"}
	if provision {
		names = []string{"pool"}
	}
	for _, n := range names {
		if _, err := option(n, true); err != nil {
			return err
		}
	}
	for _, n := range []string{"kernelMountOptions", "fuseMountOptions", "mounter", "backingSnapshotID"} {
		if _, err := option(n, false); err != nil {
			return err
		}
	}
	if m := vc["mounter"]; m != "" && m != "kernel" && m != "fuse" {
		return fmt.Errorf("unknown mounter '%s'. Valid options are 'fuse' and 'kernel'", m)
	}
	return nil
}

// cephfsPublishCheck is ceph-csi's util.ValidateNodePublishVolumeRequest and its mounter check.
func cephfsPublishCheck(req *csi.NodePublishVolumeRequest) error {
	if req.GetVolumeCapability() == nil {
		return status.Error(codes.InvalidArgument, "volume capability missing in request")
	}
	if err := cephfsRequire(req.GetVolumeId(), "volume ID", req.GetTargetPath(), "target path",
		req.GetStagingTargetPath(), "staging target path"); err != nil {
		return err
	}
	m, ok := req.GetVolumeContext()["mounter"]
	switch {
	case ok && m == "":
		return status.Errorf(codes.Internal, "failed to detect mounter for volume %s: parameter 'mounter' cannot be empty", req.GetVolumeId())
	case m != "" && m != "kernel" && m != "fuse":
		return status.Errorf(codes.Internal, "failed to detect mounter for volume %s: unknown mounter '%s'. Valid options are 'fuse' and 'kernel'", req.GetVolumeId(), m)
	}
	return nil
}

// socketPath reads an endpoint as csi-driver-nfs and manila-csi-plugin do: "unix://plugin/x.sock" is
// the absolute path /plugin/x.sock.
func socketPath(endpoint string) (string, error) {
	p, ok := strings.CutPrefix(endpoint, "unix://")
	if !ok {
		return "", fmt.Errorf("endpoint %q is not unix://", endpoint)
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p, nil
}

// call makes one Node call as the kubelet does, on a unix socket.
func call(endpoint, method string) error {
	path, err := socketPath(endpoint)
	if err != nil {
		return err
	}
	conn, err := grpc.NewClient("unix://"+path, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	node, identity := csi.NewNodeClient(conn), csi.NewIdentityClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var req, resp proto.Message
	var invoke func() error
	switch method {
	case "Probe":
		r := &csi.ProbeRequest{}
		req, invoke = r, func() (err error) { resp, err = identity.Probe(ctx, r); return }
	case "GetPluginInfo":
		r := &csi.GetPluginInfoRequest{}
		req, invoke = r, func() (err error) { resp, err = identity.GetPluginInfo(ctx, r); return }
	case "GetPluginCapabilities":
		r := &csi.GetPluginCapabilitiesRequest{}
		req, invoke = r, func() (err error) { resp, err = identity.GetPluginCapabilities(ctx, r); return }
	case "NodeGetInfo":
		r := &csi.NodeGetInfoRequest{}
		req, invoke = r, func() (err error) { resp, err = node.NodeGetInfo(ctx, r); return }
	case "NodeGetCapabilities":
		r := &csi.NodeGetCapabilitiesRequest{}
		req, invoke = r, func() (err error) { resp, err = node.NodeGetCapabilities(ctx, r); return }
	case "NodeStageVolume":
		r := &csi.NodeStageVolumeRequest{}
		req, invoke = r, func() (err error) { resp, err = node.NodeStageVolume(ctx, r); return }
	case "NodePublishVolume":
		r := &csi.NodePublishVolumeRequest{}
		req, invoke = r, func() (err error) { resp, err = node.NodePublishVolume(ctx, r); return }
	case "NodeUnpublishVolume":
		r := &csi.NodeUnpublishVolumeRequest{}
		req, invoke = r, func() (err error) { resp, err = node.NodeUnpublishVolume(ctx, r); return }
	case "NodeUnstageVolume":
		r := &csi.NodeUnstageVolumeRequest{}
		req, invoke = r, func() (err error) { resp, err = node.NodeUnstageVolume(ctx, r); return }
	default:
		return fmt.Errorf("--call %q is not a method this client makes", method)
	}
	if err := protojson.Unmarshal(in, req); err != nil {
		return fmt.Errorf("the %s request: %w", method, err)
	}
	if err := invoke(); err != nil {
		st := status.Convert(err)
		fmt.Fprintf(os.Stderr, "%s: %s\n", st.Code(), st.Message())
		os.Exit(3)
	}
	out, err := protojson.Marshal(resp)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(out, '\n'))
	return err
}

// cephfsConfig is what the CephFS mode takes from ceph-csi's arguments.
type cephfsConfig struct {
	vtype, endpoint, driverName, nodeID, record string
	nodeServer, controllerServer, stage         bool
}

// ceph-csi's flags (cmd/cephcsi.go of v3.12.2 and older releases, and klog's) that the stand-in
// accepts and ignores, by kind: a boolean takes no separate value argument.
var (
	cephcsiValueFlags = []string{"drivernamespace", "pluginpath", "stagingpath", "clustername", "instanceid",
		"pidlimit", "domainlabels", "crush-location-labels", "kernelmountoptions", "fusemountoptions",
		"radosnamespacecephfs", "metricsport", "metricspath", "polltime", "timeout", "rbdhardmaxclonedepth",
		"rbdsoftmaxclonedepth", "maxsnapshotsonimage", "minsnapshotsonimage", "csi-addons-endpoint",
		"histogramoption", "logslowopinterval", "metadatastorage", "volumemounter", "mountcachedir",
		"v", "vmodule", "log_dir", "log_file", "log_file_max_size", "stderrthreshold", "log_backtrace_at"}
	cephcsiBoolFlags = []string{"setmetadata", "enable-read-affinity", "forcecephkernelclient", "skipforceflatten",
		"version", "enableprofiling", "enablegrpcmetrics", "extra-create-metadata",
		"logtostderr", "alsologtostderr", "add_dir_header", "skip_headers", "skip_log_headers", "one_output"}
)

// flagName is the name of a flag argument ("-x", "--x", "--x=v"), ok false for anything else.
func flagName(arg string) (string, bool) {
	if len(arg) < 2 || arg[0] != '-' {
		return "", false
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(arg[1:], "-"), "=")
	if name == "" || name[0] == '-' || name[0] == '=' {
		return "", false
	}
	return name, true
}

// isCephFSArgs tells the CephFS mode by its arguments: ceph-csi's --type (only cephfs is served).
func isCephFSArgs(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if name, ok := flagName(a); ok && name == "type" {
			return true
		}
	}
	return false
}

// parseCephFS reads ceph-csi's arguments for its CephFS node plugin. Flags the FlagSet does not know
// (a newer ceph-csi's) are dropped and returned: "--x=v" whole, "--x" as a boolean; an unknown flag's
// value given as a separate argument is left in place and refused as an argument.
func parseCephFS(args []string) (c cephfsConfig, ignored []string, err error) {
	fs := flag.NewFlagSet("csi-node-standin --type=cephfs", flag.ContinueOnError)
	fs.StringVar(&c.vtype, "type", "", "driver type: only cephfs (ceph-csi's CephFS node plugin)")
	fs.StringVar(&c.endpoint, "endpoint", "unix:///tmp/csi.sock", "CSI endpoint (unix://)")
	fs.StringVar(&c.driverName, "drivername", "cephfs.csi.ceph.com", "driver name reported by GetPluginInfo")
	fs.StringVar(&c.nodeID, "nodeid", "", "node ID reported by NodeGetInfo (required, as ceph-csi requires it)")
	fs.BoolVar(&c.nodeServer, "nodeserver", false, "start the node server (required)")
	fs.BoolVar(&c.controllerServer, "controllerserver", false, "the controller server: only the identity service is served (Probe, GetPluginInfo), as the Manila driver's controller forwards nothing else")
	fs.StringVar(&c.record, "record", "", "append every NodeStage/NodePublish/NodeUnpublish/NodeUnstage call to this JSON-lines file")
	fs.BoolVar(&c.stage, "stage-unstage", true, "report STAGE_UNSTAGE_VOLUME (ceph-csi always does; false is refused)")
	for _, n := range cephcsiValueFlags {
		fs.String(n, "", "ceph-csi flag, ignored")
	}
	for _, n := range cephcsiBoolFlags {
		fs.Bool(n, false, "ceph-csi flag, ignored")
	}
	var kept []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			kept = append(kept, args[i:]...)
			break
		}
		name, ok := flagName(a)
		if !ok {
			kept = append(kept, a)
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			ignored = append(ignored, a)
			continue
		}
		kept = append(kept, a)
		if b, isBool := f.Value.(interface{ IsBoolFlag() bool }); !strings.Contains(a, "=") && (!isBool || !b.IsBoolFlag()) && i+1 < len(args) {
			i++ // the flag's value, whatever it looks like ("--pidlimit -1")
			kept = append(kept, args[i])
		}
	}
	if err := fs.Parse(kept); err != nil {
		return c, ignored, err
	}
	switch {
	case fs.NArg() > 0:
		return c, ignored, fmt.Errorf("unexpected arguments %q", fs.Args())
	case c.vtype != "cephfs":
		return c, ignored, fmt.Errorf("--type=%s: the stand-in serves only ceph-csi's CephFS node plugin (--type=cephfs)", c.vtype)
	case c.nodeServer == c.controllerServer:
		return c, ignored, errors.New("give one of --nodeserver=true (the CephFS node plugin) and --controllerserver=true (its identity service only)")
	case !c.stage:
		return c, ignored, errors.New("--stage-unstage=false: ceph-csi's CephFS node plugin always stages")
	case c.nodeID == "":
		return c, ignored, errors.New("--nodeid is empty (ceph-csi: NodeID missing)")
	case c.driverName == "":
		return c, ignored, errors.New("--drivername is empty")
	}
	return c, ignored, nil
}

func main() {
	var (
		s                *standin
		endpoint, record string
	)
	if isCephFSArgs(os.Args[1:]) {
		c, ignored, err := parseCephFS(os.Args[1:])
		if err != nil {
			log.Fatal(err)
		}
		if len(ignored) > 0 {
			log.Printf("ignored flags ceph-csi may have: %q", ignored)
		}
		s, endpoint, record = &standin{name: c.driverName, nodeID: c.nodeID, stage: true, cephfs: true}, c.endpoint, c.record
	} else {
		ep := flag.String("endpoint", "unix:///csi/csi.sock", "CSI endpoint (unix://)")
		nodeID := flag.String("nodeid", "", "node ID reported by NodeGetInfo")
		name := flag.String("drivername", "nfs.csi.k8s.io", "driver name reported by GetPluginInfo")
		flag.String("v", "", "log verbosity (accepted for csi-driver-nfs compatibility, ignored)")
		rec := flag.String("record", "", "append every NodeStage/NodePublish/NodeUnpublish/NodeUnstage call to this JSON-lines file")
		// csi-driver-nfs itself does not stage (its NodeStageVolume is Unimplemented); a test turns this on
		// to see the NodeStage path of manila-csi-plugin, which proxies the capability it finds here.
		stage := flag.Bool("stage-unstage", false, "report the STAGE_UNSTAGE_VOLUME node capability")
		method := flag.String("call", "", "be a CSI client: call this Node or Identity method on --endpoint with the JSON request on stdin")
		flag.Parse()
		if *method != "" {
			if err := call(*ep, *method); err != nil {
				log.Fatal(err)
			}
			return
		}
		s, endpoint, record = &standin{name: *name, nodeID: *nodeID, stage: *stage}, *ep, *rec
	}

	path, err := socketPath(endpoint)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		log.Fatal(err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		log.Fatal(err)
	}
	srv := grpc.NewServer()
	if record != "" {
		f, err := os.OpenFile(record, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		s.record = f
	}
	csi.RegisterIdentityServer(srv, s)
	csi.RegisterNodeServer(srv, s)
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		<-sig
		srv.Stop() // closes the listener, which removes the socket file
	}()
	log.Printf("csi-node-standin %s (node %q) serving on %s", s.name, s.nodeID, path)
	if err := srv.Serve(l); err != nil {
		log.Fatal(err)
	}
}
