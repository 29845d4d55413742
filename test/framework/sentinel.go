package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// SentinelHolders are the only objects allowed to hold the world's credentials: the input from the
// cloud-credential-operator and the driver secret.
var SentinelHolders = map[string]bool{
	"Secret/" + names.OperatorNamespace + "/" + names.CloudCredentialsSecret: true,
	"Secret/" + names.OperandNamespace + "/" + names.DriverSecret:            true,
}

// FindSentinel lists every object, other than the SentinelHolders, whose content holds sentinel:
// events, conditions and the rest of the ClusterCSIDriver, Secrets, ConfigMaps, workloads and
// StorageClasses, in every namespace.
func (cp *ControlPlane) FindSentinel(ctx context.Context, sentinel string) ([]string, error) {
	var found []string
	check := func(kind, namespace, name string, obj any) error {
		key := kind + "/" + namespace + "/" + name
		if namespace == "" {
			key = kind + "/" + name
		}
		if SentinelHolders[key] {
			return nil
		}
		data, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), sentinel) {
			found = append(found, key)
		}
		return nil
	}
	all := metav1.ListOptions{}
	events, err := cp.Kube.CoreV1().Events("").List(ctx, all)
	if err != nil {
		return nil, err
	}
	for _, e := range events.Items {
		if err := check("Event", e.Namespace, e.Name, e); err != nil {
			return nil, err
		}
	}
	secrets, err := cp.Kube.CoreV1().Secrets("").List(ctx, all)
	if err != nil {
		return nil, err
	}
	for _, s := range secrets.Items {
		if err := check("Secret", s.Namespace, s.Name, s); err != nil {
			return nil, err
		}
	}
	cms, err := cp.Kube.CoreV1().ConfigMaps("").List(ctx, all)
	if err != nil {
		return nil, err
	}
	for _, c := range cms.Items {
		if err := check("ConfigMap", c.Namespace, c.Name, c); err != nil {
			return nil, err
		}
	}
	deps, err := cp.Kube.AppsV1().Deployments("").List(ctx, all)
	if err != nil {
		return nil, err
	}
	for _, d := range deps.Items {
		if err := check("Deployment", d.Namespace, d.Name, d); err != nil {
			return nil, err
		}
	}
	dss, err := cp.Kube.AppsV1().DaemonSets("").List(ctx, all)
	if err != nil {
		return nil, err
	}
	for _, d := range dss.Items {
		if err := check("DaemonSet", d.Namespace, d.Name, d); err != nil {
			return nil, err
		}
	}
	scs, err := cp.Kube.StorageV1().StorageClasses().List(ctx, all)
	if err != nil {
		return nil, err
	}
	for _, sc := range scs.Items {
		if err := check("StorageClass", "", sc.Name, sc); err != nil {
			return nil, err
		}
	}
	drivers, err := cp.Operator.OperatorV1().ClusterCSIDrivers().List(ctx, all)
	if err != nil {
		return nil, err
	}
	for _, d := range drivers.Items {
		if err := check("ClusterCSIDriver", "", d.Name, d); err != nil {
			return nil, err
		}
	}
	if len(events.Items) == 0 {
		return found, fmt.Errorf("no events at all: the sentinel check would prove nothing")
	}
	return found, nil
}
