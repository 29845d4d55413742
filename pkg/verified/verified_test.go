package verified

import "testing"

func TestCredentials(t *testing.T) {
	var c Credentials
	notified := 0
	c.Subscribe(func() { notified++ })
	if c.Verified([]byte("a")) {
		t.Fatal("verified before any login")
	}
	c.Record([]byte("a"))
	c.Record([]byte("a"))
	if !c.Verified([]byte("a")) || c.Verified([]byte("b")) || notified != 1 {
		t.Errorf("after a login with a: a=%v b=%v notified=%d", c.Verified([]byte("a")), c.Verified([]byte("b")), notified)
	}
	c.Record([]byte("b"))
	if c.Verified([]byte("a")) || !c.Verified([]byte("b")) || notified != 2 {
		t.Errorf("after a login with b: a=%v b=%v notified=%d", c.Verified([]byte("a")), c.Verified([]byte("b")), notified)
	}
}
