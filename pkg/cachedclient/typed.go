package cachedclient

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	policyv1client "k8s.io/client-go/kubernetes/typed/policy/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
	storagev1client "k8s.io/client-go/kubernetes/typed/storage/v1"
)

type coreV1 struct {
	corev1client.CoreV1Interface
	c *Clientset
}

func (v coreV1) ServiceAccounts(ns string) corev1client.ServiceAccountInterface {
	live := v.CoreV1Interface.ServiceAccounts(ns)
	if ns != v.c.namespace {
		return live
	}
	return serviceAccounts{live, v.c}
}

func (v coreV1) Services(ns string) corev1client.ServiceInterface {
	live := v.CoreV1Interface.Services(ns)
	if ns != v.c.namespace {
		return live
	}
	return services{live, v.c}
}

func (v coreV1) ConfigMaps(ns string) corev1client.ConfigMapInterface {
	live := v.CoreV1Interface.ConfigMaps(ns)
	if ns != v.c.namespace {
		return live
	}
	return configMaps{live, v.c}
}

type configMaps struct {
	corev1client.ConfigMapInterface
	c *Clientset
}

func (s configMaps) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ConfigMap, error) {
	return cachedGet(ctx, name, opts, s.c.namespaced.Core().V1().ConfigMaps().Lister().ConfigMaps(s.c.namespace).Get, s.ConfigMapInterface.Get)
}

func (v coreV1) Namespaces() corev1client.NamespaceInterface {
	return namespaces{v.CoreV1Interface.Namespaces(), v.c}
}

type serviceAccounts struct {
	corev1client.ServiceAccountInterface
	c *Clientset
}

func (s serviceAccounts) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ServiceAccount, error) {
	return cachedGet(ctx, name, opts, s.c.namespaced.Core().V1().ServiceAccounts().Lister().ServiceAccounts(s.c.namespace).Get, s.ServiceAccountInterface.Get)
}

type services struct {
	corev1client.ServiceInterface
	c *Clientset
}

func (s services) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Service, error) {
	return cachedGet(ctx, name, opts, s.c.namespaced.Core().V1().Services().Lister().Services(s.c.namespace).Get, s.ServiceInterface.Get)
}

type namespaces struct {
	corev1client.NamespaceInterface
	c *Clientset
}

func (s namespaces) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Namespace, error) {
	return cachedGet(ctx, name, opts, s.c.cluster.Core().V1().Namespaces().Lister().Get, s.NamespaceInterface.Get)
}

type rbacV1 struct {
	rbacv1client.RbacV1Interface
	c *Clientset
}

func (v rbacV1) Roles(ns string) rbacv1client.RoleInterface {
	live := v.RbacV1Interface.Roles(ns)
	if ns != v.c.namespace {
		return live
	}
	return roles{live, v.c}
}

func (v rbacV1) RoleBindings(ns string) rbacv1client.RoleBindingInterface {
	live := v.RbacV1Interface.RoleBindings(ns)
	if ns != v.c.namespace {
		return live
	}
	return roleBindings{live, v.c}
}

func (v rbacV1) ClusterRoles() rbacv1client.ClusterRoleInterface {
	return clusterRoles{v.RbacV1Interface.ClusterRoles(), v.c}
}

func (v rbacV1) ClusterRoleBindings() rbacv1client.ClusterRoleBindingInterface {
	return clusterRoleBindings{v.RbacV1Interface.ClusterRoleBindings(), v.c}
}

type roles struct {
	rbacv1client.RoleInterface
	c *Clientset
}

func (s roles) Get(ctx context.Context, name string, opts metav1.GetOptions) (*rbacv1.Role, error) {
	return cachedGet(ctx, name, opts, s.c.namespaced.Rbac().V1().Roles().Lister().Roles(s.c.namespace).Get, s.RoleInterface.Get)
}

type roleBindings struct {
	rbacv1client.RoleBindingInterface
	c *Clientset
}

