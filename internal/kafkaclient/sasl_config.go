package kafkaclient

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
)

// SASL mechanisms, as the provider spells them (lower case, Kafka's names with dashes).
const (
	MechanismPlain       = "plain"
	MechanismScramSHA256 = "scram-sha-256"
	MechanismScramSHA512 = "scram-sha-512"
	MechanismOAuthBearer = "oauthbearer"
	MechanismAWSMSKIAM   = "aws-msk-iam"
)

// Mechanisms lists the canonical mechanism names.
var Mechanisms = []string{MechanismPlain, MechanismScramSHA256, MechanismScramSHA512, MechanismOAuthBearer, MechanismAWSMSKIAM}

// mechanismAliases maps every accepted spelling (lower-cased) to its canonical name: Kafka's own
// names and those of the community Kafka provider (scram-sha256, scram-sha512, aws-iam).
var mechanismAliases = map[string]string{
	"plain":         MechanismPlain,
	"scram-sha-256": MechanismScramSHA256,
	"scram-sha256":  MechanismScramSHA256,
	"scram-sha-512": MechanismScramSHA512,
	"scram-sha512":  MechanismScramSHA512,
	"oauthbearer":   MechanismOAuthBearer,
	"aws-msk-iam":   MechanismAWSMSKIAM,
	"aws_msk_iam":   MechanismAWSMSKIAM,
	"aws-iam":       MechanismAWSMSKIAM,
}

// MechanismSpellings lists every accepted spelling, canonical names first.
func MechanismSpellings() []string {
	return append(append([]string{}, Mechanisms...), "scram-sha256", "scram-sha512", "aws-iam", "aws_msk_iam")
}

// NormalizeMechanism returns the canonical name of a spelling (any case), or false.
func NormalizeMechanism(s string) (string, bool) {
	m, ok := mechanismAliases[strings.ToLower(strings.TrimSpace(s))]
	return m, ok
}

// SASLConfig is a mechanism and its credentials. Which fields apply depends on the mechanism.
type SASLConfig struct {
	Mechanism string // any spelling NormalizeMechanism accepts

	// PLAIN and SCRAM.
	Username string
	Password string // secret

	// OAUTHBEARER: a token from an OAuth 2.0 token endpoint (client credentials grant), or a
	// static Token.
	TokenURL     string
	ClientID     string
	ClientSecret string // secret
	Scopes       []string
	Token        string // secret

	// AWS_MSK_IAM: credentials from the AWS SDK's default chain (environment, shared files,
	// SSO, web identity, container and instance roles); optionally a shared-config profile and
	// a role to assume.
	Region  string
	RoleARN string
	Profile string
}

// SASL is a built mechanism, ready to authenticate connections (Config.SASL).
type SASL struct{ mechanism sasl.Mechanism }

// NewSASL builds the mechanism of c. It checks c (see CheckSASL) and contacts nothing: tokens
// and AWS credentials are fetched when a connection authenticates.
func NewSASL(ctx context.Context, c SASLConfig) (*SASL, error) {
	m, err := newMechanism(ctx, c)
	if err != nil {
		return nil, err
	}
	return &SASL{mechanism: m}, nil
}

// newMechanism builds kafka-go's mechanism for c.
func newMechanism(ctx context.Context, c SASLConfig) (sasl.Mechanism, error) {
	if err := CheckSASL(c); err != nil {
		return nil, err
	}
	name, _ := NormalizeMechanism(c.Mechanism)
	switch name {
	case MechanismPlain:
		return &identified{Mechanism: plain.Mechanism{Username: c.Username, Password: c.Password},
			identity: fmt.Sprintf("user %q", c.Username)}, nil
	case MechanismScramSHA256, MechanismScramSHA512:
		algo := scram.SHA256
		if name == MechanismScramSHA512 {
			algo = scram.SHA512
		}
		m, err := scram.Mechanism(algo, c.Username, c.Password)
		if err != nil {
			// xdg-go/scram rejects names and passwords that SASLprep cannot normalize; it does
			// not quote them.
			return nil, fmt.Errorf("SCRAM: username or password is not valid SASLprep text: %w", err)
		}
		return &identified{Mechanism: m, identity: fmt.Sprintf("user %q", c.Username)}, nil
	case MechanismOAuthBearer:
		return newOAuthBearer(c), nil
	case MechanismAWSMSKIAM:
		return newMSKIAM(ctx, c)
	}
	return nil, fmt.Errorf("unknown SASL mechanism %q", c.Mechanism)
}

