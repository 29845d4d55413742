package openstack

import (
	"net/url"
	"regexp"
)

// userinfo matches the user:password@ part of any URL in a text.
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)([^/?#@\s:]*):([^/?#@\s]*)@`)

// RedactText masks the password of every URL in s, as url.URL.Redacted does for one URL.
func RedactText(s string) string {
	return userinfo.ReplaceAllString(s, "${1}${2}:xxxxx@")
}

// redactURL is url.URL.Redacted for a string; text that does not parse is masked as a whole.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return RedactText(raw)
	}
	return u.Redacted()
}

// redactedError masks URL passwords in the message of the error it wraps, which errors.Is and
// errors.As still see.
type redactedError struct{ err error }

func (e redactedError) Error() string { return RedactText(e.err.Error()) }
func (e redactedError) Unwrap() error { return e.err }

// Redact returns err with every URL password in its message masked; nil stays nil.
func Redact(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(redactedError); ok {
		return err
	}
	return redactedError{err}
}
