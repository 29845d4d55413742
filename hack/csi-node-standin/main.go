// Command csi-node-standin answers the CSI Identity and Node calls that manila-csi-plugin forwards to
// its NFS node plugin (--fwdendpoint). In the controller Deployment and the NFS node DaemonSet that is
// csi-driver-nfs; the test world cannot run it (no mounts, no NFS), yet the controller plugin forwards
// Probe to it (the provisioner's start-up probe fails without an answer) and the node plugin forwards
// every NodeStage/NodePublish/NodeUnpublish/NodeUnstage to it. It takes csi-driver-nfs's flags, so the
// test world can start it with the container's rendered arguments, and answers every node call with
// success instead of mounting; with --record it appends each such call to a JSON-lines file, so a test
// can read what the node plugin forwarded (volume context: server, share; mount flags; paths).
//
// With --call it is instead the gRPC half of the test world's kubelet stand-in (the test framework
// decides what to call; the project's own module vendors no CSI types): it calls one Node method on
// --endpoint with the request read from stdin as protobuf JSON, prints the response as JSON, and on a
// gRPC error prints "<code>: <message>" to stderr and exits 3.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// standin serves the identity of an NFS node plugin and a node that "mounts" by recording the call.
type standin struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedNodeServer
	name, nodeID string
	stage        bool // report STAGE_UNSTAGE_VOLUME

	mu     sync.Mutex
	record *os.File // nil: record nothing
}

// Call is one recorded node call. Secrets are never recorded, only the names of their keys: the
// NFS node plugin gets none from manila-csi-plugin, and a test can check that it got none.
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
	return &csi.NodeStageVolumeResponse{}, s.write(c)
}

func (s *standin) NodePublishVolume(_ context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	c := Call{Method: "NodePublishVolume", VolumeID: req.GetVolumeId(), StagingTargetPath: req.GetStagingTargetPath(),
		TargetPath: req.GetTargetPath(), VolumeContext: req.GetVolumeContext(), Readonly: req.GetReadonly(),
		SecretKeys: secretKeys(req.GetSecrets())}
	c.capabilityFields(req.GetVolumeCapability())
	return &csi.NodePublishVolumeResponse{}, s.write(c)
}

func (s *standin) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	return &csi.NodeUnpublishVolumeResponse{}, s.write(Call{Method: "NodeUnpublishVolume", VolumeID: req.GetVolumeId(), TargetPath: req.GetTargetPath()})
}

func (s *standin) NodeUnstageVolume(_ context.Context, req *csi.NodeUnstageVolumeRequest) (*csi.NodeUnstageVolumeResponse, error) {
	return &csi.NodeUnstageVolumeResponse{}, s.write(Call{Method: "NodeUnstageVolume", VolumeID: req.GetVolumeId(), StagingTargetPath: req.GetStagingTargetPath()})
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
	node := csi.NewNodeClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var req, resp proto.Message
	var invoke func() error
	switch method {
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
		return fmt.Errorf("--call %q is not a Node method this client makes", method)
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

func main() {
	endpoint := flag.String("endpoint", "unix:///csi/csi.sock", "CSI endpoint (unix://)")
	nodeID := flag.String("nodeid", "", "node ID reported by NodeGetInfo")
	name := flag.String("drivername", "nfs.csi.k8s.io", "driver name reported by GetPluginInfo")
	flag.String("v", "", "log verbosity (accepted for csi-driver-nfs compatibility, ignored)")
	record := flag.String("record", "", "append every NodeStage/NodePublish/NodeUnpublish/NodeUnstage call to this JSON-lines file")
	// csi-driver-nfs itself does not stage (its NodeStageVolume is Unimplemented); a test turns this on
	// to see the NodeStage path of manila-csi-plugin, which proxies the capability it finds here.
	stage := flag.Bool("stage-unstage", false, "report the STAGE_UNSTAGE_VOLUME node capability")
	method := flag.String("call", "", "be a CSI client: call this Node method on --endpoint with the JSON request on stdin")
	flag.Parse()
	if *method != "" {
		if err := call(*endpoint, *method); err != nil {
			log.Fatal(err)
		}
		return
	}

	path, err := socketPath(*endpoint)
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
	s := &standin{name: *name, nodeID: *nodeID, stage: *stage}
	if *record != "" {
		f, err := os.OpenFile(*record, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
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
	log.Printf("csi-node-standin %s (node %q) serving on %s", *name, *nodeID, path)
	if err := srv.Serve(l); err != nil {
		log.Fatal(err)
	}
}
