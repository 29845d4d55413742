package verified

import "testing"

func TestCredentials(t *testing.T) {
	var c Credentials
	notified := 0
	c.Subscribe(func() { notified++ })
	if c.Verified([]byte("a"), nil) {
		t.Fatal("verified before any login")
	}
	c.Record([]byte("a"), nil)
	c.Record([]byte("a"), nil)
	if !c.Verified([]byte("a"), nil) || c.Verified([]byte("b"), nil) || notified != 1 {
		t.Errorf("after a login with a: a=%v b=%v notified=%d", c.Verified([]byte("a"), nil), c.Verified([]byte("b"), nil), notified)
	}
	c.Record([]byte("b"), nil)
	if c.Verified([]byte("a"), nil) || !c.Verified([]byte("b"), nil) || notified != 2 {
		t.Errorf("after a login with b: a=%v b=%v notified=%d", c.Verified([]byte("a"), nil), c.Verified([]byte("b"), nil), notified)
	}
	if c.Verified([]byte("b"), []byte("another CA")) {
		t.Errorf("verified with a CA the login did not use")
	}
}
