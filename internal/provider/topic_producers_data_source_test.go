package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

const producersAddr = "data.kafka_topic_producers.test"

func topicProducersConfig(t *testing.T, args string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_topic_producers" "test" {
  %s
}
`, args)
}

func topicsArg(topics ...string) string {
	quoted := make([]string, len(topics))
	for i, t := range topics {
		quoted[i] = fmt.Sprintf("%q", t)
	}
	return "topics = [" + strings.Join(quoted, ", ") + "]"
}

// expectValue is one attribute of the data source's state.
func expectValue(attr string, want knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(producersAddr, tfjsonpath.New(attr), want)
}

// writersAgree checks every computed attribute against the oracle (kadm: ListOffsets,
// DescribeProducers, ListTransactions, DescribeTransactions), read when the state is checked,
// after the provider's read: nothing writes to the topics in between. The transactions it
// expects are all healthy: the oracle must find each held by its coordinator (the same producer
// id and epoch, Ongoing, with each partition where it is open), so none hangs.
type writersAgree struct {
	t      *testing.T
	k      *acctest.Kafka
	topics []string // sorted
}

func (w writersAgree) CheckState(ctx context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	var (
		topics       []knownvalue.Check
		times        = map[string]knownvalue.Check{}
		last         *time.Time
		unknown      bool // a topic holds records of no known time: every last write above it is null
		held         int64
		open         = map[[2]int64][]knownvalue.Check{} // producer id and epoch: its open partitions
		openOn       = map[[2]int64]kadm.TopicsSet{}     // the same, as the oracle's set
		openByTopic  = map[string]map[[2]int64]bool{}
		transactions []knownvalue.Check
	)
	for _, topic := range w.topics {
		var (
			partitions   []knownvalue.Check
			topicLast    *time.Time
			topicUnknown bool
			topicHeld    int64
			ids          = map[int64]bool{}
		)
		producers := w.k.Producers(topic)
		openByTopic[topic] = map[[2]int64]bool{}
		for p := int32(0); p < int32(len(producers)); p++ {
			hw, _ := w.k.ListOffset(topic, p, -1, 0)
			lso, _ := w.k.ListOffset(topic, p, -1, 1)
			earliest, _ := w.k.ListOffset(topic, p, -2, 0)
			at, ts := w.k.ListOffset(topic, p, -3, 0) // a deleted record's too: it was a write
			var lastWrite knownvalue.Check = knownvalue.Null()
			topicUnknown = topicUnknown || (hw > earliest && (at < 0 || ts < 0))
			if at >= 0 && ts >= 0 {
				tm := time.UnixMilli(ts)
				lastWrite = knownvalue.StringExact(rfc3339ms(tm))
				if topicLast == nil || tm.After(*topicLast) {
					topicLast = &tm
				}
			}
			var ps []knownvalue.Check
			for _, pr := range producers[p] {
				ids[pr.ProducerID] = true
				var start knownvalue.Check = knownvalue.Null()
				if pr.CurrentTxnStartOffset >= 0 {
					start = knownvalue.Int64Exact(pr.CurrentTxnStartOffset)
					key := [2]int64{pr.ProducerID, int64(pr.ProducerEpoch)}
					open[key] = append(open[key], knownvalue.ObjectExact(map[string]knownvalue.Check{
						"topic": knownvalue.StringExact(topic), "partition": knownvalue.Int64Exact(int64(p)),
						"start_offset": knownvalue.Int64Exact(pr.CurrentTxnStartOffset),
					}))
					openByTopic[topic][key] = true
					set := openOn[key]
					set.Add(topic, p)
					openOn[key] = set
				}
				var lastTs knownvalue.Check = knownvalue.Null()
				if pr.LastTimestamp >= 0 {
					lastTs = knownvalue.StringExact(rfc3339ms(time.UnixMilli(pr.LastTimestamp)))
				}
				ps = append(ps, knownvalue.ObjectExact(map[string]knownvalue.Check{
					"producer_id":                      knownvalue.Int64Exact(pr.ProducerID),
					"producer_epoch":                   knownvalue.Int64Exact(int64(pr.ProducerEpoch)),
					"last_sequence":                    knownvalue.Int64Exact(int64(pr.LastSequence)),
					"last_timestamp":                   lastTs,
					"coordinator_epoch":                knownvalue.Int64Exact(int64(pr.CoordinatorEpoch)),
					"current_transaction_start_offset": start,
				}))
			}
			topicHeld += hw - lso
			partitions = append(partitions, knownvalue.ObjectExact(map[string]knownvalue.Check{
				"partition": knownvalue.Int64Exact(int64(p)), "high_watermark": knownvalue.Int64Exact(hw),
				"last_stable_offset": knownvalue.Int64Exact(lso), "held_records": knownvalue.Int64Exact(hw - lso),
				"last_write_time": lastWrite, "producers": knownvalue.ListExact(ps),
			}))
		}
		var topicLastCheck knownvalue.Check = knownvalue.Null()
		unknown = unknown || topicUnknown
		if topicLast != nil && !topicUnknown {
			topicLastCheck = knownvalue.StringExact(rfc3339ms(*topicLast))
			if last == nil || topicLast.After(*last) {
				last = topicLast
			}
		}
		times[topic] = topicLastCheck
		held += topicHeld
		topics = append(topics, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"name": knownvalue.StringExact(topic), "last_write_time": topicLastCheck,
			"active_producers": knownvalue.Int64Exact(int64(len(ids))), "held_records": knownvalue.Int64Exact(topicHeld),
			"open_transactions":    knownvalue.Int64Exact(int64(len(openByTopic[topic]))),
			"hanging_transactions": knownvalue.Int64Exact(0),
			"partitions":           knownvalue.ListExact(partitions),
		}))
	}
	keys := make([][2]int64, 0, len(open))
	for key := range open {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b [2]int64) int { return int(a[0] - b[0]) }) // one transactional id each here
	for _, key := range keys {
		d, listed := w.k.TransactionOf(key[0])
		if !listed {
			resp.Error = fmt.Errorf("oracle: no coordinator lists producer id %d, which has a transaction open", key[0])
			return
		}
		if err := heldByCoordinator(d, key, openOn[key]); err != nil {
			resp.Error = err
			return
		}
		transactions = append(transactions, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"transactional_id": knownvalue.StringExact(d.TxnID), "producer_id": knownvalue.Int64Exact(key[0]),
			"producer_epoch": knownvalue.Int64Exact(key[1]), "state": knownvalue.StringExact(d.State),
			"start_time": knownvalue.StringExact(rfc3339ms(time.UnixMilli(d.StartTimestamp))),
			"timeout_ms": knownvalue.Int64Exact(int64(d.TimeoutMillis)),
			"partitions": knownvalue.ListExact(open[key]), "hanging": knownvalue.Bool(false),
			"hanging_reason": knownvalue.Null(),
		}))
	}
	var lastCheck knownvalue.Check = knownvalue.Null()
	if last != nil && !unknown {
		lastCheck = knownvalue.StringExact(rfc3339ms(*last))
	}
	for _, c := range []statecheck.StateCheck{
		expectValue("selected_topics", knownvalue.ListExact(topics)),
		expectValue("transactions", knownvalue.ListExact(transactions)),
		expectValue("last_write_time", lastCheck),
		expectValue("last_write_times", knownvalue.MapExact(times)),
		expectValue("open_transactions", knownvalue.Int64Exact(int64(len(transactions)))),
		expectValue("hanging_transactions", knownvalue.Int64Exact(0)),
		expectValue("held_records", knownvalue.Int64Exact(held)),
	} {
		c.CheckState(ctx, req, resp)
		if resp.Error != nil {
			return
		}
	}
}

// heldByCoordinator checks that the oracle's coordinator holds producer id and epoch key's
// transaction, Ongoing, with every partition where it is open.
func heldByCoordinator(d kadm.DescribedTransaction, key [2]int64, open kadm.TopicsSet) error {
	if d.ProducerID != key[0] || int64(d.ProducerEpoch) != key[1] || d.State != "Ongoing" {
		return fmt.Errorf("oracle: the coordinator of %s holds producer id %d epoch %d %s, not producer id %d epoch %d Ongoing",
			d.TxnID, d.ProducerID, d.ProducerEpoch, d.State, key[0], key[1])
	}
	var err error
	open.Each(func(topic string, p int32) {
		if !d.Topics.Lookup(topic, p) && err == nil {
			err = fmt.Errorf("oracle: the coordinator of %s does not hold %s/%d, where the transaction is open", d.TxnID, topic, p)
		}
	})
	return err
}

func expectWriters(t *testing.T, k *acctest.Kafka, topics ...string) statecheck.StateCheck {
	sorted := slices.Sorted(slices.Values(topics))
	return writersAgree{t: t, k: k, topics: sorted}
}

// hourAgo is a record timestamp an hour back, in whole milliseconds (Kafka's resolution).
func hourAgo() time.Time { return time.Now().Add(-time.Hour).Truncate(time.Millisecond) }

// Nobody wrote: no producer, no record, no transaction; last_write_time is null, at every level.
func TestAccTopicProducers_noProducer(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: topicProducersConfig(t, topicsArg(topic)),
			ConfigStateChecks: []statecheck.StateCheck{
				expectWriters(t, k, topic),
				expectValue("last_write_time", knownvalue.Null()),
				expectValue("last_write_times", knownvalue.MapExact(map[string]knownvalue.Check{topic: knownvalue.Null()})),
				expectValue("selected_topics", knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"active_producers": knownvalue.Int64Exact(0), "last_write_time": knownvalue.Null()})})),
				expectValue("transactions", knownvalue.ListExact(nil)),
				expectValue("open_transactions", knownvalue.Int64Exact(0)),
			},
		}},
	})
}

// An idempotent producer wrote two records: the leader lists it, with no open transaction, and
// last_write_time is the later record's timestamp.
func TestAccTopicProducers_idempotent(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	at := hourAgo()
	k.ProduceIdempotent(topic, 0, at.Add(-time.Minute), at)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: topicProducersConfig(t, topicsArg(topic)),
			ConfigStateChecks: []statecheck.StateCheck{
				expectWriters(t, k, topic),
				expectValue("last_write_time", knownvalue.StringExact(rfc3339ms(at))),
				expectValue("selected_topics", knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"active_producers": knownvalue.Int64Exact(1),
					"partitions": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"producers": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"last_sequence": knownvalue.Int64Exact(1), "current_transaction_start_offset": knownvalue.Null(),
						})}),
					})}),
				})})),
				expectValue("open_transactions", knownvalue.Int64Exact(0)),
			},
		}},
	})
}

// A producer without idempotence leaves no producer state, so no producer is listed (kadm
// agrees), but last_write_time sees its record.
func TestAccTopicProducers_notIdempotent(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	at := hourAgo()
	k.ProduceNotIdempotent(topic, 0, at)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: topicProducersConfig(t, topicsArg(topic)),
			ConfigStateChecks: []statecheck.StateCheck{
				expectWriters(t, k, topic),
				expectValue("last_write_times", knownvalue.MapExact(map[string]knownvalue.Check{topic: knownvalue.StringExact(rfc3339ms(at))})),
				expectValue("selected_topics", knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"active_producers": knownvalue.Int64Exact(0),
					"partitions": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"producers": knownvalue.ListExact(nil), "high_watermark": knownvalue.Int64Exact(1),
					})}),
				})})),
			},
		}},
	})
}

// A young open transaction holds its 3 records behind the last stable offset: open, Ongoing,
// under its transactional id, held by its coordinator (the oracle checks it), so not hanging, as
// Kafka's own find-hanging agrees. Committed, then another one aborted: no open transaction,
// nothing held.
func TestAccTopicProducers_transactions(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	id := topic + "-txn"
	cl := k.Transactional(id)
	k.Transaction(cl, topic, 1, 3, nil)
	if rows := k.FindHanging(topic); len(rows) != 0 {
		t.Fatalf("oracle: find-hanging lists a young open transaction: %q", rows)
	}
	config := topicProducersConfig(t, topicsArg(topic))
	closed := []statecheck.StateCheck{
		expectWriters(t, k, topic),
		expectValue("open_transactions", knownvalue.Int64Exact(0)),
		expectValue("held_records", knownvalue.Int64Exact(0)),
		expectValue("transactions", knownvalue.ListExact(nil)),
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					expectWriters(t, k, topic),
					expectValue("open_transactions", knownvalue.Int64Exact(1)),
					expectValue("hanging_transactions", knownvalue.Int64Exact(0)),
					expectValue("held_records", knownvalue.Int64Exact(3)),
					expectValue("transactions", knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"transactional_id": knownvalue.StringExact(id), "state": knownvalue.StringExact("Ongoing"),
						"timeout_ms": knownvalue.Int64Exact(300_000), "hanging": knownvalue.Bool(false),
						"hanging_reason": knownvalue.Null(),
					})})),
				},
			},
			{
				PreConfig: func() {
					if err := cl.EndTransaction(context.Background(), kgo.TryCommit); err != nil {
						t.Fatal(err)
					}
					k.WaitForOffset(topic, 1, -1, 1, 4, 10*time.Second) // 3 records and the commit marker
				},
				Config:            config,
				ConfigStateChecks: closed,
			},
			{
				PreConfig: func() {
					abort := kgo.TryAbort
					k.Transaction(cl, topic, 0, 2, &abort)
					k.WaitForOffset(topic, 0, -1, 1, 3, 10*time.Second) // 2 records and the abort marker
				},
				Config:            config,
				ConfigStateChecks: closed,
			},
		},
	})
}

// A transaction its coordinator still holds (Ongoing, with the partition) is not hanging however
// long past its timeout: the coordinator aborts it itself. Kafka's coordinator does so within
// seconds, so the broker here is kfake, whose DescribeTransactions answer is its own with the start
// moved to 2025-12-01 and a 1 ms timeout. Under transaction version 2 (KIP-890) a transaction the
// coordinator has ended sits at the next epoch, with its start kept: one still open on the
// partition at the epoch before hangs, and the reason names the coordinator's transaction.
func TestAccTopicProducers_hangingRule(t *testing.T) {
	t.Parallel()
	acctest.BootstrapServers(t) // an acceptance test: Terraform runs; the broker here is kfake
	const past = 1_764_547_200_000
	var held, ended kmsg.DescribeTransactionsResponseTransactionState // the coordinator's answers
	heldC, endedC := fakeOpenTransaction(t), fakeOpenTransaction(t)
	acctest.FakeDescribeTransactions(t, heldC, "held-open", func(s *kmsg.DescribeTransactionsResponseTransactionState) {
		s.StartTimestamp, s.TimeoutMillis = past, 1
		held = *s
	})
	acctest.FakeDescribeTransactions(t, endedC, "held-open", func(s *kmsg.DescribeTransactionsResponseTransactionState) {
		ended = *s // the open transaction's producer id and epoch
		s.ProducerEpoch, s.State, s.StartTimestamp, s.Topics = s.ProducerEpoch+1, "CompleteCommit", past, nil
	})
	if held.State != "Ongoing" || len(held.Topics) != 1 || held.Topics[0].Topic != "orders" || !slices.Equal(held.Topics[0].Partitions, []int32{0}) {
		t.Fatalf("kfake's coordinator does not hold the transaction open on orders/0: %+v", held)
	}
	config := func(c *kfake.Cluster) string {
		return fmt.Sprintf("provider \"kafka\" {\n  bootstrap_servers = [%q]\n}\ndata \"kafka_topic_producers\" \"test\" {\n  %s\n}\n",
			c.ListenAddrs()[0], topicsArg("orders"))
	}
	// reason nil: not hanging.
	transaction := func(s kmsg.DescribeTransactionsResponseTransactionState, state string, start, reason knownvalue.Check) knownvalue.Check {
		var why knownvalue.Check = knownvalue.Null()
		if reason != nil {
			why = reason
		}
		return knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
			"transactional_id": knownvalue.StringExact("held-open"), "producer_id": knownvalue.Int64Exact(s.ProducerID),
			"producer_epoch": knownvalue.Int64Exact(int64(s.ProducerEpoch)), "state": knownvalue.StringExact(state),
			"start_time": start, "timeout_ms": knownvalue.Int64Exact(int64(s.TimeoutMillis)),
			"partitions": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
				"topic": knownvalue.StringExact("orders"), "partition": knownvalue.Int64Exact(0), "start_offset": knownvalue.Int64Exact(0),
			})}),
			"hanging": knownvalue.Bool(reason != nil), "hanging_reason": why,
		})})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(heldC),
				ConfigStateChecks: []statecheck.StateCheck{
					expectValue("transactions", transaction(held, "Ongoing", knownvalue.StringExact("2025-12-01T00:00:00.000Z"), nil)),
					expectValue("open_transactions", knownvalue.Int64Exact(1)),
					expectValue("hanging_transactions", knownvalue.Int64Exact(0)),
					expectValue("held_records", knownvalue.Int64Exact(1)),
				},
			},
			{
				Config: config(endedC),
				ConfigStateChecks: []statecheck.StateCheck{
					expectValue("transactions", transaction(ended, "CompleteCommit", knownvalue.Null(), knownvalue.StringExact(fmt.Sprintf(
						`orders/0: the coordinator's transaction of transactional id "held-open" (producer id %d, epoch %d, state `+
							"CompleteCommit) does not hold the transaction open on the partition (epoch %d)",
						ended.ProducerID, ended.ProducerEpoch+1, ended.ProducerEpoch)))),
					expectValue("hanging_transactions", knownvalue.Int64Exact(1)),
				},
			},
		},
	})
}

