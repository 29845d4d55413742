package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/configcheck"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

const mountsConfig = `
extraMounts:
- propagation: [openstack-manila-csi-nodeplugin]
  extraVolType: Ceph
  volumes:
  - name: ceph
    projected:
      sources:
      - secret:
          name: ceph-conf-files
  mounts:
  - name: ceph
    mountPath: /etc/ceph
    readOnly: true
- volumes:
  - name: site-policy
    configMap:
      name: site-policy
  mounts:
  - name: site-policy
    mountPath: /etc/site-policy
nfsNodePlugin:
  extraMounts:
  - volumes:
    - name: nfs-conf
      configMap:
        name: nfs-conf
    mounts:
    - name: nfs-conf
      mountPath: /etc/nfs.conf.d
`

// mountsOf returns the mount paths of the named container by volume name.
func mountsOf(spec corev1.PodSpec, container string) map[string]string {
	out := map[string]string{}
	for _, c := range spec.Containers {
		if c.Name == container {
			for _, m := range c.VolumeMounts {
				out[m.Name] = m.MountPath
			}
		}
	}
	return out
}

func wantMounts(spec corev1.PodSpec, present map[string]string, absent ...string) error {
	got := mountsOf(spec, "csi-driver")
	for name, path := range present {
		if got[name] != path {
			return fmt.Errorf("csi-driver mounts %v lack %s at %s", got, name, path)
		}
	}
	for _, name := range absent {
		if _, ok := got[name]; ok {
			return fmt.Errorf("csi-driver mounts %s, which must not reach it", name)
		}
	}
	return nil
}

// A Ceph config goes to the node plugin only, an NFS config to the NFS node plugin only, a global
// entry to all three; an invalid config is reported by entry and field and changes no workload.
func TestExtraMountsPropagation(t *testing.T) {
	startOperator(t, mountsConfig, framework.ShareTypeSpec{Name: "default"})

	dep := world.WaitForDeployment(t, func(d *appsv1.Deployment) error {
		return wantMounts(d.Spec.Template.Spec, map[string]string{"site-policy": "/etc/site-policy"}, "ceph", "nfs-conf")
	})
	node := world.WaitForDaemonSet(t, framework.NodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		return wantMounts(ds.Spec.Template.Spec, map[string]string{"ceph": "/etc/ceph", "site-policy": "/etc/site-policy"}, "nfs-conf")
	})
	nfs := world.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		return wantMounts(ds.Spec.Template.Spec, map[string]string{"nfs-conf": "/etc/nfs.conf.d", "site-policy": "/etc/site-policy"}, "ceph")
	})
	// Baselines once the operand stopped changing (library-go's observed TLS config lands after creation).
	dep, node, nfs = settledWorkloads(t)
	for _, c := range node.Spec.Template.Spec.Containers {
		if c.Name != "csi-driver" {
			if _, ok := mountsOf(node.Spec.Template.Spec, c.Name)["ceph"]; ok {
				t.Errorf("container %s got the ceph mount; only the driver container should", c.Name)
			}
		}
	}

	// /plugin is the controller driver's socket directory: the entry collides with a built-in mount.
	world.WriteOperatorConfig(t, mountsConfig+`
controllerPlugin:
  extraMounts:
  - volumes:
    - name: clash
      emptyDir: {}
    mounts:
    - name: clash
      mountPath: /plugin
`)
	cond := world.WaitForCondition(t, configcheck.ConditionDegraded, operatorv1.ConditionTrue)
	if !strings.Contains(cond.Message, "controllerPlugin.extraMounts[0]") || !strings.Contains(cond.Message, "mounts[0].mountPath") {
		t.Errorf("condition %q does not name the entry and the field", cond.Message)
	}
	framework.Consistently(t, 3*time.Second, "workloads keep their last valid mounts", func(ctx context.Context) error {
		for name, before := range map[string]string{framework.NodeDaemonSet: node.ResourceVersion, framework.NFSNodeDaemonSet: nfs.ResourceVersion} {
			ds, err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if ds.ResourceVersion != before {
				return fmt.Errorf("%s changed under an invalid config", name)
			}
		}
		d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if _, ok := mountsOf(d.Spec.Template.Spec, "csi-driver")["clash"]; ok {
			return fmt.Errorf("the invalid entry reached the Deployment")
		}
		if d.Generation != dep.Generation {
			a, _ := json.Marshal(dep.Spec)
			b, _ := json.Marshal(d.Spec)
			return fmt.Errorf("the Deployment changed (generation %d -> %d):\n%s\n%s", dep.Generation, d.Generation, a, b)
		}
		return nil
	})

	// Removing the NFS entry rolls the NFS node plugin only.
	world.WriteOperatorConfig(t, strings.Split(mountsConfig, "nfsNodePlugin:")[0])
	world.WaitForCondition(t, configcheck.ConditionDegraded, operatorv1.ConditionFalse)
	world.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		return wantMounts(ds.Spec.Template.Spec, nil, "nfs-conf")
	})
	d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(context.Background(), framework.ControllerDeployment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Generation != dep.Generation {
		t.Errorf("changing the NFS node plugin's mounts rolled the controller Deployment")
	}
	ds, err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(context.Background(), framework.NodeDaemonSet, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Generation != node.Generation {
		t.Errorf("changing the NFS node plugin's mounts rolled the node plugin")
	}
}

// settledWorkloads waits until the controller Deployment and the node DaemonSet hash the driver secret
// and none of the three workloads changed for 2 s, and returns them.
func settledWorkloads(t *testing.T) (*appsv1.Deployment, *appsv1.DaemonSet, *appsv1.DaemonSet) {
	t.Helper()
	var dep *appsv1.Deployment
	var node, nfs *appsv1.DaemonSet
	key := ""
	stableSince := time.Now()
	framework.Eventually(t, framework.DefaultTimeout, "the operand to settle", func(ctx context.Context) error {
		var err error
		if dep, err = world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{}); err != nil {
			return err
		}
		if node, err = world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, framework.NodeDaemonSet, metav1.GetOptions{}); err != nil {
			return err
		}
		if nfs, err = world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, framework.NFSNodeDaemonSet, metav1.GetOptions{}); err != nil {
			return err
		}
		// The driver secret is written once this run's operator has logged in with the credentials,
		// which may come after the workloads: until its hash is on them they are not settled.
		hash := secretHashAnnotation(names.OperandNamespace, names.DriverSecret)
		if dep.Spec.Template.Annotations[hash] == "" || node.Spec.Template.Annotations[hash] == "" {
			return fmt.Errorf("the driver secret's hash is not on the controller Deployment and the node DaemonSet yet")
		}
		now := dep.ResourceVersion + "/" + node.ResourceVersion + "/" + nfs.ResourceVersion
		if now != key {
			key, stableSince = now, time.Now()
		}
		if time.Since(stableSince) < 2*time.Second {
			return fmt.Errorf("changed %s ago", time.Since(stableSince).Round(time.Millisecond))
		}
		return nil
	})
	return dep, node, nfs
}

// currentWorkloads returns the three workloads as they are now.
func currentWorkloads(t *testing.T) (*appsv1.Deployment, *appsv1.DaemonSet, *appsv1.DaemonSet) {
	t.Helper()
	ctx := context.Background()
	dep, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node, err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, framework.NodeDaemonSet, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nfs, err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, framework.NFSNodeDaemonSet, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return dep, node, nfs
}