// mechanismFields is which SASLConfig fields each mechanism takes, named as the provider names its
// attributes. The one table of this fact: CheckSASL refuses the others, and the provider takes
// from the environment only these.
var mechanismFields = map[string][]string{
	MechanismPlain:       {"username", "password"},
	MechanismScramSHA256: {"username", "password"},
	MechanismScramSHA512: {"username", "password"},
	MechanismOAuthBearer: {"token_url", "client_id", "client_secret", "scopes", "token"},
	MechanismAWSMSKIAM:   {"region", "role_arn", "profile"},
}

// MechanismFields lists the fields a mechanism (any spelling) takes, or nil for an unknown one.
func MechanismFields(mechanism string) []string {
	name, _ := NormalizeMechanism(mechanism)
	return slices.Clone(mechanismFields[name])
}

// setFields lists the fields of c that are set, in SASLConfig's order.
func setFields(c SASLConfig) []string {
	var set []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"username", c.Username != ""}, {"password", c.Password != ""},
		{"token_url", c.TokenURL != ""}, {"client_id", c.ClientID != ""}, {"client_secret", c.ClientSecret != ""},
		{"scopes", len(c.Scopes) > 0}, {"token", c.Token != ""},
		{"region", c.Region != ""}, {"role_arn", c.RoleARN != ""}, {"profile", c.Profile != ""},
	} {
		if f.set {
			set = append(set, f.name)
		}
	}
	return set
}

// CheckSASL says which attribute a mechanism lacks, or which one does not apply to it. Errors
// name attributes as the provider does.
func CheckSASL(c SASLConfig) error {
	name, ok := NormalizeMechanism(c.Mechanism)
	if !ok {
		return &SASLConfigError{Field: "mechanism", Reason: fmt.Sprintf("%q is not a SASL mechanism: want one of %s",
			c.Mechanism, strings.Join(MechanismSpellings(), ", "))}
	}
	set := setFields(c)
	if err := checkRequired(name, func(f string) bool { return slices.Contains(set, f) }); err != nil {
		return err
	}
	applies := mechanismFields[name]
	for _, f := range set {
		if !slices.Contains(applies, f) {
			return &SASLConfigError{Field: f, Reason: fmt.Sprintf("does not apply to mechanism %s (it takes %s)",
				name, strings.Join(applies, ", "))}
		}
	}
	return nil
}

// checkRequired says which field a mechanism needs and lacks. AWS_MSK_IAM needs none: the AWS
// SDK's default chain supplies credentials and region.
func checkRequired(name string, set func(string) bool) error {
	switch name {
	case MechanismPlain, MechanismScramSHA256, MechanismScramSHA512:
		for _, f := range []string{"username", "password"} {
			if !set(f) {
				return &SASLConfigError{Field: f, Reason: fmt.Sprintf("mechanism %s needs username and password", name)}
			}
		}
	case MechanismOAuthBearer:
		grant := []string{"token_url", "client_id", "client_secret"} // and optionally scopes
		switch {
		case set("token") && (slices.ContainsFunc(grant, set) || set("scopes")):
			return &SASLConfigError{Field: "token", Reason: "mechanism oauthbearer takes either a static token or " +
				"token_url, client_id and client_secret (client credentials grant), not both"}
		case !set("token"):
			for _, f := range grant {
				if !set(f) {
					return &SASLConfigError{Field: f, Reason: "mechanism oauthbearer needs token_url, client_id and " +
						"client_secret (OAuth 2.0 client credentials grant), or a static token"}
				}
			}
		}
	}
	return nil
}

// SASLConfigError: an attribute of the SASL configuration is missing or does not apply.
type SASLConfigError struct {
	Field  string
	Reason string
}

func (e *SASLConfigError) Error() string { return e.Field + ": " + e.Reason }

// identified is a mechanism that can say who it authenticates as, without a secret.
type identified struct {
	sasl.Mechanism
	identity string
}

func (m *identified) Identity() string { return m.identity }

// identityOf describes who m authenticates as, for error messages.
func identityOf(m sasl.Mechanism) string {
	if i, ok := m.(interface{ Identity() string }); ok {
		return i.Identity()
	}
	return "the configured identity"
}

// mech is kafka-go's mechanism, or nil when s is nil (no SASL).
func (s *SASL) mech() sasl.Mechanism {
	if s == nil {
		return nil
	}
	return s.mechanism
}
