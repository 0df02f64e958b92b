package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// A PLAIN or SCRAM login's principal is User:<username>; any other login's is the broker's to map.
func TestPrincipalOf(t *testing.T) {
	for _, tc := range []struct {
		fields map[string]any
		want   principal
	}{
		{map[string]any{"tls": false, "sasl": "none"}, ""},
		{map[string]any{"sasl": kafkaclient.MechanismPlain, "sasl_username": "alice"}, "User:alice"},
		{map[string]any{"sasl": kafkaclient.MechanismScramSHA512, "sasl_username": "bob"}, "User:bob"},
		{map[string]any{"sasl": kafkaclient.MechanismOAuthBearer, "sasl_oauth_client_id": "app"}, ""},
		{map[string]any{"sasl": kafkaclient.MechanismAWSMSKIAM, "sasl_aws_region": "eu-west-1"}, ""},
	} {
		if got := principalOf(tc.fields); got != tc.want {
			t.Errorf("principalOf(%v) = %q, want %q", tc.fields, got, tc.want)
		}
	}
}

// ACL advice names the principal and fills it into the kafka-acls.sh line where it is known, and
// says "the provider's principal" with User:NAME where it is not.
func TestACLAdviceNamesThePrincipal(t *testing.T) {
	denied := &kafkaclient.BrokerError{Op: "Metadata", Topic: "orders", Partition: -1, Code: kafkaclient.TopicAuthorizationFailed}
	for who, want := range map[principal][]string{
		"User:alice": {"The provider's principal (User:alice) needs the ACL operation DESCRIBE on topic \"orders\"",
			"kafka-acls.sh --add --allow-principal User:alice --operation Describe --topic orders"},
		"": {"The provider's principal needs the ACL operation DESCRIBE on topic \"orders\"",
			"kafka-acls.sh --add --allow-principal User:NAME --operation Describe --topic orders"},
	} {
		var diags diag.Diagnostics
		addReadError(&diags, denied, topicOffsetsErrorAttrs, who)
		for _, w := range want {
			if len(diags) != 1 || !strings.Contains(diags[0].Detail(), w) {
				t.Errorf("principal %q: want %q in %v", who, w, diags)
			}
		}
	}
	var diags diag.Diagnostics
	addReadError(&diags, kafkaclient.ErrGroupsHidden, consumerGroupsErrorAttrs, "User:bob")
	if want := "Grant the provider's principal (User:bob) the ACL operation DESCRIBE on the cluster " +
		"(kafka-acls.sh --add --allow-principal User:bob --operation Describe --cluster)"; len(diags) != 1 || !strings.Contains(diags[0].Detail(), want) {
		t.Errorf("want %q in %v", want, diags)
	}
}

// Topic and group not found suggest the near names the read found, and nothing where it found none.
func TestNotFoundSuggests(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&kafkaclient.TopicNotFoundError{Topic: "Legacy.audit", Suggestions: []string{"legacy.audit"}},
			`fresh metadata confirms it). Did you mean "legacy.audit"? Check the name`},
		{&kafkaclient.GroupNotFoundError{GroupID: "biling", State: "Dead", Suggestions: []string{"billing", "bil1ing"}},
			`answers no committed offset for it. Did you mean "billing" or "bil1ing"? Check the group id`},
		{&kafkaclient.TopicNotFoundError{Topic: "orders"}, `fresh metadata confirms it). Check the name`},
	} {
		var diags diag.Diagnostics
		addReadError(&diags, tc.err, consumerGroupOffsetsErrorAttrs, "")
		if len(diags) != 1 || !strings.Contains(diags[0].Detail(), tc.want) {
			t.Errorf("%v: want %q in %v", tc.err, tc.want, diags)
		}
	}
}
