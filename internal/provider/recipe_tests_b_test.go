package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

func TestRecipeMocked_retireDrainedTopic(t *testing.T) {
	out := terraformTest(t, "retire-drained-topic", nil, "tests/mocked.tftest.hcl")
	wantRuns(t, out, 5)
}

func TestAccRecipeBroker_retireDrainedTopic(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	reader := topic + "-reader"
	k.ProduceAt(topic, 0, time.Now().Add(-time.Hour))
	k.CommitOffsets(reader, map[string]map[int32]int64{topic: {0: 1}})
	if earliest, latest := k.Offsets(topic, 0); earliest != 0 || latest != 1 {
		t.Fatalf("oracle: %s/0 spans [%d, %d); the test arranged [0, 1)", topic, earliest, latest)
	}
	if lag := k.GroupLag(reader, topic); lag != 0 {
		t.Fatalf("oracle: %s lags %d; the test arranged 0", reader, lag)
	}
	out := terraformTest(t, "retire-drained-topic", nil, "tests/broker.tftest.hcl", "topic="+topic)
	wantRuns(t, out, 2)
	k.DeleteTopic(topic)
	if slices.Contains(k.Topics(), topic) {
		t.Fatalf("oracle: %s is still listed after its deletion", topic)
	}
	out = terraformTest(t, "retire-drained-topic", nil, "tests/broker_deleted.tftest.hcl", "topic="+topic)
	wantRuns(t, out, 1)
}

func TestRecipeMocked_retireTopicGroups(t *testing.T) {
	out := terraformTest(t, "retire-topic-groups", nil, "tests/mocked.tftest.hcl")
	wantRuns(t, out, 6)
}

func TestAccRecipeBroker_retireTopicGroups(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	prefix := acctest.TopicName(t, "")
	forever := "-1"
	keep := map[string]*string{"retention.ms": &forever} // records stamped 8 days ago stay
	a := k.CreateTopic(prefix+".a", 1, keep)
	b := k.CreateTopic(prefix+".b", 1, keep)
	old := time.Now().Add(-8 * 24 * time.Hour)
	k.ProduceAt(a, 0, old, old.Add(time.Second))
	k.ProduceAt(b, 0, old)
	billing, audit := prefix+"-billing", prefix+"-audit"
	k.CommitOffsets(billing, map[string]map[int32]int64{a: {0: 2}})
	k.CommitOffsets(audit, map[string]map[int32]int64{b: {0: 0}})
	if la, lb := k.GroupLag(billing, a), k.GroupLag(audit, b); la != 0 || lb != 1 {
		t.Fatalf("oracle: %s lags %d, %s %d; the test arranged 0 and 1", billing, la, audit, lb)
	}
	// Longer names first: the regular expression's escaped dot, then topic names, then groups.
	r := strings.NewReplacer(`legacy\\.`, prefix+`\\.`, `"legacy.`, `"`+prefix+".", `"legacy-`, `"`+prefix+"-")
	out := terraformTest(t, "retire-topic-groups", r, "tests/broker.tftest.hcl")
	wantRuns(t, out, 2)
	k.CommitOffsets(audit, map[string]map[int32]int64{b: {0: 1}})
	if lb := k.GroupLag(audit, b); lb != 0 {
		t.Fatalf("oracle: %s lags %d; the test committed at the log end", audit, lb)
	}
	out = terraformTest(t, "retire-topic-groups", r, "tests/broker_drained.tftest.hcl")
	wantRuns(t, out, 1)
}

func TestRecipeMocked_readBeforeCutOver(t *testing.T) {
	if filepath.Base(terraformBinary()) == "tofu" {
		// Its overrides name each partition's instance (at_cut_over["0"]), which OpenTofu refuses:
		// "Resource instance address with keys is not allowed" (the testing guide says so).
		t.Skip("OpenTofu's override_data takes no instance key, which this recipe's mocks need")
	}
	out := terraformTest(t, "read-before-cut-over", nil, "tests/mocked.tftest.hcl")
	wantRuns(t, out, 6)
}

