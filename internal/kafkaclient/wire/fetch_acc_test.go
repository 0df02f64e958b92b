package wire_test

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// Against the real broker: records stamped T0, T0+10 s, T0+20 s in one batch per codec, and the
// same on a LogAppendTime topic, fetched from offset 1 with these types; the record and timestamp
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
		{name: "CreateTime"},
		{name: "LogAppendTime", configs: map[string]*string{"message.timestamp.type": &logAppend}, logAppend: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topic := k.CreateTopic(acctest.TopicName(t, ""), int32(len(codecs)), tc.configs)
			start := time.Now()
			for p, codec := range codecs {
				produceBatch(t, topic, int32(p), codec)
			}
			res := fetchAt(t, topic, len(codecs), 1)
			for _, p := range res.Topics[0].Partitions {
				want := consumeAt(t, topic, p.Partition, 1)
				got, err := wire.NextRecordAt(p.Records, 1, false, p.Aborted())
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
	checkTransactions(t, acctest.BootstrapServers(t)[0], k.CreateTopic(acctest.TopicName(t, ""), 1, nil))
}

// produceBatch writes three records stamped T0, T0+10 s and T0+20 s to one partition in one batch.
func produceBatch(t *testing.T, topic string, partition int32, codec kgo.CompressionCodec) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(acctest.BootstrapServers(t)...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(codec), kgo.ManualFlushing())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := range 3 {
		cl.Produce(context.Background(), &kgo.Record{Topic: topic, Partition: partition, Timestamp: time.UnixMilli(t0 + int64(i)*10000),
			Value: bytes.Repeat([]byte("value "), 50)}, func(_ *kgo.Record, err error) {
			if err != nil {
				t.Error(err)
			}
		})
	}
	if err := cl.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// fetchAt fetches partitions 0..n-1 of topic from offset from, Fetch v11, from the test broker.
func fetchAt(t *testing.T, topic string, n int, from int64) *wire.FetchResponse {
	t.Helper()
	conn, err := net.Dial("tcp", acctest.BootstrapServers(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := &wire.FetchRequest{ReplicaID: wire.FetchConsumerReplica, MaxWaitTime: 100, MinBytes: 1, MaxBytes: 1 << 20,
		SessionID: wire.FetchNoSession, SessionEpoch: wire.FetchFinalEpoch, Topics: []wire.FetchRequestTopic{{Topic: topic}}}
	for p := range n {
		req.Topics[0].Partitions = append(req.Topics[0].Partitions, wire.FetchRequestPartition{Partition: int32(p),
			CurrentLeaderEpoch: wire.FetchNoLeaderEpoch, FetchOffset: from, LogStartOffset: wire.FetchNoLogStart, PartitionMaxBytes: 1 << 20})
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	m, err := protocol.RoundTrip(conn, 11, 1, "test", req)
	res, ok := m.(*wire.FetchResponse)
	if err != nil || !ok || len(res.Topics) != 1 || len(res.Topics[0].Partitions) != n {
		t.Fatalf("got %#v, %v", m, err)
	}
	return res
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
