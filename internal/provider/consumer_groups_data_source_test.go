package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// oracleStrings is a list of strings that want, asked when the check runs, gives.
type oracleStrings struct {
	what string
	want func() []string
}

func (c oracleStrings) CheckValue(v any) error {
	list, _ := v.([]any)
	got := make([]string, 0, len(list))
	for _, s := range list {
		str, _ := s.(string)
		got = append(got, str)
	}
	if diff := cmp.Diff(c.want(), got, cmpopts.EquateEmpty()); diff != "" {
		return fmt.Errorf("%s differs from the oracle (-oracle +got):\n%s", c.what, diff)
	}
	return nil
}

func (c oracleStrings) String() string { return c.what + " as the oracle says" }

// Groups of every kind on three topics: a live classic consumer group, a live KIP-848 consumer
// group, an admin-only commit, a Kafka Connect-like group (protocol "connect", no commits) and a
// group whose id matches the pattern only as a substring. Filtered by id (whole match) and by
// topic; every figure confirmed by kadm.
func TestAccConsumerGroups_kindsAndFilters(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	prefix := acctest.TopicName(t, "")
	a := k.CreateTopic(prefix+"-a", 2, nil)
	b := k.CreateTopic(prefix+"-b", 1, nil)
	c := k.CreateTopic(prefix+"-c", 1, nil)
	unread := k.CreateTopic(prefix+"-d", 1, nil)
	classic, nextGen, admin, connect := prefix+"-g1-classic", prefix+"-g2-848", prefix+"-g3-admin", prefix+"-g4-connect"
	k.Produce(a, 0, 5)
	k.Produce(a, 1, 3)
	k.Produce(b, 0, 4)
	k.Produce(c, 0, 6)
	k.Consumer(classic, 8, a) // live; commits 5 and 3
	// Kafka 3.x serves KIP-848 groups only when enabled: there, the group is an admin commit.
	nextGenState, nextGenProtocol, nextGenType := "Empty", "", "classic"
	if k.SupportsNextGenGroups() {
		k.NextGenConsumer(nextGen, 4, b)
		k.WaitForNextGenGroup(nextGen, "Stable")
		nextGenState, nextGenProtocol, nextGenType = "Stable", "consumer", "consumer"
	} else {
		t.Log("the broker does not run KIP-848 consumer groups (feature group.version off); committing as an admin instead")
		k.CommitOffsets(nextGen, map[string]map[int32]int64{b: {0: 4}})
	}
	k.CommitOffsets(admin, map[string]map[int32]int64{a: {0: 1}, c: {0: 2}})
	k.CommitOffsets("x"+prefix+"-g5", map[string]map[int32]int64{a: {0: 0}})
	k.ConnectLikeMember(connect)
	k.Produce(a, 0, 2) // classic lags 2 on a; admin lags 6 on a and 4 on c
	k.Produce(b, 0, 1) // the KIP-848 group lags 1

	byID := fmt.Sprintf("group_id_regex = %q", regexp.QuoteMeta(prefix)+"-g.*")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: consumerGroupsConfig(t, byID),
				ConfigStateChecks: expectGroups(k, nil, []groupsEntry{
					{classic, "Stable", "consumer", []string{a}, 2, "classic"},
					{nextGen, nextGenState, nextGenProtocol, []string{b}, 1, nextGenType},
					{admin, "Empty", "", []string{a, c}, 10, "classic"},
					{connect, "Stable", "connect", nil, 0, "classic"},
				}),
			},
			{
				Config: consumerGroupsConfig(t, fmt.Sprintf("%s\n  topics = [%q]", byID, a)),
				ConfigStateChecks: expectGroups(k, []string{a}, []groupsEntry{
					{classic, "Stable", "consumer", []string{a}, 2, "classic"},
					{admin, "Empty", "", []string{a}, 6, "classic"},
				}),
			},
			{
				// Only the topic filter: these topics are this test's, so only its groups have commits there.
				Config: consumerGroupsConfig(t, fmt.Sprintf("topics = [%q, %q]", b, c)),
				ConfigStateChecks: expectGroups(k, []string{b, c}, []groupsEntry{
					{nextGen, nextGenState, nextGenProtocol, []string{b}, 1, nextGenType},
					{admin, "Empty", "", []string{c}, 4, "classic"},
				}),
			},
			{
				// A topic nobody reads: no group, and so not caught up over the groups, saying why.
				Config:            consumerGroupsConfig(t, fmt.Sprintf("topics = [%q]", unread)),
				ConfigStateChecks: expectGroups(k, []string{unread}, nil),
			},
			{
				Config:      consumerGroupsConfig(t, fmt.Sprintf("topics = [%q]", prefix+"-missing")),
				ExpectError: errorLike("Topic not found", prefix+"-missing"),
			},
		},
	})
}

