package wire_test

import (
	"math/rand/v2"
	"runtime/debug"
	"testing"

	"github.com/segmentio/kafka-go/compress"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

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
