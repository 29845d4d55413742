package secretsync

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate/statetest"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/verified"
)

const clouds = `clouds:
  openstack:
    auth:
      auth_url: http://keystone.example:5000/v3
      username: u
      password: p
      project_name: p
      user_domain_name: Default
`

// Without the operand namespace, or while not Managed, one sync sends no request at all: no failing
// creates into a missing namespace (on every OpenStack cluster without Manila), no write when Unmanaged.
// Only credentials the operator has just logged in with reach the driver secret.
func TestSyncSendsNothing(t *testing.T) {
	source := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: names.CloudCredentialsSecret, Namespace: names.OperatorNamespace},
		Data: map[string][]byte{names.CloudsYAMLKey: []byte(clouds)}}
	operandNS := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names.OperandNamespace}}
	for _, tc := range []struct {
		name      string
		state     operatorv1.ManagementState
		namespace bool
		login     string // the clouds.yaml of the last successful login
		platform  configv1.PlatformType
		wantWrite bool
		// unmanagedMidSync: Managed when the sync starts, Unmanaged when it is about to write (only
		// its reads are sent)
		unmanagedMidSync bool
	}{
		{name: "Managed, verified, but not on OpenStack", state: operatorv1.Managed, namespace: true, login: clouds, platform: configv1.AWSPlatformType},
		{name: "Managed, no operand namespace", state: operatorv1.Managed, login: clouds},
		{name: "Unmanaged", state: operatorv1.Unmanaged, namespace: true, login: clouds},
		{name: "Removed", state: operatorv1.Removed, namespace: true, login: clouds},
		{name: "credentials not logged in with yet", state: operatorv1.Managed, namespace: true},
		{name: "credentials other than the last login", state: operatorv1.Managed, namespace: true, login: clouds + "\n# older\n"},
		{name: "Managed, namespace, verified: the driver secret is written", state: operatorv1.Managed, namespace: true, login: clouds, wantWrite: true},
		{name: "set Unmanaged while the sync ran", state: operatorv1.Managed, namespace: true, login: clouds, unmanagedMidSync: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := []runtime.Object{source}
			if tc.namespace {
				objs = append(objs, operandNS)
			}
			client := fake.NewClientset(objs...)
			inf := informers.NewSharedInformerFactory(client, 0)
			verifiedCreds := &verified.Credentials{}
			if tc.login != "" {
				verifiedCreds.Record([]byte(tc.login), nil)
			}
			var operatorClient v1helpers.OperatorClientWithFinalizers = v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: tc.state}, &operatorv1.OperatorStatus{}, nil)
			if tc.unmanagedMidSync {
				// Managed at the sync's check, Unmanaged from then on.
				operatorClient = statetest.ManagedFor(v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Unmanaged}, &operatorv1.OperatorStatus{}, nil), 1)
			}
			d := Deps{
				Verified:          verifiedCreds,
				OperatorClient:    condition.Declared(operatorClient, conditiontypes.New(ConditionTypes())),
				OperatorSecrets:   inf.Core().V1().Secrets(),
				CloudConfig:       inf.Core().V1().ConfigMaps(),
				OperandSecrets:    inf.Core().V1().Secrets(),
				OperandConfigMaps: inf.Core().V1().ConfigMaps(),
				Namespaces:        inf.Core().V1().Namespaces(),
				Infrastructures:   newInfraInformer(tc.platform),
				Client:            client.CoreV1(),
				Recorder:          events.NewInMemoryRecorder("test", clock.RealClock{}),
				Clock:             clock.RealClock{},
			}
			c, _ := newController(d) // also registers the informers
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			inf.Start(ctx.Done())
			inf.WaitForCacheSync(ctx.Done())
			client.ClearActions()
			if err := c.sync(ctx, factory.NewSyncContext("test", d.Recorder)); err != nil {
				t.Fatal(err)
			}
			var writes []string
			for _, a := range client.Actions() {
				if a.GetVerb() != "list" && a.GetVerb() != "watch" && !(tc.unmanagedMidSync && a.GetVerb() == "get") {
					writes = append(writes, a.GetVerb()+" "+a.GetResource().Resource)
				}
			}
			if tc.wantWrite != (len(writes) > 0) {
				t.Errorf("requests %v, want a write: %v", writes, tc.wantWrite)
			}
		})
	}
}

