package provider

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
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

type tlsModel struct {
	CACert             types.String `tfsdk:"ca_cert"`
	ClientCert         types.String `tfsdk:"client_cert"`
	ClientKey          types.String `tfsdk:"client_key"`
	ServerName         types.String `tfsdk:"server_name"`
	InsecureSkipVerify types.Bool   `tfsdk:"insecure_skip_verify"`
}

type saslModel struct {
	Mechanism    types.String `tfsdk:"mechanism"`
	Username     types.String `tfsdk:"username"`
	Password     types.String `tfsdk:"password"`
	TokenURL     types.String `tfsdk:"token_url"`
	ClientID     types.String `tfsdk:"client_id"`
	ClientSecret types.String `tfsdk:"client_secret"`
	Scopes       types.List   `tfsdk:"scopes"`
	Token        types.String `tfsdk:"token"`
	Region       types.String `tfsdk:"region"`
	RoleARN      types.String `tfsdk:"role_arn"`
	Profile      types.String `tfsdk:"profile"`
}

func envNote(name string) string { return " Environment variable: `" + name + "`." }

// authBlocks are the provider's tls and sasl blocks.
func authBlocks() map[string]schema.Block {
	return map[string]schema.Block{
		"tls": schema.SingleNestedBlock{
			MarkdownDescription: "TLS for every connection: the block's presence turns TLS on (an empty `tls {}` " +
				"means TLS with the system's trusted roots), as does `" + EnvEnableTLS + "=true` without a block. " +
				"Use it for listeners whose `listener.security.protocol.map` says `SSL` or `SASL_SSL`; without it the " +
				"provider speaks plaintext. TLS 1.2 or later. Certificate and key values are PEM text, typically " +
				"`file(\"ca.pem\")`; the environment variables also accept the path of a PEM file.",
			Attributes: map[string]schema.Attribute{
				"ca_cert": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "PEM of the certificate authorities that sign the brokers' certificates " +
						"(one or more `-----BEGIN CERTIFICATE-----` blocks). Unset: the system's trusted roots, as " +
						"for Confluent Cloud, MSK or Redpanda Cloud." + envNote(EnvCACert),
					Validators: []validator.String{pemValidator{kind: pemCertificate}},
				},
				"client_cert": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "PEM client certificate for mutual TLS (listeners with " +
						"`ssl.client.auth=required`), optionally followed by its intermediate CAs. Needs `client_key`." +
						envNote(EnvClientCert),
					Validators: []validator.String{pemValidator{kind: pemCertificate}},
				},
				"client_key": schema.StringAttribute{
					Optional:  true,
					Sensitive: true,
					MarkdownDescription: "PEM private key of `client_cert` (PKCS#8, PKCS#1 RSA or SEC 1 EC; not " +
						"encrypted). Sensitive: never logged or shown." + envNote(EnvClientKey),
					Validators: []validator.String{pemValidator{kind: pemKey}},
				},
				"server_name": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "Name to verify the brokers' certificates against, and to send as SNI. " +
						"Unset: the host of each broker address (bootstrap servers, then the addresses the brokers " +
						"advertise). Set it when you connect through an address the certificate does not name." +
						envNote(EnvTLSServerName),
					Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
				},
				"insecure_skip_verify": schema.BoolAttribute{
					Optional: true,
					MarkdownDescription: "Accept any broker certificate without verification. For tests only: " +
						"it lets anyone between you and the cluster read your credentials. Default `false`." +
						envNote(EnvSkipVerify),
				},
			},
		},
		"sasl": schema.SingleNestedBlock{
			MarkdownDescription: "SASL authentication on every connection: the block's presence turns SASL on, as " +
				"does `" + EnvSASLMechanism + "` without a block. Use it for `SASL_PLAINTEXT` and `SASL_SSL` " +
				"listeners (the latter with a `tls` block too). Which attributes apply depends on `mechanism`: " +
				"`username` and `password` for `plain` and `scram-*`; `token_url`, `client_id`, `client_secret` and " +
				"`scopes`, or `token`, for `oauthbearer`; `region`, `role_arn` and `profile` for `aws-msk-iam`. " +
				"Setting one that does not apply is an error.",
			Attributes: map[string]schema.Attribute{
				"mechanism": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "`plain`, `scram-sha-256`, `scram-sha-512`, `oauthbearer` or `aws-msk-iam` " +
						"(any case; the community provider's `scram-sha256`, `scram-sha512` and `aws-iam` are " +
						"accepted too). Required, here or in the environment." + envNote(EnvSASLMechanism),
					Validators: []validator.String{stringvalidator.OneOfCaseInsensitive(kafkaclient.MechanismSpellings()...)},
				},
				"username": schema.StringAttribute{
					Optional:            true,
					MarkdownDescription: "User name for `plain` and `scram-*` (on Confluent Cloud: the API key)." + envNote(EnvSASLUsername),
				},
				"password": schema.StringAttribute{
					Optional:  true,
					Sensitive: true,
					MarkdownDescription: "Password for `plain` and `scram-*` (on Confluent Cloud: the API secret). " +
						"Sensitive: never logged or shown." + envNote(EnvSASLPassword),
				},
				"token_url": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "`oauthbearer`: the OAuth 2.0 token endpoint (`https://...`) to get tokens " +
						"from with the client credentials grant. Tokens are kept until 30 s (or a quarter of their " +
						"lifetime) before they expire." + envNote(EnvSASLTokenURL),
					Validators: []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^https?://\S+$`),
						"must be an http:// or https:// URL")},
				},
				"client_id": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "`oauthbearer`: the OAuth client ID (not Kafka's `client.id`, which is the " +
						"provider's `client_id`)." + envNote(EnvSASLClientID),
				},
				"client_secret": schema.StringAttribute{
					Optional:            true,
					Sensitive:           true,
					MarkdownDescription: "`oauthbearer`: the OAuth client secret. Sensitive: never logged or shown." + envNote(EnvSASLClientSecret),
				},
				"scopes": schema.ListAttribute{
					ElementType: types.StringType,
					Optional:    true,
					MarkdownDescription: "`oauthbearer`: scopes to request with the client credentials grant, if " +
						"your identity provider needs any. Environment variable: `" + EnvSASLScopes + "` (comma-separated).",
					Validators: []validator.List{listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
				},
				"token": schema.StringAttribute{
					Optional:  true,
					Sensitive: true,
					MarkdownDescription: "`oauthbearer`: a static bearer token (a JWT), instead of `token_url`, " +
						"`client_id` and `client_secret`. It is sent as is and not refreshed. Sensitive." + envNote(EnvSASLToken),
				},
				"region": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "`aws-msk-iam`: the cluster's AWS region, e.g. `eu-west-1`. Unset: the AWS " +
						"SDK's default (`AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's region).",
					Validators: []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-\d+$`),
						"must be an AWS region such as eu-west-1")},
				},
				"role_arn": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "`aws-msk-iam`: an IAM role to assume (STS AssumeRole) with the default " +
						"chain's credentials, e.g. `arn:aws:iam::123456789012:role/kafka-reader`." + envNote(EnvSASLAWSRoleARN),
					Validators: []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^arn:aws[a-z-]*:iam::\d{12}:role/\S+$`),
						"must be an IAM role ARN such as arn:aws:iam::123456789012:role/kafka-reader")},
				},
				"profile": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "`aws-msk-iam`: the shared-config profile to take credentials and region " +
						"from. Unset: `AWS_PROFILE`, else the default chain (environment, web identity, SSO, " +
						"container and instance roles).",
					Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
				},
			},
		},
	}
}

