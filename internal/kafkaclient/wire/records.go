package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/segmentio/kafka-go/compress"
)

// A Fetch partition's records are record batches (magic v2, KIP-98), the last possibly cut short
// by the byte limits. NextRecordAt finds in them the record a consumer would be given next, the
// way Kafka's consumer does (Java's CompletedFetch, franz-go's kgo): control batches and, under
// read_committed, aborted transactions skipped, records below the fetch offset skipped (the
// broker returns the whole batch that holds it). It decompresses as it goes and stops at the
// answer, so that it holds no decompressed batch: only the codec's own state and one record's
// header at a time (bufio-sized), whatever the batch's size.

// AbortedTxn is one aborted transaction of a Fetch response (FetchAbortedTransaction).
type AbortedTxn struct{ ProducerID, FirstOffset int64 }

// NextRecord is the record a consumer would be given next.
type NextRecord struct {
	Offset    int64
	Timestamp int64 // ms since the epoch; -1 when the record has none (old clients)
	LogAppend bool  // the batch's timestamp type is LogAppendTime: Timestamp is the batch's maxTimestamp, the broker's time
}

// Scan is what NextRecordAt found.
type Scan struct {
	Found  bool
	Record NextRecord // when Found
	// When !Found: Next is the offset to fetch from next: one past the last whole batch read (==
	// from when none was whole).
	Next int64
	// NeedBytes: when the bytes held no whole batch, the size of the first batch as its header
	// says (so the caller can ask for that many bytes, or put the partition first in a request,
	// KIP-74); BatchHeaderSize when even the size was cut off; 0 otherwise.
	NeedBytes int32
}

// Record batch layout (magic v2).
const (
	BatchHeaderSize = 61 // baseOffset .. recordCount: the least a batch takes
	batchSizeEnd    = 12 // baseOffset (8), batchLength (4): batchLength counts what follows
	magicAt         = 16 // after partitionLeaderEpoch; v0/v1 messages have their magic byte here too
	crcAt           = 17
	attributesAt    = 21 // the CRC covers attributes to the end

	compressionMask   = 0x07
	logAppendTimeFlag = 0x08
	transactionalFlag = 0x10
	controlFlag       = 0x20

	controlTypeAbort = 0 // control record key: version int16, type int16
)

// MaxZstdWindow bounds the window a zstd frame may ask the decoder to allocate. kafka-go's
// decoder accepts 512 MiB, which a 20-byte frame can claim; 32 MiB covers every compression
// level up to 20 (levels 21-22 need zstd's --ultra because of their windows) and single-frame
// batches of up to 32 MiB decompressed.
const MaxZstdWindow = 32 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// NextRecordAt answers: which is the first record a consumer fetching from offset from would be
// given, in records (a Fetch partition's Records), under read_committed (with the partition's
// aborted transactions) or not. An error says what is wrong with the bytes and where; a trailing
// partial batch is not one: it ends the scan, and Next and NeedBytes say what to fetch next.
func NextRecordAt(records []byte, from int64, readCommitted bool, aborted []AbortedTxn) (Scan, error) {
	s := scanner{from: from, next: from, prevLast: -1}
	if readCommitted {
		s.txn = &txnState{pending: slices.SortedFunc(slices.Values(aborted), func(a, b AbortedTxn) int {
			return cmpInt64(a.FirstOffset, b.FirstOffset)
		})}
	}
	for pos := 0; pos < len(records); {
		h, size, err := readBatchHeader(records[pos:])
		if err != nil {
			return Scan{}, fmt.Errorf("record batch at byte %d: %w", pos, err)
		}
		if h == nil { // the trailing partial batch
			if !s.whole {
				return Scan{Next: from, NeedBytes: int32(size)}, nil //nolint:gosec // readBatchHeader bounds size by 2^31-1
			}
			break
		}
		rec, found, err := s.batch(h, records[pos:pos+size])
		if err != nil {
			return Scan{}, fmt.Errorf("record batch at byte %d (offset %d): %w", pos, h.baseOffset, err)
		}
		if found {
			return Scan{Found: true, Record: rec}, nil
		}
		pos += size
	}
	return Scan{Next: s.next}, nil
}

