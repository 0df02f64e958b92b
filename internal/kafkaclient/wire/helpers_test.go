// Helpers that more than one test file of the package uses: record batches built byte by byte,
// the fetch messages every version is tested with, and the transactions check.
package wire_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/compress"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire/wiretest"
)

// testBatch describes a v2 record batch for the tests, built byte by byte as KIP-98 lays it out
// (not through any Kafka client, so that odd and broken batches can be made too).
type testBatch struct {
	Base           int64
	FirstTimestamp int64
	MaxTimestamp   int64
	Codec          compress.Compression
	LogAppendTime  bool
	Transactional  bool
	Control        bool
	ProducerID     int64 // 0 unless set: -1 is "no producer"
	Records        []testRecord

	// Overrides for broken batches.
	LastOffsetDelta *int32 // default: the last record's offset delta
	Count           *int32 // default: len(Records)
	Magic           *int8  // default 2
	BadCRC          bool
	Length          *int32                // batchLength as sent; default the true one
	Trailing        []byte                // bytes after the records, inside the batch
	ClaimCodec      *compress.Compression // the codec the attributes name; Codec still compresses
}

// testRecord is one record of a testBatch. A nil Key or Value is sent as null (-1).
type testRecord struct {
	OffsetDelta    int64
	TimestampDelta int64
	Key, Value     []byte
	Length         *int64 // the record length as sent; default the true one
}

// controlRecord is a transaction marker: key version 0 and type (0 ABORT, 1 COMMIT), value
// version 0 and a coordinator epoch.
func controlRecord(offsetDelta int64, typ int16) testRecord {
	return testRecord{OffsetDelta: offsetDelta, Key: []byte{0, 0, 0, byte(typ)}, Value: []byte{0, 0, 0, 0, 0, 3}}
}

// Control record types.
const (
	abortMarker  int16 = 0
	commitMarker int16 = 1
)

func (r testRecord) encode() []byte {
	var body []byte
	body = append(body, 0) // attributes
	body = binary.AppendVarint(body, r.TimestampDelta)
	body = binary.AppendVarint(body, r.OffsetDelta)
	for _, f := range [][]byte{r.Key, r.Value} {
		if f == nil {
			body = binary.AppendVarint(body, -1)
		} else {
			body = binary.AppendVarint(body, int64(len(f)))
			body = append(body, f...)
		}
	}
	body = binary.AppendVarint(body, 0) // headers
	length := int64(len(body))
	if r.Length != nil {
		length = *r.Length
	}
	return append(binary.AppendVarint(nil, length), body...)
}

// encode returns the batch's bytes.
func (b testBatch) encode(tb testing.TB) []byte {
	tb.Helper()
	var recs []byte
	for _, r := range b.Records {
		recs = append(recs, r.encode()...)
	}
	if codec := b.Codec.Codec(); codec != nil {
		var z bytes.Buffer
		w := codec.NewWriter(&z)
		if _, err := w.Write(recs); err != nil {
			tb.Fatal(err)
		}
		if err := w.Close(); err != nil {
			tb.Fatal(err)
		}
		recs = z.Bytes()
	}
	recs = append(recs, b.Trailing...)
	attrs := int16(or(b.ClaimCodec, b.Codec))
	for flag, on := range map[int16]bool{0x08: b.LogAppendTime, 0x10: b.Transactional, 0x20: b.Control} {
		if on {
			attrs |= flag
		}
	}
	lastDelta := int32(0)
	if n := len(b.Records); n > 0 {
		lastDelta = int32(b.Records[n-1].OffsetDelta)
	}
	lastDelta = or(b.LastOffsetDelta, lastDelta)
	// attributes .. records: what the CRC covers.
	var tail []byte
	tail = binary.BigEndian.AppendUint16(tail, uint16(attrs))
	tail = binary.BigEndian.AppendUint32(tail, uint32(lastDelta))
	tail = binary.BigEndian.AppendUint64(tail, uint64(b.FirstTimestamp))
	tail = binary.BigEndian.AppendUint64(tail, uint64(b.MaxTimestamp))
	tail = binary.BigEndian.AppendUint64(tail, uint64(b.ProducerID))
	tail = binary.BigEndian.AppendUint16(tail, 0) // producer epoch
	tail = binary.BigEndian.AppendUint32(tail, 0) // base sequence
	tail = binary.BigEndian.AppendUint32(tail, uint32(or(b.Count, int32(len(b.Records)))))
	tail = append(tail, recs...)
	crc := crc32.Checksum(tail, crc32.MakeTable(crc32.Castagnoli))
	if b.BadCRC {
		crc ^= 1
	}
	var out []byte
	out = binary.BigEndian.AppendUint64(out, uint64(b.Base))
	out = binary.BigEndian.AppendUint32(out, uint32(or(b.Length, int32(4+1+4+len(tail)))))
	out = binary.BigEndian.AppendUint32(out, 0) // partition leader epoch
	out = append(out, byte(or(b.Magic, 2)))
	out = binary.BigEndian.AppendUint32(out, crc)
	return append(out, tail...)
}

