// Package version holds the build's version and git commit, set by the Makefile through -ldflags.
package version

import (
	"fmt"
	"runtime"

	apimachineryversion "k8s.io/apimachinery/pkg/version"
)

var (
	// Version is the release version, e.g. v0.1.0 or a git describe string.
	Version = "v0.0.0-dev"
	// GitCommit is the full commit hash the binary was built from.
	GitCommit = "unknown"
)

// Get returns the build information in the shape library-go's controllercmd expects.
func Get() apimachineryversion.Info {
	return apimachineryversion.Info{
		GitVersion: Version,
		GitCommit:  GitCommit,
		GoVersion:  runtime.Version(),
		Compiler:   runtime.Compiler,
		Platform:   fmt.Sprintf("%s/%s", runtime.GOOS, runtime.GOARCH),
	}
}

// String is the one-line form printed by the version command.
func String() string {
	return fmt.Sprintf("manila-csi-driver-operator %s (commit %s, %s)", Version, GitCommit, runtime.Version())
}
