package kafkaclient

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire/wiretest"
)

// Peers that are not Kafka must give an error: no panic in kafka-go's decoder, no allocation
// sized from their bytes, no wait for the timeout.
func TestHostilePeers(t *testing.T) {
	// A well-formed ApiVersions v0 response of 14 bytes that claims 2^31-1 entries.
	bomb := make([]byte, 14)
	binary.BigEndian.PutUint32(bomb[0:], 10)          // size
	binary.BigEndian.PutUint32(bomb[4:], 1)           // correlation id
	binary.BigEndian.PutUint16(bomb[8:], 0)           // error code
	binary.BigEndian.PutUint32(bomb[10:], 0x7fffffff) // array count
	random := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(random)

	for _, tc := range []struct {
		name    string
		payload []byte
		want    string
	}{
		{name: "negative size", payload: []byte{0xff, 0xff, 0xff, 0xff}, want: "not a Kafka response (first bytes ff ff ff ff)"},
		{name: "huge size", payload: []byte{0x7f, 0xff, 0xff, 0xff}, want: "not a Kafka response (first bytes 7f ff ff ff)"},
		{name: "array bomb", payload: bomb, want: "answered ApiVersions with 6 bytes that do not decode as its response (response did not contain enough data to be valid): not a Kafka broker"},
		{name: "random bytes", payload: random, want: "not a Kafka response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := acctest.RespondingListener(t, tc.payload)
			cl, err := New(Config{BootstrapServers: []string{addr}, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			elapsed, allocated, err := measuredRead(cl)
			var un *UnreachableError
			if !errors.As(err, &un) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v; want UnreachableError containing %q", err, tc.want)
			}
			if elapsed > 2*time.Second {
				t.Errorf("took %s: a peer that is not Kafka should fail at once, not at the 5s timeout", elapsed)
			}
			if allocated > 64<<20 {
				t.Errorf("allocated %d MiB for one failed read", allocated>>20)
			}
		})
	}
}

// A broker that serves Metadata only below v4 could create the topic it is asked about: refused.
func TestBrokerTooOldForReadOnlyMetadata(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"), kfake.MaxVersions(kversion.V0_10_2()))
	cl := newClient(t, c, 3*time.Second)
	_, err := cl.PartitionOffsets(context.Background(), "t", 0)
	var ue *UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "Metadata v4 or later") {
		t.Fatalf("got %v; want UnsupportedError asking for Metadata v4", err)
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
				var head [12]byte // size, API key, version, correlation id
				if _, err := io.ReadFull(c, head[:]); err != nil {
					return
				}
				if _, err := io.CopyN(io.Discard, c, int64(binary.BigEndian.Uint32(head[:]))-8); err != nil {
					return
				}
				key, v := int16(binary.BigEndian.Uint16(head[4:])), int16(binary.BigEndian.Uint16(head[6:]))
				body := head[8:12:12]
				var res kmsg.Response
				switch kmsg.Key(key) {
				case kmsg.ApiVersions:
					res = &kmsg.ApiVersionsResponse{ApiKeys: []kmsg.ApiVersionsResponseApiKey{
						{ApiKey: kmsg.ApiVersions.Int16(), MaxVersion: 2}, {ApiKey: kmsg.Metadata.Int16(), MaxVersion: 8},
						{ApiKey: kmsg.ListOffsets.Int16(), MinVersion: 1, MaxVersion: 7}}}
				case kmsg.Metadata:
					topic := "t"
					res = &kmsg.MetadataResponse{Brokers: []kmsg.MetadataResponseBroker{{NodeID: 1, Host: host, Port: int32(port)}},
						Topics: []kmsg.MetadataResponseTopic{{Topic: &topic, Partitions: []kmsg.MetadataResponseTopicPartition{
							{Leader: 1, Replicas: []int32{1}, ISR: []int32{1}}}}}}
				case kmsg.ListOffsets:
					if v >= 6 {
						body = append(body, 0, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x08) // header tags, throttle, compact count 2^31-1
					} else {
						body = append(body, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff)
					}
				default:
					return
				}
				if res != nil {
					res.SetVersion(v)
					if res.IsFlexible() {
						body = append(body, 0)
					}
					body = res.AppendTo(body)
				}
				if _, err := c.Write(wiretest.FrameOf(body...)); err != nil {
					return
				}
			}
		}()
	})
}

// Through the whole client, a broker's hostile ListOffsets answer is an error that says it is not
// Kafka's, without the allocation its claim asks for. Each answer fails its connection; the read
// asks again on a new one until its timeout, and ends with that error.
func TestHostileListOffsetsAnswer(t *testing.T) {
	cl, err := New(Config{BootstrapServers: []string{hostileBroker(t)}, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	elapsed, allocated, err := measuredRead(cl)
	if err == nil || !strings.Contains(err.Error(), "answered ListOffsets v7 with bytes that do not decode as its response") {
		t.Fatalf("got %v; want the claim refused", err)
	}
	t.Logf("%s after %s, %d KiB allocated", err, elapsed, allocated>>10)
	if allocated > 64<<20 {
		t.Errorf("allocated %d MiB for one refused answer", allocated>>20)
	}
}
