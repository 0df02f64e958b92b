package broker

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire/wiretest"
)

// speaks are the APIs a connection decodes after its handshake (wire.Speaks), in a fixed order:
// an index into it is part of the fuzz corpus.
var speaks = wiretest.Decoded[3:]

// FuzzDecode feeds hostile broker bytes to decode, as a connection's reader gives it every answer
// after the handshake, for every API and version the provider sends. No input may panic, hang or
// make the decoder allocate beyond a small multiple of its size; an answer that does not decode
// is an error, which fails the connection (Conn.answer).
func FuzzDecode(f *testing.F) {
	for i, key := range speaks {
		for _, v := range wiretest.Versions(key) {
			frame := wiretest.Encoded(f, key, v)
			f.Add(uint8(i), v, frame[4:])
			f.Add(uint8(i), v, frame[4:len(frame)-3])
		}
	}
	f.Add(uint8(0), wire.Speaks[speaks[0]].Max, []byte{0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, which uint8, v int16, body []byte) {
		key := speaks[int(which)%len(speaks)]
		if r := wire.Speaks[key]; v < r.Min || v > r.Max || len(body) < 4 {
			return
		}
		defer acctest.NoHang("decode")()
		frame := wiretest.FrameOf(body...)
		res := kmsg.ResponseForKey(key)
		var err error
		if n := acctest.AllocatedBy(func() { err = decode(res, v, frame) }); n > acctest.AllocLimit(len(frame)) {
			t.Fatalf("%s v%d: a %d-byte frame made the decoder allocate %d bytes (%v)", kmsg.NameForKey(key), v, len(frame), n, err)
		}
	})
}

// A sample answer of every API and version decodes back to what was encoded.
func TestDecodeEveryAPI(t *testing.T) {
	for _, key := range speaks {
		for _, v := range wiretest.Versions(key) {
			frame := wiretest.Encoded(t, key, v)
			res := kmsg.ResponseForKey(key)
			if err := decode(res, v, frame); err != nil {
				t.Errorf("%s v%d: %v", kmsg.NameForKey(key), v, err)
				continue
			}
			if again := wiretest.EncodedMessage(t, v, res); string(again) != string(frame) {
				t.Errorf("%s v%d: decoded and encoded again, the frame differs", kmsg.NameForKey(key), v)
			}
			if err := decode(kmsg.ResponseForKey(key), v, frame[:len(frame)-1]); err == nil && len(frame) > 8 {
				t.Errorf("%s v%d: a frame one byte short decoded without an error", kmsg.NameForKey(key), v)
			}
		}
	}
}
