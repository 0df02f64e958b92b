// Helpers that more than one test file of the package uses: provider factories and servers,
// Terraform configurations, state checks against the oracles (kadm, kgo) and error patterns.
package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

func groupConfig(t *testing.T, group string, extra string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_consumer_group_offsets" "test" {
  group_id = %q
  %s
}
`, group, extra)
}

// groupEntry is one expected partition; committed < 0 means no commit (null committed and lag).
type groupEntry struct {
	topic             string
	partition         int64
	committed, latest int64
}

// check is the entry of a read without fetch_timestamps (its time-lag attributes are null) of a
// group without members (no partition assigned).
func (e groupEntry) check() knownvalue.Check {
	return e.checkTime(knownvalue.Null(), knownvalue.Null(), knownvalue.Bool(false))
}

// checkTime is the entry with next_record_timestamp, time_lag_ms and assigned as checked.
func (e groupEntry) checkTime(next, timeLagMs, assigned knownvalue.Check) knownvalue.Check {
	committed, lag := knownvalue.Check(knownvalue.Null()), knownvalue.Check(knownvalue.Null())
	// Caught up: at the latest offset; without a commit, where the partition never held a record
	// (these tests delete none: a latest offset of 0 is an empty log).
	caughtUp := e.committed == e.latest || (e.committed < 0 && e.latest == 0)
	if e.committed >= 0 {
		committed, lag = knownvalue.Int64Exact(e.committed), knownvalue.Int64Exact(e.latest-e.committed)
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"topic": knownvalue.StringExact(e.topic), "partition": knownvalue.Int64Exact(e.partition),
		"committed_offset": committed, "latest_offset": knownvalue.Int64Exact(e.latest), "lag": lag,
		"next_record_timestamp": next, "time_lag_ms": timeLagMs, "assigned": assigned,
		"caught_up": knownvalue.Bool(caughtUp),
	})
}

// ownedOracle checks the assigned attribute of a group's partition against what kadm says the
// group's members own when the check runs.
type ownedOracle struct {
	k            *acctest.Kafka
	group, topic string
	partition    int64
}

func (o ownedOracle) CheckValue(v any) error {
	got, _ := v.(bool)
	want := slices.Contains(o.k.OwnedBy(o.group)[o.topic], int32(o.partition))
	if got != want {
		return fmt.Errorf("assigned of %s/%d: got %v, the oracle (kadm) says %v", o.topic, o.partition, got, want)
	}
	return nil
}

func (o ownedOracle) String() string { return "assigned as the oracle says" }

// expectGroup checks state, total_lag (the sum of the positive lags; null where a member reads a
// partition without a commit) and partitions; the oracle (kadm) must agree on every committed and
// latest offset first.
func expectGroup(t *testing.T, k *acctest.Kafka, group, state string, entries []groupEntry) []statecheck.StateCheck {
	t.Helper()
	const addr = "data.kafka_consumer_group_offsets.test"
	var (
		checks []knownvalue.Check
		total  int64
	)
	for _, e := range entries {
		checks = append(checks, e.checkTime(knownvalue.Null(), knownvalue.Null(), ownedOracle{k, group, e.topic, e.partition}))
		if e.committed >= 0 && e.latest > e.committed {
			total += e.latest - e.committed
		}
	}
	return append([]statecheck.StateCheck{
		groupOracleAgrees{t: t, k: k, group: group, entries: entries},
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("state"), knownvalue.StringExact(state)),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), totalLagOracle{k, group, entries, total}),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions"), knownvalue.ListExact(checks)),
	}, verdictOracle{k, group, false, entryTopics(entries)}.stateChecks(addr)...)
}

// entryTopics is the topics of entries, in order, each once.
func entryTopics(entries []groupEntry) []string {
	var topics []string
	for _, e := range entries {
		if !slices.Contains(topics, e.topic) {
			topics = append(topics, e.topic)
		}
	}
	return topics
}

// limitedProvider is a provider block that reads over SASL/SCRAM as a user of acctest's LimitedUser.
func limitedProvider(auth *acctest.AuthBroker, user, password string) string {
	return fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
  sasl {
    mechanism = "scram-sha-512"
    username  = %q
    password  = %q
  }
}
`, auth.SASLPlaintext, user, password)
}

