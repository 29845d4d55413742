// Command csi-node-standin answers the CSI Identity and Node calls that manila-csi-plugin's controller
// side forwards to its node plugin (--fwdendpoint). In the controller Deployment that is the
// csi-driver-nfs container; the test world cannot run it (no mounts, no NFS), yet the controller
// plugin forwards Probe to it and the provisioner's start-up probe fails without an answer. It takes
// csi-driver-nfs's flags, so the test world can start it with the container's rendered arguments.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// standin serves the identity of an NFS node plugin and a node with no capabilities: nothing is
// ever staged or published in the test world.
type standin struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedNodeServer
	name, nodeID string
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
	return &csi.NodeGetCapabilitiesResponse{}, nil
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

func main() {
	endpoint := flag.String("endpoint", "unix:///csi/csi.sock", "CSI endpoint (unix://)")
	nodeID := flag.String("nodeid", "", "node ID reported by NodeGetInfo")
	name := flag.String("drivername", "nfs.csi.k8s.io", "driver name reported by GetPluginInfo")
	flag.String("v", "", "log verbosity (accepted for csi-driver-nfs compatibility, ignored)")
	flag.Parse()

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
	s := &standin{name: *name, nodeID: *nodeID}
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
