package provider

import (
	"cmp"
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
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// The retire recipes meet every writer state a topic can be in: "drained" means no
// write for the quiet period, no open transaction, and every reader caught up; not "empty".

// rewrittenRecipe is a copy of a recipe of examples/gating with r applied to its text, and the
// provider's source the in-process provider's (the test steps name the provider factories).
func rewrittenRecipe(t *testing.T, name string, r *strings.Replacer) config.TestStepConfigFunc {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "gating", name, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	text := strings.ReplaceAll(r.Replace(string(src)), `"kafka-offsets/kafka"`, `"hashicorp/kafka"`)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return config.StaticDirectory(dir)
}

// transactionAt leaves a transaction open, or ends it (end), of records stamped at ts on one
// partition: a transaction whose records an application stamped in the past.
func transactionAt(k *acctest.Kafka, topic string, ts time.Time, end *kgo.TransactionEndTry) {
	cl := k.Transactional(topic + "-txn")
	if err := cl.BeginTransaction(); err != nil {
		panic(err)
	}
	r := &kgo.Record{Topic: topic, Partition: 0, Value: []byte("txn"), Timestamp: ts}
	if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
		panic(err)
	}
	if end != nil {
		if err := cl.EndTransaction(context.Background(), *end); err != nil {
			panic(err)
		}
	}
}

// writerState arranges one writer state on a one-partition topic that already holds a record
// an hour old; then the topic's reader group commits at the high watermark (caught up), unless
// behind says it stays at 0. The recipe runs with quiet_for 30m, or quiet. blocks is what the
// retire gate's message must say, "" where it passes.
type writerState struct {
	name    string
	arrange func(k *acctest.Kafka, topic string)
	behind  bool
	quiet   string
	blocks  string
	guide   string // the retire-drained-topic guide page's cell: "passes", or "blocks: " and why
}

// The reasons kafka_topics_drained gives, as the recipe's message shows them.
const (
	lastWriteBlocks  = `:\s+last\s+write\s+20\d\d-\S+\s+\(`
	openTxnBlocks    = `:\s+1\s+open\s+transaction\s+\(0\s+hanging\)`
	readerBehind     = `group\s+\S+-reader\s+has\s+not\s+caught\s+up:\s+\S+/0:\s+lag\s+1\b`
	unknownTimeBlock = `holds\s+records\s+without\s+a\s+known\s+write\s+time`
)

