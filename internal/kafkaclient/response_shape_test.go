package kafkaclient

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/apiversions"
	"github.com/segmentio/kafka-go/protocol/describegroups"
	"github.com/segmentio/kafka-go/protocol/findcoordinator"
	"github.com/segmentio/kafka-go/protocol/metadata"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// walked are the response types the shape check is tested on: those in shapes, which kafkaConn
// checks, and kafka-go's own that this package reads, which it could check the same way.
var walked = []struct {
	key protocol.ApiKey
	typ reflect.Type
}{
	{protocol.ListOffsets, shapes[protocol.ListOffsets]},
	{protocol.ListGroups, shapes[protocol.ListGroups]},
	{protocol.SaslHandshake, shapes[protocol.SaslHandshake]},
	{protocol.SaslAuthenticate, shapes[protocol.SaslAuthenticate]},
	{protocol.Metadata, reflect.TypeFor[metadata.Response]()},
	{protocol.FindCoordinator, reflect.TypeFor[findcoordinator.Response]()},
	{protocol.OffsetFetch, shapes[protocol.OffsetFetch]},
	{protocol.DescribeGroups, reflect.TypeFor[describegroups.Response]()},
	{protocol.ApiVersions, reflect.TypeFor[apiversions.Response]()},
}

// sample is a value of t with every field set and two entries in every array, so that an encoded
// sample exercises each field of each version.
func sample(t reflect.Type, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(7 + depth))
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", depth))
	case reflect.Slice:
		n := 2
		if depth > 3 {
			n = 0
		}
		v.Set(reflect.MakeSlice(t, n, n))
		for i := range n {
			v.Index(i).Set(sample(t.Elem(), depth+1))
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.PkgPath == "" {
				v.Field(i).Set(sample(f.Type, depth+1))
			}
		}
	}
	return v
}

// encoded is kafka-go's own encoding of a sample response of key and version v, size prefix
// included.
func encoded(tb testing.TB, key protocol.ApiKey, typ reflect.Type, v int16) []byte {
	tb.Helper()
	msg, ok := sample(typ, 0).Addr().Interface().(protocol.Message)
	if !ok {
		tb.Fatalf("%s is not a protocol.Message", typ)
	}
	var b bytes.Buffer
	if err := protocol.WriteResponse(&b, v, 42, msg); err != nil {
		tb.Fatalf("%s v%d: %v", key, v, err)
	}
	return b.Bytes()
}

func versions(key protocol.ApiKey) []int16 {
	var out []int16
	for v := key.MinVersion(); v <= key.MaxVersion(); v++ {
		out = append(out, v)
	}
	return out
}

// Every version of every checked response, as kafka-go encodes it, passes the check: the walker
// reads exactly what kafka-go's decoder reads.
func TestShapeAcceptsEveryVersion(t *testing.T) {
	for _, w := range walked {
		for _, v := range versions(w.key) {
			frame := encoded(t, w.key, w.typ, v)
			if problem := checkShapeOf(w.typ, v, frame); problem != "" {
				t.Errorf("%s v%d: %s", w.key, v, problem)
			}
			// Truncated by one byte, the same frame is refused (a lie about its own length).
			short := append([]byte(nil), frame[:len(frame)-1]...)
			binary.BigEndian.PutUint32(short, uint32(len(short)-4))
			if problem := checkShapeOf(w.typ, v, short); problem == "" {
				t.Errorf("%s v%d: a truncated frame passed", w.key, v)
			}
		}
	}
}

