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

func readProducers(t *testing.T, c *kfake.Cluster, req TopicProducersRequest) (TopicProducers, error) {
	t.Helper()
	return newClient(t, c, 3*time.Second).TopicProducers(context.Background(), req)
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
	res, err := readProducers(t, c, TopicProducersRequest{Topics: []string{"t", "empty"}})
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

// The hanging rule on kfake, each case with the coordinators' answers replaced. It hangs where
// the coordinator does not hold it on the partition: no coordinator lists the producer id; the
// coordinator moved the id on to another producer id; its transaction lacks the partition, or is
// a later epoch (ended under transaction version 2, or a later one open). A transaction the
// coordinator holds does not hang: a young one, one long past its timeout, one whose markers a
// later epoch is writing. A hanging one is confirmed by describing the partition again; a
// transaction gone by then ended normally and does not hang. start_time is the coordinator's
// only where its state is open.
func TestTopicProducersHanging(t *testing.T) {
	const past = 1_764_547_200_000 // 2025-12-01T00:00:00Z
	notHeld := func(epoch int, state string) func(tx OpenTransaction) string {
		return func(tx OpenTransaction) string {
			return fmt.Sprintf(`t/1: the coordinator's transaction of transactional id "open-t" (producer id %d, epoch %d, state %s) `+
				"does not hold the transaction open on the partition (epoch %d)", tx.ProducerID, int(tx.ProducerEpoch)+epoch, state, tx.ProducerEpoch)
		}
	}
	for _, tc := range []struct {
		name    string
		control func(t *testing.T, c *kfake.Cluster)
		why     func(tx OpenTransaction) string // nil: not hanging
		start   string                          // StartTime: "set" (kfake's), "null" or the value
	}{
		{name: "young, held", start: "set"},
		{name: "held long past its timeout", control: func(t *testing.T, c *kfake.Cluster) {
			editDescribed(t, c, func(s *kmsg.DescribeTransactionsResponseTransactionState) {
				s.StartTimestamp, s.TimeoutMillis = past, 1
			})
		}, start: fmt.Sprint(past)},
		{name: "held, its commit's markers written at the next epoch", control: func(t *testing.T, c *kfake.Cluster) {
			editDescribed(t, c, func(s *kmsg.DescribeTransactionsResponseTransactionState) {
				s.ProducerEpoch++
				s.State = "PrepareCommit"
			})
		}, start: "set"},
		{name: "not listed", control: func(_ *testing.T, c *kfake.Cluster) {
			c.ControlKey(int16(kmsg.ListTransactions), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				return kreq.ResponseKind(), nil, true
			})
		}, why: func(tx OpenTransaction) string {
			return fmt.Sprintf("t/1: no transaction coordinator lists producer id %d: the transaction hangs, or its transactional "+
				"id is hidden from the provider's principal (listing it needs DESCRIBE on the TransactionalId)", tx.ProducerID)
		}, start: "null"},
		{name: "moved on to another producer id", control: func(t *testing.T, c *kfake.Cluster) {
			editDescribed(t, c, func(s *kmsg.DescribeTransactionsResponseTransactionState) {
				s.ProducerID, s.ProducerEpoch, s.State, s.StartTimestamp, s.Topics = s.ProducerID+1, 0, "Empty", -1, nil
			})
		}, why: func(tx OpenTransaction) string {
			return fmt.Sprintf(`t/1: the coordinator has moved transactional id "open-t" on to producer id %d (epoch 0, state Empty)`,
				tx.ProducerID+1)
		}, start: "null"},
		{name: "partition not included", control: func(t *testing.T, c *kfake.Cluster) {
			editDescribed(t, c, func(s *kmsg.DescribeTransactionsResponseTransactionState) { s.Topics = nil })
		}, why: notHeld(0, "Ongoing"), start: "set"},
		{name: "ended at the next epoch (transaction version 2), start kept", control: func(t *testing.T, c *kfake.Cluster) {
			editDescribed(t, c, func(s *kmsg.DescribeTransactionsResponseTransactionState) {
				s.ProducerEpoch, s.State, s.StartTimestamp, s.Topics = s.ProducerEpoch+1, "CompleteCommit", past, nil
			})
		}, why: notHeld(1, "CompleteCommit"), start: "null"},
		{name: "a later epoch open on the partition", control: func(t *testing.T, c *kfake.Cluster) {
			editDescribed(t, c, func(s *kmsg.DescribeTransactionsResponseTransactionState) { s.ProducerEpoch++ })
		}, why: notHeld(1, "Ongoing"), start: "set"},
		{name: "not listed, ended meanwhile", control: func(_ *testing.T, c *kfake.Cluster) {
			c.ControlKey(int16(kmsg.ListTransactions), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				return kreq.ResponseKind(), nil, true
			})
			endOnSecondDescribe(c)
		}, start: "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := producersCluster(t)
			if tc.control != nil {
				tc.control(t, c)
			}
			res, err := readProducers(t, c, TopicProducersRequest{Topics: []string{"t"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Transactions) != 1 {
				t.Fatalf("got %d transactions, want 1:\n%s", len(res.Transactions), showProducers(res))
			}
			tx := res.Transactions[0]
			want, hanging := "", 0
			if tc.why != nil {
				want, hanging = tc.why(tx), 1
			}
			if tx.Hanging != (hanging == 1) || tx.Why != want || res.Topics[0].HangingTransactions != hanging {
				t.Fatalf("hanging %v (topic: %d), why %q; want %v, %q", tx.Hanging, res.Topics[0].HangingTransactions,
					tx.Why, hanging == 1, want)
			}
			if start := show(tx.StartTime); start != tc.start && (tc.start != "set" || tx.StartTime == nil) {
				t.Errorf("start time %s (state %q), want %s", start, tx.State, tc.start)
			}
		})
	}
}