// limitedGroupConfig reads group as a user of acctest's LimitedUser, with extra arguments.
func limitedGroupConfig(auth *acctest.AuthBroker, user, password, group string) func(extra string) string {
	return func(extra string) string {
		return limitedProvider(auth, user, password) + fmt.Sprintf(`
data "kafka_consumer_group_offsets" "test" {
  group_id = %q
  %s
}
`, group, extra)
	}
}

// produceFake writes n records to one partition of the kfake cluster c (franz-go).
func produceFake(t *testing.T, c *kfake.Cluster, topic string, partition int32, n int) {
	t.Helper()
	records := make([]*kgo.Record, n)
	for i := range records {
		records[i] = &kgo.Record{Topic: topic, Partition: partition, Value: []byte("record")}
	}
	if err := acctest.FakeClient(t, c).ProduceSync(t.Context(), records...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

func consumerGroupsConfig(t *testing.T, args string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_consumer_groups" "test" {
  %s
}
`, args)
}

// groupsEntry is one expected group; topics nil means the oracle's lag over all its topics.
type groupsEntry struct {
	id, state, protocolType string
	topics                  []string
	totalLag                int64
	groupType               string
}

// groupsOracleAgrees asks kadm for each group's state, protocol type (ListGroups) and total lag
// (FetchOffsets and ListEndOffsets) and fails when the broker's answer is not what the test expects.
type groupsOracleAgrees struct {
	k       *acctest.Kafka
	entries []groupsEntry
	filter  []string
}

func (o groupsOracleAgrees) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	listed := o.k.ListedGroups()
	for _, e := range o.entries {
		if got := listed[e.id]; got != [3]string{e.state, e.protocolType, listedType(o.k, e.groupType)} {
			resp.Error = fmt.Errorf("oracle (kadm ListGroups) says group %s is %v; the test expects %s/%q/%q", e.id, got,
				e.state, e.protocolType, listedType(o.k, e.groupType))
			return
		}
		if e.groupType == "share" {
			continue // its lag is kafka-share-groups.sh's, checked by the test
		}
		if lag := o.k.GroupLag(e.id, o.filter...); lag != e.totalLag {
			resp.Error = fmt.Errorf("oracle (kadm) says group %s lags %d; the test expects %d", e.id, lag, e.totalLag)
			return
		}
	}
}

// check is the group's entry, with max_time_lag_ms as checked (null without fetch_timestamps) and
// listed_because as checked. Every partition these groups own has a commit.
func (e groupsEntry) check(k *acctest.Kafka, maxTimeLag, because knownvalue.Check) knownvalue.Check {
	var topics []knownvalue.Check
	for _, t := range e.topics {
		topics = append(topics, knownvalue.StringExact(t))
	}
	return knownvalue.ObjectExact(withVerdict(verdictOracle{k, e.id, e.groupType == "share", e.topics}, map[string]knownvalue.Check{
		"group_id":               knownvalue.StringExact(e.id),
		"state":                  knownvalue.StringExact(e.state),
		"protocol_type":          knownvalue.StringExact(e.protocolType),
		"group_type":             groupTypeCheck(k, e.groupType),
		"topics":                 knownvalue.ListExact(topics),
		"listed_because":         because,
		"uncommitted_partitions": knownvalue.Int64Exact(0),
		"total_lag":              groupsTotalLagOracle{k: k, group: e.id, topics: e.topics, share: e.groupType == "share", sum: e.totalLag},
		"max_time_lag_ms":        maxTimeLag,
	}))
}

// groupsTotalLagOracle is a kafka_consumer_groups entry's total_lag as kadm's offsets say: sum
// (the test's, which groupsOracleAgrees checks against kadm) where every partition of topics is
// at a commit inside its log or holds no record, null otherwise, and null without topics. A share group's positions are not
// commits: its test checks them.
type groupsTotalLagOracle struct {
	k      *acctest.Kafka
	group  string
	topics []string
	share  bool
	sum    int64
}

func (o groupsTotalLagOracle) CheckValue(v any) error {
	if len(o.topics) == 0 { // no partition read: no figure
		return knownvalue.Null().CheckValue(v)
	}
	committed := o.k.GroupCommitted(o.group)
	for _, topic := range o.topics {
		for p := range int32(o.k.PartitionCount(topic)) {
			c, ok := committed[topic][p]
			if !o.share && unmeasured(o.k, topic, p, c, ok && c >= 0) {
				return knownvalue.Null().CheckValue(v)
			}
		}
	}
	return knownvalue.Int64Exact(o.sum).CheckValue(v)
}

func (o groupsTotalLagOracle) String() string { return "total_lag as kadm's offsets say" }

// unmeasured: kadm says the partition is behind by no lag: it holds records and the group has
// no commit there, or the commit lies outside its log.
func unmeasured(k *acctest.Kafka, topic string, partition int32, committed int64, has bool) bool {
	earliest, latest := k.Offsets(topic, partition)
	if !has {
		return latest > earliest
	}
	return committed < earliest || committed > latest
}

// listedType is the group type ListGroups answers for a group of type want: want where the brokers
// serve ListGroups v5 (KIP-1043, Kafka 3.8), "" before.
func listedType(k *acctest.Kafka, want string) string {
	if !k.ListsGroupTypes() {
		return ""
	}
	return want
}

// groupTypeCheck is group_type for a group of type want: want where the brokers say group types
// (ListGroups v5, Kafka 3.8), null before, as documented.
func groupTypeCheck(k *acctest.Kafka, want string) knownvalue.Check {
	if listedType(k, want) == "" {
		return knownvalue.Null()
	}
	return knownvalue.StringExact(want)
}

// withVerdict adds the verdict's checks to an entry's.
func withVerdict(o verdictOracle, checks map[string]knownvalue.Check) map[string]knownvalue.Check {
	maps.Copy(checks, o.checks())
	return checks
}

// because is listed_because as the oracle sees it when the check runs: "assigned" when kadm
// describes a member of the group owning a partition of filter (of any topic without one),
// "committed" when the test expects commits (topics).
func (e groupsEntry) because(k *acctest.Kafka, filter []string) knownvalue.Check {
	return oracleStrings{what: "listed_because of " + e.id, want: func() []string {
		out := []string{}
		if k.Owns(e.id, filter...) {
			out = append(out, "assigned")
		}
		if len(e.topics) > 0 {
			out = append(out, "committed")
		}
		return out
	}}
}

func expectGroups(k *acctest.Kafka, filter []string, want []groupsEntry) []statecheck.StateCheck {
	var entries []knownvalue.Check
	for _, e := range want {
		entries = append(entries, e.check(k, knownvalue.Null(), e.because(k, filter)))
	}
	ids := []knownvalue.Check{}
	for _, e := range want {
		ids = append(ids, knownvalue.StringExact(e.id))
	}
	top := groupsVerdictOracle{k: k, entries: want}
	return []statecheck.StateCheck{
		groupsOracleAgrees{k: k, entries: want, filter: filter},
		statecheck.ExpectKnownValue("data.kafka_consumer_groups.test", tfjsonpath.New("groups"), knownvalue.ListExact(entries)),
		statecheck.ExpectKnownValue("data.kafka_consumer_groups.test", tfjsonpath.New("group_ids"), knownvalue.ListExact(ids)),
		statecheck.ExpectKnownValue("data.kafka_consumer_groups.test", tfjsonpath.New("caught_up"), top),
		statecheck.ExpectKnownValue("data.kafka_consumer_groups.test", tfjsonpath.New("not_caught_up"), groupsNotCaughtUpOracle{top}),
	}
}

// groupsVerdictOracle is kafka_consumer_groups' top-level caught_up as kadm's offsets say: true
// only when groups are selected and each is caught up.
type groupsVerdictOracle struct {
	k       *acctest.Kafka
	entries []groupsEntry
}

// behind is the id of every selected group kadm says is not caught up, in order.
func (o groupsVerdictOracle) behind() []string {
	var ids []string
	for _, e := range o.entries {
		if behind := o.k.GroupNotCaughtUp(e.id, e.groupType == "share", e.topics...); behind == nil || len(behind) > 0 {
			ids = append(ids, e.id)
		}
	}
	return ids
}

func (o groupsVerdictOracle) CheckValue(v any) error {
	if behind := o.behind(); v != (len(o.entries) > 0 && len(behind) == 0) {
		return fmt.Errorf("caught_up over the groups is %v; the oracle (kadm) says %d groups are selected, %q not caught up", v, len(o.entries), behind)
	}
	return nil
}

func (o groupsVerdictOracle) String() string {
	return "caught_up over the groups as kadm's offsets say"
}

// groupsNotCaughtUpOracle: one line per group the oracle says is behind, each starting with its
// id; one "no group selected" line when none is selected.
type groupsNotCaughtUpOracle struct{ groupsVerdictOracle }

func (o groupsNotCaughtUpOracle) CheckValue(v any) error {
	list, _ := v.([]any)
	want := o.behind()
	prefix := func(id string) string { return id + ": " }
	if len(o.entries) == 0 {
		want, prefix = []string{"no group selected: "}, func(s string) string { return s }
	}
	if len(list) != len(want) {
		return fmt.Errorf("not_caught_up over the groups is %q; the oracle (kadm) says these are behind: %q", list, want)
	}
	for i, line := range list {
		if s, _ := line.(string); !strings.HasPrefix(s, prefix(want[i])) {
			return fmt.Errorf("not_caught_up[%d] is %q; want it to start %q", i, s, prefix(want[i]))
		}
	}
	return nil
}

func (o groupsNotCaughtUpOracle) String() string {
	return "not_caught_up over the groups as kadm's offsets say"
}

// oracleAgrees is a state check that asks franz-go's kadm, not our code, for the partition's
// offsets and fails when the broker's answer is not the one the test expects.
type oracleAgrees struct {
	t                *testing.T
	k                *acctest.Kafka
	topic            string
	partition        int32
	earliest, latest int64
}

var _ statecheck.StateCheck = oracleAgrees{}

func (o oracleAgrees) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	e, l := o.k.Offsets(o.topic, o.partition)
	if e != o.earliest || l != o.latest {
		resp.Error = fmt.Errorf("oracle (kadm) says %s/%d has earliest %d, latest %d; the test expects %d/%d",
			o.topic, o.partition, e, l, o.earliest, o.latest)
	}
}

// groupOracleAgrees asks kadm for the group's commits and each partition's high watermark.
type groupOracleAgrees struct {
	t       *testing.T
	k       *acctest.Kafka
	group   string
	entries []groupEntry
}

func (o groupOracleAgrees) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	committed := o.k.GroupCommitted(o.group)
	for _, e := range o.entries {
		got, ok := committed[e.topic][int32(e.partition)]
		if !ok || got < 0 {
			got = -1
		}
		_, latest := o.k.Offsets(e.topic, int32(e.partition))
		if got != e.committed || latest != e.latest {
			resp.Error = fmt.Errorf("oracle (kadm) says group %s on %s/%d has committed %d, latest %d; the test expects %d, %d",
				o.group, e.topic, e.partition, got, latest, e.committed, e.latest)
			return
		}
	}
}

// franzPartition is franz-go's Kafka-compatible partitioner's choice for key: an independent
// implementation of the Java client's murmur2 partitioning.
func franzPartition(key string, partitions int) int64 {
	return int64(kgo.StickyKeyPartitioner(nil).ForTopic("t").Partition(&kgo.Record{Key: []byte(key)}, partitions))
}

// expectOffsets checks the data source's state and, first, that the independent oracle (kadm)
// agrees with the expected values: the test's numbers are the broker's, not ours.
func expectOffsets(t *testing.T, k *acctest.Kafka, address, topic string, partition int32, earliest, latest int64) []statecheck.StateCheck {
	t.Helper()
	return []statecheck.StateCheck{
		oracleAgrees{t: t, k: k, topic: topic, partition: partition, earliest: earliest, latest: latest},
		statecheck.ExpectKnownValue(address, tfjsonpath.New("earliest_offset"), knownvalue.Int64Exact(earliest)),
		statecheck.ExpectKnownValue(address, tfjsonpath.New("latest_offset"), knownvalue.Int64Exact(latest)),
	}
}

// liveOffsets checks a partition that others write while the test runs: __consumer_offsets, which
// every group's commit appends to, from tests running beside this one. Its offsets move between the
// oracle's read and the provider's, so the check is that the provider's lie between what kadm reads
// before the plan (Before, a step's PreConfig) and what it reads at the check, after the plan.
type liveOffsets struct {
	k         *acctest.Kafka
	topic     string
	partition int32
	before    [2]int64 // earliest, latest
}

// Before reads the oracle's offsets before the plan.
func (l *liveOffsets) Before() { l.before[0], l.before[1] = l.k.Offsets(l.topic, l.partition) }

// checks are the state checks of the earliest and latest offsets at the paths given.
func (l *liveOffsets) checks(address string, earliest, latest tfjsonpath.Path) []statecheck.StateCheck {
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(address, earliest, knownvalue.Int64Func(func(v int64) error { return l.within(v, 0) })),
		statecheck.ExpectKnownValue(address, latest, knownvalue.Int64Func(func(v int64) error { return l.within(v, 1) })),
	}
}

func (l *liveOffsets) within(got int64, which int) error {
	e, lt := l.k.Offsets(l.topic, l.partition)
	after := [2]int64{e, lt}[which]
	if got < l.before[which] || got > after {
		return fmt.Errorf("%s/%d: %s offset %d, but kadm read %d before the plan and %d after it",
			l.topic, l.partition, [2]string{"earliest", "latest"}[which], got, l.before[which], after)
	}
	return nil
}

// errorLike matches an error that holds each phrase in order; Terraform wraps long lines, so any
// run of white space in a phrase matches any other.
func errorLike(phrases ...string) *regexp.Regexp {
	parts := make([]string, len(phrases))
	for i, p := range phrases {
		words := strings.Fields(p)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		parts[i] = strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, ".*"))
}

// oracleSays fails the step when the broker, asked through franz-go, does not answer want.
type oracleSays struct {
	what string
	got  func() int64
	want int64
}

// check asks the oracle until it says want, for up to oracleSettle: a broker under load (CI's
// legs side by side) once answered the max-timestamp lookup -1 right after the records it was
// asked about were acknowledged, and a moment later right.
func (o oracleSays) check(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(oracleSettle)
	for {
		got := o.got()
		if got == o.want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("oracle: %s is %d, the test expects %d", o.what, got, o.want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// oracleSettle bounds how long an oracle may take to see what the test arranged.
const oracleSettle = 5 * time.Second

// authTopic is a topic with 5 records of which the first 2 are deleted: earliest 2, latest 5.
func authTopic(t *testing.T) (*acctest.Kafka, string) {
	t.Helper()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	k.Produce(topic, 0, 5)
	k.DeleteRecordsBefore(topic, 0, 2)
	return k, topic
}

// scramStep is step where the brokers keep SCRAM credentials or blocks log in otherwise. Where they
// keep none (acctest's SCRAMMissing: KRaft before Kafka 3.5), a SCRAM login with the right password
// is refused as any wrong one is, and the step expects that error instead of its checks.
func scramStep(k *acctest.Kafka, blocks string, step resource.TestStep) resource.TestStep {
	if !strings.Contains(strings.ToLower(blocks), "scram") || k.SCRAMMissing() == "" {
		return step
	}
	step.ConfigStateChecks = nil
	step.ExpectError = errorLike("Kafka authentication failed", "the broker says",
		"Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-",
		"Check username and password")
	return step
}

// authConfig is a provider block with the given address and inner blocks, and one data source.
func authConfig(addr, blocks, topic string) string {
	return fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
  timeout           = "20s"
%s
}

data "kafka_partition_offsets" "test" {
  topic     = %q
  partition = 0
}
`, addr, blocks, topic)
}

