package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// The truth table of the guide "What caught up means": for each reader state a real cluster can be in, what each gate
// does, the recipes run as written (their group and topic renamed) and the plain expressions the
// docs name. Every cell is asserted on the broker, next to kadm's (or Kafka's own tools') view of
// the same group (acctest.GroupNotCaughtUp); TestTruthTableInGuide holds the guide to this table.
// Every row also goes through the three readers of a group's verdict:
// kafka_consumer_group_offsets, kafka_consumer_groups and the wait block must say the same verdict,
// the same reasons and the same time lag.

// truthRow is what the gates do in one reader state. Expressions: "true", "false" or "error"
// (Terraform refuses to evaluate it: a null compared; or the read fails). Recipes: "passes",
// "warns" (a check block's assertion fails, or its data source), "blocks" (a precondition fails,
// with a message that says why) or "errors" (the read fails, saying why).
type truthRow struct {
	caughtUp, totalLagZero, timeLagWithin, groupsCaughtUp, noReaders, drained string
	checkLag, rollout, liveTopic                                              string
}

// readerState arranges one state on a topic of 2 partitions whose records are an hour old
// (offsets 0-2 on partition 0, 0 on partition 1), for group; share and streams say what kind of
// group it is; limited reads as a principal that may DESCRIBE the topic, not the group nor the
// cluster; hidden reads without topics as a principal that may DESCRIBE the cluster, the group and
// the topic, and not the other topic the group reads (topic + "-hidden"); readCommitted reads the
// expressions under isolation_level = "read_committed".
type readerState struct {
	name                           string
	share, stream, limited, hidden bool
	readCommitted                  bool
	arrange                        func(k *acctest.Kafka, topic, group string)
	want                           truthRow
}

var (
	caughtUpRow = truthRow{"true", "true", "true", "true", "false", "false", "passes", "passes", "passes"}
	behindRow   = truthRow{"false", "false", "false", "false", "false", "false", "warns", "blocks", "blocks"}
	// total_lag is null where no lag measures the position (no commit where records wait, a commit
	// outside the log), so == 0 is false: records wait there.
	unknownRow = truthRow{"false", "false", "error", "false", "false", "false", "warns", "blocks", "blocks"}
)

var readerStates = []readerState{
	{name: "caught up", want: caughtUpRow, arrange: func(k *acctest.Kafka, topic, group string) {
		k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 3, 1: 1}})
	}},
	{name: "behind on one partition, caught up on the other", want: behindRow, arrange: func(k *acctest.Kafka, topic, group string) {
		k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 1, 1: 1}})
	}},
	{name: "a member running without a commit", want: unknownRow, arrange: func(k *acctest.Kafka, topic, group string) {
		k.AssignedConsumer(group, false, topic)
	}},
	{name: "partitions added after the commit, records on them", want: unknownRow, arrange: func(k *acctest.Kafka, topic, group string) {
		k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 3, 1: 1}})
		k.AddPartitions(topic, 2)
		k.ProduceAt(topic, 2, time.Now().Add(-time.Hour))
	}},
	{name: "commit past the log end", want: unknownRow, arrange: func(k *acctest.Kafka, topic, group string) {
		k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 3, 1: 5}})
	}},
	{name: "commit before the log start (records deleted unread)", want: unknownRow, arrange: func(k *acctest.Kafka, topic, group string) {
		k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 0, 1: 1}})
		k.DeleteRecordsBefore(topic, 0, 2)
	}},
	{name: "topic deleted and recreated, the old positions committed again", want: unknownRow, arrange: func(k *acctest.Kafka, topic, group string) {
		k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 3, 1: 1}})
		k.RecreateTopic(topic, 2)
		k.ProduceAt(topic, 0, time.Now().Add(-time.Hour))
		k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 3, 1: 1}}) // a running consumer's positions
	}},
	{name: "share group, records waiting", share: true, want: behindRow, arrange: func(k *acctest.Kafka, topic, group string) {
		k.ShareConsume(group, topic, 4) // state on both partitions
		k.ProduceAt(topic, 0, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
	}},
	{name: "share group, every record acknowledged", share: true, want: caughtUpRow, arrange: func(k *acctest.Kafka, topic, group string) {
		k.ShareConsume(group, topic, 4)
	}},
	{name: "streams group, caught up", stream: true, want: caughtUpRow, arrange: func(k *acctest.Kafka, topic, group string) {
		k.StreamsReader(group, topic, true)()
	}},
	{name: "read_committed, at the last stable offset, records held behind an open transaction", readCommitted: true,
		want: truthRow{"false", "false", "true", "false", "false", "false", "warns", "blocks", "passes"},
		arrange: func(k *acctest.Kafka, topic, group string) {
			// Offsets 3-4 in a transaction left open, 5 a plain record behind it: the last stable
			// offset is 3, the high watermark 6 (kafka-consumer-groups.sh: LAG 3).
			k.Transaction(k.Transactional(topic+"-txn"), topic, 0, 2, nil)
			k.ProduceAt(topic, 0, time.Now().Add(-time.Hour))
			k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 3, 1: 1}})
		}},
	{name: "read without topics, behind on a topic the principal may not describe", hidden: true,
		want: truthRow{"false", "false", "error", "false", "false", "false", "passes", "passes", "passes"},
		arrange: func(k *acctest.Kafka, topic, group string) {
			hidden := k.CreateTopic(topic+"-hidden", 1, nil)
			k.Produce(hidden, 0, 3)
			k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 3, 1: 1}, hidden: {0: 0}})
		}},
	{name: "behind, read by a principal that may not describe the group", limited: true,
		want: truthRow{"error", "error", "error", "error", "error", "error", "warns", "errors", "errors"},
		arrange: func(k *acctest.Kafka, topic, group string) {
			k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 1, 1: 1}})
		}},
}

