package wire_test

import (
	"encoding/binary"
	"io"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// The messages this package encodes itself (own.go) against a broker that decodes them with
// franz-go's kmsg (kfake), in every version: DescribeShareGroupOffsets for a group that has no
// share state answers the group with no topic; the broker's frame passes the shape check and
// decodes, the lag from v1 on.
func TestDescribeShareGroupOffsetsEveryVersion(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
	if lo, hi, ok := wire.OwnVersions(wire.DescribeShareGroupOffsets); !ok || lo != 0 || hi != 1 {
		t.Fatalf("DescribeShareGroupOffsets is encoded here for v%d-v%d (%v), want v0-v1", lo, hi, ok)
	}
	conn := dialFake(t, c)
	for v := int16(0); v <= 1; v++ {
		req := &wire.DescribeShareGroupOffsetsRequest{Groups: []wire.DescribeShareGroupOffsetsRequestGroup{
			{GroupID: "g"},
			{GroupID: "h", Topics: []wire.DescribeShareGroupOffsetsRequestTopic{{TopicName: "t", Partitions: []int32{0}}}},
		}}
		frame, err := wire.AppendOwnRequest(nil, v, int32(v)+1, "test", req)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err := conn.Write(frame); err != nil {
			t.Fatal(err)
		}
		res := make([]byte, 4)
		if _, err := io.ReadFull(conn, res); err != nil {
			t.Fatalf("v%d: %v (the broker could not decode the request)", v, err)
		}
		res = append(res, make([]byte, binary.BigEndian.Uint32(res))...)
		if _, err := io.ReadFull(conn, res[4:]); err != nil {
			t.Fatal(err)
		}
		if problem := wire.CheckShape(wire.DescribeShareGroupOffsets, v, res); problem != "" {
			t.Fatalf("v%d: %s", v, problem)
		}
		m, err := wire.DecodeOwnResponse(wire.DescribeShareGroupOffsets, v, res)
		got, ok := m.(*wire.DescribeShareGroupOffsetsResponse)
		if err != nil || !ok || len(got.Groups) != 2 || got.Groups[0].GroupID != "g" || got.Groups[1].GroupID != "h" {
			t.Fatalf("v%d: got %#v, %v; want groups g and h", v, m, err)
		}
		if g := got.Groups[0]; g.ErrorCode != 0 || len(g.Topics) != 0 {
			t.Errorf("v%d: group g: %+v, want no error and no topic", v, g)
		}
		// No state: start offset -1; the lag is -1 from v1, absent (0) in v0.
		want := wire.DescribeShareGroupOffsetsResponsePartition{StartOffset: -1, Lag: map[int16]int64{0: 0, 1: -1}[v]}
		if h := got.Groups[1]; len(h.Topics) != 1 || h.Topics[0].TopicName != "t" || len(h.Topics[0].Partitions) != 1 ||
			h.Topics[0].Partitions[0] != want {
			t.Errorf("v%d: group h: %+v, want topic t with partition %+v", v, h, want)
		}
	}
}