// nullConfig is a provider block that sets nothing: every value comes from the environment.
func nullConfig() providerModel {
	return providerModel{BootstrapServers: types.ListNull(types.StringType), ClientID: types.StringNull(),
		Timeout: goDurationValue{timetypes.NewGoDurationNull()}}
}

// checkDiagnostics fails on a diagnostic with a raw control character or off its attribute.
func checkDiagnostics(t *testing.T, diags diag.Diagnostics, attr ...path.Path) {
	t.Helper()
	for _, d := range diags {
		if r := controlRune(d.Summary() + d.Detail()); r >= 0 {
			t.Fatalf("diagnostic holds the control character %U: %q: %q", r, d.Summary(), d.Detail())
		}
		wp, ok := d.(diag.DiagnosticWithPath)
		if !ok || !slices.ContainsFunc(attr, func(p path.Path) bool { return p.Equal(wp.Path()) || wp.Path().ParentPath().Equal(p) }) {
			t.Fatalf("diagnostic %q is not on %v", d.Summary(), attr)
		}
	}
}

var protoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	// the server main.go serves (server.go), so that every acceptance test goes through it
	"kafka": func() (tfprotov6.ProviderServer, error) { return Server("test")(), nil },
}

// clientCounter is a provider factory that counts provider instances and Kafka clients built.
type clientCounter struct {
	mu        sync.Mutex
	providers int
	clients   int
}

