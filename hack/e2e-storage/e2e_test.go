// Package e2estorage is Kubernetes' external storage suite (k8s.io/kubernetes/test/e2e/storage/external)
// and nothing else of e2e.test: the storage test suites for each driver named by a -storage.testdriver
// manifest, run against the cluster of -kubeconfig. test/e2e-storage holds the manifests of the drivers
// this operator deploys; test/integration runs the suite against the test world's real node.
//
// Unlike e2e.test, it runs no suite-wide setup (e2e.test's SynchronizedBeforeSuite waits for every
// Node to be schedulable and every kube-system pod to run, and pre-pulls images): the storage specs
// create and wait for what they use themselves. Like e2e.test, it serves the specs the manifests
// embedded in test/e2e/testing-manifests (a spec with a volume populator reads its CRD there).
package e2estorage

import (
	"flag"
	"os"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"k8s.io/kubernetes/test/e2e/framework"
	"k8s.io/kubernetes/test/e2e/framework/config"
	"k8s.io/kubernetes/test/e2e/framework/testfiles"
	_ "k8s.io/kubernetes/test/e2e/storage/external" // -storage.testdriver: one ginkgo container per driver
	e2etestingmanifests "k8s.io/kubernetes/test/e2e/testing-manifests"
)

func TestMain(m *testing.M) {
	config.CopyFlags(config.Flags, flag.CommandLine)
	framework.RegisterCommonFlags(flag.CommandLine)
	framework.RegisterClusterFlags(flag.CommandLine)
	flag.Parse()
	framework.AfterReadingAllFlags(&framework.TestContext)
	testfiles.AddFileSource(e2etestingmanifests.GetE2ETestingManifestsFS())
	os.Exit(m.Run())
}

func TestExternalStorage(t *testing.T) {
	gomega.RegisterFailHandler(framework.Fail)
	// -ginkgo.junit-report=FILE writes the JUnit report the integration test reads.
	suiteConfig, reporterConfig := framework.CreateGinkgoConfig()
	ginkgo.RunSpecs(t, "External storage", suiteConfig, reporterConfig)
}
