package wire_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// fetchRequestAt is a read's request as version v carries it (fields of later versions zero).
func fetchRequestAt(v int16) *wire.FetchRequest {
	req := &wire.FetchRequest{ReplicaID: wire.FetchConsumerReplica, MaxWaitTime: 500, MinBytes: 1, MaxBytes: 1 << 20, IsolationLevel: 1,
		Topics: []wire.FetchRequestTopic{{Topic: "orders", Partitions: []wire.FetchRequestPartition{
			{Partition: 3, CurrentLeaderEpoch: wire.FetchNoLeaderEpoch, FetchOffset: 101, LogStartOffset: wire.FetchNoLogStart, PartitionMaxBytes: 1 << 20},
		}}}}
	if v >= 7 {
		req.SessionID, req.SessionEpoch, req.ForgottenTopics = wire.FetchNoSession, wire.FetchFinalEpoch, []wire.FetchRequestForgottenTopic{}
	}
	p := &req.Topics[0].Partitions[0]
	if v < 9 {
		p.CurrentLeaderEpoch = 0
	}
	if v < 5 {
		p.LogStartOffset = 0
	}
	return req
}

// The Fetch types replace kafka-go's, v4 to v11: connections negotiate within that range.
func TestFetchRegistered(t *testing.T) {
	wantRegistered(t, protocol.Fetch, wire.MinFetchVersion, 11)
	for _, tc := range []struct {
		name       string
		brokerMax  int16
		negotiated int16
	}{
		{name: "Kafka 4.x (v4-v17)", brokerMax: 17, negotiated: 11},
		{name: "Kafka 2.3 (v0-v11)", brokerMax: 11, negotiated: 11},
		{name: "Kafka 1.1 (v0-v7)", brokerMax: 7, negotiated: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := protocol.Fetch.SelectVersion(0, tc.brokerMax); got != tc.negotiated {
				t.Fatalf("negotiated v%d, want v%d", got, tc.negotiated)
			}
		})
	}
}

// Every version encodes and decodes to the same value through kafka-go's encoder, and the
// response passes the shape check; null records stay null.
func TestFetchRoundTrip(t *testing.T) {
	for v := int16(wire.MinFetchVersion); v <= 11; v++ {
		var b bytes.Buffer
		req := fetchRequestAt(v)
		if err := protocol.WriteRequest(&b, v, 1, "test", req); err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		gotV, _, _, msg, err := protocol.ReadRequest(&b)
		if err != nil || gotV != v {
			t.Fatalf("v%d request: got v%d, %v", v, gotV, err)
		}
		if diff := cmp.Diff(any(req), msg); diff != "" {
			t.Fatalf("v%d request (-want +got):\n%s", v, diff)
		}
		res := fetchResponseAt(t, v)
		b.Reset()
		if err := protocol.WriteResponse(&b, v, 1, res); err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if problem := wire.CheckShape(protocol.Fetch, v, b.Bytes()); problem != "" {
			t.Fatalf("v%d: shape: %s", v, problem)
		}
		_, msg, err = protocol.ReadResponse(&b, protocol.Fetch, v)
		if err != nil {
			t.Fatalf("v%d response: %v", v, err)
		}
		if diff := cmp.Diff(any(res), msg); diff != "" {
			t.Fatalf("v%d response (-want +got):\n%s", v, diff)
		}
	}
}

// Records that a Kafka client wrote (franz-go's producer, into kfake), fetched with these types in
// every version, give the record at a commit in the middle of a batch for every codec: T0+10 s, not
// the batch's first timestamp.
func TestFetchEveryVersionEveryCodec(t *testing.T) {
	codecs := []kgo.CompressionCodec{kgo.NoCompression(), kgo.GzipCompression(), kgo.SnappyCompression(), kgo.Lz4Compression(), kgo.ZstdCompression()}
	c := acctest.Fake(t, kfake.SeedTopics(int32(len(codecs)), "t"))
	base := time.UnixMilli(t0)
	for p, codec := range codecs {
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
			kgo.ProducerBatchCompression(codec), kgo.ManualFlushing())
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			cl.Produce(context.Background(), &kgo.Record{Topic: "t", Partition: int32(p), Timestamp: base.Add(time.Duration(i) * 10 * time.Second),
				Value: bytes.Repeat([]byte("value "), 50)}, func(_ *kgo.Record, err error) {
				if err != nil {
					t.Error(err)
				}
			})
		}
		if err := cl.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		cl.Close()
	}
	conn := dialFake(t, c)
	for v := int16(wire.MinFetchVersion); v <= 11; v++ {
		req := &wire.FetchRequest{ReplicaID: wire.FetchConsumerReplica, MaxWaitTime: 100, MinBytes: 1, MaxBytes: 1 << 20,
			SessionID: wire.FetchNoSession, SessionEpoch: wire.FetchFinalEpoch, Topics: []wire.FetchRequestTopic{{Topic: "t"}}}
		for p := range codecs {
			req.Topics[0].Partitions = append(req.Topics[0].Partitions, wire.FetchRequestPartition{Partition: int32(p),
				CurrentLeaderEpoch: wire.FetchNoLeaderEpoch, FetchOffset: 1, LogStartOffset: wire.FetchNoLogStart, PartitionMaxBytes: 1 << 20})
		}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		m, err := protocol.RoundTrip(conn, v, int32(v), "test", req)
		res, ok := m.(*wire.FetchResponse)
		if err != nil || !ok || len(res.Topics) != 1 || len(res.Topics[0].Partitions) != len(codecs) {
			t.Fatalf("v%d: got %#v, %v", v, m, err)
		}
		for _, p := range res.Topics[0].Partitions {
			got, err := wire.NextRecordAt(p.Records, 1, false, p.Aborted())
			want := wire.Scan{Found: true, Record: wire.NextRecord{Offset: 1, Timestamp: t0 + 10000}}
			if len(p.Records) < 8 || binary.BigEndian.Uint64(p.Records) != 0 {
				t.Fatalf("v%d, %v: the records do not start with one batch from offset 0", v, codecs[p.Partition])
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
// aborted-transaction lists), fetched with these types: read_committed skips the aborted one and
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
		req := &wire.FetchRequest{ReplicaID: wire.FetchConsumerReplica, MaxWaitTime: 100, MinBytes: 1, MaxBytes: 1 << 20, IsolationLevel: isolation,
			SessionID: wire.FetchNoSession, SessionEpoch: wire.FetchFinalEpoch, Topics: []wire.FetchRequestTopic{{Topic: topic,
				Partitions: []wire.FetchRequestPartition{{CurrentLeaderEpoch: wire.FetchNoLeaderEpoch, FetchOffset: from, LogStartOffset: wire.FetchNoLogStart, PartitionMaxBytes: 1 << 20}}}}}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		m, err := protocol.RoundTrip(conn, v, 1, "test", req)
		res, ok := m.(*wire.FetchResponse)
		if err != nil || !ok || len(res.Topics) != 1 || len(res.Topics[0].Partitions) != 1 {
			t.Fatalf("fetch %d: got %#v, %v", fetches, m, err)
		}
		p := res.Topics[0].Partitions[0]
		got, err := wire.NextRecordAt(p.Records, from, readCommitted, p.Aborted())
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