// name_regex selects whole names, sorted; one that matches nothing is an error, never "nobody
// writes"; topics and name_regex together, or neither, or an empty set, are refused.
func TestAccTopicProducers_regex(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	prefix := acctest.TopicName(t, "")
	b := k.CreateTopic(prefix+".b", 1, nil)
	a := k.CreateTopic(prefix+".a", 2, nil)
	k.CreateTopic("x"+prefix+".c", 1, nil) // matches only as a substring
	k.ProduceIdempotent(a, 1, hourAgo())
	pattern := regexp.QuoteMeta(prefix) + `\..*`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      topicProducersConfig(t, fmt.Sprintf("name_regex = %q\n  %s", pattern, topicsArg(a))),
				ExpectError: regexp.MustCompile(`Invalid Attribute Combination`),
			},
			{
				Config:      topicProducersConfig(t, "topics = []"),
				ExpectError: errorLike("Empty topics set"),
			},
			{
				Config:      topicProducersConfig(t, fmt.Sprintf("name_regex = %q", prefix+`\.nothing.*`)),
				ExpectError: errorLike("Topic not found", "no topic of the cluster matches the whole-name pattern"),
			},
			{
				Config: topicProducersConfig(t, fmt.Sprintf("name_regex = %q", pattern)),
				ConfigStateChecks: []statecheck.StateCheck{
					expectWriters(t, k, a, b),
					expectValue("selected_topics", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact(a), "active_producers": knownvalue.Int64Exact(1)}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact(b), "active_producers": knownvalue.Int64Exact(0)}),
					})),
				},
			},
		},
	})
}

