package wire_test

import (
	"math"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/segmentio/kafka-go/compress"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

const t0 = int64(1764547200000) // 2025-12-01T00:00:00Z, ms

// A commit in the middle of a batch: the record at the commit, T0+10 s exactly, not the batch's
// first timestamp, whatever the codec.
func TestNextRecordAtMiddleOfBatchEveryCodec(t *testing.T) {
	for _, codec := range codecs {
		t.Run(codec.String(), func(t *testing.T) {
			got, err := wire.NextRecordAt(batches(t, threeRecords(100, codec)), 101, false, nil)
			want := wire.Scan{Found: true, Record: wire.NextRecord{Offset: 101, Timestamp: t0 + 10000}}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Each rule of what a consumer is given next, against batches built byte by byte.
func TestNextRecordAt(t *testing.T) {
	const pid = 7
	txn := func(base int64, producer int64, n int) testBatch {
		b := testBatch{Base: base, FirstTimestamp: t0, MaxTimestamp: t0 + int64(n-1), Transactional: true, ProducerID: producer}
		for i := range n {
			b.Records = append(b.Records, testRecord{OffsetDelta: int64(i), TimestampDelta: int64(i), Value: []byte("v")})
		}
		return b
	}
	marker := func(at int64, producer int64, typ int16) testBatch {
		return testBatch{Base: at, FirstTimestamp: t0 + 50, MaxTimestamp: t0 + 50, Transactional: true, Control: true,
			ProducerID: producer, Records: []testRecord{controlRecord(0, typ)}}
	}
	plain := func(base int64, ts int64) testBatch {
		return testBatch{Base: base, FirstTimestamp: ts, MaxTimestamp: ts, ProducerID: -1, Records: []testRecord{{Value: []byte("p")}}}
	}
	whole := batches(t, threeRecords(0, compress.None))
	for _, tc := range []struct {
		name          string
		records       []byte
		from          int64
		readCommitted bool
		aborted       []wire.AbortedTxn
		want          wire.Scan
	}{
		{name: "first record of a batch", records: whole, from: 0,
			want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 0, Timestamp: t0}}},
		{name: "last record of a batch", records: whole, from: 2,
			want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 2, Timestamp: t0 + 20000}}},
		{name: "past the batch: nothing, fetch from its end", records: whole, from: 3,
			want: wire.Scan{Next: 3}},
		{name: "LogAppendTime: the batch's max timestamp for every record",
			records: batches(t, testBatch{Base: 10, FirstTimestamp: t0, MaxTimestamp: t0 + 99999, LogAppendTime: true, ProducerID: -1,
				Records: []testRecord{{OffsetDelta: 0, Value: []byte("a")}, {OffsetDelta: 1, Value: []byte("b")}}}),
			from: 11, want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 11, Timestamp: t0 + 99999, LogAppend: true}}},
		{name: "LogAppendTime, compressed",
			records: batches(t, testBatch{Base: 10, FirstTimestamp: t0, MaxTimestamp: t0 + 5, LogAppendTime: true, Codec: compress.Zstd, ProducerID: -1,
				Records: []testRecord{{OffsetDelta: 0, Value: []byte("a")}, {OffsetDelta: 1, TimestampDelta: 3, Value: []byte("b")}}}),
			from: 10, want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 10, Timestamp: t0 + 5, LogAppend: true}}},
		{name: "no timestamp (-1) stays -1",
			records: batches(t, testBatch{Base: 0, FirstTimestamp: -1, MaxTimestamp: -1, ProducerID: -1,
				Records: []testRecord{{OffsetDelta: 0}, {OffsetDelta: 1}}}),
			from: 1, want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 1, Timestamp: -1}}},
		{name: "compacted gap inside a batch: the next record that exists",
			records: batches(t, testBatch{Base: 20, FirstTimestamp: t0, MaxTimestamp: t0 + 9, ProducerID: -1, LastOffsetDelta: ptr(int32(9)),
				Records: []testRecord{{OffsetDelta: 0}, {OffsetDelta: 3, TimestampDelta: 3}, {OffsetDelta: 7, TimestampDelta: 7}}}),
			from: 21, want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 23, Timestamp: t0 + 3}}},
		{name: "compacted tail of a batch: nothing in it, fetch past its last offset delta",
			records: batches(t, testBatch{Base: 20, FirstTimestamp: t0, MaxTimestamp: t0 + 9, ProducerID: -1, LastOffsetDelta: ptr(int32(9)),
				Records: []testRecord{{OffsetDelta: 0}, {OffsetDelta: 3, TimestampDelta: 3}}}),
			from: 24, want: wire.Scan{Next: 30}},
		{name: "compacted gap between batches",
			records: batches(t, threeRecords(0, compress.Gzip), threeRecords(8, compress.Lz4)),
			from:    4, want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 8, Timestamp: t0}}},
		{name: "an empty batch (compacted away) is passed",
			records: batches(t, testBatch{Base: 0, FirstTimestamp: t0, MaxTimestamp: t0, ProducerID: -1, LastOffsetDelta: ptr(int32(4))}, plain(5, t0+5)),
			from:    2, want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 5, Timestamp: t0 + 5}}},
		{name: "control batch only: not found, fetch past it",
			records: batches(t, marker(10, pid, commitMarker)), from: 10, want: wire.Scan{Next: 11}},
		{name: "control batch skipped under read_uncommitted too",
			records: batches(t, marker(10, pid, commitMarker), plain(11, t0+11)), from: 10,
			want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 11, Timestamp: t0 + 11}}},
		{name: "aborted transaction at from, read_committed: skipped with its marker",
			records: batches(t, txn(5, pid, 2), marker(7, pid, abortMarker), plain(8, t0+8)), from: 5,
			readCommitted: true, aborted: []wire.AbortedTxn{{ProducerID: pid, FirstOffset: 5}},
			want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 8, Timestamp: t0 + 8}}},
		{name: "aborted transaction at from, read_uncommitted: read",
			records: batches(t, txn(5, pid, 2), marker(7, pid, abortMarker), plain(8, t0+8)), from: 5,
			aborted: []wire.AbortedTxn{{ProducerID: pid, FirstOffset: 5}},
			want:    wire.Scan{Found: true, Record: wire.NextRecord{Offset: 5, Timestamp: t0}}},
		{name: "aborted transaction in the middle of a batch, read_committed",
			records: batches(t, txn(5, pid, 3), marker(8, pid, abortMarker)), from: 6,
			readCommitted: true, aborted: []wire.AbortedTxn{{ProducerID: pid, FirstOffset: 5}},
			want: wire.Scan{Next: 9}},
		{name: "committed transaction, read_committed: read",
			records: batches(t, txn(5, pid, 2), marker(7, pid, commitMarker)), from: 6, readCommitted: true,
			want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 6, Timestamp: t0 + 1}}},
		{name: "interleaved: one producer's aborted batch, another's committed one",
			records: batches(t, txn(5, pid, 1), txn(6, pid+1, 1), marker(7, pid, abortMarker), marker(8, pid+1, commitMarker)),
			from:    5, readCommitted: true, aborted: []wire.AbortedTxn{{ProducerID: pid, FirstOffset: 5}},
			want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 6, Timestamp: t0}}},
		{name: "after the abort marker the producer's next transaction is read",
			records: batches(t, txn(5, pid, 1), marker(6, pid, abortMarker), txn(7, pid, 1), marker(8, pid, commitMarker)),
			from:    5, readCommitted: true, aborted: []wire.AbortedTxn{{ProducerID: pid, FirstOffset: 5}},
			want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 7, Timestamp: t0}}},
		{name: "two aborted transactions of one producer, listed out of order",
			records: batches(t, txn(5, pid, 1), marker(6, pid, abortMarker), txn(7, pid, 1), marker(8, pid, abortMarker), plain(9, t0+9)),
			from:    5, readCommitted: true, aborted: []wire.AbortedTxn{{ProducerID: pid, FirstOffset: 7}, {ProducerID: pid, FirstOffset: 5}},
			want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 9, Timestamp: t0 + 9}}},
		{name: "an aborted transaction that starts after the batch does not skip it",
			records: batches(t, txn(5, pid, 1), marker(6, pid, commitMarker), txn(7, pid, 1)),
			from:    5, readCommitted: true, aborted: []wire.AbortedTxn{{ProducerID: pid, FirstOffset: 7}},
			want: wire.Scan{Found: true, Record: wire.NextRecord{Offset: 5, Timestamp: t0}}},
		{name: "no bytes: nothing, nothing more to ask", records: nil, from: 42, want: wire.Scan{Next: 42}},
		{name: "a partial first batch: its size, from the header",
			records: whole[:40], from: 1, want: wire.Scan{Next: 1, NeedBytes: int32(len(whole))}},
		{name: "a first batch cut before its length: a header's size",
			records: whole[:10], from: 1, want: wire.Scan{Next: 1, NeedBytes: wire.BatchHeaderSize}},
		{name: "a whole batch, then a partial one: fetch after the whole one",
			records: append(batches(t, marker(3, pid, commitMarker)), batches(t, threeRecords(4, compress.None))[:70]...), from: 3,
			want: wire.Scan{Next: 4}},
		{name: "a whole batch below from, then a partial one: from",
			records: append(batches(t, threeRecords(0, compress.None)), batches(t, threeRecords(3, compress.None))[:70]...), from: 5,
			want: wire.Scan{Next: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := wire.NextRecordAt(tc.records, tc.from, tc.readCommitted, tc.aborted)
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// What is wrong with the bytes is an error that says so, never a panic or an answer.
func TestNextRecordAtRefuses(t *testing.T) {
	good := threeRecords(0, compress.None)
	with := func(edit func(b *testBatch)) []byte {
		b := good
		b.Records = append([]testRecord(nil), good.Records...)
		edit(&b)
		return batches(t, b)
	}
	for _, tc := range []struct {
		name    string
		records []byte
		from    int64
		want    string
	}{
		{name: "bad CRC", records: with(func(b *testBatch) { b.BadCRC = true }),
			want: "record batch at byte 0: a CRC-32C of"},
		{name: "record format v1", records: with(func(b *testBatch) { b.Magic = ptr(int8(1)) }),
			want: "record format v1 (magic 1), written before Kafka 0.11, is not supported"},
		{name: "record format v1, partial", records: with(func(b *testBatch) { b.Magic = ptr(int8(1)) })[:20],
			want: "record format v1 (magic 1)"},
		{name: "batch length near 2^31", records: with(func(b *testBatch) { b.Length = ptr(int32(0x7fffffff)) }),
			want: "a batch length of 2147483647 bytes, which no record batch has"},
		{name: "negative batch length", records: with(func(b *testBatch) { b.Length = ptr(int32(-1)) }),
			want: "a batch length of -1 bytes"},
		{name: "batch length shorter than a header", records: with(func(b *testBatch) { b.Length = ptr(int32(10)) }),
			want: "a batch length of 10 bytes"},
		{name: "negative record count", records: with(func(b *testBatch) { b.Count = ptr(int32(-1)) }),
			want: "-1 records in 3 offsets"},
		{name: "more records than offsets", records: with(func(b *testBatch) { b.Count = ptr(int32(4)) }),
			want: "4 records in 3 offsets"},
		{name: "negative last offset delta", records: with(func(b *testBatch) { b.LastOffsetDelta = ptr(int32(-2)) }),
			want: "a last offset delta of -2"},
		{name: "fewer records than the count", records: with(func(b *testBatch) {
			b.Records = b.Records[:2]
			b.Count, b.LastOffsetDelta = ptr(int32(3)), ptr(int32(2))
		}),
			from: 2, want: "record 2: record length: unexpected EOF"},
		{name: "a record's offset beyond the batch's last", records: with(func(b *testBatch) { b.Records[2].OffsetDelta, b.LastOffsetDelta = 5, ptr(int32(2)) }),
			from: 2, want: "record 2 has offset delta 5, after 1 and within 0..2 expected"},
		{name: "record offsets out of order", records: with(func(b *testBatch) { b.Records[1].OffsetDelta = 0 }),
			from: 2, want: "record 1 has offset delta 0, after 0"},
		{name: "a record longer than the batch", records: with(func(b *testBatch) { b.Records[0].Length = ptr(int64(1000)) }),
			from: 2, want: "record 0: a record length of 1000 bytes where the batch has"},
		{name: "a record length of 2^31", records: with(func(b *testBatch) { b.Records[0].Length = ptr(int64(1) << 31) }),
			from: 2, want: "record 0: record length 2147483648, beyond Kafka's int32 varints"},
		{name: "a record shorter than its fields", records: with(func(b *testBatch) { b.Records[0].Length = ptr(int64(6)) }),
			from: 2, want: "record 1: a record length of 0 bytes"},
		{name: "bytes after the last record", records: with(func(b *testBatch) { b.Trailing, b.LastOffsetDelta = []byte{1, 2}, ptr(int32(5)) }),
			from: 3, want: "2 bytes after the batch's 3 records"},
		{name: "batches out of order", records: append(batches(t, threeRecords(5, compress.None)), batches(t, threeRecords(0, compress.None))...),
			from: 9, want: "(offset 0): a batch that starts at or before the previous one's last offset 7"},
		{name: "a codec Kafka does not have", records: with(func(b *testBatch) { b.Codec = 5 }),
			want: "compression codec 5, which Kafka does not have"},
		{name: "gzip that is not gzip", records: with(func(b *testBatch) { b.ClaimCodec = ptr(compress.Gzip) }),
			want: "record 0: record length: decompressing: "},
		{name: "snappy that claims 1 GiB", records: with(func(b *testBatch) {
			b.ClaimCodec, b.Records, b.LastOffsetDelta, b.Trailing = ptr(compress.Snappy), nil, ptr(int32(2)), []byte{0x80, 0x80, 0x80, 0x80, 4, 0}
		}), want: "a snappy block of 6 bytes that claims 1073741824 bytes decompressed"},
		{name: "xerial snappy chunk longer than the batch", records: with(func(b *testBatch) {
			b.ClaimCodec, b.Records, b.LastOffsetDelta = ptr(compress.Snappy), nil, ptr(int32(2))
			b.Trailing = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0}
		}), want: "a snappy chunk of 4294967295 bytes where 1 are left"},
		{name: "zstd frame with a 1 GiB window", records: with(func(b *testBatch) {
			b.ClaimCodec, b.Records, b.LastOffsetDelta = ptr(compress.Zstd), nil, ptr(int32(2))
			b.Trailing = []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 20 << 3, 1, 0, 0}
		}), want: "a zstd frame that asks for a window of 1073741824 bytes, more than the 32 MiB this reader allows"},
		{name: "a second zstd frame with a 1 GiB window, after a valid one", records: with(func(b *testBatch) {
			b.Codec, b.Trailing = compress.Zstd, []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 20 << 3, 1, 0, 0}
		}), from: 2, want: "a zstd frame that asks for a window of 1073741824 bytes"},
		{name: "a last offset of 2^63-1", records: with(func(b *testBatch) { b.Base = 1<<63 - 3 }),
			want: "a last offset at or beyond 2^63-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := wire.NextRecordAt(tc.records, tc.from, false, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %+v, %v; want an error with %q", got, err, tc.want)
			}
			if acctest.ControlRune(err.Error()) >= 0 {
				t.Fatalf("the error shows raw bytes: %q", err)
			}
		})
	}
}

