package provider

import (
	"strings"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// principal is who the brokers authorize the provider's requests as, for the ACL advice of read
// errors, where the provider can tell: Kafka's default principal of a SASL PLAIN or SCRAM login is
// User:<username>. Other logins map to a principal by the broker's own rules (a TLS certificate's
// subject and ssl.principal.mapping.rules, an OAuth token's claim, an IAM identity): "" there.
type principal string

// principalOf is the principal of the login that loginFields describe: the fields the provider
// logs of its tls and sasl settings (provider_auth_sasl.go, logTo), which hold no secret.
func principalOf(loginFields map[string]any) principal {
	switch loginFields["sasl"] {
	case kafkaclient.MechanismPlain, kafkaclient.MechanismScramSHA256, kafkaclient.MechanismScramSHA512:
		if user, _ := loginFields["sasl_username"].(string); user != "" {
			return principal("User:" + user)
		}
	}
	return ""
}

// String names the principal inside a sentence.
func (p principal) String() string {
	if p == "" {
		return "the provider's principal"
	}
	return "the provider's principal (" + string(p) + ")"
}

// Sentence names the principal at the start of a sentence.
func (p principal) Sentence() string {
	s := p.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

// grant is the kafka-acls.sh command that allows p operation on resource (such as `--topic
// orders` or `--cluster`), the principal's name filled in where the provider knows it.
func (p principal) grant(operation, resource string) string {
	name := string(p)
	if name == "" {
		name = "User:NAME"
	}
	return "kafka-acls.sh --add --allow-principal " + name + " --operation " + operation + " " + resource
}