func TestAccGatingTruthTable(t *testing.T) {
	t.Parallel()
	for _, s := range readerStates {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			k := acctest.Connect(t)
			switch {
			case s.share:
				k.RequireShareGroups()
			case s.stream:
				k.RequireStreamsGroups()
			}
			topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
			group := topic + "-g"
			hourOld := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
			k.ProduceAt(topic, 0, hourOld, hourOld.Add(time.Millisecond), hourOld.Add(2*time.Millisecond))
			k.ProduceAt(topic, 1, hourOld)
			s.arrange(k, topic, group)
			// The live-topic recipe also waits for "<group>-v2": at the log end, so that it returns at once.
			v2 := map[int32]int64{}
			for p := range int32(k.PartitionCount(topic)) {
				_, v2[p] = k.Offsets(topic, p)
			}
			k.CommitOffsets(group+"-v2", map[string]map[int32]int64{topic: v2})
			var oracleTopics []string // the hidden row's read names none: the oracle sees every topic
			if !s.hidden {
				oracleTopics = []string{topic}
			}
			if caught := k.GroupNotCaughtUp(group, s.share, oracleTopics...); (len(caught) == 0) != (s.want.caughtUp == "true") {
				t.Fatalf("oracle: the partitions where %s has not caught up are %q; the table says caught_up = %s", group, caught, s.want.caughtUp)
			}
			provider := "provider \"kafka\" {}" // the recipes': KAFKA_BOOTSTRAP_SERVERS
			switch {
			case s.limited:
				user, password := k.LimitedUser(nil, []string{topic})
				provider = limitedProvider(acctest.Auth(t), user, password)
			case s.hidden:
				user, password := k.LimitedUser([]string{group, group + "-v2"}, []string{topic})
				k.AllowClusterDescribe(user, password)
				provider = limitedProvider(acctest.Auth(t), user, password)
			}
			runTruthRow(t, k, s, topic, group, provider)
		})
	}
}