// mebibyteBatch is a batch of 1 MiB of records (decompressed): n records of 1 MiB/n bytes of
// text that compresses about 2:1, so that no codec makes it small.
func mebibyteBatch(tb testing.TB, codec compress.Compression, n int) []byte {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	b := testBatch{Base: 1000, FirstTimestamp: t0, MaxTimestamp: t0 + int64(n), Codec: codec, ProducerID: -1}
	for i := range n {
		v := make([]byte, (1<<20)/n)
		for j := range v {
			v[j] = 'a' + byte(rng.IntN(16))
		}
		b.Records = append(b.Records, testRecord{OffsetDelta: int64(i), TimestampDelta: int64(i), Value: v})
	}
	return b.encode(tb)
}

// The last record of a 1 MiB batch (every record decompressed and passed over), and the record
// after a single 1 MiB one: what the scan allocates is the codec's reader and a buffer, never the
// batch, a record, or anything per record. The GC is off while the scans are measured, so that
// it cannot empty the codecs' pools in between (their state is made once per process and P, not
// per scan). Under -race, sync.Pool drops items at random: the allocation count, far below one per
// record, still holds, the bytes (a new lz4 reader takes 4 MiB) are checked without -race only.
func TestNextRecordAtMemory(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, codec := range codecs {
		for _, tc := range []struct {
			name     string
			records  int
			from     int64
			maxBytes uint64
		}{
			{name: "1024 records of 1 KiB, the last", records: 1024, from: 1000 + 1023, maxBytes: 64 << 10},
			{name: "one record of 1 MiB, then the next", records: 2, from: 1001, maxBytes: 64 << 10},
		} {
			t.Run(codec.String()+"/"+tc.name, func(t *testing.T) {
				records := mebibyteBatch(t, codec, tc.records)
				scan := func() (wire.Scan, error) { return wire.NextRecordAt(records, tc.from, false, nil) }
				_, _ = scan() // the codec's pooled state
				var got wire.Scan
				var err error
				allocated := ^uint64(0) // the least of a few scans: a scan on another P may miss the pooled state
				for range 5 {
					allocated = min(allocated, acctest.AllocatedBy(func() { got, err = scan() }))
				}
				if err != nil || !got.Found || got.Record.Offset != tc.from || got.Record.Timestamp != t0+tc.from-1000 {
					t.Fatalf("got %+v, %v; want the record at %d", got, err, tc.from)
				}
				if allocs := testing.AllocsPerRun(2, func() { _, _ = scan() }); allocs > 100 {
					t.Fatalf("%v allocations per scan of %d records (at most 100: none per record)", allocs, tc.records)
				}
				if !raceDetector && allocated > tc.maxBytes {
					t.Fatalf("a scan of %d bytes (%d decompressed) allocated %d bytes, more than %d", len(records), 1<<20, allocated, tc.maxBytes)
				}
			})
		}
	}
}

