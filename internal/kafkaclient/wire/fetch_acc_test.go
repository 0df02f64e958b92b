package wire_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// Against the real broker: records stamped T0, T0+10 s, T0+20 s in one batch per codec, and the
// same on a LogAppendTime topic, fetched from offset 1 with kmsg; the record and timestamp
// must be those franz-go's consumer gets from offset 1.
func TestAccFetchNextRecord(t *testing.T) {
	k := acctest.Connect(t)
	logAppend := "LogAppendTime"
	codecs := []kgo.CompressionCodec{kgo.NoCompression(), kgo.GzipCompression(), kgo.SnappyCompression(), kgo.Lz4Compression(), kgo.ZstdCompression()}
	for _, tc := range []struct {
		name      string
		configs   map[string]*string
		logAppend bool
	}{
		{name: "CreateTime", configs: keepForever()},
		{name: "LogAppendTime", configs: map[string]*string{"message.timestamp.type": &logAppend}, logAppend: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topic := k.CreateTopic(acctest.TopicName(t, ""), int32(len(codecs)), tc.configs)
			start := time.Now()
			produceBatches(t, acctest.BootstrapServers(t), topic, codecs)
			res := fetchAt(t, topic, len(codecs), 1)
			for i := range res.Topics[0].Partitions {
				p := &res.Topics[0].Partitions[i]
				want := consumeAt(t, topic, p.Partition, 1)
				got, err := wire.NextRecordAt(p.RecordBatches, 1, false, abortedOf(p))
				if err != nil || p.ErrorCode != 0 || !got.Found || got.Record.Offset != want.Offset ||
					got.Record.Timestamp != want.Timestamp.UnixMilli() || got.Record.LogAppend != tc.logAppend {
					t.Errorf("%v: got %+v, %v (error code %d); franz-go reads offset %d at %d", codecs[p.Partition], got, err, p.ErrorCode,
						want.Offset, want.Timestamp.UnixMilli())
				}
				if tc.logAppend && got.Record.Timestamp < start.UnixMilli() {
					t.Errorf("%v: a LogAppendTime record stamped %d, before the test started (%d)", codecs[p.Partition], got.Record.Timestamp, start.UnixMilli())
				}
				if !tc.logAppend && got.Record.Timestamp != t0+10000 {
					t.Errorf("%v: stamped %d, want T0+10 s (%d)", codecs[p.Partition], got.Record.Timestamp, t0+10000)
				}
			}
		})
	}
}

// Transactions on the real broker: its markers and aborted-transaction lists.
func TestAccFetchTransactions(t *testing.T) {
	k := acctest.Connect(t)
	checkTransactions(t, acctest.BootstrapServers(t)[0], k.CreateTopic(acctest.TopicName(t, ""), 1, keepForever()))
}

// keepForever is a topic's retention.ms=-1: the records are stamped at T0 (2025-12-01), past the
// broker's default 7-day retention, whose check (every 5 minutes) deleted them mid-test now and
// then (OFFSET_OUT_OF_RANGE from offset 0 on Kafka 3.3.2).
func keepForever() map[string]*string {
	never := "-1"
	return map[string]*string{"retention.ms": &never}
}

// fetchAt fetches partitions 0..n-1 of topic from offset from, Fetch v11, from the test broker.
func fetchAt(t *testing.T, topic string, n int, from int64) *kmsg.FetchResponse {
	t.Helper()
	conn, err := net.Dial("tcp", acctest.BootstrapServers(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	partitions := make([]int32, n)
	for p := range partitions {
		partitions[p] = int32(p)
	}
	return roundTripFetch(t, conn, fetchRequest(11, topic, partitions, from, 0), n)
}

// consumeAt is the record franz-go's consumer gets first from offset from: the oracle.
func consumeAt(t *testing.T, topic string, partition int32, from int64) *kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(acctest.BootstrapServers(t)...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(from)}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("franz-go consuming %s/%d from %d: %v", topic, partition, from, err)
		}
		if recs := fs.Records(); len(recs) > 0 {
			return recs[0]
		}
	}
}