func (c *clientCounter) factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"kafka": func() (tfprotov6.ProviderServer, error) {
			c.mu.Lock()
			c.providers++
			c.mu.Unlock()
			p := &KafkaProvider{version: "test", newClient: func(cfg kafkaclient.Config) (*kafkaclient.Client, error) {
				c.mu.Lock()
				c.clients++
				c.mu.Unlock()
				return kafkaclient.New(cfg)
			}}
			return providerserver.NewProtocol6WithError(p)()
		},
	}
}

func (c *clientCounter) counts() (providers, clients int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.providers, c.clients
}

// configuredServer is a new provider server configured with providerConfig (attributes not
// given are null), as Terraform would, and its schemas. Configuration diagnostics fail the test.
func configuredServer(t testing.TB, providerConfig map[string]tftypes.Value) (tfprotov6.ProviderServer, *tfprotov6.GetProviderSchemaResponse) {
	t.Helper()
	ctx := context.Background()
	srv, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	configured, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
		TerraformVersion: "1.9.0",
		Config:           dynamicValue(t, schemas.Provider, providerConfig),
	})
	if err != nil || len(configured.Diagnostics) > 0 {
		t.Fatalf("configure the provider: %v %s", err, diagText(configured.Diagnostics))
	}
	return srv, schemas
}