// security is the TLS and SASL configuration resolved from the blocks and the environment.
type security struct {
	tls       *tls.Config
	sasl      *kafkaclient.SASL
	logFields map[string]any // what is safe to log: sources and names, never secrets
}

// value is one setting and where it came from, for error messages: "tls.ca_cert" or
// "environment variable KAFKA_CA_CERT".
type value struct {
	v      string
	source string
	attr   path.Path
}

func (v value) set() bool { return v.v != "" }

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

// resolveSecurity builds the TLS configuration and SASL mechanism from the blocks, with the
// environment filling in what they leave unset. With build false (validation) it only checks, and
// skips whatever is unknown.
func resolveSecurity(ctx context.Context, cfg providerModel, build bool, diags *diag.Diagnostics) *security {
	sec := &security{logFields: map[string]any{"tls": false, "sasl": "none"}}
	resolveTLS(cfg, build, sec, diags)
	resolveSASL(ctx, cfg, build, sec, diags)
	return sec
}

func resolveTLS(cfg providerModel, build bool, sec *security, diags *diag.Diagnostics) {
	m := cfg.TLS
	enabled := m != nil
	if !enabled {
		if raw := os.Getenv(EnvEnableTLS); raw != "" {
			on, err := strconv.ParseBool(raw)
			if err != nil {
				diags.AddAttributeError(path.Root("tls"), "Invalid "+EnvEnableTLS,
					fmt.Sprintf("The environment variable %s is %q: want true or false.", EnvEnableTLS, raw))
				return
			}
			enabled = on
		}
		m = &tlsModel{CACert: types.StringNull(), ClientCert: types.StringNull(), ClientKey: types.StringNull(),
			ServerName: types.StringNull(), InsecureSkipVerify: types.BoolNull()}
	}
	if !enabled {
		for _, env := range []string{EnvCACert, EnvClientCert, EnvClientKey, EnvTLSServerName, EnvSkipVerify} {
			if os.Getenv(env) != "" {
				diags.AddAttributeWarning(path.Root("tls"), "TLS settings in the environment, but TLS is off",
					"The environment variable "+env+" is set, but there is no tls block and "+EnvEnableTLS+
						" is not true, so the provider speaks plaintext and ignores it. Add tls {} to the provider "+
						"block, or set "+EnvEnableTLS+"=true.")
				break
			}
		}
		return
	}
	base := path.Root("tls")
	ca := pemFromEnv(pick(m.CACert, base.AtName("ca_cert"), EnvCACert), diags)
	cert := pemFromEnv(pick(m.ClientCert, base.AtName("client_cert"), EnvClientCert), diags)
	key := pemFromEnv(pick(m.ClientKey, base.AtName("client_key"), EnvClientKey), diags)
	serverName := pick(m.ServerName, base.AtName("server_name"), EnvTLSServerName)
	skip := false
	switch {
	case !m.InsecureSkipVerify.IsNull() && !m.InsecureSkipVerify.IsUnknown():
		skip = m.InsecureSkipVerify.ValueBool()
	case os.Getenv(EnvSkipVerify) != "":
		v, err := strconv.ParseBool(os.Getenv(EnvSkipVerify))
		if err != nil {
			diags.AddAttributeError(base.AtName("insecure_skip_verify"), "Invalid "+EnvSkipVerify,
				fmt.Sprintf("The environment variable %s is %q: want true or false.", EnvSkipVerify, os.Getenv(EnvSkipVerify)))
		}
		skip = v
	}
	unknown := m.CACert.IsUnknown() || m.ClientCert.IsUnknown() || m.ClientKey.IsUnknown()
	if !cert.set() && key.set() && !m.ClientCert.IsUnknown() {
		diags.AddAttributeError(key.attr, "Client key without certificate",
			"The "+key.source+" is set, but no client certificate (tls.client_cert or "+EnvClientCert+
				"): mutual TLS needs both.")
	}
	if cert.set() && !key.set() && !m.ClientKey.IsUnknown() {
		diags.AddAttributeError(cert.attr, "Client certificate without key",
			"The "+cert.source+" is set, but no client key (tls.client_key or "+EnvClientKey+"): mutual TLS needs both.")
	}
	if diags.HasError() || unknown {
		return
	}
	// Environment values were not seen by the attribute validators: check them here, on the attribute.
	for _, v := range []value{ca, cert} {
		if v.set() && strings.HasPrefix(v.source, "environment") {
			if _, err := kafkaclient.ParseCACert(v.source, v.v); err != nil {
				diags.AddAttributeError(v.attr, "Invalid PEM", err.Error()+".")
			}
		}
	}
	if key.set() && strings.HasPrefix(key.source, "environment") {
		if err := kafkaclient.ParseClientKey(key.source, key.v); err != nil {
			diags.AddAttributeError(key.attr, "Invalid PEM", err.Error()+".")
		}
	}
	if diags.HasError() {
		return
	}
	if cert.set() && key.set() {
		if _, err := kafkaclient.ParseClientKeyPair(cert.source, cert.v, key.source, key.v); err != nil {
			diags.AddAttributeError(key.attr, "Client certificate and key do not match", err.Error()+".")
			return
		}
	}
	c, err := kafkaclient.NewTLSConfig(kafkaclient.TLSConfig{
		CACert: ca.v, ClientCert: cert.v, ClientKey: key.v, ServerName: serverName.v, InsecureSkipVerify: skip,
	})
	if err != nil {
		diags.AddAttributeError(base, "Invalid TLS configuration", err.Error()+".")
		return
	}
	caSource := ca.source
	if !ca.set() {
		caSource = "system roots"
	}
	sec.logFields["tls"] = true
	sec.logFields["tls_ca"] = caSource
	sec.logFields["tls_client_cert"] = cert.set()
	sec.logFields["tls_server_name"] = serverName.v
	sec.logFields["tls_insecure_skip_verify"] = skip
	if build {
		sec.tls = c
	}
}

