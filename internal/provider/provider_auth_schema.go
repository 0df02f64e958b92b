package provider

// The provider's tls and sasl blocks: their schema and the models they decode into.

import (
	"maps"
	"regexp"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/boolvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

type tlsModel struct {
	Enabled            types.Bool   `tfsdk:"enabled"`
	CACert             types.String `tfsdk:"ca_cert"`
	ClientCert         types.String `tfsdk:"client_cert"`
	ClientKey          types.String `tfsdk:"client_key"`
	ServerName         types.String `tfsdk:"server_name"`
	InsecureSkipVerify types.Bool   `tfsdk:"insecure_skip_verify"`
}

type saslModel struct {
	Enabled      types.Bool   `tfsdk:"enabled"`
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

func nullTLSModel() *tlsModel {
	null := types.StringNull()
	return &tlsModel{Enabled: types.BoolNull(), CACert: null, ClientCert: null, ClientKey: null, ServerName: null,
		InsecureSkipVerify: types.BoolNull()}
}

func nullSASLModel() *saslModel {
	null := types.StringNull()
	return &saslModel{Enabled: types.BoolNull(), Mechanism: null, Username: null, Password: null, TokenURL: null, ClientID: null,
		ClientSecret: null, Scopes: types.ListNull(types.StringType), Token: null, Region: null, RoleARN: null, Profile: null}
}

// stringAttributes are the sasl block's string attributes by name (all but scopes).
func (m *saslModel) stringAttributes() map[string]types.String {
	return map[string]types.String{
		"mechanism": m.Mechanism, "username": m.Username, "password": m.Password,
		"token_url": m.TokenURL, "client_id": m.ClientID, "client_secret": m.ClientSecret, "token": m.Token,
		"region": m.Region, "role_arn": m.RoleARN, "profile": m.Profile,
	}
}

func envNote(name string) string { return " Environment variable: `" + name + "`." }

// enabledAttribute is the tls or sasl block's off switch, for one provider block (an alias)
// beside environment variables meant for another: false wins over the environment, and then no
// other attribute of the block (attrs) may be set, which the plan checks on enabled.
func enabledAttribute(protocol, envSwitch string, attrs map[string]schema.Attribute) schema.BoolAttribute {
	others := make([]path.Expression, 0, len(attrs))
	for _, name := range slices.Sorted(maps.Keys(attrs)) { // the errors in one order
		others = append(others, path.MatchRelative().AtParent().AtName(name))
	}
	return schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "`false` turns " + protocol + " off for this provider block whatever `" + envSwitch +
			"` and the other " + protocol + " environment variables say, as for a plaintext alias beside a cluster " +
			"that needs it; no other attribute of the block may be set then. Default `true`: the block's presence " +
			"turns " + protocol + " on.",
		Validators: []validator.Bool{boolvalidator.Any(boolvalidator.Equals(true), boolvalidator.ConflictsWith(others...))},
	}
}

// authBlocks are the provider's tls and sasl blocks.
func authBlocks() map[string]schema.Block {
	return map[string]schema.Block{"tls": tlsBlock(), "sasl": saslBlock()}
}

func tlsBlock() schema.Block {
	b := schema.SingleNestedBlock{
		MarkdownDescription: "TLS for every connection, for listeners whose `listener.security.protocol.map` " +
			"says `SSL` or `SASL_SSL` (TLS 1.2 or later): the block's presence turns it on (an empty `tls {}`: " +
			"the system's trusted roots), as does `" + EnvEnableTLS + "=true` without a block; without it, or " +
			"with `enabled = false`, the provider speaks plaintext. Certificate and key values are PEM text, " +
			"typically `file(\"ca.pem\")`. The environment variables also accept the path of a PEM file.",
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
				MarkdownDescription: "Name to verify the brokers' certificates against, and to " +
					"send as SNI: set it when you connect through an address the certificate " +
					"does not name. Unset: the host of each broker address (bootstrap servers, " +
					"then the addresses the brokers advertise)." +
					envNote(EnvTLSServerName),
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"insecure_skip_verify": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Accept any broker certificate without verification: for " +
					"tests only, since it lets anyone between you and the cluster read your " +
					"credentials. Default `false`." +
					envNote(EnvSkipVerify),
			},
		},
	}
	b.Attributes["enabled"] = enabledAttribute("TLS", EnvEnableTLS, b.Attributes)
	return b
}

// saslBlock has one group of attributes per kind of mechanism; kafkaclient.MechanismFields says
// which group applies to which mechanism.
func saslBlock() schema.Block {
	attrs := map[string]schema.Attribute{
		"mechanism": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: mechanismList("`") + " (any case; Kafka's own `AWS_MSK_IAM`, and the " +
				"community provider's `scram-sha256`, `scram-sha512` and `aws-iam`, are accepted too). " +
				"Required, here or in the environment." + envNote(EnvSASLMechanism),
			Validators: []validator.String{stringvalidator.OneOfCaseInsensitive(kafkaclient.MechanismSpellings()...)},
		},
	}
	for _, group := range []map[string]schema.Attribute{saslPasswordAttributes(), saslOAuthAttributes(), saslAWSAttributes()} {
		maps.Copy(attrs, group)
	}
	attrs["enabled"] = enabledAttribute("SASL", EnvSASLMechanism, attrs)
	return schema.SingleNestedBlock{
		MarkdownDescription: "SASL authentication on every connection, for `SASL_PLAINTEXT` and `SASL_SSL` " +
			"listeners (the latter with a `tls` block too): the block's presence turns it on, as does `" +
			EnvSASLMechanism + "` without a block, and `enabled = false` turns it off whatever the environment " +
			"says. Which attributes apply depends on `mechanism`: `username` " +
			"and `password` for `plain` and `scram-*`; `token_url`, `client_id`, `client_secret` and `scopes`, " +
			"or `token`, for `oauthbearer`; `region`, `role_arn` and `profile` for `aws-msk-iam`. Setting one " +
			"that does not apply is an error.",
		Attributes: attrs,
	}
}

// saslPasswordAttributes are those of plain and scram-*.
func saslPasswordAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
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
	}
}

// saslOAuthAttributes are those of oauthbearer.
func saslOAuthAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
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
			MarkdownDescription: "`oauthbearer`: a static bearer token (a JWT), sent as is and " +
				"never refreshed, instead of `token_url`, `client_id` and `client_secret`. " +
				"Sensitive." + envNote(EnvSASLToken),
		},
	}
}

// saslAWSAttributes are those of aws-msk-iam.
func saslAWSAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
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
	}
}
