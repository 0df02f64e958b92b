package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// producersCluster: topic "t" (2 partitions), 3 idempotent records on partition 0 and a
// transaction left open on partition 1 (2 records, transactional id "open-t"); topic "empty".
func producersCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c := newCluster(t, append([]kfake.Opt{kfake.SeedTopics(2, "t"), kfake.SeedTopics(1, "empty")}, opts...)...)
	produce(t, c, "t", 0, 3)
	openTransaction(t, c, "t", 1, 2)
	return c
}

func readProducers(t *testing.T, c *kfake.Cluster, req TopicProducersRequest, now time.Time) (TopicProducers, error) {
	t.Helper()
	cl := newClient(t, c, 3*time.Second)
	pr := &producerReads{cluster: cl.cluster, offsets: cl.offsets, now: func() time.Time { return now }}
	return pr.read(context.Background(), req)
}

// showProducers prints every value the tests check.
func showProducers(res TopicProducers) string {
	var b strings.Builder
	for _, tw := range res.Topics {
		fmt.Fprintf(&b, "%s producers=%d open=%d hanging=%d last=%s;", tw.Name, tw.ActiveProducers, tw.OpenTransactions,
			tw.HangingTransactions, hasValue(tw.LastWrite()))
		for _, p := range tw.Partitions {
			fmt.Fprintf(&b, " %d hw=%d lso=%d ts=%s [", p.Partition, p.HighWatermark, p.LastStableOffset, hasValue(p.MaxTimestamp))
			for _, pp := range p.Producers {
				fmt.Fprintf(&b, "txn@%s", show(pp.CurrentTxnStartOffset))
			}
			b.WriteString("]")
		}
		b.WriteString("\n")
	}
	for _, tx := range res.Transactions {
		fmt.Fprintf(&b, "tx %q %s timeout=%s hanging=%v on", tx.TransactionalID, tx.State, show(tx.TimeoutMs), tx.Hanging)
		for _, p := range tx.Partitions {
			fmt.Fprintf(&b, " %s/%d@%d", p.Topic, p.Partition, p.StartOffset)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func hasValue(p *int64) string {
	if p == nil {
		return "null"
	}
	return "set"
}

// A young open transaction: held behind it, listed by its coordinator (ListTransactions on every
// broker, DescribeTransactions on the one that lists it), Ongoing, not hanging; the empty topic
// has neither records nor producers. kfake lists transactional producers only.
func TestTopicProducersOpenTransaction(t *testing.T) {
	c := producersCluster(t, kfake.NumBrokers(3))
	res, err := readProducers(t, c, TopicProducersRequest{Topics: []string{"t", "empty"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := `empty producers=0 open=0 hanging=0 last=null; 0 hw=0 lso=0 ts=null []
t producers=1 open=1 hanging=0 last=set; 0 hw=3 lso=3 ts=set [] 1 hw=2 lso=0 ts=set [txn@0]
tx "open-t" Ongoing timeout=60000 hanging=false on t/1@0
`
	if got := showProducers(res); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if tx := res.Transactions[0]; tx.StartTime == nil || tx.Why != "" {
		t.Errorf("start time %v, reason %q: want a start time and no reason", tx.StartTime, tx.Why)
	}
}

// The hanging rule on kfake, each case with the coordinators' answers replaced: (a) no
// coordinator lists the producer id; (b) the coordinator's transaction lacks the partition, or
// is a later epoch; (c) open longer than its timeout. (a) and (b) are confirmed by describing the
// partition again; a transaction gone by then ended normally and does not hang.
func TestTopicProducersHanging(t *testing.T) {
	for _, tc := range []struct {
		name    string
		control func(t *testing.T, c *kfake.Cluster)
		later   time.Duration // how long after now the judgement is made
		hanging bool
		why     string
	}{
		{name: "healthy", hanging: false},
		{name: "(a) not listed", control: func(_ *testing.T, c *kfake.Cluster) {
			c.ControlKey(int16(kmsg.ListTransactions), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				return kreq.ResponseKind(), nil, true
			})
		}, hanging: true, why: "t/1: no transaction coordinator lists producer id"},
		{name: "(b) partition not included", control: func(t *testing.T, c *kfake.Cluster) {
			editDescribed(t, c, func(s *kmsg.DescribeTransactionsResponseTransactionState) { s.Topics = nil })
		}, hanging: true, why: `t/1: the coordinator's transaction of transactional id "open-t" (state Ongoing) does not include the partition`},
		{name: "(b) later epoch", control: func(t *testing.T, c *kfake.Cluster) {
			editDescribed(t, c, func(s *kmsg.DescribeTransactionsResponseTransactionState) { s.ProducerEpoch++ })
		}, hanging: true, why: `t/1: the coordinator has moved transactional id "open-t" on to producer id`},
		{name: "(c) timed out", later: 2 * time.Minute, hanging: true, why: "t/1: open for 2m0s, longer than its timeout of 60000 ms"},
		{name: "(a) ended meanwhile", control: func(_ *testing.T, c *kfake.Cluster) {
			c.ControlKey(int16(kmsg.ListTransactions), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				return kreq.ResponseKind(), nil, true
			})
			endOnSecondDescribe(c)
		}, hanging: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := producersCluster(t)
			if tc.control != nil {
				tc.control(t, c)
			}
			res, err := readProducers(t, c, TopicProducersRequest{Topics: []string{"t"}}, time.Now().Add(tc.later))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Transactions) != 1 {
				t.Fatalf("got %d transactions, want 1:\n%s", len(res.Transactions), showProducers(res))
			}
			tx := res.Transactions[0]
			hanging := 0
			if tc.hanging {
				hanging = 1
			}
			if tx.Hanging != tc.hanging || !strings.HasPrefix(tx.Why, tc.why) || (tc.why == "") != (tx.Why == "") ||
				res.Topics[0].HangingTransactions != hanging {
				t.Fatalf("hanging %v (topic: %d), why %q; want %v, starting %q", tx.Hanging, res.Topics[0].HangingTransactions,
					tx.Why, tc.hanging, tc.why)
			}
		})
	}
}

// editDescribed answers DescribeTransactions with kfake's own answer of now, as franz-go asks it,
// edited.
func editDescribed(t *testing.T, c *kfake.Cluster, edit func(*kmsg.DescribeTransactionsResponseTransactionState)) {
	t.Helper()
	req := kmsg.NewPtrDescribeTransactionsRequest()
	req.TransactionalIDs = []string{"open-t"}
	res, err := req.RequestWith(context.Background(), acctest.FakeClient(t, c))
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.TransactionStates {
		edit(&res.TransactionStates[i])
	}
	c.ControlKey(int16(kmsg.DescribeTransactions), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return res, nil, true
	})
}

// endOnSecondDescribe answers the second DescribeProducers (the confirmation) with no producer:
// the transaction ended between the two.
func endOnSecondDescribe(c *kfake.Cluster) {
	var calls atomic.Int32
	c.ControlKey(int16(kmsg.DescribeProducers), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if calls.Add(1) < 2 {
			return nil, nil, false
		}
		return producersAnswer(kreq, 0)
	})
}

