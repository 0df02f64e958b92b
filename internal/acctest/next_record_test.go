package acctest_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// The time-lag tests' harness on the real broker, on its own: each arranged shape is what the
// tests say it is (one batch per codec, with the chosen timestamps; LogAppendTime; an aborted
// transaction), and the oracle gives the record a consumer reads next.

// Three records stamped T0, T0+10 s, T0+20 s go out as one batch with each codec, and a consumer
// that starts at offset 1 is given the second, stamped T0+10 s.
func TestAccHarnessOneBatchPerCodec(t *testing.T) {
	t0 := time.Now().Add(-5 * time.Minute).Truncate(time.Second).Add(250 * time.Millisecond)
	for _, codec := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			k := acctest.Connect(t)
			topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
			if first := k.ProduceBatch(topic, 0, codec, t0, t0.Add(10*time.Second), t0.Add(20*time.Second)); first != 0 {
				t.Fatalf("first offset %d, want 0", first)
			}
			want := acctest.Batch{FirstOffset: 0, LastOffset: 2, NumRecords: 3, Codec: codec,
				FirstTimestamp: t0.UnixMilli(), MaxTimestamp: t0.Add(20 * time.Second).UnixMilli()}
			if diff := cmp.Diff([]acctest.Batch{want}, k.Batches(topic, 0, 0)); diff != "" {
				t.Fatalf("batches (-want +got):\n%s", diff)
			}
			next := k.NextRecord(topic, 0, 1, 0)
			if next == nil || next.Offset != 1 || !next.Timestamp.Equal(t0.Add(10*time.Second)) || next.LogAppendTime {
				t.Fatalf("next record from 1: %+v, want offset 1 at %s (CreateTime)", next, t0.Add(10*time.Second))
			}
			if next := k.NextRecord(topic, 0, 3, 0); next != nil {
				t.Fatalf("next record from the end: %+v, want none", next)
			}
		})
	}
}

// On a LogAppendTime topic the broker stamps the whole batch with its own time: the consumer is
// given that time, not the producer's.
func TestAccHarnessLogAppendTime(t *testing.T) {
	k := acctest.Connect(t)
	topic := k.CreateLogAppendTimeTopic(acctest.TopicName(t, ""), 1)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	before := time.Now().Truncate(time.Millisecond)
	k.ProduceBatch(topic, 0, "lz4", t0, t0.Add(10*time.Second))
	after := time.Now()
	b := k.Batches(topic, 0, 0)
	if len(b) != 1 || !b[0].LogAppendTime || b[0].NumRecords != 2 {
		t.Fatalf("batches %+v, want one LogAppendTime batch of 2", b)
	}
	next := k.NextRecord(topic, 0, 1, 0)
	if next == nil || next.Offset != 1 || !next.LogAppendTime || next.Timestamp.UnixMilli() != b[0].MaxTimestamp ||
		next.Timestamp.Before(before) || next.Timestamp.After(after) {
		t.Fatalf("next record from 1: %+v, want offset 1 at the broker's time %d, between %s and %s",
			next, b[0].MaxTimestamp, before, after)
	}
}

// An aborted transaction at offset 2: read_committed is given the first committed record after
// it (5), read_uncommitted the aborted record itself; a consumer that starts where only the
// transaction's marker is left is given nothing.
func TestAccHarnessTransactions(t *testing.T) {
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	t0 := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	k.ProduceAt(topic, 0, t0, t0.Add(time.Second))
	abort := kgo.TryAbort
	k.Transaction(k.Transactional(topic+"-txn"), topic, 0, 2, &abort) // 2, 3 and the marker at 4
	k.WaitForOffset(topic, 0, -1, 1, 5, 10*time.Second)               // the marker is written after EndTransaction returns
	k.ProduceAt(topic, 0, t0.Add(5*time.Second))
	k.WaitForOffset(topic, 0, -1, 1, 6, 10*time.Second)
	if next := k.NextRecord(topic, 0, 2, 1); next == nil || next.Offset != 5 || !next.Timestamp.Equal(t0.Add(5*time.Second)) {
		t.Fatalf("read_committed from 2: %+v, want offset 5", next)
	}
	if next := k.NextRecord(topic, 0, 2, 0); next == nil || next.Offset != 2 {
		t.Fatalf("read_uncommitted from 2: %+v, want offset 2", next)
	}

	commit := kgo.TryCommit
	k.Transaction(k.Transactional(topic+"-txn2"), topic, 0, 1, &commit) // 6 and the marker at 7
	k.WaitForOffset(topic, 0, -1, 1, 8, 10*time.Second)
	for _, isolation := range []int8{0, 1} {
		if next := k.NextRecord(topic, 0, 7, isolation); next != nil {
			t.Fatalf("isolation %d from the marker at 7: %+v, want none", isolation, next)
		}
	}
}

// DeleteRecords past the commit: a consumer that resumes there is given the new log start.
func TestAccHarnessDeleteRecords(t *testing.T) {
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	t0 := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	k.ProduceBatch(topic, 0, "none", t0, t0.Add(time.Second), t0.Add(2*time.Second), t0.Add(3*time.Second))
	k.DeleteRecordsBefore(topic, 0, 3)
	if next := k.NextRecord(topic, 0, 1, 0); next == nil || next.Offset != 3 || !next.Timestamp.Equal(t0.Add(3*time.Second)) {
		t.Fatalf("from 1 after DeleteRecords before 3: %+v, want offset 3", next)
	}
}