func or[T any](p *T, def T) T {
	if p != nil {
		return *p
	}
	return def
}

func ptr[T any](v T) *T { return &v }

// batches concatenates encoded batches, as a Fetch partition's Records holds them.
func batches(tb testing.TB, bs ...testBatch) []byte {
	tb.Helper()
	var out []byte
	for _, b := range bs {
		out = append(out, b.encode(tb)...)
	}
	return out
}

// codecs are the compressions a batch may have, each through kafka-go's own writer.
var codecs = []compress.Compression{compress.None, compress.Gzip, compress.Snappy, compress.Lz4, compress.Zstd}

// fetchResponse is a Fetch response with records, an error partition and aborted transactions,
// in kmsg's type: every field that a version v4-v11 carries is set (an encoder writes those of
// its version).
func fetchResponse(tb testing.TB) *kmsg.FetchResponse {
	tb.Helper()
	res := kmsg.NewPtrFetchResponse()
	res.ThrottleMillis = 1
	topic := kmsg.NewFetchResponseTopic()
	topic.Topic = "orders"
	ok := kmsg.NewFetchResponseTopicPartition()
	ok.Partition, ok.HighWatermark, ok.LastStableOffset, ok.LogStartOffset, ok.PreferredReadReplica = 3, 103, 103, 100, -1
	ok.AbortedTransactions = []kmsg.FetchResponseTopicPartitionAbortedTransaction{{ProducerID: 7, FirstOffset: 90}}
	ok.RecordBatches = batches(tb, threeRecords(100, compress.Zstd))
	failed := kmsg.NewFetchResponseTopicPartition()
	failed.Partition, failed.ErrorCode, failed.HighWatermark, failed.LastStableOffset, failed.LogStartOffset, failed.PreferredReadReplica = 4, 29, -1, -1, -1, -1
	topic.Partitions = []kmsg.FetchResponseTopicPartition{ok, failed}
	res.Topics = []kmsg.FetchResponseTopic{topic}
	return res
}

// abortedOf is a Fetch partition's aborted transactions as wire.NextRecordAt takes them.
func abortedOf(p *kmsg.FetchResponseTopicPartition) []wire.AbortedTxn {
	var out []wire.AbortedTxn
	for _, a := range p.AbortedTransactions {
		out = append(out, wire.AbortedTxn{ProducerID: a.ProducerID, FirstOffset: a.FirstOffset})
	}
	return out
}

// fetchRequest is a consumer's read of partitions of topic from offset from, as the provider
// sends it (no session, no leader epoch check, no replica), at version v.
func fetchRequest(v int16, topic string, partitions []int32, from int64, isolation int8) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.Version = v
	req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.IsolationLevel = wire.FetchConsumerReplica, 100, 1, 1<<20, isolation
	req.SessionID, req.SessionEpoch = wire.FetchNoSession, wire.FetchFinalEpoch
	t := kmsg.NewFetchRequestTopic()
	t.Topic = topic
	for _, p := range partitions {
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.CurrentLeaderEpoch, rp.FetchOffset, rp.LogStartOffset, rp.PartitionMaxBytes = p, wire.FetchNoLeaderEpoch, from, wire.FetchNoLogStart, 1<<20
		t.Partitions = append(t.Partitions, rp)
	}
	req.Topics = []kmsg.FetchRequestTopic{t}
	return req
}

