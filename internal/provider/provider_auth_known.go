package provider

// Known or not: a tls or sasl attribute may depend on a resource not created yet. Nothing is
// checked or built from a block until all of it is known.

import "github.com/hashicorp/terraform-plugin-framework/types"

// authKnown reports whether every attribute of the tls and sasl blocks is known.
func authKnown(cfg providerModel) bool {
	return (cfg.TLS == nil || cfg.TLS.known()) && (cfg.SASL == nil || cfg.SASL.known())
}

func (m *tlsModel) known() bool {
	return !m.Enabled.IsUnknown() && !m.CACert.IsUnknown() && !m.ClientCert.IsUnknown() && !m.ClientKey.IsUnknown() &&
		!m.ServerName.IsUnknown() && !m.InsecureSkipVerify.IsUnknown()
}

func (m *saslModel) known() bool {
	if m.Enabled.IsUnknown() {
		return false
	}
	for _, s := range m.stringAttributes() {
		if s.IsUnknown() {
			return false
		}
	}
	return listKnown(m.Scopes)
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

// switchedOff reports whether a tls or sasl block says enabled = false: off, whatever the
// environment says.
func switchedOff(enabled types.Bool) bool {
	return !enabled.IsNull() && !enabled.IsUnknown() && !enabled.ValueBool()
}