// dynamicValue encodes an object of schema's type: the attributes in set, null for the others.
func dynamicValue(t testing.TB, schema *tfprotov6.Schema, set map[string]tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	typ, ok := schema.ValueType().(tftypes.Object)
	if !ok {
		t.Fatalf("schema type %s is not an object", schema.ValueType())
	}
	values := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range set {
		if _, ok := typ.AttributeTypes[name]; !ok {
			t.Fatalf("no attribute %q in the schema", name)
		}
		values[name] = v
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, values))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// withoutTieredOffsets adds the three tiered-storage attributes of a partition, null, to checks.
func withoutTieredOffsets(checks map[string]knownvalue.Check) map[string]knownvalue.Check {
	maps.Copy(checks, map[string]knownvalue.Check{"earliest_local_offset": knownvalue.Null(),
		"latest_tiered_offset": knownvalue.Null(), "earliest_pending_upload_offset": knownvalue.Null()})
	return checks
}

const groupAddr = "data.kafka_consumer_group_offsets.test"

// readWindow brackets the data source's read: from is taken before the step (PreConfig), the
// end when the check runs, after the read.
type readWindow struct{ from time.Time }

func (w *readWindow) open() { w.from = time.Now() }

// lagSince checks that a time_lag_ms is the read's time minus the timestamp of next, in
// milliseconds. next is read when the check runs: a test may learn it during the step.
type lagSince struct {
	w    *readWindow
	next *acctest.Record
}

