package provider

// SASL: from the sasl block (or KAFKA_SASL_MECHANISM) and the environment to a built mechanism.
// Which mechanism takes which attributes is kafkaclient.MechanismFields' table.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// saslEnv names each sasl attribute's environment variable. region and profile have none of
// their own: the AWS SDK reads AWS_REGION and AWS_PROFILE. scopes' holds a comma-separated list
// (saslScopes).
var saslEnv = map[string]string{
	"mechanism": EnvSASLMechanism,
	"username":  EnvSASLUsername, "password": EnvSASLPassword,
	"token_url": EnvSASLTokenURL, "client_id": EnvSASLClientID, "client_secret": EnvSASLClientSecret,
	"scopes": EnvSASLScopes, "token": EnvSASLToken,
	"region": "", "role_arn": EnvSASLAWSRoleARN, "profile": "",
}

// saslSettings are the sasl block's string settings by attribute name, each from its attribute
// or else the environment.
type saslSettings map[string]value

func resolveSASL(ctx context.Context, cfg providerModel, build bool, sec *security, diags *diag.Diagnostics) {
	m := saslBlockOrEnv(cfg.SASL)
	if m == nil || !m.known() {
		return // no SASL, or known at apply
	}
	s := pickSASL(m)
	name, ok := s.mechanism(diags)
	if !ok {
		return
	}
	s.dropEnvNotApplying(name)
	sc := s.config(name, saslScopes(ctx, m, name, diags))
	if !checkSASL(sc, diags) {
		return
	}
	s.logTo(name, sec.logFields)
	if build {
		sec.sasl = buildSASL(ctx, sc, diags)
	}
}

// saslBlockOrEnv is the sasl block, a null one when KAFKA_SASL_MECHANISM turns SASL on without
// it, or nil when SASL is off: without either, or with enabled = false, whatever the environment
// says.
func saslBlockOrEnv(m *saslModel) *saslModel {
	if m == nil && os.Getenv(EnvSASLMechanism) != "" {
		return nullSASLModel()
	}
	if m != nil && switchedOff(m.Enabled) {
		return nil
	}
	return m
}

func pickSASL(m *saslModel) saslSettings {
	s := saslSettings{}
	for name, attr := range m.stringAttributes() {
		s[name] = pick(attr, path.Root("sasl").AtName(name), saslEnv[name])
	}
	return s
}

// mechanism is the canonical name of the mechanism, required here or in the environment.
func (s saslSettings) mechanism(diags *diag.Diagnostics) (string, bool) {
	mech := s["mechanism"]
	if !mech.set() {
		diags.AddAttributeError(mech.attr, "Missing SASL mechanism",
			"The sasl block needs a mechanism: "+mechanismList("")+
				" (here, or in the environment variable "+EnvSASLMechanism+").")
		return "", false
	}
	name, ok := kafkaclient.NormalizeMechanism(mech.v)
	if !ok {
		diags.AddAttributeError(mech.attr, "Invalid SASL mechanism", fmt.Sprintf("The %s is %q: want one of %s.",
			mech.source, mech.v, strings.Join(kafkaclient.MechanismSpellings(), ", ")))
	}
	return name, ok
}