// LastOffset is the last offset of the last whole batch of records (a Fetch partition's Records)
// whose base offset is at most upTo, from the batch headers alone, for the batches NextRecordAt
// read (upTo: the record it found, or math.MaxInt64); -1 where no batch is whole. A Fetch never
// returns a batch at or past the high watermark it answers with.
func LastOffset(records []byte, upTo int64) int64 {
	last := int64(-1)
	for pos := 0; len(records)-pos >= BatchHeaderSize; {
		base := int64(binary.BigEndian.Uint64(records[pos:]))
		size := int64(int32(binary.BigEndian.Uint32(records[pos+8:]))) + batchSizeEnd
		if base > upTo || size < BatchHeaderSize || size > int64(len(records)-pos) {
			break
		}
		last = base + int64(int32(binary.BigEndian.Uint32(records[pos+23:])))
		pos += int(size)
	}
	return last
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// batchHeader is a v2 record batch's header.
type batchHeader struct {
	baseOffset      int64
	attributes      int16
	lastOffsetDelta int32
	firstTimestamp  int64
	maxTimestamp    int64
	producerID      int64
	count           int32
}

func (h *batchHeader) lastOffset() int64 { return h.baseOffset + int64(h.lastOffsetDelta) }

// readBatchHeader reads the batch at the start of b: its header and its whole size, or (nil,
// size) when b ends inside it (size BatchHeaderSize when b ends before its length).
func readBatchHeader(b []byte) (*batchHeader, int, error) {
	if len(b) < batchSizeEnd {
		return nil, BatchHeaderSize, nil
	}
	length := int64(int32(binary.BigEndian.Uint32(b[8:])))
	if length < BatchHeaderSize-batchSizeEnd || length > math.MaxInt32-batchSizeEnd {
		return nil, 0, fmt.Errorf("a batch length of %d bytes, which no record batch has (%d to 2^31-13)", length, BatchHeaderSize-batchSizeEnd)
	}
	size := int(length) + batchSizeEnd
	if len(b) > magicAt && b[magicAt] != 2 {
		return nil, 0, fmt.Errorf("record format v%d (magic %d), written before Kafka 0.11, is not supported: only v2 batches are read", b[magicAt], b[magicAt])
	}
	if len(b) < size {
		return nil, size, nil
	}
	if want, got := binary.BigEndian.Uint32(b[crcAt:]), crc32.Checksum(b[attributesAt:size], castagnoli); want != got {
		return nil, 0, fmt.Errorf("a CRC-32C of %08x where the batch's bytes give %08x: the batch is corrupt", want, got)
	}
	h := &batchHeader{
		baseOffset:      int64(binary.BigEndian.Uint64(b[0:])),
		attributes:      int16(binary.BigEndian.Uint16(b[21:])),
		lastOffsetDelta: int32(binary.BigEndian.Uint32(b[23:])),
		firstTimestamp:  int64(binary.BigEndian.Uint64(b[27:])),
		maxTimestamp:    int64(binary.BigEndian.Uint64(b[35:])),
		producerID:      int64(binary.BigEndian.Uint64(b[43:])),
		count:           int32(binary.BigEndian.Uint32(b[57:])),
	}
	switch {
	case h.baseOffset < 0:
		return nil, 0, fmt.Errorf("a base offset of %d", h.baseOffset)
	case h.lastOffsetDelta < 0:
		return nil, 0, fmt.Errorf("a last offset delta of %d", h.lastOffsetDelta)
	case h.baseOffset >= math.MaxInt64-int64(h.lastOffsetDelta): // the offset after it must exist
		return nil, 0, fmt.Errorf("a last offset at or beyond 2^63-1 (base %d + delta %d)", h.baseOffset, h.lastOffsetDelta)
	case h.count < 0 || int64(h.count) > int64(h.lastOffsetDelta)+1:
		return nil, 0, fmt.Errorf("%d records in %d offsets", h.count, int64(h.lastOffsetDelta)+1)
	case h.attributes&compressionMask > int16(compress.Zstd):
		return nil, 0, fmt.Errorf("compression codec %d, which Kafka does not have", h.attributes&compressionMask)
	}
	return h, size, nil
}

// scanner is NextRecordAt's state across the batches of one partition.
type scanner struct {
	from     int64
	next     int64     // one past the last whole batch read, at least from
	whole    bool      // a whole batch has been read
	prevLast int64     // the last offset of the previous batch: batches come in order
	txn      *txnState // read_committed only
}

// batch reads one whole batch: the answer if it holds one.
func (s *scanner) batch(h *batchHeader, b []byte) (NextRecord, bool, error) {
	if h.baseOffset <= s.prevLast {
		return NextRecord{}, false, fmt.Errorf("a batch that starts at or before the previous one's last offset %d", s.prevLast)
	}
	s.whole, s.prevLast = true, h.lastOffset()
	s.next = max(s.next, h.lastOffset()+1)
	skip, err := s.skipped(h, b)
	if err != nil || skip || h.lastOffset() < s.from {
		return NextRecord{}, false, err
	}
	rs, done, err := openRecords(h, b)
	if err != nil {
		return NextRecord{}, false, err
	}
	defer done()
	return s.records(h, rs)
}

// skipped reports whether a consumer skips the whole batch: a control batch, or (read_committed)
// a batch of an aborted transaction. Java's CompletedFetch: the aborted transactions that start
// at or before the batch's last offset are under way until their producer's ABORT marker.
func (s *scanner) skipped(h *batchHeader, b []byte) (bool, error) {
	control := h.attributes&controlFlag != 0
	if s.txn == nil || h.producerID == -1 {
		return control, nil
	}
	s.txn.reach(h.lastOffset())
	if control {
		abort, err := isAbortMarker(h, b)
		if abort {
			delete(s.txn.open, h.producerID)
		}
		return true, err
	}
	_, aborted := s.txn.open[h.producerID]
	return aborted && h.attributes&transactionalFlag != 0, nil
}

// txnState is read_committed's view of aborted transactions.
type txnState struct {
	pending []AbortedTxn       // sorted by FirstOffset, not reached yet
	open    map[int64]struct{} // producers inside an aborted transaction
}

func (t *txnState) reach(last int64) {
	for len(t.pending) > 0 && t.pending[0].FirstOffset <= last {
		if t.open == nil {
			t.open = map[int64]struct{}{}
		}
		t.open[t.pending[0].ProducerID] = struct{}{}
		t.pending = t.pending[1:]
	}
}

// isAbortMarker reads a control batch's first record's key (version int16, type int16).
func isAbortMarker(h *batchHeader, b []byte) (bool, error) {
	if h.count == 0 {
		return false, nil
	}
	rs, done, err := openRecords(h, b)
	if err != nil {
		return false, err
	}
	defer done()
	r := recordBody{src: rs}
	if err := r.start(0); err != nil {
		return false, err
	}
	if _, _, err := r.header(); err != nil {
		return false, err
	}
	keyLen, err := r.varint("control record key length")
	if err != nil {
		return false, err
	}
	if keyLen < 4 {
		return false, fmt.Errorf("a control record key of %d bytes, shorter than its version and type", keyLen)
	}
	var key [4]byte
	for i := range key {
		if key[i], err = r.ReadByte(); err != nil {
			return false, err
		}
	}
	return int16(binary.BigEndian.Uint16(key[2:])) == controlTypeAbort, nil
}

// records reads the batch's records up to the first at or after s.from.
func (s *scanner) records(h *batchHeader, rs recordSource) (NextRecord, bool, error) {
	prev := int64(-1)
	for i := range h.count {
		r := recordBody{src: rs}
		if err := r.start(i); err != nil {
			return NextRecord{}, false, err
		}
		tsDelta, offDelta, err := r.header()
		if err != nil {
			return NextRecord{}, false, fmt.Errorf("record %d: %w", i, err)
		}
		if offDelta <= prev || offDelta > int64(h.lastOffsetDelta) {
			return NextRecord{}, false, fmt.Errorf("record %d has offset delta %d, after %d and within 0..%d expected", i, offDelta, prev, h.lastOffsetDelta)
		}
		prev = offDelta
		if off := h.baseOffset + offDelta; off >= s.from {
			rec, err := h.record(off, tsDelta)
			return rec, err == nil, err
		}
		if err := r.skipRest(); err != nil {
			return NextRecord{}, false, fmt.Errorf("record %d: %w", i, err)
		}
	}
	if rs.Buffered() > 0 && h.attributes&compressionMask == 0 {
		return NextRecord{}, false, fmt.Errorf("%d bytes after the batch's %d records", rs.Buffered(), h.count)
	}
	return NextRecord{}, false, nil
}

// record is the record at offset off with timestamp delta tsDelta.
func (h *batchHeader) record(off, tsDelta int64) (NextRecord, error) {
	switch {
	case h.attributes&logAppendTimeFlag != 0:
		return NextRecord{Offset: off, Timestamp: h.maxTimestamp, LogAppend: true}, nil
	case h.firstTimestamp == -1:
		return NextRecord{Offset: off, Timestamp: -1}, nil
	case (tsDelta > 0 && h.firstTimestamp > math.MaxInt64-tsDelta) || (tsDelta < 0 && h.firstTimestamp < math.MinInt64-tsDelta):
		return NextRecord{}, fmt.Errorf("record at offset %d: timestamp %d + delta %d overflows", off, h.firstTimestamp, tsDelta)
	}
	return NextRecord{Offset: off, Timestamp: h.firstTimestamp + tsDelta}, nil
}

// recordSource is a batch's records, decompressed: bytes read one at a time and skipped.
type recordSource interface {
	io.ByteReader
	Discard(n int) (int, error)
	Buffered() int
}

// sliceSource reads an uncompressed batch's records in place.
type sliceSource struct{ b []byte }

func (s *sliceSource) ReadByte() (byte, error) {
	if len(s.b) == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c, nil
}

func (s *sliceSource) Discard(n int) (int, error) {
	if n > len(s.b) {
		k := len(s.b)
		s.b = nil
		return k, io.ErrUnexpectedEOF
	}
	s.b = s.b[n:]
	return n, nil
}

func (s *sliceSource) Buffered() int { return len(s.b) }

// streamSource reads a compressed batch's records from kafka-go's decompressing reader.
type streamSource struct{ *bufio.Reader }

var bufPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// openRecords returns the batch's records (after the header), decompressed as they are read, and
// what to call when done (the codec's reader goes back to its pool).
func openRecords(h *batchHeader, b []byte) (recordSource, func(), error) {
	body := b[BatchHeaderSize:]
	codec := compress.Compression(h.attributes & compressionMask).Codec()
	if codec == nil {
		return &sliceSource{b: body}, func() {}, nil
	}
	if problem := compressedProblem(codec.Code(), body); problem != "" {
		return nil, nil, errors.New(problem)
	}
	zr := codec.NewReader(bytes.NewReader(body))
	br := bufPool.Get().(*bufio.Reader) //nolint:forcetypeassert // only *bufio.Reader is stored
	br.Reset(zr)
	return streamSource{br}, func() {
		br.Reset(nil)
		bufPool.Put(br)
		_ = zr.Close()
	}, nil
}

// recordBody reads one record (length-prefixed, KIP-98 v2 format) from a recordSource, within
// the length it claims.
type recordBody struct {
	src  recordSource
	left int64
	n    int32 // the record's index in its batch, for errors
}

// start reads the record's length.
func (r *recordBody) start(i int32) error {
	r.n, r.left = i, math.MaxInt32
	length, err := r.varint("record length")
	if err != nil {
		return fmt.Errorf("record %d: %w", i, err)
	}
	if length < 6 { // attributes, and one byte for each of timestamp, offset, key, value and header count
		return fmt.Errorf("record %d: a record length of %d bytes", i, length)
	}
	if length > int64(r.src.Buffered()) && isSlice(r.src) {
		return fmt.Errorf("record %d: a record length of %d bytes where the batch has %d left", i, length, r.src.Buffered())
	}
	r.left = length
	return nil
}

func isSlice(s recordSource) bool { _, ok := s.(*sliceSource); return ok }

// header reads attributes, timestamp delta and offset delta.
func (r *recordBody) header() (tsDelta, offDelta int64, err error) {
	if _, err = r.ReadByte(); err != nil {
		return 0, 0, err
	}
	if tsDelta, err = r.varlong("timestamp delta"); err != nil {
		return 0, 0, err
	}
	if offDelta, err = r.varint("offset delta"); err != nil {
		return 0, 0, err
	}
	return tsDelta, offDelta, nil
}

// varint reads a Kafka varint (int32, zigzag).
func (r *recordBody) varint(what string) (int64, error) {
	x, err := r.varlong(what)
	if err == nil && (x < math.MinInt32 || x > math.MaxInt32) {
		return 0, fmt.Errorf("%s %d, beyond Kafka's int32 varints", what, x)
	}
	return x, err
}

// varlong reads a Kafka varlong (int64, zigzag) as binary.ReadVarint does, without making r an
// io.ByteReader (which would move it to the heap, once per record).
func (r *recordBody) varlong(what string) (int64, error) {
	var ux uint64
	for i := 0; i < binary.MaxVarintLen64; i++ {
		c, err := r.ReadByte()
		if err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break
			}
			ux |= uint64(c) << (7 * i)
			return int64(ux>>1) ^ -int64(ux&1), nil
		}
		ux |= uint64(c&0x7f) << (7 * i)
	}
	return 0, fmt.Errorf("%s: a varint longer than 64 bits", what)
}

// ReadByte reads one byte of the record, never past its length.
func (r *recordBody) ReadByte() (byte, error) {
	if r.left <= 0 {
		return 0, errors.New("the record's fields run past its length")
	}
	c, err := r.src.ReadByte()
	if err != nil {
		return 0, decodeErr(err)
	}
	r.left--
	return c, nil
}

// skipRest skips what is left of the record (key, value, headers: never held in memory).
func (r *recordBody) skipRest() error {
	n, err := r.src.Discard(int(r.left))
	if err != nil {
		return fmt.Errorf("the batch ends %d bytes inside the record: %w", r.left-int64(n), decodeErr(err))
	}
	r.left = 0
	return nil
}

// decodeErr is an error of the records' source: the end of the batch's records, or the codec's.
func decodeErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return io.ErrUnexpectedEOF
	}
	return fmt.Errorf("decompressing: %w", err)
}