var _ knownvalue.Check = lagSince{}

func (c lagSince) CheckValue(v any) error {
	n, ok := v.(json.Number)
	if !ok {
		return fmt.Errorf("expected a number of milliseconds, got %T %v", v, v)
	}
	got, err := n.Int64()
	if err != nil {
		return err
	}
	if c.w.from.IsZero() {
		return fmt.Errorf("the test did not open its read window (PreConfig)")
	}
	ts := c.next.Timestamp.UnixMilli()
	lo, hi := c.w.from.UnixMilli()-ts, time.Now().UnixMilli()-ts
	if got < lo || got > hi {
		return fmt.Errorf("time lag %d ms is not the read's time minus %s: between %d and %d", got, c.String(), lo, hi)
	}
	return nil
}

func (c lagSince) String() string { return "the read's time minus " + rfc3339ms(c.next.Timestamp) }

// timestampOf checks that a next_record_timestamp is the timestamp of next, read when the check
// runs.
type timestampOf struct{ next *acctest.Record }

var _ knownvalue.Check = timestampOf{}

func (c timestampOf) CheckValue(v any) error {
	if got, ok := v.(string); !ok || got != c.String() {
		return fmt.Errorf("expected %q, got %T %v", c.String(), v, v)
	}
	return nil
}

func (c timestampOf) String() string { return rfc3339ms(c.next.Timestamp) }

