package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/segmentio/kafka-go/compress"
)

// kafka-go's decompressors allocate what the compressed bytes claim before they check it: a
// xerial snappy chunk length (up to 4 GiB), a snappy block's decompressed length (up to 4 GiB),
// a zstd frame's window (up to 512 MiB). A few hostile bytes would ask for gigabytes, so
// compressedProblem checks those claims against the bytes first. gzip and lz4 keep buffers of a
// fixed size (lz4: at most 4 MiB, its largest block).

// compressedProblem says what in a batch's compressed records (codec code) claims more memory
// than their size allows; "" when nothing does, or when the codec's reader will report the error
// itself before it allocates.
func compressedProblem(code int8, b []byte) string {
	switch compress.Compression(code) {
	case compress.Snappy:
		return snappyProblem(b)
	case compress.Zstd:
		return zstdProblem(b)
	}
	return ""
}

// xerialMagic starts snappy-java's framing (kafka-go's snappy/xerial.go): 8 bytes of magic and 8
// of version, then chunks of a 4-byte length and a snappy block.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

func snappyProblem(b []byte) string {
	if len(b) < 16 || !bytes.Equal(b[:8], xerialMagic) {
		return snappyBlockProblem(b)
	}
	for b = b[16:]; len(b) >= 4; {
		n := uint64(binary.BigEndian.Uint32(b))
		if n > uint64(len(b)-4) {
			return fmt.Sprintf("a snappy chunk of %d bytes where %d are left", n, len(b)-4)
		}
		if problem := snappyBlockProblem(b[4 : 4+n]); problem != "" {
			return problem
		}
		b = b[4+n:]
	}
	return ""
}

// snappyBlockProblem: a snappy block starts with its decompressed length. Snappy's densest code
// (a 64-byte copy in 3 bytes) decompresses to about 21 times its size.
func snappyBlockProblem(block []byte) string {
	n, k := binary.Uvarint(block)
	if k > 0 && n > 24*uint64(len(block))+64 {
		return fmt.Sprintf("a snappy block of %d bytes that claims %d bytes decompressed", len(block), n)
	}
	return ""
}

// zstd frame layout (RFC 8878).
const (
	zstdMagic          = 0xFD2FB528
	zstdSkippableMask  = 0xFFFFFFF0
	zstdSkippableMagic = 0x184D2A50
)

// zstdProblem walks the frames (header, then blocks by their headers) and refuses a window above
// MaxZstdWindow. It stops at what it cannot follow: the decoder refuses that before it goes on.
func zstdProblem(b []byte) string {
	for len(b) >= 8 {
		magic := binary.LittleEndian.Uint32(b)
		if magic&zstdSkippableMask == zstdSkippableMagic {
			n := uint64(binary.LittleEndian.Uint32(b[4:]))
			if n > uint64(len(b)-8) {
				return ""
			}
			b = b[8+n:]
			continue
		}
		if magic != zstdMagic {
			return ""
		}
		window, pos := zstdWindow(b)
		if pos < 0 {
			return ""
		}
		if window > MaxZstdWindow {
			return fmt.Sprintf("a zstd frame that asks for a window of %d bytes, more than the %d MiB this reader allows", window, MaxZstdWindow>>20)
		}
		if pos = zstdBlocksEnd(b, pos); pos < 0 {
			return ""
		}
		b = b[pos:]
	}
	return ""
}

// zstdWindow reads a frame header: the window it needs and where its first block starts (-1 when
// b ends first).
func zstdWindow(b []byte) (window uint64, pos int) {
	fhd := b[4]
	single := fhd&0x20 != 0
	pos = 5
	if !single {
		wd := b[5]
		base := uint64(1) << (10 + wd>>3)
		window = base + base/8*uint64(wd&7)
		pos = 6
	}
	pos += [4]int{0, 1, 2, 4}[fhd&3] // dictionary id
	fcsSize := [4]int{0, 2, 4, 8}[fhd>>6]
	if single && fcsSize == 0 {
		fcsSize = 1
	}
	if len(b) < pos+fcsSize {
		return 0, -1
	}
	if single { // the window is the content size
		var buf [8]byte
		copy(buf[:], b[pos:pos+fcsSize])
		window = binary.LittleEndian.Uint64(buf[:])
		if fcsSize == 2 {
			window += 256
		}
	}
	return window, pos + fcsSize
}

// zstdBlocksEnd follows a frame's blocks from pos: where the frame ends (-1 when b ends first or
// a block is invalid).
func zstdBlocksEnd(b []byte, pos int) int {
	fhd := b[4]
	for {
		if len(b) < pos+3 {
			return -1
		}
		bh := uint32(b[pos]) | uint32(b[pos+1])<<8 | uint32(b[pos+2])<<16
		pos += 3
		size := int(bh >> 3)
		switch bh >> 1 & 3 {
		case 1: // RLE: one byte, repeated
			size = 1
		case 3: // reserved
			return -1
		}
		if len(b)-pos < size {
			return -1
		}
		pos += size
		if bh&1 != 0 { // last block
			break
		}
	}
	if fhd&0x04 != 0 { // content checksum
		pos += 4
	}
	if pos > len(b) {
		return -1
	}
	return pos
}
