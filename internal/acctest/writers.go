package acctest

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Writers of a topic for kafka_topic_producers' tests: producers with and without idempotence,
// written by franz-go, and the oracle that reads them back through kadm (DescribeProducers,
// ListTransactions, DescribeTransactions: KIP-664), never through the provider's code.

// ProduceIdempotent writes one record per timestamp to one partition with a producer of its own
// (franz-go's default: idempotent, so the leader keeps its producer state), then closes it.
func (k *Kafka) ProduceIdempotent(topic string, partition int32, ts ...time.Time) {
	k.t.Helper()
	k.produceWith(topic, partition, ts)
}

// ProduceNotIdempotent writes one record per timestamp to one partition with a producer without
// idempotence (as kafka-go's Writer and many older clients): the leader keeps no state for it.
func (k *Kafka) ProduceNotIdempotent(topic string, partition int32, ts ...time.Time) {
	k.t.Helper()
	k.produceWith(topic, partition, ts, kgo.DisableIdempotentWrite())
}

func (k *Kafka) produceWith(topic string, partition int32, ts []time.Time, opts ...kgo.Opt) {
	k.t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(BootstrapServers(k.t)...),
		kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	if err != nil {
		k.t.Fatal(err)
	}
	defer cl.Close()
	for _, at := range ts {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte("record"), Timestamp: at}
		if err := cl.ProduceSync(ctx(k.t), r).FirstErr(); err != nil {
			k.t.Fatalf("produce to %s/%d: %v", topic, partition, err)
		}
	}
}

// TransactionTimingOut leaves a transaction open on partition 0 of topic with a timeout of one
// second, one record stamped ts: the coordinator aborts it at its next scan for timed-out
// transactions (every 10 s by default).
func (k *Kafka) TransactionTimingOut(topic string, ts time.Time) {
	k.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(BootstrapServers(k.t)...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.TransactionalID(topic+"-timing-out"), kgo.TransactionTimeout(time.Second))
	if err != nil {
		k.t.Fatal(err)
	}
	k.t.Cleanup(cl.Close)
	if err := cl.BeginTransaction(); err != nil {
		k.t.Fatal(err)
	}
	r := &kgo.Record{Topic: topic, Partition: 0, Value: []byte("txn"), Timestamp: ts}
	if err := cl.ProduceSync(ctx(k.t), r).FirstErr(); err != nil {
		k.t.Fatalf("transactional produce to %s/0: %v", topic, err)
	}
}

// Producers is the oracle for the producers each partition of topic lists (kadm's
// DescribeProducers), by partition, each sorted by producer id; every partition is present.
func (k *Kafka) Producers(topic string) map[int32][]kadm.DescribedProducer {
	k.t.Helper()
	res, err := k.Admin.DescribeProducers(ctx(k.t), kadm.TopicsSet{topic: nil})
	if err != nil {
		k.t.Fatalf("oracle DescribeProducers %s: %v", topic, err)
	}
	out := map[int32][]kadm.DescribedProducer{}
	for _, p := range res[topic].Partitions.Sorted() {
		if p.Err != nil {
			k.t.Fatalf("oracle DescribeProducers %s/%d: %v", topic, p.Partition, p.Err)
		}
		ps := p.ActiveProducers.Sorted()
		slices.SortFunc(ps, func(a, b kadm.DescribedProducer) int { return cmp.Compare(a.ProducerID, b.ProducerID) })
		out[p.Partition] = ps
	}
	if len(out) != k.PartitionCount(topic) {
		k.t.Fatalf("oracle DescribeProducers %s: %d partitions answered, want %d", topic, len(out), k.PartitionCount(topic))
	}
	return out
}

// TransactionOf is the oracle for the transaction of producer id: what a coordinator lists
// (kadm's ListTransactions, which asks every broker) and, when one does, describes (kadm's
// DescribeTransactions; it finds the coordinator with FindCoordinator, which the provider never
// sends). listed is false when no coordinator lists the producer id.
func (k *Kafka) TransactionOf(producerID int64) (d kadm.DescribedTransaction, listed bool) {
	k.t.Helper()
	ls, err := k.Admin.ListTransactions(ctx(k.t), []int64{producerID}, nil)
	if err != nil {
		k.t.Fatalf("oracle ListTransactions for producer id %d: %v", producerID, err)
	}
	for _, l := range ls.Sorted() {
		if l.ProducerID != producerID {
			continue
		}
		ds, err := k.Admin.DescribeTransactions(ctx(k.t), l.TxnID)
		if err != nil || ds[l.TxnID].Err != nil {
			k.t.Fatalf("oracle DescribeTransactions %s: %v %v", l.TxnID, err, ds[l.TxnID].Err)
		}
		return ds[l.TxnID], true
	}
	return d, false
}

// FindHanging is Kafka's own answer to which transactions hang on topic's partitions:
// kafka-transactions.sh find-hanging, one line per hanging transaction and partition (its table's
// rows, the header left out). --max-transaction-timeout 0 leaves out none for its age (the tool
// otherwise skips producers that wrote within 15 minutes), so only the coordinator's view decides.
func (k *Kafka) FindHanging(topic string) []string {
	k.t.Helper()
	out := k.javaTool(ToolClass(k.t, "TransactionsCommand"), "find-hanging", "--topic", topic, "--max-transaction-timeout", "0")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "Topic") {
		k.t.Fatalf("oracle find-hanging --topic %s: no table in its output:\n%s", topic, out)
	}
	return lines[1:]
}
