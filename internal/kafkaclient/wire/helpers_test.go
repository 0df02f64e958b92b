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
	"testing"
	"time"

	"github.com/segmentio/kafka-go/compress"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
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

// fetchResponseAt is a response of version v with records, null records and aborted transactions.
func fetchResponseAt(tb testing.TB, v int16) *wire.FetchResponse {
	res := &wire.FetchResponse{ThrottleTimeMs: 1, Topics: []wire.FetchResponseTopic{{Topic: "orders", Partitions: []wire.FetchResponsePartition{
		{Partition: 3, HighWatermark: 103, LastStableOffset: 103, LogStartOffset: 100, PreferredReadReplica: -1,
			AbortedTransactions: []wire.FetchAbortedTransaction{{ProducerID: 7, FirstOffset: 90}},
			Records:             batches(tb, threeRecords(100, compress.Zstd))},
		{Partition: 4, ErrorCode: 29, HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1, PreferredReadReplica: -1},
	}}}}
	if v >= 7 {
		res.SessionID = 0
		res.ErrorCode = 0
	}
	for i := range res.Topics[0].Partitions {
		p := &res.Topics[0].Partitions[i]
		if v < 5 {
			p.LogStartOffset = 0
		}
		if v < 11 {
			p.PreferredReadReplica = 0
		}
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

// threeRecords is a batch that a group's commit may fall in the middle of: records stamped T0,
// T0+10 s and T0+20 s at base..base+2.
func threeRecords(base int64, codec compress.Compression) testBatch {
	return testBatch{Base: base, FirstTimestamp: t0, MaxTimestamp: t0 + 20000, Codec: codec, ProducerID: -1, Records: []testRecord{
		{OffsetDelta: 0, TimestampDelta: 0, Value: []byte("a")},
		{OffsetDelta: 1, TimestampDelta: 10000, Value: []byte("b")},
		{OffsetDelta: 2, TimestampDelta: 20000, Value: []byte("c")},
	}}
}

// wantRegistered fails the test unless kafka-go's table has api for exactly versions lo to hi:
// this package's types are registered there in its place.
func wantRegistered(t *testing.T, api protocol.ApiKey, lo, hi int16) {
	t.Helper()
	if api.MinVersion() != lo || api.MaxVersion() != hi {
		t.Fatalf("%v registered for v%d-v%d, want v%d-v%d", api, api.MinVersion(), api.MaxVersion(), lo, hi)
	}
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