var writerStates = []writerState{
	{name: "no producer, every reader caught up", guide: "passes", arrange: func(*acctest.Kafka, string) {}},
	{name: "no producer, a reader behind", guide: "blocks: groups still reading", arrange: func(*acctest.Kafka, string) {}, behind: true,
		blocks: readerBehind},
	{name: "an idempotent producer writing", guide: "blocks: last write", blocks: lastWriteBlocks, arrange: func(k *acctest.Kafka, topic string) {
		k.ProduceIdempotent(topic, 0, time.Now())
	}},
	{name: "a producer without idempotence writing (no producer state: only the last write sees it)", guide: "blocks: last write", blocks: lastWriteBlocks, arrange: func(k *acctest.Kafka, topic string) {
		k.ProduceNotIdempotent(topic, 0, time.Now())
	}},
	{name: "a young open transaction", guide: "blocks: open transaction, last write", blocks: lastWriteBlocks + `.*` + openTxnBlocks, arrange: func(k *acctest.Kafka, topic string) {
		transactionAt(k, topic, time.Now(), nil)
	}},
	{name: "an open transaction of records stamped an hour ago", guide: "blocks: open transaction", blocks: openTxnBlocks,
		arrange: func(k *acctest.Kafka, topic string) { transactionAt(k, topic, time.Now().Add(-time.Hour), nil) }},
	// Past its timeout the coordinator aborts it at its next scan, and the abort marker is a
	// write: whichever the read meets, the topic is not drained.
	{name: "an open transaction past its timeout", guide: "blocks: open transaction, or the last write of its abort",
		blocks: `(` + openTxnBlocks + `|` + lastWriteBlocks + `)`, arrange: func(k *acctest.Kafka, topic string) {
			k.TransactionTimingOut(topic, time.Now().Add(-time.Hour))
		}},
	// A transaction's commit or abort is a write too: its marker carries the time it was
	// written, which the largest timestamp (ListOffsets -3) sees.
	{name: "a transaction committed a moment ago", guide: "blocks: last write (its marker)", blocks: lastWriteBlocks, arrange: func(k *acctest.Kafka, topic string) {
		commit := kgo.TryCommit
		transactionAt(k, topic, time.Now().Add(-time.Hour), &commit)
	}},
	{name: "a committed transaction, quiet since", guide: "passes", quiet: "2s", arrange: func(k *acctest.Kafka, topic string) {
		commit := kgo.TryCommit
		transactionAt(k, topic, time.Now().Add(-time.Hour), &commit)
		time.Sleep(3 * time.Second)
	}},
	{name: "an aborted transaction, quiet since", guide: "passes", quiet: "2s", arrange: func(k *acctest.Kafka, topic string) {
		abort := kgo.TryAbort
		transactionAt(k, topic, time.Now().Add(-time.Hour), &abort)
		time.Sleep(3 * time.Second)
	}},
	// What Kafka Streams does to a repartition topic it has read, and purge jobs do: Kafka still
	// answers the deleted records' largest timestamp, and the producer's last write.
	{name: "written a moment ago, then deleted (DeleteRecords)", guide: "blocks: last write", blocks: lastWriteBlocks, arrange: func(k *acctest.Kafka, topic string) {
		k.ProduceIdempotent(topic, 0, time.Now(), time.Now())
		_, hw := k.Offsets(topic, 0)
		k.DeleteRecordsBefore(topic, 0, hw)
	}},
	// The record with the largest timestamp is deleted while older ones stay: its time still
	// counts, by a producer without idempotence (only the largest timestamp sees it).
	{name: "the newest record deleted, older ones left", guide: "blocks: last write", blocks: lastWriteBlocks, arrange: func(k *acctest.Kafka, topic string) {
		k.ProduceNotIdempotent(topic, 0, time.Now().Add(-10*time.Minute), time.Now().Add(-50*time.Minute))
		_, hw := k.Offsets(topic, 0)
		k.DeleteRecordsBefore(topic, 0, hw-1)
	}},
}

// retire-drained-topic, as written (its topic variable set), against each writer state, quiet for 30
// minutes: it passes exactly where nobody wrote in that time, no transaction is open and the
// reader has read everything; where it blocks, its message says why.
func TestAccGatingRecipe_retireDrainedTopicWriters(t *testing.T) {
	t.Parallel()
	for _, s := range writerStates {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			k := acctest.Connect(t)
			topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
			k.ProduceAt(topic, 0, time.Now().Add(-time.Hour))
			s.arrange(k, topic)
			_, hw := k.Offsets(topic, 0)
			commit := map[int32]int64{0: hw}
			if s.behind {
				commit[0] = 0
			}
			k.CommitOffsets(topic+"-reader", map[string]map[int32]int64{topic: commit})
			step := resource.TestStep{
				ConfigDirectory: rewrittenRecipe(t, "retire-drained-topic", strings.NewReplacer()), // as written
				ConfigVariables: config.Variables{"topic": config.StringVariable(topic), "retire_audit_topic": config.BoolVariable(true),
					"quiet_for": config.StringVariable(cmp.Or(s.quiet, "30m"))},
				ProtoV6ProviderFactories: protoV6ProviderFactories,
			}
			if s.blocks != "" {
				step.ExpectError = regexp.MustCompile(`(?s)Resource precondition failed.*Topic\s+` + regexp.QuoteMeta(topic) + `\s+is\s+not\s+drained:.*` + s.blocks)
			}
			resource.Test(t, resource.TestCase{Steps: []resource.TestStep{step}})
		})
	}
}