// editDescribed answers DescribeTransactions with kfake's own answer for "open-t", edited.
func editDescribed(t *testing.T, c *kfake.Cluster, edit func(*kmsg.DescribeTransactionsResponseTransactionState)) {
	t.Helper()
	acctest.FakeDescribeTransactions(t, c, "open-t", edit)
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

// The hanging rule on plain values: each reason, and what the coordinator holds however old or
// whatever its epoch; a transaction hanging on one partition and not another counts there only;
// start_time only where the coordinator's state is open.
func TestHangingRule(t *testing.T) {
	k := txnKey{id: 7, epoch: 2}
	p := OpenPartition{Topic: "a", Partition: 0, StartOffset: 5}
	l := listedTxn{transactionalID: "tx"}
	onA := []kmsg.DescribeTransactionsResponseTransactionStateTopic{{Topic: "a", Partitions: []int32{0}}}
	coordinator := func(id int64, epoch int16, state string, topics []kmsg.DescribeTransactionsResponseTransactionStateTopic) *describedTxn {
		return &describedTxn{TransactionalID: "tx", State: state, ProducerID: id, ProducerEpoch: epoch, TimeoutMillis: 1,
			StartTimestamp: 1, Topics: topics}
	}
	notHeld := func(epoch int, state string) string {
		return fmt.Sprintf(`the coordinator's transaction of transactional id "tx" (producer id 7, epoch %d, state %s) `+
			"does not hold the transaction open on the partition (epoch 2)", epoch, state)
	}
	for _, tc := range []struct {
		name   string
		listed bool
		d      *describedTxn
		why    string
	}{
		{"held, long past its timeout", true, coordinator(7, 2, "Ongoing", onA), ""},
		{"held, committing", true, coordinator(7, 2, "PrepareCommit", onA), ""},
		{"held, aborting at the next epoch (timed out, fenced)", true, coordinator(7, 3, "PrepareAbort", onA), ""},
		{"held, committing at the next epoch (transaction version 2)", true, coordinator(7, 3, "PrepareCommit", onA), ""},
		{"not listed", false, nil, "no transaction coordinator lists producer id 7: the transaction hangs, or its " +
			"transactional id is hidden from the provider's principal (listing it needs DESCRIBE on the TransactionalId)"},
		{"not known", true, nil, `the coordinator of transactional id "tx" no longer knows it (TRANSACTIONAL_ID_NOT_FOUND)`},
		{"another producer id", true, coordinator(8, 0, "Ongoing", onA),
			`the coordinator has moved transactional id "tx" on to producer id 8 (epoch 0, state Ongoing)`},
		{"partition not included", true, coordinator(7, 2, "Ongoing", nil), notHeld(2, "Ongoing")},
		{"ended (transaction version 1)", true, coordinator(7, 2, "CompleteAbort", nil), notHeld(2, "CompleteAbort")},
		{"ended at the next epoch (transaction version 2)", true, coordinator(7, 3, "CompleteCommit", nil), notHeld(3, "CompleteCommit")},
		{"a later epoch open", true, coordinator(7, 3, "Ongoing", onA), notHeld(3, "Ongoing")},
		{"an earlier epoch writing markers", true, coordinator(7, 1, "PrepareCommit", onA), notHeld(1, "PrepareCommit")},
	} {
		if got := hangingReason(k, p, l, tc.listed, tc.d); got != tc.why {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.why)
		}
	}

	open := map[txnKey][]OpenPartition{k: {p, {Topic: "b", Partition: 1, StartOffset: 9}}}
	listed := map[int64]listedTxn{7: l}
	txns := judgeTransactions(open, listed, map[string]describedTxn{"tx": *coordinator(7, 2, "Ongoing", onA)})
	hanging, why := hangingSummary(txns[0].Partitions)
	if !hanging || why != "b/1: "+notHeld(2, "Ongoing") {
		t.Errorf("got %v %q", hanging, why)
	}
	txns[0].Hanging = hanging
	if open, hangs := countTransactions(txns, "a"); open != 1 || hangs != 0 {
		t.Errorf("topic a: %d open, %d hanging; want 1, 0", open, hangs)
	}
	if open, hangs := countTransactions(txns, "b"); open != 1 || hangs != 1 {
		t.Errorf("topic b: %d open, %d hanging; want 1, 1", open, hangs)
	}
	txns = judgeTransactions(open, listed, nil)
	if _, why := hangingSummary(txns[0].Partitions); why != `a/0, b/1: the coordinator of transactional id "tx" no longer knows it (TRANSACTIONAL_ID_NOT_FOUND)` {
		t.Errorf("not described: got %q", why)
	}
	if tx := txns[0]; tx.TransactionalID != "tx" || tx.State != "" || tx.StartTime != nil || tx.TimeoutMs != nil {
		t.Errorf("not described: got %+v", tx)
	}

	// DescribeTransactions answers -1 where no transaction began, and the ended one's start after it.
	for state, want := range map[string]string{"Ongoing": "1", "PrepareCommit": "1", "PrepareAbort": "1", "CompleteCommit": "null",
		"CompleteAbort": "null", "Empty": "null", "Dead": "null"} {
		d := coordinator(7, 2, state, onA)
		if state == "Empty" {
			d.StartTimestamp = -1
		}
		txns := judgeTransactions(open, listed, map[string]describedTxn{"tx": *d})
		if got := show(txns[0].StartTime); got != want || txns[0].State != state {
			t.Errorf("%s: start time %s, want %s", state, got, want)
		}
	}
}