// runTruthRow asserts one row: the expressions in one plan, then the wait, then each recipe.
func runTruthRow(t *testing.T, k *acctest.Kafka, s readerState, topic, group, provider string) {
	verdict := verdictOracle{k, group, s.share, []string{topic}}
	expressions := resource.TestStep{
		Config: truthExpressionsConfig(s, topic, group, provider),
		ConfigStateChecks: append(verdict.stateChecks("data.kafka_consumer_group_offsets.g"),
			outputIs("caught_up", s.want.caughtUp), outputIs("total_lag_zero", s.want.totalLagZero),
			outputIs("time_lag_within", s.want.timeLagWithin), outputIs("groups_caught_up", s.want.groupsCaughtUp),
			outputIs("no_readers", s.want.noReaders), outputIs("drained", s.want.drained),
			outputIs("same_reasons", "true"), outputIs("same_time_lag", "true"), outputIs("same_top_level", "true")),
	}
	refused := regexp.MustCompile(`(?s)(Kafka broker refused the request.*GROUP_AUTHORIZATION_FAILED|Not authorized to list every consumer group)`)
	wait := resource.TestStep{Config: truthWaitConfig(s, topic, group, provider)}
	switch {
	case s.want.caughtUp == "error": // every read fails: the plan stops at the first
		expressions.ConfigStateChecks, expressions.ExpectError = nil, refused
		wait.ExpectError = refused
	case s.hidden: // the oracle over the named topic says caught up; the verdict covers every topic
		expressions.ConfigStateChecks = append(expressions.ConfigStateChecks[2:], unseenVerdict("data.kafka_consumer_group_offsets.g"))
		wait.ExpectError = waitBlocked(`topics\s+not\s+seen:\s+the\s+provider's\s+principal\s+may\s+not\s+DESCRIBE`)
	case s.want.caughtUp == "true":
		wait.ConfigStateChecks = verdict.stateChecks("data.kafka_consumer_group_offsets.w")
	default: // the wait names every partition the oracle names, as not_caught_up does
		var names []string
		for _, p := range k.GroupNotCaughtUp(group, s.share, topic) {
			names = append(names, regexp.QuoteMeta(p)+`:`)
		}
		wait.ExpectError = waitBlocked(strings.Join(names, `.*`))
	}
	steps := []resource.TestStep{expressions, wait}
	blocked := func(what string) *regexp.Regexp {
		return regexp.MustCompile(`(?s)Resource precondition failed.*` + regexp.QuoteMeta(group) + `\S*\s+` + what)
	}
	recipe := func(name string, step resource.TestStep) resource.TestStep {
		step.ConfigDirectory = renamedRecipe(t, name, topic, group, provider)
		step.ConfigVariables = config.Variables{"release": config.StringVariable("v2")}
		if name == "live-topic-time-lag" { // its wait on (at the log end, "<group>-v2" returns at once)
			step.ConfigVariables["wait_for_catch_up"] = config.BoolVariable(true)
		}
		return step
	}
	// A check block's data source is read during apply and shows as a change in every plan.
	lagCheck := checkResult{name: "orders_consumer_caught_up", failed: s.want.checkLag == "warns", mentions: &verdict}
	if s.limited { // the warning is the read's error
		lagCheck.mentions, lagCheck.says = nil, "GROUP_AUTHORIZATION_FAILED"
	}
	checkLag := resource.TestStep{ExpectNonEmptyPlan: true, ConfigStateChecks: []statecheck.StateCheck{lagCheck}}
	rollout, live := resource.TestStep{}, resource.TestStep{}
	switch s.want.rollout {
	case "blocks":
		rollout.ExpectError = blocked(`has\s+not\s+caught\s+up\s+on\s+` + regexp.QuoteMeta(topic))
	case "errors":
		rollout.ExpectError = refused
	}
	switch s.want.liveTopic {
	case "blocks":
		live.ExpectError = blocked(`(is\s+\d+\s+ms\s+behind|time\s+lag\s+on\s+` + regexp.QuoteMeta(topic) + `\s+is\s+unknown)`)
	case "errors":
		live.ExpectError = refused
	}
	steps = append(steps, recipe("check-lag", checkLag), recipe("rollout-precondition", rollout), recipe("live-topic-time-lag", live))
	for i := range steps {
		steps[i].ProtoV6ProviderFactories = protoV6ProviderFactories
	}
	resource.Test(t, resource.TestCase{Steps: steps})
}

// waitBlocked is the wait's error, naming what keeps the group from having caught up.
func waitBlocked(what string) *regexp.Regexp {
	return regexp.MustCompile(`(?s)Consumer group has not caught up.*did\s+not\s+catch\s+up.*not\s+caught\s+up:.*` + what)
}

// unseenVerdict: the read saw not every topic the group reads, and says so first.
func unseenVerdict(addr string) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(addr, tfjsonpath.New("not_caught_up"),
		knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(hiddenTopicsReason)}))
}