// producersAnswer answers a DescribeProducers request with no producer and code on every partition.
func producersAnswer(kreq kmsg.Request, code int16) (kmsg.Response, error, bool) {
	req, ok := kreq.(*kmsg.DescribeProducersRequest)
	if !ok {
		return nil, fmt.Errorf("unexpected request %T", kreq), true
	}
	res := kmsg.NewPtrDescribeProducersResponse()
	res.Version = req.Version
	for _, rt := range req.Topics {
		t := kmsg.DescribeProducersResponseTopic{Topic: rt.Topic}
		for _, p := range rt.Partitions {
			t.Partitions = append(t.Partitions, kmsg.DescribeProducersResponseTopicPartition{Partition: p, ErrorCode: code})
		}
		res.Topics = append(res.Topics, t)
	}
	return res, nil, true
}

// The hanging rule on plain values, where kfake cannot say it: a transaction hanging on one
// partition and not another counts there only; a coordinator that no longer knows the id.
func TestHangingRule(t *testing.T) {
	now := time.UnixMilli(1_000_000)
	k := txnKey{id: 7, epoch: 2}
	open := map[txnKey][]OpenPartition{k: {{Topic: "a", Partition: 0, StartOffset: 5}, {Topic: "b", Partition: 1, StartOffset: 9}}}
	listed := map[int64]listedTxn{7: {transactionalID: "tx"}}
	described := map[string]describedTxn{"tx": {TransactionalID: "tx", State: "Ongoing", ProducerID: 7, ProducerEpoch: 2,
		TimeoutMillis: 60_000, StartTimestamp: now.UnixMilli() - 1000,
		Topics: []kmsg.DescribeTransactionsResponseTransactionStateTopic{{Topic: "a", Partitions: []int32{0}}}}}
	txns := judgeTransactions(open, listed, described, now)
	hanging, why := hangingSummary(txns[0].Partitions)
	if !hanging || why != `b/1: the coordinator's transaction of transactional id "tx" (state Ongoing) does not include the partition` {
		t.Errorf("got %v %q", hanging, why)
	}
	txns[0].Hanging = hanging
	if open, hangs := countTransactions(txns, "a"); open != 1 || hangs != 0 {
		t.Errorf("topic a: %d open, %d hanging; want 1, 0", open, hangs)
	}
	if open, hangs := countTransactions(txns, "b"); open != 1 || hangs != 1 {
		t.Errorf("topic b: %d open, %d hanging; want 1, 1", open, hangs)
	}
	txns = judgeTransactions(open, listed, nil, now)
	if _, why := hangingSummary(txns[0].Partitions); !strings.Contains(why, "a/0, b/1: the coordinator of transactional id \"tx\" no longer knows it") {
		t.Errorf("not described: got %q", why)
	}
	if tx := txns[0]; tx.TransactionalID != "tx" || tx.State != "" || tx.StartTime != nil || tx.TimeoutMs != nil {
		t.Errorf("not described: got %+v", tx)
	}
}