func resolveSASL(ctx context.Context, cfg providerModel, build bool, sec *security, diags *diag.Diagnostics) {
	m := cfg.SASL
	if m == nil {
		if os.Getenv(EnvSASLMechanism) == "" {
			return
		}
		null := types.StringNull()
		m = &saslModel{Mechanism: null, Username: null, Password: null, TokenURL: null, ClientID: null,
			ClientSecret: null, Scopes: types.ListNull(types.StringType), Token: null, Region: null, RoleARN: null, Profile: null}
	}
	base := path.Root("sasl")
	for _, s := range []types.String{m.Mechanism, m.Username, m.Password, m.TokenURL, m.ClientID, m.ClientSecret,
		m.Token, m.Region, m.RoleARN, m.Profile} {
		if s.IsUnknown() {
			return // known at apply
		}
	}
	if !listKnown(m.Scopes) {
		return
	}
	mech := pick(m.Mechanism, base.AtName("mechanism"), EnvSASLMechanism)
	if !mech.set() {
		diags.AddAttributeError(mech.attr, "Missing SASL mechanism",
			"The sasl block needs a mechanism: plain, scram-sha-256, scram-sha-512, oauthbearer or aws-msk-iam "+
				"(here, or in the environment variable "+EnvSASLMechanism+").")
		return
	}
	name, ok := kafkaclient.NormalizeMechanism(mech.v)
	if !ok {
		diags.AddAttributeError(mech.attr, "Invalid SASL mechanism", fmt.Sprintf("The %s is %q: want one of %s.",
			mech.source, mech.v, strings.Join(kafkaclient.MechanismSpellings(), ", ")))
		return
	}
	fields := map[string]value{
		"username":      pick(m.Username, base.AtName("username"), EnvSASLUsername),
		"password":      pick(m.Password, base.AtName("password"), EnvSASLPassword),
		"token_url":     pick(m.TokenURL, base.AtName("token_url"), EnvSASLTokenURL),
		"client_id":     pick(m.ClientID, base.AtName("client_id"), EnvSASLClientID),
		"client_secret": pick(m.ClientSecret, base.AtName("client_secret"), EnvSASLClientSecret),
		"token":         pick(m.Token, base.AtName("token"), EnvSASLToken),
		"region":        pick(m.Region, base.AtName("region"), ""),
		"role_arn":      pick(m.RoleARN, base.AtName("role_arn"), EnvSASLAWSRoleARN),
		"profile":       pick(m.Profile, base.AtName("profile"), ""),
	}
	// The environment only fills in what applies to the mechanism: a KAFKA_SASL_PASSWORD left in
	// the shell must not turn an aws-msk-iam configuration into an error.
	applies := map[string][]string{
		kafkaclient.MechanismPlain:       {"username", "password"},
		kafkaclient.MechanismScramSHA256: {"username", "password"},
		kafkaclient.MechanismScramSHA512: {"username", "password"},
		kafkaclient.MechanismOAuthBearer: {"token_url", "client_id", "client_secret", "token"},
		kafkaclient.MechanismAWSMSKIAM:   {"region", "role_arn", "profile"},
	}[name]
	for f, v := range fields {
		if strings.HasPrefix(v.source, "environment") && !slices.Contains(applies, f) {
			fields[f] = value{attr: v.attr}
		}
	}
	if v := fields["token"]; v.set() && strings.HasPrefix(v.source, "environment") &&
		(fields["token_url"].set() || fields["client_id"].set() || fields["client_secret"].set()) {
		fields["token"] = value{attr: v.attr} // the block's client credentials win over a token in the environment
	}
	var scopes []string
	if !m.Scopes.IsNull() {
		diags.Append(m.Scopes.ElementsAs(ctx, &scopes, false)...)
	} else if env := os.Getenv(EnvSASLScopes); env != "" && name == kafkaclient.MechanismOAuthBearer {
		for _, s := range strings.Split(env, ",") {
			if s = strings.TrimSpace(s); s != "" {
				scopes = append(scopes, s)
			}
		}
	}
	sc := kafkaclient.SASLConfig{
		Mechanism: name, Username: fields["username"].v, Password: fields["password"].v,
		TokenURL: fields["token_url"].v, ClientID: fields["client_id"].v, ClientSecret: fields["client_secret"].v,
		Scopes: scopes, Token: fields["token"].v,
		Region: fields["region"].v, RoleARN: fields["role_arn"].v, Profile: fields["profile"].v,
	}
	if err := kafkaclient.CheckSASL(sc); err != nil {
		var ce *kafkaclient.SASLConfigError
		attr := base
		detail := err.Error()
		if errors.As(err, &ce) {
			attr = base.AtName(ce.Field)
			detail = attrName(attr) + " " + ce.Reason
			if ce.Field == "scopes" {
				attr = base.AtName("scopes")
			}
		}
		diags.AddAttributeError(attr, "Invalid SASL configuration", detail+". "+saslEnvHint(name))
		return
	}
	sec.logFields["sasl"] = name
	switch name {
	case kafkaclient.MechanismPlain, kafkaclient.MechanismScramSHA256, kafkaclient.MechanismScramSHA512:
		sec.logFields["sasl_username"] = sc.Username
	case kafkaclient.MechanismOAuthBearer:
		sec.logFields["sasl_oauth_client_id"] = sc.ClientID
		sec.logFields["sasl_oauth_token_url"] = sc.TokenURL
		sec.logFields["sasl_oauth_static_token"] = sc.Token != ""
	case kafkaclient.MechanismAWSMSKIAM:
		sec.logFields["sasl_aws_region"] = sc.Region
		sec.logFields["sasl_aws_role_arn"] = sc.RoleARN
		sec.logFields["sasl_aws_profile"] = sc.Profile
	}
	if !build {
		return
	}
	mech2, err := kafkaclient.NewSASL(ctx, sc)
	if err != nil {
		var ce *kafkaclient.SASLConfigError
		attr := base
		if errors.As(err, &ce) {
			attr = base.AtName(ce.Field)
		}
		diags.AddAttributeError(attr, "Invalid SASL configuration", err.Error()+".")
		return
	}
	sec.sasl = mech2
}

