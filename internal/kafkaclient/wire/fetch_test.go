package wire_test

import (
	"encoding/binary"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// Records that a Kafka client wrote (franz-go's producer, into kfake), fetched with kmsg in every
// version the provider sends, give the record at a commit in the middle of a batch for every
// codec: T0+10 s, not the batch's first timestamp.
func TestFetchEveryVersionEveryCodec(t *testing.T) {
	codecs := []kgo.CompressionCodec{kgo.NoCompression(), kgo.GzipCompression(), kgo.SnappyCompression(), kgo.Lz4Compression(), kgo.ZstdCompression()}
	c := acctest.Fake(t, kfake.SeedTopics(int32(len(codecs)), "t"))
	produceBatches(t, c.ListenAddrs(), "t", codecs)
	conn := dialFake(t, c)
	partitions := make([]int32, len(codecs))
	for p := range partitions {
		partitions[p] = int32(p)
	}
	for v := int16(wire.MinFetchVersion); v <= 11; v++ {
		res := roundTripFetch(t, conn, fetchRequest(v, "t", partitions, 1, 0), len(codecs))
		for i := range res.Topics[0].Partitions {
			p := &res.Topics[0].Partitions[i]
			got, err := wire.NextRecordAt(p.RecordBatches, 1, false, abortedOf(p))
			want := wire.Scan{Found: true, Record: wire.NextRecord{Offset: 1, Timestamp: t0 + 10000}}
			if len(p.RecordBatches) < 8 || binary.BigEndian.Uint64(p.RecordBatches) != 0 {
				t.Fatalf("v%d, %v: the records (%d bytes) do not start with one batch from offset 0 (error code %d, high watermark %d)",
					v, codecs[p.Partition], len(p.RecordBatches), p.ErrorCode, p.HighWatermark)
			}
			if err != nil || p.ErrorCode != 0 {
				t.Errorf("v%d, %v: %v (error code %d)", v, codecs[p.Partition], err, p.ErrorCode)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("v%d, %v (-want +got):\n%s", v, codecs[p.Partition], diff)
			}
		}
	}
}

// Transactions that a Kafka client wrote (franz-go's transactional producer, kfake's markers and
// aborted-transaction lists), fetched with kmsg: read_committed skips the aborted one and
// the markers, read_uncommitted reads it.
func TestFetchTransactions(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
	checkTransactions(t, c.ListenAddrs()[0], "t")
}

// scanFrom fetches partition 0 of topic from offset from, as a consumer would, until a record
// is found or nothing more comes: a broker may answer with fewer batches than it has (Kafka
// returns only the first batch while it knows the high watermark's offset but not its position).
func scanFrom(t *testing.T, conn net.Conn, v int16, topic string, from int64, readCommitted bool) (wire.Scan, int) {
	t.Helper()
	isolation := map[bool]int8{false: 0, true: 1}[readCommitted]
	for fetches := 1; fetches <= 10; fetches++ {
		res := roundTripFetch(t, conn, fetchRequest(v, topic, []int32{0}, from, isolation), 1)
		p := &res.Topics[0].Partitions[0]
		got, err := wire.NextRecordAt(p.RecordBatches, from, readCommitted, abortedOf(p))
		if err != nil || p.ErrorCode != 0 {
			t.Fatalf("fetch %d from %d: %+v, %v (error code %d, log start %d, high watermark %d)", fetches, from, got, err, p.ErrorCode, p.LogStartOffset, p.HighWatermark)
		}
		if got.Found || got.Next == from {
			return got, fetches
		}
		from = got.Next
	}
	t.Fatal("no answer after 10 fetches")
	return wire.Scan{}, 0
}
