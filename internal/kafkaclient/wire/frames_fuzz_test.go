package wire_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/apiversions"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire/wiretest"
)

// FuzzFrameSize: wire.FrameSizeProblem passes exactly the sizes from 4 bytes to wire.MaxResponseFrame, and
// wire.NotKafka objects to exactly the first bytes that cannot start a first response; what they say
// never shows the peer's bytes raw.
func FuzzFrameSize(f *testing.F) {
	for _, head := range [][]byte{
		{0, 0, 0, 4}, {0, 0, 0, 3}, {0, 0, 0, 0}, {0xff, 0xff, 0xff, 0xff}, {0x7f, 0xff, 0xff, 0xff},
		{0x10, 0, 0, 0}, {0x10, 0, 0, 1}, {0, 0x10, 0, 0}, {0, 0x10, 0, 1}, []byte("HTTP/1.1 400"), []byte("SSH-2.0"),
		{0x16, 3, 1, 0, 0xa5}, {0x15, 3, 3, 0, 2}, {0, 0}, nil,
	} {
		f.Add(head)
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		what := wire.NotKafka(head)
		if len(head) < 4 {
			if what != "" {
				t.Fatalf("wire.NotKafka(% x) = %q from fewer than 4 bytes", head, what)
			}
			return
		}
		size := int32(binary.BigEndian.Uint32(head))
		if plausible := size > 0 && size <= wire.MaxFirstFrame; plausible != (what == "") {
			t.Fatalf("wire.NotKafka(% x) = %q for a first frame of %d bytes", head, what, size)
		}
		problem := wire.FrameSizeProblem(head[:4])
		if ok := size >= 4 && size <= wire.MaxResponseFrame; ok != (problem == "") {
			t.Fatalf("wire.FrameSizeProblem(% x) = %q for a frame of %d bytes", head[:4], problem, size)
		}
		if acctest.ControlRune(problem+what) >= 0 {
			t.Fatalf("the verdict shows raw bytes of the peer: %q %q", problem, what)
		}
	})
}

// apiVersionsFrame is an ApiVersions v0-v2 response frame: error code, entries (key, min, max)
// and, from v1, a throttle time.
func apiVersionsFrame(code int16, v int16, entries ...[3]int16) []byte {
	var b bytes.Buffer
	res := &apiversions.Response{ErrorCode: code}
	for _, e := range entries {
		res.ApiKeys = append(res.ApiKeys, apiversions.ApiKeyResponse{ApiKey: e[0], MinVersion: e[1], MaxVersion: e[2]})
	}
	if err := protocol.WriteResponse(&b, v, 1, res); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// FuzzCheckApiVersions feeds wire.CheckApiVersions whole ApiVersions v0-v2 frames, as kafkaclient's
// connection captures them (a size of at least 4 bytes, so at least 8 in all). It must not panic; what it
// passes must decode in kafka-go within acctest.AllocLimit; and its verdict must agree with what
// kafka-go decodes: refused for Metadata below v4 or ListOffsets below v1, passed otherwise.
// (The versions a connection sends come from kafka-go's decode of the same frame.)
func FuzzCheckApiVersions(f *testing.F) {
	modern := [][3]int16{{0, 0, 11}, {1, 4, 17}, {2, 1, 10}, {3, 0, 13}, {18, 0, 4}}
	for v := int16(0); v <= 2; v++ {
		f.Add(v, apiVersionsFrame(0, v, modern...)[4:])
		f.Add(v, apiVersionsFrame(0, v, [3]int16{2, 0, 0}, [3]int16{3, 0, 3})[4:])
		f.Add(v, apiVersionsFrame(35, v)[4:])
		f.Add(v, apiVersionsFrame(0, v)[4:])
	}
	f.Add(int16(0), []byte{0, 0, 0, 1, 0, 0, 0x7f, 0xff, 0xff, 0xff})
	f.Add(int16(0), []byte{0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, v int16, body []byte) {
		if v < 0 || v > 2 || len(body) < 4 {
			return // the handshake sends v0; readFrame refuses frames under 4 bytes
		}
		defer acctest.NoHang("wire.CheckApiVersions")()
		frame := wiretest.FrameOf(body...)
		var notKafka string
		var tooOld *wire.TooOld
		if n := acctest.AllocatedBy(func() { notKafka, tooOld = wire.CheckApiVersions(frame, v) }); n > acctest.AllocLimit(len(frame)) {
			t.Fatalf("wire.CheckApiVersions allocated %d bytes for a %d-byte frame", n, len(frame))
		}
		if notKafka != "" {
			if tooOld != nil {
				t.Fatalf("wire.CheckApiVersions = %q and %+v: one verdict at a time", notKafka, tooOld)
			}
			return // refused before kafka-go decodes anything
		}
		var msg protocol.Message
		var derr error
		if n := acctest.AllocatedBy(func() { _, msg, derr = protocol.ReadResponse(bytes.NewReader(frame), protocol.ApiVersions, v) }); n > acctest.AllocLimit(len(frame)) {
			t.Fatalf("kafka-go allocated %d bytes for a %d-byte frame that wire.CheckApiVersions passed", n, len(frame))
		}
		res, ok := msg.(*apiversions.Response)
		if derr != nil || !ok {
			return // kafka-go reports it: a short frame, not a hostile one
		}
		maxOf := map[int16]int16{}
		for _, k := range res.ApiKeys {
			maxOf[k.ApiKey] = k.MaxVersion
		}
		want := res.ErrorCode == 0 && len(res.ApiKeys) > 0 && (maxOf[3] < wire.MinMetadataVersion || maxOf[2] < wire.MinListOffsetsVersion)
		if want != (tooOld != nil) {
			t.Fatalf("wire.CheckApiVersions = %+v for %+v", tooOld, res)
		}
		if tooOld != nil && tooOld.Got >= tooOld.Min {
			t.Fatalf("wire.CheckApiVersions = %+v for %+v: not what the broker serves", tooOld, res)
		}
	})
}