// roundTripFetch sends req on conn and answers its response, failing the test unless it is one
// of topic with n partitions.
func roundTripFetch(t *testing.T, conn net.Conn, req *kmsg.FetchRequest, n int) *kmsg.FetchResponse {
	t.Helper()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	m, err := wiretest.RoundTrip(conn, req)
	res, ok := m.(*kmsg.FetchResponse)
	if err != nil || !ok || res.ErrorCode != 0 || len(res.Topics) != 1 || res.Topics[0].Topic != req.Topics[0].Topic || len(res.Topics[0].Partitions) != n {
		t.Fatalf("Fetch v%d: got %#v, %v; want %d partitions of %s", req.Version, m, err, n, req.Topics[0].Topic)
	}
	return res
}

// checkTransactions writes four transactions to partition 0 of topic (empty) on the broker at
// addr, and checks what a read at offsets among them answers.
func checkTransactions(t *testing.T, addr, topic string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	at := func(ms int64) *kgo.Record {
		return &kgo.Record{Topic: topic, Timestamp: time.UnixMilli(t0 + ms), Value: []byte("v")}
	}
	for _, txn := range []struct {
		records []*kgo.Record
		commit  kgo.TransactionEndTry
	}{
		{[]*kgo.Record{at(0), at(1000)}, kgo.TryAbort},    // offsets 0, 1; abort marker 2
		{[]*kgo.Record{at(2000)}, kgo.TryCommit},          // offset 3; commit marker 4
		{[]*kgo.Record{at(3000), at(4000)}, kgo.TryAbort}, // offsets 5, 6; abort marker 7
		{[]*kgo.Record{at(5000)}, kgo.TryCommit},          // offset 8; commit marker 9
	} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(ctx, txn.records...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := cl.EndTransaction(ctx, txn.commit); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, tc := range []struct {
		name          string
		from          int64
		readCommitted bool
		want          wire.Scan
	}{
		{name: "read_committed, at the aborted transaction", from: 0, readCommitted: true,
			want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 3, Timestamp: t0 + 2000}}},
		{name: "read_uncommitted, at the aborted transaction", from: 1,
			want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 1, Timestamp: t0 + 1000}}},
		{name: "read_committed, at a commit marker, then an aborted transaction", from: 4, readCommitted: true,
			want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 8, Timestamp: t0 + 5000}}},
		{name: "read_committed, at the last marker: nothing", from: 9, readCommitted: true, want: wire.Scan{Next: 10}},
	} {
		for _, v := range []int16{wire.MinFetchVersion, 11} {
			t.Run(fmt.Sprintf("%s/v%d", tc.name, v), func(t *testing.T) {
				got, fetches := scanFrom(t, conn, v, topic, tc.from, tc.readCommitted)
				if got != tc.want {
					t.Fatalf("got %+v after %d fetches; want %+v", got, fetches, tc.want)
				}
			})
		}
	}
}

// produceBatches writes, with franz-go's producer, three records stamped T0, T0+10 s and T0+20 s
// to partition p of topic in one batch compressed with codecs[p], for every p at once. One batch:
// the records linger until all three are in (a flush that starts before the client knows the
// partition sends the first record alone).
func produceBatches(t *testing.T, seeds []string, topic string, codecs []kgo.CompressionCodec) {
	t.Helper()
	var wg sync.WaitGroup
	for p, codec := range codecs {
		wg.Go(func() {
			cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
				kgo.ProducerBatchCompression(codec), kgo.ProducerLinger(time.Second))
			if err != nil {
				t.Error(err)
				return
			}
			defer cl.Close()
			var recs []*kgo.Record
			for i := range 3 {
				recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(p), Timestamp: time.UnixMilli(t0 + int64(i)*10000),
					Value: bytes.Repeat([]byte("value "), 50)})
			}
			if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// threeRecords is a batch that a group's commit may fall in the middle of: records stamped T0,
// T0+10 s and T0+20 s at base..base+2.
func threeRecords(base int64, codec compress.Compression) testBatch {
	return testBatch{Base: base, FirstTimestamp: t0, MaxTimestamp: t0 + 20000, Codec: codec, ProducerID: -1, Records: []testRecord{
		{OffsetDelta: 0, TimestampDelta: 0, Value: []byte("a")},
		{OffsetDelta: 1, TimestampDelta: 10000, Value: []byte("b")},
		{OffsetDelta: 2, TimestampDelta: 20000, Value: []byte("c")},
	}}
}

// dialFake is a raw connection to the kfake cluster's first broker, closed when the test ends.
func dialFake(t *testing.T, c *kfake.Cluster) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", c.ListenAddrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}