// The driver Secret is applied in place: the predecessor's (or a stale) Secret keeps its UID, its
// type stays Opaque, the admin's labels stay, the data is replaced, and no event carries a value.
func TestSyncUpdatesDriverSecretWithoutValuesInEvents(t *testing.T) {
	const password = "pa55-w0rd-in-no-event"
	withPassword := strings.Replace(clouds, "password: p", "password: "+password, 1)
	source := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: names.CloudCredentialsSecret, Namespace: names.OperatorNamespace},
		Data: map[string][]byte{names.CloudsYAMLKey: []byte(withPassword)}}
	stale := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: names.DriverSecret, Namespace: names.OperandNamespace, UID: "uid-predecessor",
		Labels: map[string]string{"admin": "kept"}}, Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{"os-password": []byte("old-password"), "os-domainName": []byte("Default")}}
	client := fake.NewClientset(source, stale, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names.OperandNamespace}})
	inf := informers.NewSharedInformerFactory(client, 0)
	verifiedCreds := &verified.Credentials{}
	verifiedCreds.Record([]byte(withPassword), nil)
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	d := Deps{
		Verified:          verifiedCreds,
		OperatorClient:    condition.Declared(v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil), conditiontypes.New(ConditionTypes())),
		OperatorSecrets:   inf.Core().V1().Secrets(),
		CloudConfig:       inf.Core().V1().ConfigMaps(),
		OperandSecrets:    inf.Core().V1().Secrets(),
		OperandConfigMaps: inf.Core().V1().ConfigMaps(),
		Namespaces:        inf.Core().V1().Namespaces(),
		Infrastructures:   newInfraInformer(""),
		Client:            client.CoreV1(),
		Recorder:          recorder,
		Clock:             clock.RealClock{},
	}
	c, _ := newController(d)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inf.Start(ctx.Done())
	inf.WaitForCacheSync(ctx.Done())
	for range 2 { // the second sync finds nothing to change
		if err := c.sync(ctx, factory.NewSyncContext("test", recorder)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := client.CoreV1().Secrets(names.OperandNamespace).Get(ctx, names.DriverSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.UID != stale.UID || got.Type != corev1.SecretTypeOpaque || got.Labels["admin"] != "kept" {
		t.Errorf("driver Secret UID %s, type %s, labels %v: want it updated in place, Opaque, with the admin's label", got.UID, got.Type, got.Labels)
	}
	if string(got.Data["os-password"]) != password || got.Data["os-domainName"] != nil {
		t.Errorf("driver Secret data keys %v: want the keys of the current clouds.yaml only", slices.Sorted(maps.Keys(got.Data)))
	}
	updates := 0
	for _, e := range recorder.Events() {
		if e.Reason == "SecretUpdated" {
			updates++
		}
		for _, secret := range []string{password, "old-password"} {
			if strings.Contains(e.Message, secret) {
				t.Errorf("event %s carries a password: %q", e.Reason, e.Message)
			}
		}
	}
	if updates != 1 {
		t.Errorf("%d SecretUpdated events, want 1 (only differences are written)", updates)
	}
	_, status, _, err := d.OperatorClient.GetOperatorState()
	if err != nil {
		t.Fatal(err)
	}
	if cond := v1helpers.FindOperatorCondition(status.Conditions, ConditionDegraded); cond == nil ||
		cond.Status != operatorv1.ConditionFalse || cond.Reason != ReasonAsExpected {
		t.Errorf("%s %+v, want False/%s (applied)", ConditionDegraded, cond, ReasonAsExpected)
	}
}
