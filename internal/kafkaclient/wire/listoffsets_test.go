package wire_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// The ListOffsets types replace kafka-go's: every version from v1 to v10 must encode and decode
// against a broker (kfake serves no more; v11 has v10's fields, and TestListOffsetsLikeKmsg checks
// its bytes).
func TestListOffsetsEveryVersion(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
	for range 4 {
		if err := acctest.FakeClient(t, c).ProduceSync(context.Background(), &kgo.Record{Topic: "t", Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	wantRegistered(t, protocol.ListOffsets, 1, 11)
	conn := dialFake(t, c)
	for v := int16(1); v <= 10; v++ {
		_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
		req := &wire.ListOffsetsRequest{ReplicaID: -1, TimeoutMs: 1000, Topics: []wire.ListOffsetsRequestTopic{{Topic: "t",
			Partitions: []wire.ListOffsetsRequestPartition{{Partition: 0, CurrentLeaderEpoch: -1, Timestamp: wire.TimestampLatest}}}}}
		m, err := protocol.RoundTrip(conn, v, int32(v), "test", req)
		res, ok := m.(*wire.ListOffsetsResponse)
		if err != nil || !ok || len(res.Topics) != 1 || len(res.Topics[0].Partitions) != 1 || res.Topics[0].Partitions[0].Offset != 4 {
			t.Fatalf("v%d: got %#v, %v; want latest offset 4", v, m, err)
		}
	}
}

// Every version of the ListOffsets types encodes a request byte for byte as franz-go's kmsg
// does, and decodes kmsg's response, from the fields Kafka's message spec gives each version
// (TimeoutMs from v10).
func TestListOffsetsLikeKmsg(t *testing.T) {
	for v := int16(1); v <= 11; v++ {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			kreq := kmsg.NewPtrListOffsetsRequest()
			kreq.Version, kreq.ReplicaID, kreq.IsolationLevel, kreq.TimeoutMillis = v, -1, 1, 2500
			kt := kmsg.NewListOffsetsRequestTopic()
			kt.Topic = "orders"
			for i, ts := range []int64{wire.TimestampEarliestLocal, wire.TimestampEarliestPendingUpload} {
				kp := kmsg.NewListOffsetsRequestTopicPartition()
				kp.Partition, kp.CurrentLeaderEpoch, kp.Timestamp = int32(i), 3, ts
				kt.Partitions = append(kt.Partitions, kp)
			}
			kreq.Topics = append(kreq.Topics, kt)
			want := kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, kreq, 42)

			req := &wire.ListOffsetsRequest{ReplicaID: -1, IsolationLevel: 1, TimeoutMs: 2500, Topics: []wire.ListOffsetsRequestTopic{{
				Topic: "orders", Partitions: []wire.ListOffsetsRequestPartition{
					{Partition: 0, CurrentLeaderEpoch: 3, Timestamp: wire.TimestampEarliestLocal},
					{Partition: 1, CurrentLeaderEpoch: 3, Timestamp: wire.TimestampEarliestPendingUpload},
				}}}}
			var got bytes.Buffer
			if err := protocol.WriteRequest(&got, v, 42, "test", req); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("request:\n got % x\nwant % x", got.Bytes(), want)
			}

			kres := kmsg.NewPtrListOffsetsResponse()
			kres.Version, kres.ThrottleMillis = v, 5
			rt := kmsg.NewListOffsetsResponseTopic()
			rt.Topic = "orders"
			rp := kmsg.NewListOffsetsResponseTopicPartition()
			rp.Partition, rp.Timestamp, rp.Offset, rp.LeaderEpoch = 1, -1, 91, 3
			rt.Partitions = append(rt.Partitions, rp)
			kres.Topics = append(kres.Topics, rt)
			frame := []byte{0, 0, 0, 0, 0, 0, 0, 42} // size, correlation id
			if kres.IsFlexible() {
				frame = append(frame, 0) // no tagged fields in the response header
			}
			frame = kres.AppendTo(frame)
			binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
			if problem := wire.CheckShape(protocol.ListOffsets, v, frame); problem != "" {
				t.Fatalf("shape: %s", problem)
			}
			_, m, err := protocol.ReadResponse(bytes.NewReader(frame), protocol.ListOffsets, v)
			res, ok := m.(*wire.ListOffsetsResponse)
			if err != nil || !ok || len(res.Topics) != 1 || len(res.Topics[0].Partitions) != 1 {
				t.Fatalf("response: got %#v, %v", m, err)
			}
			p := res.Topics[0].Partitions[0]
			wantEpoch := map[bool]int32{true: 3, false: 0}[v >= 4]
			if res.Topics[0].Topic != "orders" || p.Partition != 1 || p.Offset != 91 || p.Timestamp != -1 || p.LeaderEpoch != wantEpoch {
				t.Errorf("response: got %+v in %+v", p, res)
			}
		})
	}
}
