package wire_test

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/segmentio/kafka-go/protocol"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire/wiretest"
)

// Every version of every checked response, as kafka-go encodes it, passes the check: the walker
// reads exactly what kafka-go's decoder reads.
func TestShapeAcceptsEveryVersion(t *testing.T) {
	for _, w := range wiretest.Walked {
		for _, v := range wiretest.Versions(w.Key) {
			frame := wiretest.Encoded(t, w.Key, w.Type, v)
			if problem := wire.CheckShapeOf(w.Type, v, frame); problem != "" {
				t.Errorf("%s v%d: %s", w.Key, v, problem)
			}
			// Truncated by one byte, the same frame is refused (a lie about its own length).
			short := append([]byte(nil), frame[:len(frame)-1]...)
			binary.BigEndian.PutUint32(short, uint32(len(short)-4))
			if problem := wire.CheckShapeOf(w.Type, v, short); problem == "" {
				t.Errorf("%s v%d: a truncated frame passed", w.Key, v)
			}
		}
	}
}

// The hostile frames that kafka-go would decode into gigabytes, a panic or an endless loop (each
// confirmed against kafka-go v0.4.51's decoder before the check existed).
func TestShapeRefusesHostileFrames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		key   protocol.ApiKey
		v     int16
		frame []byte
		want  string
	}{
		{name: "ListOffsets v1, 2^31-1 topics in a 12-byte frame (80 GiB in kafka-go)", key: protocol.ListOffsets, v: 1,
			frame: wiretest.FrameOf(0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff), want: "field Topics: an array that claims 2147483647 entries in 0 bytes"},
		{name: "ListGroups v0, 2^31-1 groups (128 GiB)", key: protocol.ListGroups, v: 0,
			frame: wiretest.FrameOf(0, 0, 0, 1, 0, 0, 0x7f, 0xff, 0xff, 0xff), want: "field Groups: an array that claims 2147483647 entries in 0 bytes"},
		{name: "ListOffsets v6, compact array count 2^64-1 (kafka-go panics: negative len)", key: protocol.ListOffsets, v: 6,
			frame: wiretest.FrameOf(0, 0, 0, 1, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
			want:  "field Topics: an array that claims 18446744073709551614 entries in 0 bytes"},
		{name: "ListOffsets v6, compact string of 2^63 bytes (kafka-go panics: makeslice)", key: protocol.ListOffsets, v: 6,
			frame: wiretest.FrameOf(0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f),
			want:  "field Topic: a string of 9223372036854775806 bytes where 0 are left"},
		{name: "ListGroups v3, header tagged-field count 2^62 (kafka-go loops for ever)", key: protocol.ListGroups, v: 3,
			frame: wiretest.FrameOf(0, 0, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40),
			want:  "field response header tagged fields: a tagged-field section that claims 4611686018427387904 fields in 0 bytes"},
		{name: "SaslHandshake v1, 2^31-1 mechanisms (32 GiB)", key: protocol.SaslHandshake, v: 1,
			frame: wiretest.FrameOf(0, 0, 0, 1, 0, 0, 0x7f, 0xff, 0xff, 0xff), want: "field Mechanisms: an array that claims 2147483647 entries in 0 bytes"},
		{name: "SaslAuthenticate v1, auth bytes of 2 GiB", key: protocol.SaslAuthenticate, v: 1,
			frame: wiretest.FrameOf(0, 0, 0, 1, 0, 0x3a, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff), want: "field AuthBytes: a byte array of 2147483647 bytes where 0 are left"},
		{name: "varint that does not end", key: protocol.ListGroups, v: 3, frame: wiretest.FrameOf(0, 0, 0, 1, 0x80),
			want: "field response header tagged fields: a varint (tagged field count) that does not end"},
		{name: "tag beyond int32", key: protocol.ListOffsets, v: 6,
			frame: wiretest.FrameOf(0, 0, 0, 1, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0),
			want:  "field response header tagged fields: a tagged field with tag 4294967295, beyond Kafka's int32 tags"},
		{name: "size prefix larger than the frame", key: protocol.ListGroups, v: 0, frame: []byte{0, 0, 0, 9, 0, 0, 0, 1},
			want: "a frame whose size prefix says 9 bytes where 4 follow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := wire.CheckShape(tc.key, tc.v, tc.frame); got != tc.want {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// FuzzResponseShape feeds hostile broker bytes to the shape check and, where it lets them
// through, to kafka-go's decoder: every response type the check knows, every version. A frame
// that passes must decode without error, allocate at most a small multiple of its size, and
// encode back to a frame that passes and decodes to the same value.
func FuzzResponseShape(f *testing.F) {
	for i, w := range wiretest.Walked {
		for _, v := range wiretest.Versions(w.Key) {
			frame := wiretest.Encoded(f, w.Key, w.Type, v)
			f.Add(uint8(i), v, frame[4:])
			f.Add(uint8(i), v, frame[4:len(frame)/2])
		}
	}
	f.Add(uint8(0), int16(1), []byte{0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff})
	f.Add(uint8(0), int16(6), []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add(uint8(1), int16(3), []byte{0, 0, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40})
	f.Fuzz(func(t *testing.T, which uint8, v int16, body []byte) {
		w := wiretest.Walked[int(which)%len(wiretest.Walked)]
		if v < w.Key.MinVersion() || v > w.Key.MaxVersion() {
			return
		}
		frame := wiretest.FrameOf(body...)
		if wire.CheckShapeOf(w.Type, v, frame) != "" {
			return // refused: kafka-go never sees it
		}
		msg, allocated, err := decodeMeasured(w.Key, v, frame)
		if err != nil {
			t.Fatalf("%s v%d: passed the check, but kafka-go says %v", w.Key, v, err)
		}
		if limit := uint64(32*len(frame) + 1<<20); allocated > limit {
			t.Fatalf("%s v%d: a %d-byte frame made kafka-go allocate %d bytes (limit %d)", w.Key, v, len(frame), allocated, limit)
		}
		var again bytes.Buffer
		if err := protocol.WriteResponse(&again, v, 1, msg); err != nil {
			t.Fatalf("%s v%d: re-encoding: %v", w.Key, v, err)
		}
		if problem := wire.CheckShapeOf(w.Type, v, again.Bytes()); problem != "" {
			t.Fatalf("%s v%d: kafka-go's own encoding of what it decoded is refused: %s", w.Key, v, problem)
		}
		msg2, _, err := decodeMeasured(w.Key, v, again.Bytes())
		var third bytes.Buffer
		if err == nil {
			err = protocol.WriteResponse(&third, v, 1, msg2)
		}
		if err != nil || !bytes.Equal(again.Bytes(), third.Bytes()) { // bytes, not values: nil and empty arrays encode alike
			t.Fatalf("%s v%d: decode(encode(decode(frame))) = %+v, %v; want %+v", w.Key, v, msg2, err, msg)
		}
	})
}

// decodeMeasured decodes frame with kafka-go and says how many bytes that allocated.
func decodeMeasured(key protocol.ApiKey, v int16, frame []byte) (protocol.Message, uint64, error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, msg, err := protocol.ReadResponse(bytes.NewReader(frame), key, v)
	runtime.ReadMemStats(&after)
	return msg, after.TotalAlloc - before.TotalAlloc, err
}

// The shape check of a ListOffsets v7 answer for 1000 partitions, next to kafka-go's decoding of
// the same frame (on the development machine: about 140 µs and 12 allocations against 85 µs).
func BenchmarkShapeListOffsets(b *testing.B) {
	res := &wire.ListOffsetsResponse{Topics: []wire.ListOffsetsResponseTopic{{Topic: "orders"}}}
	for i := range 1000 {
		res.Topics[0].Partitions = append(res.Topics[0].Partitions,
			wire.ListOffsetsResponsePartition{Partition: int32(i), Offset: 123456789, Timestamp: -1, LeaderEpoch: 3})
	}
	frame := wiretest.EncodedMessage(b, 7, res)
	b.Run("checkShape", func(b *testing.B) {
		for b.Loop() {
			if p := wire.CheckShape(protocol.ListOffsets, 7, frame); p != "" {
				b.Fatal(p)
			}
		}
	})
	b.Run("kafka-go", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := protocol.ReadResponse(bytes.NewReader(frame), protocol.ListOffsets, 7); err != nil {
				b.Fatal(err)
			}
		}
	})
}