func TestAccRecipeBroker_readBeforeCutOver(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	group := topic + "-service"
	cut := time.Now().Add(-30 * time.Minute).Truncate(time.Second)
	k.ProduceAt(topic, 0, cut.Add(-20*time.Minute), cut.Add(-10*time.Minute), cut.Add(5*time.Minute), cut.Add(10*time.Minute))
	k.ProduceAt(topic, 1, cut.Add(-15*time.Minute))
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 2, 1: 1}})
	// The oracle: the first offset at or after each cut-over (ListOffsets by time, franz-go).
	for _, c := range []struct {
		at        time.Time
		partition int32
		want      int64
	}{{cut, 0, 2}, {cut, 1, -1}, {cut.Add(7 * time.Minute), 0, 3}} {
		if got, _ := k.ListOffset(topic, c.partition, c.at.UnixMilli(), 0); got != c.want {
			t.Fatalf("oracle: partition %d's first offset at %s is %d; the test arranged %d", c.partition, c.at, got, c.want)
		}
	}
	if committed := k.GroupCommitted(group)[topic]; committed[0] != 2 || committed[1] != 1 {
		t.Fatalf("oracle: %s committed %v; the test arranged 2 and 1", group, committed)
	}
	// The group, the topic in committed_offsets' keys, and the topic where it is an argument (not
	// the data sources' labels, also "orders").
	r := strings.NewReplacer(`"orders-service"`, `"`+group+`"`, `"orders/`, `"`+topic+"/", `= "orders"`, `= "`+topic+`"`,
		`["orders"]`, `["`+topic+`"]`, "CUT_OVER_TIME_PLUS_7M", cut.Add(7*time.Minute).UTC().Format(time.RFC3339))
	cutOver := "cut_over_time=" + cut.UTC().Format(time.RFC3339)
	out := terraformTest(t, "read-before-cut-over", r, "tests/broker.tftest.hcl", cutOver)
	wantRuns(t, out, 2)
	// A commit past the log end on 0, one short of it on 1.
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 5, 1: 0}})
	if committed := k.GroupCommitted(group)[topic]; committed[0] != 5 || committed[1] != 0 {
		t.Fatalf("oracle: %s committed %v; the test arranged 5 and 0", group, committed)
	}
	out = terraformTest(t, "read-before-cut-over", r, "tests/broker_behind.tftest.hcl", cutOver)
	wantRuns(t, out, 1)
}

func TestRecipeMocked_tenantPartition(t *testing.T) {
	out := terraformTest(t, "tenant-partition", nil, "tests/mocked.tftest.hcl")
	wantRuns(t, out, 6)
}

func TestAccRecipeBroker_tenantPartition(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 3, nil)
	group := topic + "-service"
	// franz-go's default partitioner (Kafka's murmur2 for keyed records), the oracle for where a
	// key lands, independent of partition_for_key.
	cl, err := kgo.NewClient(kgo.SeedBrokers(acctest.BootstrapServers(t)...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	keys := []string{"tenant-42", "tenant-42", "tenant-7", "tenant-8", "tenant-9"}
	for _, key := range keys {
		if err := cl.ProduceSync(t.Context(), &kgo.Record{Key: []byte(key), Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	landed := k.KeyPartitions(topic, len(keys))
	if landed["tenant-42"] != 2 {
		t.Fatalf("oracle: tenant-42 landed in partition %d of 3; the recipe's tests expect 2", landed["tenant-42"])
	}
	if _, latest := k.Offsets(topic, 2); latest != 2 {
		t.Fatalf("oracle: partition 2 holds %d records (%v); the test arranged tenant-42's 2 alone", latest, landed)
	}
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {2: 1}})
	r := strings.NewReplacer(`"orders-service"`, `"`+group+`"`, `"orders/`, `"`+topic+"/", `= "orders"`, `= "`+topic+`"`,
		`["orders"]`, `["`+topic+`"]`)
	out := terraformTest(t, "tenant-partition", r, "tests/broker.tftest.hcl")
	wantRuns(t, out, 1)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {2: 2}})
	if lag := k.GroupLag(group, topic); lag != 0 {
		t.Fatalf("oracle: %s lags %d where it committed; the test committed at the log end", group, lag)
	}
	out = terraformTest(t, "tenant-partition", r, "tests/broker_caught_up.tftest.hcl")
	wantRuns(t, out, 1)
}

func TestRecipeMocked_transactionsHoldingReaders(t *testing.T) {
	out := terraformTest(t, "transactions-holding-readers", nil, "tests/mocked.tftest.hcl")
	wantRuns(t, out, 2)
}

// On the broker, a young open transaction (its coordinator holds it) does not warn. A hanging
// transaction cannot be made on Kafka 4 (KIP-890), so the hanging case is franz-go's kfake with an
// open transaction that no coordinator lists, as in TestAccGatingRecipe_transactionsHoldingReaders.
func TestAccRecipeBroker_transactionsHoldingReaders(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	k.ProduceIdempotent(topic, 0, time.Now())
	transactionAt(k, topic, time.Now(), nil)
	if _, hw := k.Offsets(topic, 0); hw != 2 {
		t.Fatalf("oracle: %s/0 ends at %d; the test arranged 2 records", topic, hw)
	}
	if lso, _ := k.ListOffset(topic, 0, -1, 1); lso != 1 {
		t.Fatalf("oracle: %s/0's last stable offset is %d; the test left a transaction open at 1", topic, lso)
	}
	out := terraformTest(t, "transactions-holding-readers", strings.NewReplacer(`"orders(\\..*)?"`, fmt.Sprintf("%q", regexp.QuoteMeta(topic))),
		"tests/broker.tftest.hcl")
	wantRuns(t, out, 1)

	c := hangingTransaction(t) // gating_writers_test.go
	// The module's provider block, not the mocked tests' mock_provider block.
	onFake := strings.NewReplacer("\nprovider \"kafka\" {}", fmt.Sprintf("\nprovider \"kafka\" {\n  bootstrap_servers = [%q]\n}", c.ListenAddrs()[0]))
	out = terraformTest(t, "transactions-holding-readers", onFake, "tests/broker_hanging.tftest.hcl")
	wantRuns(t, out, 1)
}
