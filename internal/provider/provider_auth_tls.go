package provider

// TLS: from the tls block (or KAFKA_ENABLE_TLS) and the environment to a *tls.Config.

import (
	"crypto/tls"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// tlsSettings are the tls block's settings, each from its attribute or else the environment.
type tlsSettings struct {
	ca, cert, key, serverName value
	insecureSkipVerify        bool
}

func resolveTLS(cfg providerModel, build bool, sec *security, diags *diag.Diagnostics) {
	m := tlsBlockOrEnv(cfg.TLS, diags)
	if m == nil {
		return
	}
	s := pickTLS(m, diags)
	s.checkClientPair(m, diags)
	if diags.HasError() || m.CACert.IsUnknown() || m.ClientCert.IsUnknown() || m.ClientKey.IsUnknown() {
		return // certificates known at apply
	}
	c := s.config(diags)
	if c == nil {
		return
	}
	s.logTo(sec.logFields)
	if build {
		sec.tls = c
	}
}

// tlsBlockOrEnv is the tls block, a null one when KAFKA_ENABLE_TLS turns TLS on without it, or nil
// when TLS is off: without either, or with enabled = false, whatever the environment says (nil too
// while enabled is unknown: nothing is checked before it is known). TLS settings in the environment
// do not turn it on: without a block they only warn.
func tlsBlockOrEnv(m *tlsModel, diags *diag.Diagnostics) *tlsModel {
	if m != nil {
		if switchedOff(m.Enabled) || m.Enabled.IsUnknown() {
			return nil
		}
		return m
	}
	on, ok := envBool(EnvEnableTLS, path.Root("tls"), diags)
	if on {
		return nullTLSModel()
	}
	if ok {
		warnTLSEnvIgnored(diags)
	}
	return nil
}

func warnTLSEnvIgnored(diags *diag.Diagnostics) {
	for _, env := range []string{EnvCACert, EnvClientCert, EnvClientKey, EnvTLSServerName, EnvSkipVerify} {
		if os.Getenv(env) != "" {
			diags.AddAttributeWarning(path.Root("tls"), "TLS settings in the environment, but TLS is off",
				"The environment variable "+env+" is set, but there is no tls block and "+EnvEnableTLS+
					" is not true, so the provider speaks plaintext and ignores it. Add tls {} to the provider "+
					"block, or set "+EnvEnableTLS+"=true.")
			return
		}
	}
}

func pickTLS(m *tlsModel, diags *diag.Diagnostics) tlsSettings {
	base := path.Root("tls")
	s := tlsSettings{
		ca:         pemFromEnv(pick(m.CACert, base.AtName("ca_cert"), EnvCACert), diags),
		cert:       pemFromEnv(pick(m.ClientCert, base.AtName("client_cert"), EnvClientCert), diags),
		key:        pemFromEnv(pick(m.ClientKey, base.AtName("client_key"), EnvClientKey), diags),
		serverName: pick(m.ServerName, base.AtName("server_name"), EnvTLSServerName),
	}
	if skip := m.InsecureSkipVerify; !skip.IsNull() && !skip.IsUnknown() {
		s.insecureSkipVerify = skip.ValueBool()
	} else {
		s.insecureSkipVerify, _ = envBool(EnvSkipVerify, base.AtName("insecure_skip_verify"), diags)
	}
	return s
}

// checkClientPair: mutual TLS needs both certificate and key. One that is unknown yet may still
// come.
func (s tlsSettings) checkClientPair(m *tlsModel, diags *diag.Diagnostics) {
	if !s.cert.set() && s.key.set() && !m.ClientCert.IsUnknown() {
		diags.AddAttributeError(s.key.attr, "Client key without certificate",
			"The "+s.key.source+" is set, but no client certificate (tls.client_cert or "+EnvClientCert+
				"): mutual TLS needs both.")
	}
	if s.cert.set() && !s.key.set() && !m.ClientKey.IsUnknown() {
		diags.AddAttributeError(s.cert.attr, "Client certificate without key",
			"The "+s.cert.source+" is set, but no client key (tls.client_key or "+EnvClientKey+"): mutual TLS needs both.")
	}
}

// config checks what the attribute validators did not see (values from the environment, the
// certificate and key together) and builds the configuration; nil after an error.
func (s tlsSettings) config(diags *diag.Diagnostics) *tls.Config {
	s.checkEnvPEM(diags)
	if diags.HasError() {
		return nil
	}
	if s.cert.set() && s.key.set() {
		if _, err := kafkaclient.ParseClientKeyPair(s.cert.source, s.cert.v, s.key.source, s.key.v); err != nil {
			diags.AddAttributeError(s.key.attr, "Client certificate and key do not match", err.Error()+".")
			return nil
		}
	}
	c, err := kafkaclient.NewTLSConfig(kafkaclient.TLSConfig{
		CACert: s.ca.v, ClientCert: s.cert.v, ClientKey: s.key.v, ServerName: s.serverName.v,
		InsecureSkipVerify: s.insecureSkipVerify,
	})
	if err != nil {
		diags.AddAttributeError(path.Root("tls"), "Invalid TLS configuration", err.Error()+".")
		return nil
	}
	return c
}

// checkEnvPEM checks the PEM values that came from the environment, on their attribute: the
// attribute validators saw only the block's.
func (s tlsSettings) checkEnvPEM(diags *diag.Diagnostics) {
	for _, v := range []value{s.ca, s.cert} {
		if v.set() && v.fromEnv() {
			if _, err := kafkaclient.ParseCACert(v.source, v.v); err != nil {
				diags.AddAttributeError(v.attr, "Invalid PEM", err.Error()+".")
			}
		}
	}
	if s.key.set() && s.key.fromEnv() {
		if err := kafkaclient.ParseClientKey(s.key.source, s.key.v); err != nil {
			diags.AddAttributeError(s.key.attr, "Invalid PEM", err.Error()+".")
		}
	}
}

// logTo adds what the debug log may show: sources and names, never a key.
func (s tlsSettings) logTo(fields map[string]any) {
	caSource := s.ca.source
	if !s.ca.set() {
		caSource = "system roots"
	}
	fields["tls"] = true
	fields["tls_ca"] = caSource
	fields["tls_client_cert"] = s.cert.set()
	fields["tls_server_name"] = s.serverName.v
	fields["tls_insecure_skip_verify"] = s.insecureSkipVerify
}
