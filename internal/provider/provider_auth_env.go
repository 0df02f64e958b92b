package provider

// The environment's part in the tls and sasl blocks: variable names, and taking each setting from
// its attribute or else its variable, remembering which for error messages.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Environment variables of the tls and sasl blocks. Where the most-used community Kafka provider
// has one, the name is the same.
const (
	EnvEnableTLS     = "KAFKA_ENABLE_TLS" // turns TLS on without a tls block
	EnvCACert        = "KAFKA_CA_CERT"
	EnvClientCert    = "KAFKA_CLIENT_CERT"
	EnvClientKey     = "KAFKA_CLIENT_KEY"
	EnvTLSServerName = "KAFKA_TLS_SERVER_NAME"
	EnvSkipVerify    = "KAFKA_SKIP_VERIFY"

	EnvSASLMechanism    = "KAFKA_SASL_MECHANISM" // turns SASL on without a sasl block
	EnvSASLUsername     = "KAFKA_SASL_USERNAME"
	EnvSASLPassword     = "KAFKA_SASL_PASSWORD"
	EnvSASLTokenURL     = "KAFKA_SASL_TOKEN_URL"
	EnvSASLClientID     = "KAFKA_SASL_CLIENT_ID"
	EnvSASLClientSecret = "KAFKA_SASL_CLIENT_SECRET"
	EnvSASLScopes       = "KAFKA_SASL_SCOPES"
	EnvSASLToken        = "KAFKA_SASL_TOKEN"
	EnvSASLAWSRoleARN   = "KAFKA_SASL_AWS_ROLE_ARN"
)

// value is one setting and where it came from, for error messages: "tls.ca_cert" or
// "environment variable KAFKA_CA_CERT".
type value struct {
	v      string
	source string
	attr   path.Path
}

func (v value) set() bool { return v.v != "" }

// fromEnv reports whether the value came from the environment, where no attribute validator saw
// it.
func (v value) fromEnv() bool { return strings.HasPrefix(v.source, "environment") }

// pick takes the attribute when set, else the environment variable.
func pick(attr types.String, p path.Path, env string) value {
	if !attr.IsNull() && !attr.IsUnknown() {
		return value{v: attr.ValueString(), source: attrName(p), attr: p}
	}
	if env != "" {
		if e := os.Getenv(env); e != "" {
			return value{v: e, source: "environment variable " + env, attr: p}
		}
	}
	return value{attr: p}
}

func attrName(p path.Path) string { return strings.ReplaceAll(p.String(), `"`, "") }

// envBool reads a true/false environment variable: false when unset, and an error on attr when
// it is neither.
func envBool(env string, attr path.Path, diags *diag.Diagnostics) (on, ok bool) {
	raw := os.Getenv(env)
	if raw == "" {
		return false, true
	}
	on, err := strconv.ParseBool(raw)
	if err != nil {
		diags.AddAttributeError(attr, "Invalid "+env, fmt.Sprintf("The environment variable %s is %q: want true or false.", env, raw))
		return false, false
	}
	return on, true
}

// pemFromEnv lets an environment variable hold a PEM file's path instead of its text. The error
// never quotes the variable's value (it may be a key).
func pemFromEnv(v value, diags *diag.Diagnostics) value {
	if !strings.HasPrefix(v.source, "environment variable ") || strings.Contains(v.v, "-----BEGIN") {
		return v
	}
	data, err := readPEMFile(strings.TrimSpace(v.v))
	if err != nil {
		diags.AddAttributeError(v.attr, "Invalid "+strings.TrimPrefix(v.source, "environment variable "),
			"The "+v.source+" holds neither PEM text (-----BEGIN ...) nor the path of a readable PEM file"+
				" (a regular file of at most 1 MiB).")
		return value{attr: v.attr}
	}
	v.v = string(data)
	v.source += " (a file)"
	return v
}

// maxPEMFile bounds a PEM file named in the environment: a system CA bundle takes a few hundred
// KiB.
const maxPEMFile = 1 << 20

// readPEMFile reads a regular file of at most maxPEMFile bytes: a path such as /dev/zero or a
// named pipe would otherwise be read for ever.
func readPEMFile(name string) ([]byte, error) {
	// Checked before opening: opening a named pipe waits for a writer.
	if st, err := os.Stat(name); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, maxPEMFile+1))
	if err == nil && len(data) > maxPEMFile {
		err = errors.New("larger than 1 MiB")
	}
	return data, err
}