// mechanismList names kafkaclient.Mechanisms for a message or description, each between mark:
// "plain, ..., oauthbearer or aws-msk-iam".
func mechanismList(mark string) string {
	names := make([]string, len(kafkaclient.Mechanisms))
	for i, m := range kafkaclient.Mechanisms {
		names[i] = mark + m + mark
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// dropEnvNotApplying forgets environment values that do not apply to the mechanism: a
// KAFKA_SASL_PASSWORD left in the shell must not turn an aws-msk-iam configuration into an error.
// Likewise the block's client credentials win over a token in the environment.
func (s saslSettings) dropEnvNotApplying(mechanism string) {
	applies := kafkaclient.MechanismFields(mechanism)
	for name, v := range s {
		if v.fromEnv() && name != "mechanism" && !slices.Contains(applies, name) {
			s[name] = value{attr: v.attr}
		}
	}
	if v := s["token"]; v.set() && v.fromEnv() && (s["token_url"].set() || s["client_id"].set() || s["client_secret"].set()) {
		s["token"] = value{attr: v.attr}
	}
}

// saslScopes is the scopes list, else KAFKA_SASL_SCOPES (comma-separated) for a mechanism that
// takes scopes.
func saslScopes(ctx context.Context, m *saslModel, mechanism string, diags *diag.Diagnostics) []string {
	var scopes []string
	if !m.Scopes.IsNull() {
		diags.Append(m.Scopes.ElementsAs(ctx, &scopes, false)...)
		return scopes
	}
	env := os.Getenv(EnvSASLScopes)
	if env == "" || !slices.Contains(kafkaclient.MechanismFields(mechanism), "scopes") {
		return nil
	}
	for _, sc := range strings.Split(env, ",") {
		if sc = strings.TrimSpace(sc); sc != "" {
			scopes = append(scopes, sc)
		}
	}
	return scopes
}

func (s saslSettings) config(mechanism string, scopes []string) kafkaclient.SASLConfig {
	return kafkaclient.SASLConfig{
		Mechanism: mechanism, Username: s["username"].v, Password: s["password"].v,
		TokenURL: s["token_url"].v, ClientID: s["client_id"].v, ClientSecret: s["client_secret"].v,
		Scopes: scopes, Token: s["token"].v,
		Region: s["region"].v, RoleARN: s["role_arn"].v, Profile: s["profile"].v,
	}
}

// checkSASL reports a missing attribute, or one that does not apply, on that attribute.
func checkSASL(sc kafkaclient.SASLConfig, diags *diag.Diagnostics) bool {
	err := kafkaclient.CheckSASL(sc)
	if err == nil {
		return true
	}
	attr, detail := path.Root("sasl"), err.Error()
	var ce *kafkaclient.SASLConfigError
	if errors.As(err, &ce) {
		attr = attr.AtName(ce.Field)
		detail = attrName(attr) + " " + ce.Reason
	}
	diags.AddAttributeError(attr, "Invalid SASL configuration", detail+". "+saslEnvHint(sc.Mechanism))
	return false
}

// saslEnvHint names the environment variables of the attributes a mechanism takes.
func saslEnvHint(mechanism string) string {
	if mechanism == kafkaclient.MechanismAWSMSKIAM {
		return "Credentials come from the AWS SDK's default chain (AWS_PROFILE, AWS_ACCESS_KEY_ID, web identity, " +
			"instance roles); region from AWS_REGION when unset."
	}
	var envs []string
	for _, name := range kafkaclient.MechanismFields(mechanism) {
		envs = append(envs, saslEnv[name])
	}
	return "Each attribute may come from the environment instead: " + strings.Join(envs, ", ") + "."
}

// saslLogNames is the debug log's name of each sasl setting that may be logged. Secrets have
// none: of a static token the log says only whether there is one.
var saslLogNames = map[string]string{
	"username":  "sasl_username",
	"client_id": "sasl_oauth_client_id", "token_url": "sasl_oauth_token_url",
	"region": "sasl_aws_region", "role_arn": "sasl_aws_role_arn", "profile": "sasl_aws_profile",
}

// logTo adds the mechanism and the settings of it that are not secret.
func (s saslSettings) logTo(mechanism string, fields map[string]any) {
	fields["sasl"] = mechanism
	for _, name := range kafkaclient.MechanismFields(mechanism) {
		if logName, ok := saslLogNames[name]; ok {
			fields[logName] = s[name].v
		}
		if name == "token" {
			fields["sasl_oauth_static_token"] = s[name].set()
		}
	}
}

func buildSASL(ctx context.Context, sc kafkaclient.SASLConfig, diags *diag.Diagnostics) *kafkaclient.SASL {
	mech, err := kafkaclient.NewSASL(ctx, sc)
	if err != nil {
		var ce *kafkaclient.SASLConfigError
		attr := path.Root("sasl")
		if errors.As(err, &ce) {
			attr = attr.AtName(ce.Field)
		}
		diags.AddAttributeError(attr, "Invalid SASL configuration", err.Error()+".")
		return nil
	}
	return mech
}