func (s roleBindings) Get(ctx context.Context, name string, opts metav1.GetOptions) (*rbacv1.RoleBinding, error) {
	return cachedGet(ctx, name, opts, s.c.namespaced.Rbac().V1().RoleBindings().Lister().RoleBindings(s.c.namespace).Get, s.RoleBindingInterface.Get)
}

type clusterRoles struct {
	rbacv1client.ClusterRoleInterface
	c *Clientset
}

func (s clusterRoles) Get(ctx context.Context, name string, opts metav1.GetOptions) (*rbacv1.ClusterRole, error) {
	return cachedGet(ctx, name, opts, s.c.cluster.Rbac().V1().ClusterRoles().Lister().Get, s.ClusterRoleInterface.Get)
}

type clusterRoleBindings struct {
	rbacv1client.ClusterRoleBindingInterface
	c *Clientset
}

func (s clusterRoleBindings) Get(ctx context.Context, name string, opts metav1.GetOptions) (*rbacv1.ClusterRoleBinding, error) {
	return cachedGet(ctx, name, opts, s.c.cluster.Rbac().V1().ClusterRoleBindings().Lister().Get, s.ClusterRoleBindingInterface.Get)
}

type appsV1 struct {
	appsv1client.AppsV1Interface
	c *Clientset
}

func (v appsV1) Deployments(ns string) appsv1client.DeploymentInterface {
	live := v.AppsV1Interface.Deployments(ns)
	if ns != v.c.namespace {
		return live
	}
	return deployments{live, v.c}
}

func (v appsV1) DaemonSets(ns string) appsv1client.DaemonSetInterface {
	live := v.AppsV1Interface.DaemonSets(ns)
	if ns != v.c.namespace {
		return live
	}
	return daemonSets{live, v.c}
}

type deployments struct {
	appsv1client.DeploymentInterface
	c *Clientset
}

func (s deployments) Get(ctx context.Context, name string, opts metav1.GetOptions) (*appsv1.Deployment, error) {
	return cachedGet(ctx, name, opts, s.c.namespaced.Apps().V1().Deployments().Lister().Deployments(s.c.namespace).Get, s.DeploymentInterface.Get)
}

type daemonSets struct {
	appsv1client.DaemonSetInterface
	c *Clientset
}

func (s daemonSets) Get(ctx context.Context, name string, opts metav1.GetOptions) (*appsv1.DaemonSet, error) {
	return cachedGet(ctx, name, opts, s.c.namespaced.Apps().V1().DaemonSets().Lister().DaemonSets(s.c.namespace).Get, s.DaemonSetInterface.Get)
}

type policyV1 struct {
	policyv1client.PolicyV1Interface
	c *Clientset
}

func (v policyV1) PodDisruptionBudgets(ns string) policyv1client.PodDisruptionBudgetInterface {
	live := v.PolicyV1Interface.PodDisruptionBudgets(ns)
	if ns != v.c.namespace {
		return live
	}
	return pdbs{live, v.c}
}

type pdbs struct {
	policyv1client.PodDisruptionBudgetInterface
	c *Clientset
}

func (s pdbs) Get(ctx context.Context, name string, opts metav1.GetOptions) (*policyv1.PodDisruptionBudget, error) {
	return cachedGet(ctx, name, opts, s.c.namespaced.Policy().V1().PodDisruptionBudgets().Lister().PodDisruptionBudgets(s.c.namespace).Get, s.PodDisruptionBudgetInterface.Get)
}

type storageV1 struct {
	storagev1client.StorageV1Interface
	c *Clientset
}

func (v storageV1) CSIDrivers() storagev1client.CSIDriverInterface {
	return csiDrivers{v.StorageV1Interface.CSIDrivers(), v.c}
}

type csiDrivers struct {
	storagev1client.CSIDriverInterface
	c *Clientset
}

func (s csiDrivers) Get(ctx context.Context, name string, opts metav1.GetOptions) (*storagev1.CSIDriver, error) {
	return cachedGet(ctx, name, opts, s.c.cluster.Storage().V1().CSIDrivers().Lister().Get, s.CSIDriverInterface.Get)
}