// rfc3339ms writes t as the test expects a record timestamp: RFC 3339, UTC, milliseconds.
func rfc3339ms(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// oracleNext is the record a consumer is given first from offset from (franz-go), which must be
// the one the test arranged there: offset and timestamp.
func oracleNext(t *testing.T, k *acctest.Kafka, topic string, partition int32, from int64, isolation int8, offset int64, ts time.Time) *acctest.Record {
	t.Helper()
	next := k.NextRecord(topic, partition, from, isolation)
	if next == nil || next.Offset != offset || (!ts.IsZero() && !next.Timestamp.Equal(ts)) {
		t.Fatalf("oracle: a consumer of %s/%d from %d (isolation %d) is given %+v; the test arranged offset %d at %s",
			topic, partition, from, isolation, next, offset, ts)
	}
	return next
}

// timedEntry is an expected partition with fetch_timestamps: its offsets, and the record the
// oracle gives a consumer at its commit (nil: none, caught up; ignored without a commit).
type timedEntry struct {
	groupEntry
	next *acctest.Record
}

func (e timedEntry) check(w *readWindow, assigned knownvalue.Check) knownvalue.Check {
	switch {
	case e.committed < 0: // no commit: the age is unknown
		return e.checkTime(knownvalue.Null(), knownvalue.Null(), assigned)
	case e.next == nil: // caught up
		return e.checkTime(knownvalue.Null(), knownvalue.Int64Exact(0), assigned)
	}
	return e.checkTime(timestampOf{e.next}, lagSince{w, e.next}, assigned)
}

// expectTimeLag checks a kafka_consumer_group_offsets read with fetch_timestamps at addr: state,
// total_lag and partitions as expectGroup does (kadm agreeing), each partition's time attributes,
// and max_time_lag_ms: null when a partition has no commit, else the largest time lag.
func expectTimeLag(t *testing.T, k *acctest.Kafka, addr, group, state string, w *readWindow, entries []timedEntry) []statecheck.StateCheck {
	t.Helper()
	var (
		plain       []groupEntry
		checks      []knownvalue.Check
		total       int64
		uncommitted bool
		oldest      = -1 // the entry whose next record is the oldest: it has the largest time lag
	)
	for i, e := range entries {
		plain, checks = append(plain, e.groupEntry), append(checks, e.check(w, ownedOracle{k, group, e.topic, e.partition}))
		if e.committed >= 0 && e.latest > e.committed {
			total += e.latest - e.committed
		}
		switch {
		case e.committed < 0:
			uncommitted = true
		case e.next != nil && (oldest < 0 || e.next.Timestamp.Before(entries[oldest].next.Timestamp)):
			oldest = i
		}
	}
	out := append(verdictOracle{k, group, false, entryTopics(plain)}.stateChecks(addr),
		groupOracleAgrees{t: t, k: k, group: group, entries: plain},
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("state"), knownvalue.StringExact(state)),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), totalLagOracle{k, group, plain, total}),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions"), knownvalue.ListExact(checks)),
	)
	maxLag := knownvalue.Check(knownvalue.Int64Exact(0)) // every partition caught up
	switch {
	case uncommitted:
		maxLag = knownvalue.Null()
	case oldest >= 0:
		maxLag = lagSince{w, entries[oldest].next}
		// the very value of that partition, not another computation's
		out = append(out, statecheck.CompareValuePairs(addr, tfjsonpath.New("max_time_lag_ms"),
			addr, tfjsonpath.New("partitions").AtSliceIndex(oldest).AtMapKey("time_lag_ms"), compare.ValuesSame()))
	}
	return append(out, statecheck.ExpectKnownValue(addr, tfjsonpath.New("max_time_lag_ms"), maxLag))
}

