package kafkaclient

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/apiversions"
)

// FuzzFrameSize: checkFrameSize passes exactly the sizes from 4 bytes to maxResponseFrame, and
// notKafka objects to exactly the first bytes that cannot start a first response; a refusal is a
// notKafkaError that names the address and says what came instead.
func FuzzFrameSize(f *testing.F) {
	for _, head := range [][]byte{
		{0, 0, 0, 4}, {0, 0, 0, 3}, {0, 0, 0, 0}, {0xff, 0xff, 0xff, 0xff}, {0x7f, 0xff, 0xff, 0xff},
		{0x10, 0, 0, 0}, {0x10, 0, 0, 1}, {0, 0x10, 0, 0}, {0, 0x10, 0, 1}, []byte("HTTP/1.1 400"), []byte("SSH-2.0"),
		{0x16, 3, 1, 0, 0xa5}, {0x15, 3, 3, 0, 2}, {0, 0}, nil,
	} {
		f.Add(head)
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		what := notKafka(head)
		if len(head) < 4 {
			if what != "" {
				t.Fatalf("notKafka(% x) = %q from fewer than 4 bytes", head, what)
			}
			return
		}
		size := int32(binary.BigEndian.Uint32(head))
		if plausible := size > 0 && size <= maxFirstFrame; plausible != (what == "") {
			t.Fatalf("notKafka(% x) = %q for a first frame of %d bytes", head, what, size)
		}
		err := checkFrameSize("broker-1:9092", head[:4])
		if ok := size >= 4 && size <= maxResponseFrame; ok != (err == nil) {
			t.Fatalf("checkFrameSize(% x) = %v for a frame of %d bytes", head[:4], err, size)
		}
		var nk *notKafkaError
		if err != nil && (!errors.As(err, &nk) || !errors.Is(err, errNotKafka) || nk.Address != "broker-1:9092" || nk.What == "") {
			t.Fatalf("checkFrameSize(% x) = %#v, want a notKafkaError naming the address", head[:4], err)
		}
		if err != nil && controlRune(err.Error()) >= 0 {
			t.Fatalf("error shows raw bytes of the peer: %q", err.Error())
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

// FuzzCheckApiVersions feeds checkApiVersions whole ApiVersions v0-v2 frames, as kafkaConn
// captures them (a size of at least 4 bytes, so at least 8 in all). It must not panic; what it
// passes must decode in kafka-go within allocLimit; and its verdict must agree with what
// kafka-go decodes: refused for Metadata below v4 or ListOffsets below v1, passed otherwise.
// (The versions a connection sends come from kafka-go's decode of the same frame, broker_dial.go.)
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
			return // kafka-go sends v0; readFrame refuses frames under 4 bytes
		}
		defer noHang("checkApiVersions")()
		frame := frameOf(body...)
		var err error
		if n := allocatedBy(func() { err = checkApiVersions("broker-1:9092", frame, v) }); n > allocLimit(len(frame)) {
			t.Fatalf("checkApiVersions allocated %d bytes for a %d-byte frame", n, len(frame))
		}
		var nk *notKafkaError
		if errors.As(err, &nk) {
			return // refused before kafka-go decodes anything
		}
		var msg protocol.Message
		var derr error
		if n := allocatedBy(func() { _, msg, derr = protocol.ReadResponse(bytes.NewReader(frame), protocol.ApiVersions, v) }); n > allocLimit(len(frame)) {
			t.Fatalf("kafka-go allocated %d bytes for a %d-byte frame that checkApiVersions passed", n, len(frame))
		}
		res, ok := msg.(*apiversions.Response)
		if derr != nil || !ok {
			return // kafka-go reports it: a short frame, not a hostile one
		}
		maxOf := map[int16]int16{}
		for _, k := range res.ApiKeys {
			maxOf[k.ApiKey] = k.MaxVersion
		}
		var ue *UnsupportedError
		tooOld := res.ErrorCode == 0 && len(res.ApiKeys) > 0 && (maxOf[3] < minMetadataVersion || maxOf[2] < minListOffsetsVersion)
		if tooOld != errors.As(err, &ue) || (err != nil && ue == nil) {
			t.Fatalf("checkApiVersions = %v for %+v", err, res)
		}
		if ue != nil && !strings.Contains(ue.What, "broker-1:9092") {
			t.Fatalf("the error does not name the broker: %v", err)
		}
	})
}