// The read leaves live groups as they were: state, members and commits unchanged.
func TestAccConsumerGroups_readOnly(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	group := topic + "-group"
	k.Produce(topic, 0, 3)
	consumer := k.Consumer(group, 3, topic)
	stateBefore, membersBefore := k.DescribeGroup(group)
	_, generationBefore := consumer.GroupMetadata()
	committedBefore := fmt.Sprint(k.GroupCommitted(group))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: consumerGroupsConfig(t, fmt.Sprintf("group_id_regex = %q", regexp.QuoteMeta(group))),
			ConfigStateChecks: expectGroups(k, nil, []groupsEntry{
				{group, "Stable", "consumer", []string{topic}, 0, "classic"},
			}),
		}},
	})
	stateAfter, membersAfter := k.DescribeGroup(group)
	_, generationAfter := consumer.GroupMetadata()
	if stateAfter != stateBefore || strings.Join(membersAfter, ",") != strings.Join(membersBefore, ",") ||
		generationAfter != generationBefore || fmt.Sprint(k.GroupCommitted(group)) != committedBefore {
		t.Fatalf("the group changed: state %s -> %s, members %v -> %v, generation %d -> %d",
			stateBefore, stateAfter, membersBefore, membersAfter, generationBefore, generationAfter)
	}
}

// readerEntry is one expected entry of kafka_consumer_groups.groups for a group that reads
// without (or besides) commits.
type readerEntry struct {
	id, state, protocolType, groupType string
	topics, because                    []string
	uncommitted                        int64
	totalLag                           knownvalue.Check // Null() when uncommitted > 0
}

func (e readerEntry) check(k *acctest.Kafka) knownvalue.Check {
	strs := func(ss []string) knownvalue.Check {
		out := []knownvalue.Check{}
		for _, s := range ss {
			out = append(out, knownvalue.StringExact(s))
		}
		return knownvalue.ListExact(out)
	}
	return knownvalue.ObjectExact(withVerdict(verdictOracle{k, e.id, e.groupType == "share", e.topics}, map[string]knownvalue.Check{
		"group_id":               knownvalue.StringExact(e.id),
		"state":                  knownvalue.StringExact(e.state),
		"protocol_type":          knownvalue.StringExact(e.protocolType),
		"group_type":             groupTypeCheck(k, e.groupType),
		"topics":                 strs(e.topics),
		"listed_because":         strs(e.because),
		"uncommitted_partitions": knownvalue.Int64Exact(e.uncommitted),
		"total_lag":              e.totalLag,
		"max_time_lag_ms":        knownvalue.Null(),
	}))
}

