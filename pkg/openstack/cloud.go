// Package openstack talks to Keystone and Manila for the operator: it parses clouds.yaml, authenticates
// once with gophercloud, finds the sharev2 endpoint and lists share types.
package openstack

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"

	"github.com/gophercloud/utils/v2/openstack/clientconfig"
	"gopkg.in/yaml.v3"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/yamlsize"
)

// FieldError says which field of clouds.yaml is wrong. It never carries the field's value.
type FieldError struct {
	Field  string
	Reason string
	// cause lets errors.Is tell a kind of problem apart (e.g. ErrCredentialsRefused) without
	// parsing Reason.
	cause error
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("clouds.yaml field %s: %s", e.Field, e.Reason)
}

func (e *FieldError) Unwrap() error { return e.cause }

// ErrCredentialsRefused is what a FieldError wraps when Keystone answered 401: the file is well
// formed, but the cloud says no, which check-cloud reports apart from a malformed file.
var ErrCredentialsRefused = errors.New("Keystone refused the credentials")

var yamlLine = regexp.MustCompile(`line \d+`)

// ParseCloud returns the cloud entry called name from clouds.yaml content, checked for what
// authentication needs. Errors name the field at fault and never quote the content.
func ParseCloud(cloudsYAML []byte, name string) (*clientconfig.Cloud, error) {
	var doc struct {
		Clouds map[string]clientconfig.Cloud `yaml:"clouds"`
	}
	if err := yamlsize.Check(cloudsYAML, yamlsize.MaxExpanded); err != nil {
		return nil, &FieldError{Field: "clouds", Reason: err.Error()}
	}
	if err := yaml.Unmarshal(cloudsYAML, &doc); err != nil {
		// yaml errors can quote the offending scalar, which may be a password: keep only the line.
		where := yamlLine.FindString(err.Error())
		if where == "" {
			where = "unknown line"
		}
		return nil, &FieldError{Field: "clouds", Reason: "not valid YAML (" + where + ")"}
	}
	if doc.Clouds == nil {
		return nil, &FieldError{Field: "clouds", Reason: "missing"}
	}
	cloud, ok := doc.Clouds[name]
	if !ok {
		return nil, &FieldError{Field: "clouds." + name, Reason: "missing"}
	}
	if err := validateAuth(name, cloud.AuthInfo); err != nil {
		return nil, err
	}
	return &cloud, nil
}

func validateAuth(name string, auth *clientconfig.AuthInfo) error {
	prefix := "clouds." + name + ".auth"
	if auth == nil {
		return &FieldError{Field: prefix, Reason: "missing"}
	}
	if auth.AuthURL == "" {
		return &FieldError{Field: prefix + ".auth_url", Reason: "missing"}
	}
	if u, err := url.Parse(auth.AuthURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &FieldError{Field: prefix + ".auth_url", Reason: "not an http:// or https:// URL"}
	}
	if auth.UserID != "" && (auth.UserDomainName != "" || auth.UserDomainID != "") {
		return &FieldError{Field: prefix + ".user_domain_name", Reason: "must not be set with user_id: Keystone refuses a user domain with a user ID (drop it, or use username)"}
	}
	switch {
	case auth.ApplicationCredentialSecret != "":
		if auth.ApplicationCredentialID == "" && auth.ApplicationCredentialName == "" {
			return &FieldError{Field: prefix + ".application_credential_id", Reason: "missing (or application_credential_name)"}
		}
	case auth.Password != "":
		if auth.UserID == "" && auth.Username == "" {
			return &FieldError{Field: prefix + ".username", Reason: "missing (or user_id)"}
		}
	case auth.Token != "":
		return &FieldError{Field: prefix + ".token", Reason: "a token cannot be handed to the driver and expires: use a password or an application credential"}
	default:
		return &FieldError{Field: prefix + ".password", Reason: "no usable credential: set password or application_credential_secret"}
	}
	return nil
}

// IsFieldError reports whether err is a problem with the content of clouds.yaml.
func IsFieldError(err error) bool {
	var fe *FieldError
	return errors.As(err, &fe)
}

// InsecureTLSRisk says why verify: false is dangerous and what to do instead.
const InsecureTLSRisk = "the operator and the driver accept any certificate for Keystone and Manila, so whoever can intercept the traffic gets the credentials; pass the CA instead (cacert, or the cloud-provider-config CA bundle)"

// InsecureTLS reports whether the cloud turns certificate verification off (verify: false).
func InsecureTLS(cloud *clientconfig.Cloud) bool {
	return cloud != nil && cloud.Verify != nil && !*cloud.Verify
}