// Errors fail closed: a pattern that matches nothing, a topic that does not exist, a partition
// whose leader refuses DescribeProducers (READ missing), a broker without KIP-664.
func TestTopicProducersErrors(t *testing.T) {
	t.Run("pattern matches nothing", func(t *testing.T) {
		c := producersCluster(t)
		_, err := readProducers(t, c, TopicProducersRequest{Name: mustWhole(t, "nothing.*")})
		var nm *NoTopicMatchError
		if !errors.As(err, &nm) || nm.Pattern != "nothing.*" {
			t.Fatalf("got %v, want NoTopicMatchError for nothing.*", err)
		}
	})
	t.Run("pattern", func(t *testing.T) {
		c := producersCluster(t)
		res, err := readProducers(t, c, TopicProducersRequest{Name: mustWhole(t, "t|e.*")})
		if err != nil || len(res.Topics) != 2 || res.Topics[0].Name != "empty" || res.Topics[1].Name != "t" {
			t.Fatalf("got %s, %v; want topics empty and t", showProducers(res), err)
		}
	})
	t.Run("missing topic", func(t *testing.T) {
		c := producersCluster(t)
		_, err := readProducers(t, c, TopicProducersRequest{Topics: []string{"t", "gone"}})
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
		_, err := readProducers(t, c, TopicProducersRequest{Topics: []string{"t"}})
		var be *BrokerError
		if !errors.As(err, &be) || be.Op != DescribeProducersOp || be.Code != TopicAuthorizationFailed || be.Topic != "t" {
			t.Fatalf("got %v, want DescribeProducers TOPIC_AUTHORIZATION_FAILED on t", err)
		}
	})
	t.Run("Kafka before 3.0", func(t *testing.T) {
		v := kversion.V4_0_0()
		v.SetMaxKeyVersion(int16(kmsg.DescribeProducers), -1)
		c := producersCluster(t, kfake.MaxVersions(v))
		_, err := readProducers(t, c, TopicProducersRequest{Topics: []string{"t"}})
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