// truthSelection is the arguments of a row's group reads: its topic (none for the hidden row,
// whose point is a read without topics) and its isolation level.
func truthSelection(s readerState, topic string) string {
	args := ""
	if !s.hidden {
		args = fmt.Sprintf("topics = [%q]\n", topic)
	}
	if s.readCommitted {
		args += "isolation_level = \"read_committed\"\n"
	}
	return args
}

// truthExpressionsConfig evaluates the plain expressions the docs name, each to "true", "false",
// or "error" where Terraform refuses it; and whether kafka_consumer_group_offsets and
// kafka_consumer_groups give the same reasons and the same time lag (a second apart at most).
func truthExpressionsConfig(s readerState, topic, group, provider string) string {
	return provider + fmt.Sprintf(`
data "kafka_consumer_group_offsets" "g" {
  group_id         = %[2]q
  fetch_timestamps = true
  %[3]s
}
data "kafka_consumer_groups" "readers" {
  fetch_timestamps = true
  %[3]s
  %[4]s
}
data "kafka_topic_offsets" "t" {
  topic = %[1]q
}
locals {
  g       = data.kafka_consumer_group_offsets.g
  entries = [for r in data.kafka_consumer_groups.readers.groups : r if r.group_id == %[2]q]
  listed  = [for r in local.entries : r.caught_up]
  other   = length(local.entries) == 0 ? null : local.entries[0]
  top     = data.kafka_consumer_groups.readers
}
output "caught_up" { value = tostring(local.g.caught_up) }
output "total_lag_zero" { value = can(local.g.total_lag == 0) ? tostring(local.g.total_lag == 0) : "error" }
output "time_lag_within" { value = can(local.g.max_time_lag_ms <= 60000) ? tostring(local.g.max_time_lag_ms <= 60000) : "error" }
output "groups_caught_up" { value = length(local.listed) == 0 ? "not listed" : tostring(local.listed[0]) }
output "no_readers" { value = tostring(length(data.kafka_consumer_groups.readers.groups) == 0) }
output "drained" { value = tostring(data.kafka_topic_offsets.t.message_count == 0) }
# The topics a read could not see are named as the broker says at each read: other tests add topics
# between the two reads, so that line is compared for its presence.
output "same_reasons" {
  value = tostring(local.other != null && (
    jsonencode([for r in local.g.not_caught_up : startswith(r, "topics not seen: ") ? "topics not seen" : r]) ==
  jsonencode([for r in try(local.other.not_caught_up, []) : startswith(r, "topics not seen: ") ? "topics not seen" : r])))
}
# The top-level verdict over the groups selected (this group and the rollout's -v2, or none) says
# what their entries say: one line per group behind, its first three reasons.
output "same_top_level" {
  value = tostring(local.top.caught_up == (length(local.top.groups) > 0 && alltrue([for r in local.top.groups : r.caught_up])) &&
    jsonencode(local.top.group_ids) == jsonencode([for r in local.top.groups : r.group_id]) && (length(local.top.groups) == 0
      ? length(local.top.not_caught_up) == 1 && try(startswith(local.top.not_caught_up[0], "no group selected: "), false)
      : jsonencode([for l in local.top.not_caught_up : replace(l, "/topics not seen: [^;]*/", "topics not seen")]) == jsonencode([
        for r in local.top.groups : replace("${r.group_id}: ${join("; ", slice(r.not_caught_up, 0, min(3, length(r.not_caught_up))))}${
  length(r.not_caught_up) > 3 ? "; and ${length(r.not_caught_up) - 3} more" : ""}", "/topics not seen: [^;]*/", "topics not seen") if !r.caught_up])))
}
output "same_time_lag" {
  value = tostring(local.other != null && (local.g.max_time_lag_ms == null ? try(local.other.max_time_lag_ms, 0) == null : (
    try(local.other.max_time_lag_ms, null) != null && abs(local.g.max_time_lag_ms - try(local.other.max_time_lag_ms, 0)) < 5000)))
}
`, topic, group, truthSelection(s, topic), groupsOnly(s, group))
}

