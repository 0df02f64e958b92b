package wire_test

import (
	"testing"

	"github.com/segmentio/kafka-go/compress"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire/wiretest"
)

// codecState is what kafka-go's decompressors may hold beyond a small multiple of their input:
// a zstd window (at most wire.MaxZstdWindow, and two blocks) and lz4's block buffers (at most
// 4 MiB each). They are made once and kept in the codecs' pools.
const codecState = wire.MaxZstdWindow + 12<<20

// recordSeeds are valid batches of every codec and kind, alone and together.
func recordSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, codec := range codecs {
		out = append(out, batches(tb, threeRecords(0, codec)))
		lat := threeRecords(3, codec)
		lat.LogAppendTime = true
		out = append(out, batches(tb, threeRecords(0, codec), lat))
	}
	txn := testBatch{Base: 5, FirstTimestamp: t0, MaxTimestamp: t0, Transactional: true, ProducerID: 7, Records: []testRecord{{Value: []byte("t")}}}
	abort := testBatch{Base: 6, FirstTimestamp: t0, MaxTimestamp: t0, Transactional: true, Control: true, ProducerID: 7,
		Records: []testRecord{controlRecord(0, abortMarker)}}
	whole := batches(tb, txn, abort, threeRecords(7, compress.Snappy))
	return append(out, whole, whole[:len(whole)-5], whole[:10])
}

// FuzzNextRecordAt feeds wire.NextRecordAt any bytes: it must not panic or hang, must allocate
// at most a small multiple of the bytes (beyond the codecs' own state), must answer a record at
// or after from (the same one when asked from that record's offset), and must say what to fetch
// next within what the protocol allows.
func FuzzNextRecordAt(f *testing.F) {
	for _, seed := range recordSeeds(f) {
		for _, from := range []int64{0, 1, 5, 8} {
			f.Add(seed, from, from%2 == 0, int64(7), int64(5))
		}
	}
	f.Fuzz(func(t *testing.T, records []byte, from int64, readCommitted bool, pid, first int64) {
		defer acctest.NoHang("wire.NextRecordAt")()
		aborted := []wire.AbortedTxn{{ProducerID: pid, FirstOffset: first}}
		var got wire.Scan
		var err error
		if n := acctest.AllocatedBy(func() { got, err = wire.NextRecordAt(records, from, readCommitted, aborted) }); n > acctest.AllocLimit(len(records))+codecState {
			t.Fatalf("allocated %d bytes for %d bytes of records", n, len(records))
		}
		switch {
		case err != nil:
			if acctest.ControlRune(err.Error()) >= 0 {
				t.Fatalf("the error shows raw bytes: %q", err)
			}
		case got.Found:
			if got.Record.Offset < from || got.Next != 0 || got.NeedBytes != 0 {
				t.Fatalf("from %d: %+v", from, got)
			}
			again, err := wire.NextRecordAt(records, got.Record.Offset, readCommitted, aborted)
			if err != nil || again != got {
				t.Fatalf("from %d: %+v, but from its offset: %+v, %v", from, got, again, err)
			}
		case got.Next < from || (got.NeedBytes != 0 && (got.NeedBytes < wire.BatchHeaderSize || got.Next != from)):
			t.Fatalf("from %d: %+v", from, got)
		}
	})
}

// FuzzFetchResponse: a Fetch response frame of version v, body being what follows its size
// prefix (the correlation id, then the response: v4-v11 are not flexible, so no header tags),
// decodes in kmsg within a small multiple of the frame's size, and each partition's records then
// scan without a panic and never answer a record before from.
func FuzzFetchResponse(f *testing.F) {
	for v := int16(wire.MinFetchVersion); v <= 11; v++ {
		frame := wiretest.EncodedMessage(f, v, fetchResponse(f))
		// The whole seed decodes, and its records reach the scan: the record at 101, T0+10 s.
		res := kmsg.NewPtrFetchResponse()
		res.SetVersion(v)
		if err := res.ReadFrom(frame[8:]); err != nil || len(res.Topics) != 1 || len(res.Topics[0].Partitions) != 2 {
			f.Fatalf("v%d seed: %+v, %v", v, res, err)
		}
		p := &res.Topics[0].Partitions[0]
		got, err := wire.NextRecordAt(p.RecordBatches, 101, true, abortedOf(p))
		if want := (wire.Scan{Found: true, Record: wire.NextRecord{Offset: 101, Timestamp: t0 + 10000}}); err != nil || got != want {
			f.Fatalf("v%d seed: %+v, %v; want %+v", v, got, err, want)
		}
		f.Add(v, frame[4:], int64(101))
		f.Add(v, frame[4:len(frame)-7], int64(100))
	}
	for _, seed := range recordSeeds(f) {
		res := kmsg.NewPtrFetchResponse()
		t := kmsg.NewFetchResponseTopic()
		t.Topic = "t"
		p := kmsg.NewFetchResponseTopicPartition()
		p.RecordBatches = seed
		t.Partitions = []kmsg.FetchResponseTopicPartition{p}
		res.Topics = []kmsg.FetchResponseTopic{t}
		f.Add(int16(11), wiretest.EncodedMessage(f, 11, res)[4:], int64(1))
	}
	f.Fuzz(func(t *testing.T, v int16, body []byte, from int64) {
		if v < wire.MinFetchVersion || v > 11 || len(body) < 4 {
			return // versions the provider does not send; frames under 4 bytes are refused (wire.FrameSizeProblem)
		}
		defer acctest.NoHang("Fetch response")()
		frame := wiretest.FrameOf(body...)
		res := kmsg.NewPtrFetchResponse()
		res.SetVersion(v)
		var err error
		if n := acctest.AllocatedBy(func() { err = res.ReadFrom(body[4:]) }); n > acctest.AllocLimit(len(frame)) {
			t.Fatalf("v%d: a %d-byte frame made kmsg allocate %d bytes", v, len(frame), n)
		}
		if err != nil {
			return // kmsg refuses it: the connection reports that
		}
		for i := range res.Topics {
			for j := range res.Topics[i].Partitions {
				p := &res.Topics[i].Partitions[j]
				if s, err := wire.NextRecordAt(p.RecordBatches, from, true, abortedOf(p)); err == nil && s.Found && s.Record.Offset < from {
					t.Fatalf("v%d: from %d: %+v", v, from, s)
				}
			}
		}
	})
}