// ptrTo is a pointer to a copy of v, for optional fields in test tables.
func ptrTo[T any](v T) *T { return &v }

// verdictOracle checks caught_up and not_caught_up against kadm (acctest.GroupNotCaughtUp), asked
// when the check runs: caught_up is true exactly when the oracle names no partition, and
// not_caught_up has one line per partition it names, in its order, each starting "topic/partition: ".
type verdictOracle struct {
	k      *acctest.Kafka
	group  string
	share  bool
	topics []string
}

// checks is the pair of checks, for an ObjectExact of the group's entry.
func (o verdictOracle) checks() map[string]knownvalue.Check {
	return map[string]knownvalue.Check{"caught_up": caughtUpOracle{o}, "not_caught_up": notCaughtUpOracle{o}}
}

// stateChecks is the pair as state checks of the data source at addr.
func (o verdictOracle) stateChecks(addr string) []statecheck.StateCheck {
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("caught_up"), caughtUpOracle{o}),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("not_caught_up"), notCaughtUpOracle{o}),
	}
}

type caughtUpOracle struct{ verdictOracle }

func (c caughtUpOracle) CheckValue(v any) error {
	behind := c.k.GroupNotCaughtUp(c.group, c.share, c.topics...)
	if got, ok := v.(bool); !ok || got != (behind != nil && len(behind) == 0) {
		return fmt.Errorf("caught_up of %s is %v; the oracle (kadm) names the partitions not caught up: %q", c.group, v, behind)
	}
	return nil
}

func (c caughtUpOracle) String() string { return "caught_up as kadm's offsets say" }

type notCaughtUpOracle struct{ verdictOracle }

func (c notCaughtUpOracle) CheckValue(v any) error {
	behind := c.k.GroupNotCaughtUp(c.group, c.share, c.topics...)
	if behind == nil {
		behind = []string{"no partition"} // the one reason of an empty selection
	}
	list, _ := v.([]any)
	ok := len(list) == len(behind)
	for i := 0; ok && i < len(list); i++ {
		s, _ := list[i].(string)
		ok = strings.HasPrefix(s, behind[i]+": ")
	}
	if !ok {
		return fmt.Errorf("not_caught_up of %s is %q; the oracle (kadm) names %q", c.group, list, behind)
	}
	return nil
}

func (c notCaughtUpOracle) String() string {
	return "not_caught_up naming the partitions kadm's offsets say"
}