// A group whose running members own a topic's partitions and have committed nothing there (just
// deployed; auto-commit off; offsets kept outside Kafka) still reads the topic.
// kafka-consumer-groups.sh --describe --all-groups lists it; so does kafka_consumer_groups, as
// "assigned", with its lag unknown (null, never 0) where the partitions hold records, and 0 where
// they hold none (it starts there with nothing to read, wherever auto.offset.reset points).
// Ownership and the absence of commits confirmed by kadm; a committed, caught-up group beside it.
func TestAccConsumerGroups_assignedWithoutCommits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		nextGen bool
		kind    string
	}{
		{name: "classic", kind: "classic"},
		{name: "consumer protocol (KIP-848)", nextGen: true, kind: "consumer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := acctest.Connect(t)
			if tc.nextGen && !k.SupportsNextGenGroups() {
				t.Log("the broker does not run KIP-848 consumer groups: the classic case covers this broker")
				return
			}
			prefix := acctest.TopicName(t, "")
			full := k.CreateTopic(prefix+"-full", 3, nil)
			empty := k.CreateTopic(prefix+"-empty", 1, nil)
			for p := range int32(3) {
				k.Produce(full, p, 2)
			}
			reader, idle, done := full+"-reader", empty+"-reader", full+"-done"
			k.AssignedConsumer(reader, tc.nextGen, full)
			k.AssignedConsumer(idle, tc.nextGen, empty)
			k.CommitOffsets(done, map[string]map[int32]int64{full: {0: 2, 1: 2, 2: 2}})
			for _, g := range []string{reader, idle} {
				if c := k.GroupCommitted(g); len(c) != 0 {
					t.Fatalf("oracle: group %s has commits %v; the case needs none", g, c)
				}
			}
			const addr = "data.kafka_consumer_group_offsets.test"
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{{
					// The group's own read: every partition assigned, none committed; the lag unknown.
					Config: groupConfig(t, reader, ""),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("member_count"), knownvalue.Int64Exact(1)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("uncommitted_partitions"), knownvalue.Int64Exact(3)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), knownvalue.Null()),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions"), knownvalue.ListExact([]knownvalue.Check{
							groupEntry{full, 0, -1, 2}.checkTime(knownvalue.Null(), knownvalue.Null(), knownvalue.Bool(true)),
							groupEntry{full, 1, -1, 2}.checkTime(knownvalue.Null(), knownvalue.Null(), knownvalue.Bool(true)),
							groupEntry{full, 2, -1, 2}.checkTime(knownvalue.Null(), knownvalue.Null(), knownvalue.Bool(true)),
						})),
					},
				}, {
					// A partition without records: no lag wherever the group starts.
					Config: groupConfig(t, idle, ""),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("member_count"), knownvalue.Int64Exact(1)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("uncommitted_partitions"), knownvalue.Int64Exact(0)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), knownvalue.Int64Exact(0)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions"), knownvalue.ListExact([]knownvalue.Check{
							groupEntry{empty, 0, -1, 0}.checkTime(knownvalue.Null(), knownvalue.Null(), knownvalue.Bool(true)),
						})),
					},
				}, {
					Config: consumerGroupsConfig(t, fmt.Sprintf("topics = [%q, %q]", full, empty)),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue("data.kafka_consumer_groups.test", tfjsonpath.New("groups"), knownvalue.ListExact([]knownvalue.Check{
							// sorted by id: <prefix>-empty-reader, <prefix>-full-done, <prefix>-full-reader
							readerEntry{id: idle, state: "Stable", protocolType: "consumer", groupType: tc.kind, topics: []string{empty}, because: []string{"assigned"},
								totalLag: knownvalue.Int64Exact(0)}.check(k),
							readerEntry{id: done, state: "Empty", groupType: "classic", protocolType: "", topics: []string{full}, because: []string{"committed"},
								totalLag: knownvalue.Int64Exact(0)}.check(k),
							readerEntry{id: reader, state: "Stable", protocolType: "consumer", groupType: tc.kind, topics: []string{full}, because: []string{"assigned"},
								uncommitted: 3, totalLag: knownvalue.Null()}.check(k),
						})),
						oracleCheck(func() error {
							for g, want := range map[string]map[string][]int32{reader: {full: {0, 1, 2}}, idle: {empty: {0}}} {
								if got := k.Assigned(g, tc.nextGen); fmt.Sprint(got) != fmt.Sprint(want) {
									return fmt.Errorf("oracle (kadm): group %s owns %v, the test expects %v", g, got, want)
								}
							}
							return nil
						}),
					},
				}},
			})
		})
	}
}

// oracleCheck is a state check that asks the oracle, when it runs, whether the cluster is as the
// test arranged it.
type oracleCheck func() error

func (f oracleCheck) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = f()
}

// A streams group (KIP-1071: a Kafka Streams application, group.protocol=streams) reads the source
// topics of its topology: its members own active tasks, and a task reads that partition of each
// source topic. Kafka Streams commits only every commit.interval.ms: an application that has read
// every record and committed none (an hour's interval) is listed as "assigned", its lag unknown
// (null, never 0); one that has committed (every 100 ms) as "assigned" and "committed", caught up.
// Tasks, commits and log ends as Kafka's kafka-streams-groups.sh --describe prints them.
func TestAccConsumerGroups_streamsGroup(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	k.RequireStreamsGroups()
	topic := k.CreateTopic(acctest.TopicName(t, ""), 3, nil)
	for p := range int32(3) {
		k.Produce(topic, p, 2)
	}
	reader, committer := topic+"-reader", topic+"-committer"
	waitReader, waitCommitter := k.StreamsReader(reader, topic, false), k.StreamsReader(committer, topic, true)
	waitReader()
	waitCommitter()
	offsets := func(current int64) map[string]acctest.StreamsOffset {
		out := map[string]acctest.StreamsOffset{}
		for p := range 3 {
			out[fmt.Sprintf("%s/%d", topic, p)] = acctest.StreamsOffset{Current: current, LogEnd: 2, Lag: 2 - max(current, 0)}
		}
		return out
	}
	want := map[string]acctest.StreamsGroup{
		// The tool counts a partition without a commit as lagging by its whole log (OFFSET-LAG 2);
		// CURRENT-OFFSET "-" is what says there is no commit.
		reader:    {State: "Stable", Active: []string{"0:[0,1,2]"}, Offsets: offsets(-1)},
		committer: {State: "Stable", Active: []string{"0:[0,1,2]"}, Offsets: offsets(2)},
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: consumerGroupsConfig(t, fmt.Sprintf("topics = [%q]", topic)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kafka_consumer_groups.test", tfjsonpath.New("groups"), knownvalue.ListExact([]knownvalue.Check{
					// sorted by id: <topic>-committer, <topic>-reader
					readerEntry{id: committer, state: "Stable", protocolType: "streams", groupType: "streams", topics: []string{topic},
						because: []string{"assigned", "committed"}, totalLag: knownvalue.Int64Exact(0)}.check(k),
					readerEntry{id: reader, state: "Stable", protocolType: "streams", groupType: "streams", topics: []string{topic},
						because: []string{"assigned"}, uncommitted: 3, totalLag: knownvalue.Null()}.check(k),
				})),
				oracleCheck(func() error {
					for g, w := range want {
						if diff := cmp.Diff(w, k.DescribeStreamsGroup(g)); diff != "" {
							return fmt.Errorf("oracle (kafka-streams-groups.sh): group %s differs from what the test expects (-want +oracle):\n%s", g, diff)
						}
					}
					return nil
				}),
			},
		}},
	})
}

