package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// "Retire many topics, and check who still reads them", run as written from examples/gating with
// the three readers a legacy topic family has in the wild: a classic consumer group that has
// read and committed everything, a share group (KIP-932) whose console consumer acknowledged every
// record, and a consumer just deployed with auto-commit off, assigned legacy.b and never committed.
// The recipe names all three; the gate refuses the retirement while the topics hold records, and
// names the reader without a commit as lagging (its lag is unknown). On a broker without share
// groups (Kafka 3.9) the share reader is left out, saying so.
func TestAccGatingRecipe_retireTopicGroups(t *testing.T) {
	k := acctest.Connect(t)
	dir := gatingRecipe(t, "retire-topic-groups")
	a, b := k.CreateTopic("legacy.a", 1, nil), k.CreateTopic("legacy.b", 1, nil)
	k.Produce(a, 0, 2)
	k.Produce(b, 0, 2)
	suffix := acctest.TopicName(t, "")[len("tfacc-"):]
	billing, audit, queue := "legacy-billing-"+suffix, "legacy-audit-"+suffix, "legacy-queue-"+suffix
	k.Consumer(billing, 2, a) // live, committed at the log end
	k.AssignedConsumer(audit, false, b)
	readers := []knownvalue.Check{knownvalue.StringExact(audit), knownvalue.StringExact(billing)}
	if k.SupportsShareGroups() {
		k.ShareConsume(queue, a, 2)
		readers = append(readers, knownvalue.StringExact(queue))
	}
	resource.Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				ConfigDirectory: dir, ProtoV6ProviderFactories: protoV6ProviderFactories,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("legacy_readers", knownvalue.ListExact(readers)),
				},
			},
			{
				ConfigDirectory: dir, ProtoV6ProviderFactories: protoV6ProviderFactories,
				ConfigVariables: config.Variables{"retire_legacy_topics": config.BoolVariable(true)},
				ExpectError: regexp.MustCompile(`(?s)Resource precondition failed.*Not yet: topics still holding records:\s+` +
					`\["legacy.a","legacy.b"\];\s+groups\s+lagging:\s+\["` + regexp.QuoteMeta(audit) + `"\]\.`),
			},
		},
	})
}