// Errors fail closed: a pattern that matches nothing, a topic that does not exist, a partition
// whose leader refuses DescribeProducers (READ missing), a broker without KIP-664.
func TestTopicProducersErrors(t *testing.T) {
	t.Run("pattern matches nothing", func(t *testing.T) {
		c := producersCluster(t)
		_, err := readProducers(t, c, TopicProducersRequest{Name: mustWhole(t, "nothing.*")}, time.Now())
		var nm *NoTopicMatchError
		if !errors.As(err, &nm) || nm.Pattern != "nothing.*" {
			t.Fatalf("got %v, want NoTopicMatchError for nothing.*", err)
		}
	})
	t.Run("pattern", func(t *testing.T) {
		c := producersCluster(t)
		res, err := readProducers(t, c, TopicProducersRequest{Name: mustWhole(t, "t|e.*")}, time.Now())
		if err != nil || len(res.Topics) != 2 || res.Topics[0].Name != "empty" || res.Topics[1].Name != "t" {
			t.Fatalf("got %s, %v; want topics empty and t", showProducers(res), err)
		}
	})
	t.Run("missing topic", func(t *testing.T) {
		c := producersCluster(t)
		_, err := readProducers(t, c, TopicProducersRequest{Topics: []string{"t", "gone"}}, time.Now())
		var tnf *TopicNotFoundError
		if !errors.As(err, &tnf) || tnf.Topic != "gone" {
			t.Fatalf("got %v, want TopicNotFoundError for gone", err)
		}
	})
	t.Run("not authorized", func(t *testing.T) {
		c := producersCluster(t)
		c.ControlKey(int16(kmsg.DescribeProducers), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			return producersAnswer(kreq, int16(TopicAuthorizationFailed))
		})
		_, err := readProducers(t, c, TopicProducersRequest{Topics: []string{"t"}}, time.Now())
		var be *BrokerError
		if !errors.As(err, &be) || be.Op != DescribeProducersOp || be.Code != TopicAuthorizationFailed || be.Topic != "t" {
			t.Fatalf("got %v, want DescribeProducers TOPIC_AUTHORIZATION_FAILED on t", err)
		}
	})
	t.Run("Kafka before 3.0", func(t *testing.T) {
		v := kversion.V4_0_0()
		v.SetMaxKeyVersion(int16(kmsg.DescribeProducers), -1)
		c := producersCluster(t, kfake.MaxVersions(v))
		_, err := readProducers(t, c, TopicProducersRequest{Topics: []string{"t"}}, time.Now())
		var ue *UnsupportedError
		if !errors.As(err, &ue) || ue.Since != "3.0" || !strings.Contains(ue.What, "DescribeProducers") {
			t.Fatalf("got %v, want UnsupportedError naming DescribeProducers and 3.0", err)
		}
	})
}

func mustWhole(t *testing.T, pattern string) *regexp.Regexp {
	t.Helper()
	re, err := WholeMatch(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return re
}