// groupsOnly is, for the hidden row's principal, which may DESCRIBE its own groups only, the
// selection of its group: kafka_consumer_groups without topics reads every group otherwise.
func groupsOnly(s readerState, group string) string {
	if !s.hidden {
		return ""
	}
	return fmt.Sprintf("group_id_regex = %q", regexp.QuoteMeta(group))
}

// truthWaitConfig reads the row's group with a wait block that gives up after 2 s: it returns at
// once where the verdict is caught up, and fails naming the verdict's reasons where it is not.
func truthWaitConfig(s readerState, topic, group, provider string) string {
	return provider + fmt.Sprintf(`
data "kafka_consumer_group_offsets" "w" {
  group_id         = %q
  fetch_timestamps = true
  %s
  wait {
    enabled       = true
    timeout       = "2s"
    poll_interval = "1s"
  }
}
`, group, truthSelection(s, topic))
}

func outputIs(name, want string) statecheck.StateCheck {
	return statecheck.ExpectKnownOutputValue(name, knownvalue.StringExact(want))
}

// renamedRecipe is a copy of a recipe of examples/gating with its group and topic renamed, and the
// provider's source the in-process provider's (the test steps name the provider factories).
func renamedRecipe(t *testing.T, name, topic, group, provider string) config.TestStepConfigFunc {
	t.Helper()
	return rewrittenRecipe(t, name, strings.NewReplacer(
		"orders-service", group, `["orders"]`, fmt.Sprintf("[%q]", topic), "on orders", "on "+topic,
		"billing-service", group, "invoices", topic, `provider "kafka" {}`, provider,
	))
}

// checkResult is a state check on a check block's result: failed (the assertion's warning), its
// message naming every partition the oracle (mentions) says the group has not caught up on, or
// saying says; or passed.
type checkResult struct {
	name     string
	failed   bool
	mentions *verdictOracle
	says     string
}

func (c checkResult) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	for _, r := range req.State.Checks {
		if r.Address.Name != c.name {
			continue
		}
		var problems []string
		for _, i := range r.Instances {
			for _, p := range i.Problems {
				problems = append(problems, p.Message)
			}
		}
		msg := strings.Join(problems, "\n")
		if got := string(r.Status); (got == "fail") != c.failed {
			resp.Error = fmt.Errorf("check %s: status %s (%s); the table says failed=%v", c.name, got, msg, c.failed)
			return
		}
		if !strings.Contains(msg, c.says) {
			resp.Error = fmt.Errorf("check %s: its message %q does not say %q", c.name, msg, c.says)
			return
		}
		if c.mentions == nil {
			return
		}
		for _, p := range c.mentions.k.GroupNotCaughtUp(c.mentions.group, c.mentions.share, c.mentions.topics...) {
			if !strings.Contains(msg, p+":") {
				resp.Error = fmt.Errorf("check %s: its message %q does not name %s, which the oracle says is not caught up", c.name, msg, p)
				return
			}
		}
		return
	}
	resp.Error = fmt.Errorf("no result for check %s in the state", c.name)
}

// truthTableMarkdown is the table as the guide "What caught up means" prints it.
func truthTableMarkdown() string {
	var b strings.Builder
	b.WriteString("| reader state | `caught_up` | `total_lag == 0` | `max_time_lag_ms <= 60000` | " +
		"`kafka_consumer_groups` `caught_up` | `length(groups) == 0` | `message_count == 0` | " +
		"check-lag | rollout | live topic |\n|---|---|---|---|---|---|---|---|---|---|\n")
	cell := func(v string) string {
		if v == "true" || v == "false" {
			return "`" + v + "`"
		}
		return v
	}
	for _, s := range readerStates {
		w := s.want
		fmt.Fprintf(&b, "| %s |", s.name)
		for _, v := range []string{w.caughtUp, w.totalLagZero, w.timeLagWithin, w.groupsCaughtUp, w.noReaders, w.drained,
			w.checkLag, w.rollout, w.liveTopic} {
			fmt.Fprintf(&b, " %s |", cell(v))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// The guide shows the table that TestAccGatingTruthTable asserts, cell for cell.
func TestTruthTableInGuide(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "caught-up.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	if want := truthTableMarkdown(); !strings.Contains(string(guide), want) {
		t.Errorf("templates/guides/caught-up.md.tmpl does not hold the truth table as the test asserts it; it should read:\n%s", want)
	}
}