// frameOf prefixes body with its size.
func frameOf(body ...byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
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
		{"ListOffsets v1, 2^31-1 topics in a 12-byte frame (80 GiB in kafka-go)", protocol.ListOffsets, 1,
			frameOf(0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff), "field Topics: an array that claims 2147483647 entries in 0 bytes"},
		{"ListGroups v0, 2^31-1 groups (128 GiB)", protocol.ListGroups, 0,
			frameOf(0, 0, 0, 1, 0, 0, 0x7f, 0xff, 0xff, 0xff), "field Groups: an array that claims 2147483647 entries in 0 bytes"},
		{"ListOffsets v6, compact array count 2^64-1 (kafka-go panics: negative len)", protocol.ListOffsets, 6,
			frameOf(0, 0, 0, 1, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
			"field Topics: an array that claims 18446744073709551614 entries in 0 bytes"},
		{"ListOffsets v6, compact string of 2^63 bytes (kafka-go panics: makeslice)", protocol.ListOffsets, 6,
			frameOf(0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f),
			"field Topic: a string of 9223372036854775806 bytes where 0 are left"},
		{"ListGroups v3, header tagged-field count 2^62 (kafka-go loops for ever)", protocol.ListGroups, 3,
			frameOf(0, 0, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40),
			"field response header tagged fields: a tagged-field section that claims 4611686018427387904 fields in 0 bytes"},
		{"SaslHandshake v1, 2^31-1 mechanisms (32 GiB)", protocol.SaslHandshake, 1,
			frameOf(0, 0, 0, 1, 0, 0, 0x7f, 0xff, 0xff, 0xff), "field Mechanisms: an array that claims 2147483647 entries in 0 bytes"},
		{"SaslAuthenticate v1, auth bytes of 2 GiB", protocol.SaslAuthenticate, 1,
			frameOf(0, 0, 0, 1, 0, 0x3a, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff), "field AuthBytes: a byte array of 2147483647 bytes where 0 are left"},
		{"varint that does not end", protocol.ListGroups, 3, frameOf(0, 0, 0, 1, 0x80),
			"field response header tagged fields: a varint (tagged field count) that does not end"},
		{"tag beyond int32", protocol.ListOffsets, 6,
			frameOf(0, 0, 0, 1, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0),
			"field response header tagged fields: a tagged field with tag 4294967295, beyond Kafka's int32 tags"},
		{"size prefix larger than the frame", protocol.ListGroups, 0, []byte{0, 0, 0, 9, 0, 0, 0, 1},
			"a frame whose size prefix says 9 bytes where 4 follow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkShape(tc.key, tc.v, tc.frame); got != tc.want {
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
	for i, w := range walked {
		for _, v := range versions(w.key) {
			frame := encoded(f, w.key, w.typ, v)
			f.Add(uint8(i), v, frame[4:])
			f.Add(uint8(i), v, frame[4:len(frame)/2])
		}
	}
	f.Add(uint8(0), int16(1), []byte{0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff})
	f.Add(uint8(0), int16(6), []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add(uint8(1), int16(3), []byte{0, 0, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40})
	f.Fuzz(func(t *testing.T, which uint8, v int16, body []byte) {
		w := walked[int(which)%len(walked)]
		if v < w.key.MinVersion() || v > w.key.MaxVersion() {
			return
		}
		frame := frameOf(body...)
		if checkShapeOf(w.typ, v, frame) != "" {
			return // refused: kafka-go never sees it
		}
		msg, allocated, err := decodeMeasured(w.key, v, frame)
		if err != nil {
			t.Fatalf("%s v%d: passed the check, but kafka-go says %v", w.key, v, err)
		}
		if limit := uint64(32*len(frame) + 1<<20); allocated > limit {
			t.Fatalf("%s v%d: a %d-byte frame made kafka-go allocate %d bytes (limit %d)", w.key, v, len(frame), allocated, limit)
		}
		var again bytes.Buffer
		if err := protocol.WriteResponse(&again, v, 1, msg); err != nil {
			t.Fatalf("%s v%d: re-encoding: %v", w.key, v, err)
		}
		if problem := checkShapeOf(w.typ, v, again.Bytes()); problem != "" {
			t.Fatalf("%s v%d: kafka-go's own encoding of what it decoded is refused: %s", w.key, v, problem)
		}
		msg2, _, err := decodeMeasured(w.key, v, again.Bytes())
		var third bytes.Buffer
		if err == nil {
			err = protocol.WriteResponse(&third, v, 1, msg2)
		}
		if err != nil || !bytes.Equal(again.Bytes(), third.Bytes()) { // bytes, not values: nil and empty arrays encode alike
			t.Fatalf("%s v%d: decode(encode(decode(frame))) = %+v, %v; want %+v", w.key, v, msg2, err, msg)
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

// The check names what it refused in the error that the read returns.
func TestShapeProblemIsNamedWithTheBroker(t *testing.T) {
	c := &kafkaConn{s: &secureDialer{dials: newDialLog(nil, false, newContacts())}, address: "broker-1:9092",
		lastKey: protocol.ListOffsets, lastVer: 1}
	err := c.check(frameOf(0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff))
	want := "broker-1:9092: answered ListOffsets v1 with field Topics: an array that claims 2147483647 entries in 0 bytes: not a Kafka broker"
	if err == nil || err.Error() != want || !strings.Contains(err.Error(), "broker-1:9092") {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// hostileBroker is a one-broker cluster that answers ApiVersions and Metadata (topic "t", one
// partition, led by itself) as Kafka does, and every ListOffsets with a body of 10 to 14 bytes that
// claims 2^31-1 topics: what kafka-go alone would turn into an 80 GiB allocation.
func hostileBroker(t *testing.T) string {
	t.Helper()
	l := acctest.Listen(t)
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("listening on %v", l.Addr())
	}
	host, port := addr.IP.String(), addr.Port
	return acctest.Serve(t, l, func(c net.Conn) {
		go func() {
			for {
				v, id, _, msg, err := protocol.ReadRequest(c)
				if err != nil {
					return
				}
				var res protocol.Message
				switch msg.(type) {
				case *apiversions.Request:
					res = &apiversions.Response{ApiKeys: []apiversions.ApiKeyResponse{
						{ApiKey: int16(protocol.ApiVersions), MaxVersion: 2}, {ApiKey: int16(protocol.Metadata), MaxVersion: 8},
						{ApiKey: int16(protocol.ListOffsets), MinVersion: 1, MaxVersion: 7}}}
				case *metadata.Request:
					res = &metadata.Response{Brokers: []metadata.ResponseBroker{{NodeID: 1, Host: host, Port: int32(port)}},
						Topics: []metadata.ResponseTopic{{Name: "t", Partitions: []metadata.ResponsePartition{
							{LeaderID: 1, ReplicaNodes: []int32{1}, IsrNodes: []int32{1}}}}}}
				case *listOffsetsRequest:
					body := binary.BigEndian.AppendUint32(nil, uint32(id))
					if v >= 6 {
						body = append(body, 0, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x08) // header tags, throttle, compact count 2^31-1
					} else {
						body = append(body, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff)
					}
					if _, err := c.Write(frameOf(body...)); err != nil {
						return
					}
					continue
				default:
					return
				}
				if err := protocol.WriteResponse(c, v, id, res); err != nil {
					return
				}
			}
		}()
	})
}

// Through the whole client, a broker's hostile ListOffsets answer is an error that says what it
// claimed, at once, without the allocation.
func TestHostileListOffsetsAnswer(t *testing.T) {
	cl, err := New(Config{BootstrapServers: []string{hostileBroker(t)}, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	elapsed, allocated, err := measuredRead(cl)
	if err == nil || !strings.Contains(err.Error(), "answered ListOffsets v7 with field Topics: an array that claims 2147483647 entries in 0 bytes") {
		t.Fatalf("got %v; want the claim refused", err)
	}
	t.Logf("%s after %s, %d KiB allocated", err, elapsed, allocated>>10)
	if allocated > 64<<20 {
		t.Errorf("allocated %d MiB for one refused answer", allocated>>20)
	}
}

// The shape check of a ListOffsets v7 answer for 1000 partitions, next to kafka-go's decoding of
// the same frame (on the development machine: about 140 µs and 12 allocations against 85 µs).
func BenchmarkShapeListOffsets(b *testing.B) {
	res := &listOffsetsResponse{Topics: []listOffsetsResponseTopic{{Topic: "orders"}}}
	for i := range 1000 {
		res.Topics[0].Partitions = append(res.Topics[0].Partitions,
			listOffsetsResponsePartition{Partition: int32(i), Offset: 123456789, Timestamp: -1, LeaderEpoch: 3})
	}
	frame := encodedMessage(b, 7, res)
	b.Run("checkShape", func(b *testing.B) {
		for b.Loop() {
			if p := checkShape(protocol.ListOffsets, 7, frame); p != "" {
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