// BenchmarkReadTopicsSet is one kafka_consumer_groups read whose topics set names every topic of
// a cluster of 50 or 5,000 one-partition topics, through the provider server: the framework's
// handling of a large set argument beside the read itself. It reports the time per topic named.
func BenchmarkReadTopicsSet(b *testing.B) {
	for _, n := range []int{50, 5000} {
		b.Run(fmt.Sprintf("topics=%d", n), func(b *testing.B) {
			names := make([]string, n)
			elems := make([]tftypes.Value, n)
			for i := range names {
				names[i] = fmt.Sprintf("t%05d", i)
				elems[i] = tftypes.NewValue(tftypes.String, names[i])
			}
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, names...))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			servers := tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{tftypes.NewValue(tftypes.String, c.ListenAddrs()[0])})
			srv, schemas := configuredServer(b, map[string]tftypes.Value{"bootstrap_servers": servers})
			config := dynamicValue(b, schemas.DataSourceSchemas["kafka_consumer_groups"], map[string]tftypes.Value{
				"topics": tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, elems)})
			b.ReportAllocs()
			for b.Loop() {
				res, err := srv.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{TypeName: "kafka_consumer_groups", Config: config})
				if err != nil || len(res.Diagnostics) > 0 {
					b.Fatal(err, res.Diagnostics)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/topic")
		})
	}
}

// A principal that may DESCRIBE its own group, not the other group that reads the same topic.
// Without DESCRIBE on the cluster, ListGroups hides the other group: the read fails, saying so,
// rather than answer a list without it. With it, selected by group_id_regex, its own group is
// read (the other is never asked about); selected by topic, the other group might read it, so
// the read fails, naming the ACL to grant, rather than leave a reader out.
func TestAccConsumerGroups_describeOnlyOwnGroup(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	auth := acctest.Auth(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	k.Produce(topic, 0, 3)
	mine, other := topic+"-mine", topic+"-other"
	k.CommitOffsets(mine, map[string]map[int32]int64{topic: {0: 3}})
	k.CommitOffsets(other, map[string]map[int32]int64{topic: {0: 1}})
	user, password := k.LimitedUser([]string{mine}, []string{topic})
	config := func(selection string) string {
		return limitedProvider(auth, user, password) + fmt.Sprintf("data \"kafka_consumer_groups\" \"test\" {\n  %s\n}\n", selection)
	}
	committed := knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("committed")})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(fmt.Sprintf("topics = [%q]", topic)),
				ExpectError: errorLike("Not authorized to list every consumer group",
					"the provider's principal may not DESCRIBE the cluster", fmt.Sprintf("Grant the provider's principal (User:%s)", user),
					fmt.Sprintf("--allow-principal User:%s --operation Describe --cluster", user)),
			},
			{
				// Without topics, the verdict would cover every topic the group reads, and the
				// principal may not DESCRIBE the other tests' topics: not caught up, saying so.
				PreConfig: func() { k.AllowClusterDescribe(user, password) },
				Config:    config(fmt.Sprintf("group_id_regex = %q", regexp.QuoteMeta(mine))),
				ConfigStateChecks: []statecheck.StateCheck{
					groupsOracleAgrees{k: k, entries: []groupsEntry{{mine, "Empty", "", []string{topic}, 0, "classic"}}},
					statecheck.ExpectKnownValue("data.kafka_consumer_groups.test", tfjsonpath.New("groups"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"group_id": knownvalue.StringExact(mine), "topics": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(topic)}),
							"listed_because": committed, "caught_up": knownvalue.Bool(false), "total_lag": knownvalue.Null(),
							"not_caught_up": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(hiddenTopicsReason)}),
						}),
					})),
				},
			},
			{
				Config: config(fmt.Sprintf("topics = [%q]", topic)),
				ExpectError: errorLike("Kafka broker refused the request", "GROUP_AUTHORIZATION_FAILED (error code 30)",
					"needs the ACL operation DESCRIBE on group", fmt.Sprintf("--allow-principal User:%s --operation Describe --group", user)),
			},
		},
	})
}
