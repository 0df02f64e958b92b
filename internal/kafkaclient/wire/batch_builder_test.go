package wire_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/segmentio/kafka-go/compress"
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