// A principal that may DESCRIBE the topic but not READ it: DescribeProducers is refused, and the
// read fails naming the ACL to grant, never "no producer".
func TestAccTopicProducers_withoutRead(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	auth := acctest.Auth(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	k.ProduceIdempotent(topic, 0, hourAgo())
	user, password := k.LimitedUser(nil, []string{topic}) // DESCRIBE only
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: limitedProvider(auth, user, password) + fmt.Sprintf(`
data "kafka_topic_producers" "test" {
  %s
}
`, topicsArg(topic)),
			ExpectError: errorLike("Kafka broker refused the request", "TOPIC_AUTHORIZATION_FAILED",
				fmt.Sprintf("needs the ACL operation READ on topic %q", topic)),
		}},
	})
}

// Kafka still answers the largest timestamp of records deleted since (DeleteRecords, as Kafka
// Streams does to the repartition topics it has read): both reads of writers give it as the
// topic's last write, by one rule. Topic audit: two records written, then deleted. Topic events:
// partition 0 holds three records whose newest-stamped one (offset 0) was deleted; partition 1
// one record from two days ago. The oracle is the broker's own ListOffsets -3 (franz-go).
func TestAccTopicProducers_lastWriteOfDeletedRecords(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	prefix := acctest.TopicName(t, "")
	audit := k.CreateTopic(prefix+".audit", 1, nil)
	events := k.CreateTopic(prefix+".events", 2, nil)
	auditAt := hourAgo()
	k.ProduceIdempotent(audit, 0, auditAt.Add(-time.Second), auditAt)
	k.DeleteRecordsBefore(audit, 0, 2)
	eventsAt := hourAgo().Add(10 * time.Minute)
	k.ProduceNotIdempotent(events, 0, eventsAt, eventsAt.Add(-time.Minute), eventsAt.Add(-time.Minute), eventsAt.Add(-time.Minute))
	k.DeleteRecordsBefore(events, 0, 1)
	k.ProduceNotIdempotent(events, 1, time.Now().Add(-48*time.Hour))
	for _, c := range []struct {
		topic        string
		earliest     int64
		latest       int64
		maxOffset    int64
		maxTimestamp time.Time
	}{{audit, 2, 2, 1, auditAt}, {events, 1, 4, 0, eventsAt}} {
		earliest, latest := k.Offsets(c.topic, 0)
		offset, ts := k.ListOffset(c.topic, 0, -3, 0)
		if earliest != c.earliest || latest != c.latest || offset != c.maxOffset || ts != c.maxTimestamp.UnixMilli() {
			t.Fatalf("oracle: %s/0 spans [%d, %d), its largest timestamp %d at offset %d; the test arranged [%d, %d), %d at %d",
				c.topic, earliest, latest, ts, offset, c.earliest, c.latest, c.maxTimestamp.UnixMilli(), c.maxOffset)
		}
	}
	pattern := regexp.QuoteMeta(prefix) + `\..*`
	config := topicProducersConfig(t, fmt.Sprintf("name_regex = %q", pattern)) + fmt.Sprintf(`
data "kafka_topics_offsets" "test" {
  name_regex            = %q
  fetch_last_write_time = true
}
`, pattern)
	times := knownvalue.MapExact(map[string]knownvalue.Check{
		audit: knownvalue.StringExact(rfc3339ms(auditAt)), events: knownvalue.StringExact(rfc3339ms(eventsAt))})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				expectWriters(t, k, audit, events),
				expectValue("last_write_times", times),
				expectValue("last_write_time", knownvalue.StringExact(rfc3339ms(eventsAt))),
				statecheck.ExpectKnownValue("data.kafka_topics_offsets.test", tfjsonpath.New("last_write_time"),
					knownvalue.StringExact(rfc3339ms(eventsAt))),
				statecheck.ExpectKnownValue("data.kafka_topics_offsets.test", tfjsonpath.New("message_counts"),
					knownvalue.MapExact(map[string]knownvalue.Check{audit: knownvalue.Int64Exact(0), events: knownvalue.Int64Exact(4)})),
				statecheck.ExpectKnownValue("data.kafka_topics_offsets.test", tfjsonpath.New("topics"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"last_write_time": knownvalue.StringExact(rfc3339ms(auditAt))}),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"last_write_time": knownvalue.StringExact(rfc3339ms(eventsAt))}),
				})),
			},
		}},
	})
}