func saslEnvHint(mechanism string) string {
	switch mechanism {
	case kafkaclient.MechanismOAuthBearer:
		return "Each attribute may come from the environment instead: " + EnvSASLTokenURL + ", " + EnvSASLClientID +
			", " + EnvSASLClientSecret + ", " + EnvSASLScopes + ", " + EnvSASLToken + "."
	case kafkaclient.MechanismAWSMSKIAM:
		return "Credentials come from the AWS SDK's default chain (AWS_PROFILE, AWS_ACCESS_KEY_ID, web identity, " +
			"instance roles); region from AWS_REGION when unset."
	}
	return "Each attribute may come from the environment instead: " + EnvSASLUsername + ", " + EnvSASLPassword + "."
}

// listKnown reports whether a list and each of its elements are known.
func listKnown(l types.List) bool {
	if l.IsUnknown() {
		return false
	}
	for _, e := range l.Elements() {
		if e.IsUnknown() {
			return false
		}
	}
	return true
}

// authKnown reports whether every attribute of the tls and sasl blocks is known.
func authKnown(cfg providerModel) bool {
	if t := cfg.TLS; t != nil && (t.CACert.IsUnknown() || t.ClientCert.IsUnknown() || t.ClientKey.IsUnknown() ||
		t.ServerName.IsUnknown() || t.InsecureSkipVerify.IsUnknown()) {
		return false
	}
	if s := cfg.SASL; s != nil {
		for _, v := range []types.String{s.Mechanism, s.Username, s.Password, s.TokenURL, s.ClientID, s.ClientSecret,
			s.Token, s.Region, s.RoleARN, s.Profile} {
			if v.IsUnknown() {
				return false
			}
		}
		if !listKnown(s.Scopes) {
			return false
		}
	}
	return true
}

var _ provider.ProviderWithValidateConfig = &KafkaProvider{}

// ValidateConfig checks the tls and sasl blocks, with the environment, while planning: the
// attributes a mechanism needs, certificate and key together and matching, environment values
// that do not parse. Each error is on the attribute.
func (p *KafkaProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resolveSecurity(ctx, cfg, false, &resp.Diagnostics)
}

type pemKind int

const (
	pemCertificate pemKind = iota
	pemKey
)

// pemValidator checks PEM text while planning. Its errors never quote the value.
type pemValidator struct{ kind pemKind }

func (v pemValidator) Description(context.Context) string {
	if v.kind == pemKey {
		return "must be a PEM private key (not encrypted)"
	}
	return "must be PEM text of one or more certificates"
}

func (v pemValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v pemValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	name := attrName(req.Path)
	var err error
	if v.kind == pemKey {
		err = kafkaclient.ParseClientKey(name, req.ConfigValue.ValueString())
	} else {
		_, err = kafkaclient.ParseCACert(name, req.ConfigValue.ValueString())
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid PEM", err.Error()+".")
	}
}