// transactions-holding-readers, as written, warns where a transaction hangs and only there. On
// the broker (its pattern renamed to one topic): an idempotent producer writing and a young open
// transaction hold no warning. A hanging transaction cannot be made on Kafka 4 (the leader adds
// the partition to the transaction itself, KIP-890), so the hanging one is franz-go's kfake with
// an open transaction that no coordinator lists (ListTransactions answers none): KIP-664's rule
// (a), as find-hanging applies it, and the check warns, naming the producer and why.
func TestAccGatingRecipe_transactionsHoldingReaders(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	k.ProduceIdempotent(topic, 0, time.Now())
	transactionAt(k, topic, time.Now(), nil)
	onBroker := rewrittenRecipe(t, "transactions-holding-readers",
		strings.NewReplacer(`"orders(\\..*)?"`, fmt.Sprintf("%q", regexp.QuoteMeta(topic))))

	c := hangingTransaction(t)
	onFake := rewrittenRecipe(t, "transactions-holding-readers",
		strings.NewReplacer(`provider "kafka" {}`, fmt.Sprintf("provider \"kafka\" {\n  bootstrap_servers = [%q]\n}", c.ListenAddrs()[0])))

	// A check block's data source is read during apply and shows as a change in every plan.
	step := func(dir config.TestStepConfigFunc, checks ...statecheck.StateCheck) resource.TestStep {
		return resource.TestStep{ConfigDirectory: dir, ProtoV6ProviderFactories: protoV6ProviderFactories, ExpectNonEmptyPlan: true,
			ConfigStateChecks: checks}
	}
	// No coordinator lists it, so its transactional id is not known: the producer id stands for it.
	const name = "no_transaction_holds_orders_readers"
	resource.Test(t, resource.TestCase{Steps: []resource.TestStep{
		step(onBroker, checkResult{name: name}),
		step(onFake,
			checkResult{name: name, failed: true, says: "Transactions hold read_committed readers of orders back (1 offsets held): producer "},
			checkResult{name: name, failed: true, says: ": orders/0: no transaction coordinator lists producer id"}),
	}})
}

// hangingTransaction is a kfake cluster whose topic orders holds a transaction left open that no
// coordinator lists (ListTransactions answers none): KIP-664's rule (a), as find-hanging applies
// it, which Kafka 4 cannot be brought to (the leader adds the partition itself, KIP-890).
func hangingTransaction(t *testing.T) *kfake.Cluster {
	t.Helper()
	c := fakeOpenTransaction(t)
	c.ControlKey(int16(kmsg.ListTransactions), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return req.ResponseKind(), nil, true // no coordinator holds the transaction
	})
	return c
}

// fakeOpenTransaction is a kfake cluster whose topic orders (one partition) holds one record of
// a transaction left open, transactional id "held-open".
func fakeOpenTransaction(t *testing.T) *kfake.Cluster {
	t.Helper()
	c := acctest.Fake(t, kfake.SeedTopics(1, "orders"))
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("orders"),
		kgo.TransactionalID("held-open"), kgo.TransactionTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(t.Context(), &kgo.Record{Value: []byte("held")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return c
}

// The retire-drained-topic recipe's guide page shows the writer states
// TestAccGatingRecipe_retireDrainedTopicWriters runs, cell for cell.
func TestWriterStatesInGuide(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "retire-drained-topic.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| writer state | retire-drained-topic |\n|---|---|\n")
	for _, s := range writerStates {
		fmt.Fprintf(&b, "| %s | %s |\n", s.name, s.guide)
	}
	if !strings.Contains(string(guide), b.String()) {
		t.Errorf("templates/guides/retire-drained-topic.md.tmpl does not hold the writer states as the test runs them; it should read:\n%s", b.String())
	}
}
