package cachedclient

import (
	"context"
	"testing"

	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

const ns = "operand"

// started returns a Clientset over a fake cluster holding objs, with its informers synced.
func started(t *testing.T, objs ...metav1.Object) (*Clientset, *fake.Clientset) {
	t.Helper()
	kube := fake.NewClientset()
	for _, o := range objs {
		switch obj := o.(type) {
		case *corev1.ServiceAccount:
			_, _ = kube.CoreV1().ServiceAccounts(obj.Namespace).Create(context.Background(), obj, metav1.CreateOptions{})
		case *rbacv1.ClusterRole:
			_, _ = kube.RbacV1().ClusterRoles().Create(context.Background(), obj, metav1.CreateOptions{})
		}
	}
	inf := v1helpers.NewKubeInformersForNamespaces(kube, "", ns, "other")
	c := New(kube, inf, ns)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	inf.Start(stop)
	for _, f := range []func() bool{
		c.namespaced.Core().V1().ServiceAccounts().Informer().HasSynced,
		c.cluster.Rbac().V1().ClusterRoles().Informer().HasSynced,
	} {
		if !cache.WaitForCacheSync(stop, f) {
			t.Fatal("informers did not sync")
		}
	}
	kube.ClearActions()
	return c, kube
}

func gets(kube *fake.Clientset) int {
	n := 0
	for _, a := range kube.Actions() {
		if a.GetVerb() == "get" {
			n++
		}
	}
	return n
}

func TestGetsFromTheCache(t *testing.T) {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "driver", Namespace: ns}}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "driver-role"}}
	c, kube := started(t, sa, role)
	ctx := context.Background()

	cases := []struct {
		name      string
		get       func() (metav1.Object, error)
		wantLive  int
		wantFound bool
	}{
		{"a cached ServiceAccount", func() (metav1.Object, error) {
			return c.CoreV1().ServiceAccounts(ns).Get(ctx, "driver", metav1.GetOptions{})
		}, 0, true},
		{"a cached ClusterRole", func() (metav1.Object, error) {
			return c.RbacV1().ClusterRoles().Get(ctx, "driver-role", metav1.GetOptions{})
		}, 0, true},
		{"an object the cache does not have goes to the cluster", func() (metav1.Object, error) {
			return c.CoreV1().ServiceAccounts(ns).Get(ctx, "absent", metav1.GetOptions{})
		}, 1, false},
		{"a specific resourceVersion goes to the cluster", func() (metav1.Object, error) {
			return c.CoreV1().ServiceAccounts(ns).Get(ctx, "driver", metav1.GetOptions{ResourceVersion: "0"})
		}, 1, true},
		{"another namespace goes to the cluster", func() (metav1.Object, error) {
			return c.CoreV1().ServiceAccounts("other").Get(ctx, "driver", metav1.GetOptions{})
		}, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kube.ClearActions()
			obj, err := tc.get()
			if found := err == nil; found != tc.wantFound {
				t.Fatalf("found %v (err %v), want %v", found, err, tc.wantFound)
			}
			if got := gets(kube); got != tc.wantLive {
				t.Errorf("%d GETs reached the cluster, want %d", got, tc.wantLive)
			}
			if tc.wantFound && obj.GetName() == "" {
				t.Errorf("empty object")
			}
		})
	}
}

func TestCachedObjectsAreCopies(t *testing.T) {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "driver", Namespace: ns}}
	c, _ := started(t, sa)
	got, err := c.CoreV1().ServiceAccounts(ns).Get(context.Background(), "driver", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Labels = map[string]string{"mutated": "true"}
	again, _ := c.CoreV1().ServiceAccounts(ns).Get(context.Background(), "driver", metav1.GetOptions{})
	if again.Labels["mutated"] != "" {
		t.Error("a caller's change reached the cache")
	}
}