// BenchmarkNextRecordAt1MiB: the last of 1024 records of a 1 MiB batch, per codec.
func BenchmarkNextRecordAt1MiB(b *testing.B) {
	for _, codec := range codecs {
		records := mebibyteBatch(b, codec, 1024)
		b.Run(codec.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(1 << 20)
			for b.Loop() {
				if s, err := wire.NextRecordAt(records, 1000+1023, false, nil); err != nil || !s.Found {
					b.Fatal(s, err)
				}
			}
		})
	}
}

// LastOffset gives the last offset of the whole batches up to the one that holds an offset, from
// their headers: what a Fetch returned, against its high watermark.
func TestLastOffset(t *testing.T) {
	two := batches(t, threeRecords(0, compress.None), threeRecords(3, compress.None))
	first := len(batches(t, threeRecords(0, compress.None)))
	for _, tc := range []struct {
		name    string
		records []byte
		upTo    int64
		want    int64
	}{
		{"every batch", two, math.MaxInt64, 5},
		{"up to the batch that holds offset 1", two, 1, 2},
		{"up to the batch that holds offset 3", two, 3, 5},
		{"a partial batch is not counted", two[:first+30], math.MaxInt64, 2},
		{"no whole batch", two[:30], math.MaxInt64, -1},
		{"no bytes", nil, math.MaxInt64, -1},
	} {
		if got := wire.LastOffset(tc.records, tc.upTo); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}
