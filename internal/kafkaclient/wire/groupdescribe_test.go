package wire_test

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// responseFrame is body as a broker sends it: size, correlation id, an empty tagged-field
// section (response header v1), body.
func responseFrame(body []byte) []byte {
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+1+len(body)))
	frame = binary.BigEndian.AppendUint32(frame, 7)
	frame = append(frame, 0)
	return append(frame, body...)
}

// decodeOwn checks and decodes a response this package decodes itself.
func decodeOwn(t *testing.T, key int16, v int16, body []byte) any {
	t.Helper()
	frame := responseFrame(body)
	if problem := wire.CheckShape(protocol.ApiKey(key), v, frame); problem != "" {
		t.Fatalf("v%d: shape: %s", v, problem)
	}
	m, err := wire.DecodeOwnResponse(protocol.ApiKey(key), v, frame)
	if err != nil {
		t.Fatalf("v%d: %v", v, err)
	}
	return m
}

// The group describe responses as franz-go's kmsg (an independent implementation of Kafka's
// message schemas) encodes them, in every version this package speaks, decode to the same
// assignments: topics and partitions of consumer and share members, active tasks and source
// topics of streams members (a null topology and a null user endpoint included).
func TestGroupDescribeResponsesDecodeAsKmsgEncodesThem(t *testing.T) {
	str := func(s string) *string { return &s }
	t.Run("ConsumerGroupDescribe", func(t *testing.T) {
		for v := int16(0); v <= 1; v++ {
			res := kmsg.NewConsumerGroupDescribeResponse()
			res.Version = v
			res.Groups = []kmsg.ConsumerGroupDescribeResponseGroup{{
				Group: "g", State: "Stable", Epoch: 3, AssignmentEpoch: 3, AssignorName: "uniform",
				Members: []kmsg.ConsumerGroupDescribeResponseGroupMember{{
					MemberID: "m1", InstanceID: str("i1"), ClientID: "c", ClientHost: "/127.0.0.1",
					SubscribedTopics: []string{"t"}, MemberType: 1,
					Assignment: kmsg.Assignment{TopicPartitions: []kmsg.AssignmentTopicPartition{
						{TopicID: [16]byte{1}, Topic: "t", Partitions: []int32{0, 2}},
					}},
					TargetAssignment: kmsg.Assignment{TopicPartitions: []kmsg.AssignmentTopicPartition{
						{Topic: "t", Partitions: []int32{0, 1, 2}},
					}},
				}},
			}, {ErrorCode: 69, ErrorMessage: str("Group h is not a consumer group."), Group: "h"}}
			got, ok := decodeOwn(t, res.Key(), v, res.AppendTo(nil)).(*wire.ConsumerGroupDescribeResponse)
			if !ok || len(got.Groups) != 2 || len(got.Groups[0].Members) != 1 {
				t.Fatalf("v%d: got %#v", v, got)
			}
			m := got.Groups[0].Members[0]
			want := wire.Assignment{TopicPartitions: []wire.TopicPartitions{{TopicID: [16]byte{1}, TopicName: "t", Partitions: []int32{0, 2}}}}
			if diff := cmp.Diff(want, m.Assignment); diff != "" {
				t.Errorf("v%d: assignment (-want +got):\n%s", v, diff)
			}
			if m.MemberID != "m1" || m.InstanceID != "i1" || len(m.TargetAssignment.TopicPartitions[0].Partitions) != 3 {
				t.Errorf("v%d: member %+v", v, m)
			}
			if m.MemberType != map[int16]int8{0: 0, 1: 1}[v] {
				t.Errorf("v%d: member type %d", v, m.MemberType)
			}
			if h := got.Groups[1]; h.GroupID != "h" || h.ErrorCode != 69 || h.ErrorMessage != "Group h is not a consumer group." {
				t.Errorf("v%d: group h %+v", v, h)
			}
		}
	})
	t.Run("ShareGroupDescribe", func(t *testing.T) {
		for v := int16(0); v <= 1; v++ {
			res := kmsg.NewShareGroupDescribeResponse()
			res.Version = v
			res.Groups = []kmsg.ShareGroupDescribeResponseGroup{{
				GroupID: "s", GroupState: "Stable", GroupEpoch: 2, Assignor: "simple",
				Members: []kmsg.ShareGroupDescribeResponseGroupMember{{
					MemberID: "m", RackID: str("r1"), ClientID: "c", ClientHost: "/127.0.0.1", SubscribedTopicNames: []string{"q"},
					Assignment: kmsg.ShareGroupDescribeResponseGroupMemberAssignment{
						TopicPartitions: []kmsg.ShareGroupDescribeResponseGroupMemberAssignmentTopicPartition{{Topic: "q", Partitions: []int32{0}}},
					},
				}},
			}}
			got, ok := decodeOwn(t, res.Key(), v, res.AppendTo(nil)).(*wire.ShareGroupDescribeResponse)
			if !ok || len(got.Groups) != 1 || len(got.Groups[0].Members) != 1 {
				t.Fatalf("v%d: got %#v", v, got)
			}
			want := wire.ShareGroupDescribeMember{
				MemberID: "m", RackID: "r1", ClientID: "c", ClientHost: "/127.0.0.1", SubscribedTopicNames: []string{"q"},
				Assignment: wire.Assignment{TopicPartitions: []wire.TopicPartitions{{TopicName: "q", Partitions: []int32{0}}}},
			}
			if diff := cmp.Diff(want, got.Groups[0].Members[0]); diff != "" {
				t.Errorf("v%d: member (-want +got):\n%s", v, diff)
			}
		}
	})
	t.Run("StreamsGroupDescribe", func(t *testing.T) {
		res := kmsg.NewStreamsGroupDescribeResponse()
		res.Version = 0
		res.Groups = []kmsg.StreamsGroupDescribeResponseGroup{{
			Group: "app", State: "Stable", Epoch: 5,
			Topology: &kmsg.StreamsGroupDescribeResponseGroupTopology{Epoch: 1,
				Subtopologies: []kmsg.StreamsGroupDescribeResponseGroupTopologySubtopology{{
					SubtopologyID: "0", SourceTopics: []string{"in"}, RepartitionSinkTopics: []string{"app-rep"},
					StateChangelogTopics: []kmsg.TopicInfo{{Topic: "app-store-changelog", NumPartitions: 3, ReplicationFactor: 1,
						Configs: []kmsg.TopicInfoConfig{{Key: "cleanup.policy", Value: "compact"}}}},
				}}},
			Members: []kmsg.StreamsGroupDescribeResponseGroupMember{{
				MemberID: "m", ClientID: "c", ClientHost: "/127.0.0.1", ProcessID: "p",
				UserEndpoint: &kmsg.StreamsGroupDescribeResponseGroupMemberUserEndpoint{Host: "h", Port: 65000},
				ClientTags:   []kmsg.StreamsGroupDescribeResponseGroupMemberClientTag{{Key: "k", Value: "v"}},
				TaskOffsets:  []kmsg.TaskOffset{{SubtopologyID: "0", Partition: 1, Offset: 9}},
				Assignment:   kmsg.StreamsAssignment{ActiveTasks: []kmsg.TaskIDs{{SubtopologyID: "0", Partitions: []int32{0, 1}}}},
				IsClassic:    true,
			}, {MemberID: "n"}},
		}, {Group: "new", State: "NotReady"}} // no topology yet: null
		got, ok := decodeOwn(t, res.Key(), 0, res.AppendTo(nil)).(*wire.StreamsGroupDescribeResponse)
		if !ok || len(got.Groups) != 2 {
			t.Fatalf("got %#v", got)
		}
		app := got.Groups[0]
		if app.Topology == nil || len(app.Topology.Subtopologies) != 1 || app.Topology.Subtopologies[0].SourceTopics[0] != "in" {
			t.Fatalf("topology %+v", app.Topology)
		}
		if len(app.Members) != 2 || app.Members[1].MemberID != "n" || app.Members[1].UserEndpoint != nil {
			t.Fatalf("members %+v", app.Members)
		}
		m := app.Members[0]
		wantActive := []wire.StreamsTaskIDs{{SubtopologyID: "0", Partitions: []int32{0, 1}}}
		if diff := cmp.Diff(wantActive, m.Assignment.ActiveTasks); diff != "" || !m.IsClassic || m.UserEndpoint.Host != "h" ||
			uint16(m.UserEndpoint.Port) != 65000 {
			t.Errorf("member %+v; active tasks (-want +got):\n%s", m, diff)
		}
		if g := got.Groups[1]; g.GroupID != "new" || g.Topology != nil {
			t.Errorf("group new: %+v, want a null topology", g)
		}
	})
}

// Each request this package encodes reads back in kmsg with the groups asked.
func TestGroupDescribeRequestsReadInKmsg(t *testing.T) {
	cases := []struct {
		name string
		v    int16
		req  func() ([]byte, error)
		kreq kmsg.Request
	}{
		{name: "ConsumerGroupDescribe", v: 1, req: func() ([]byte, error) {
			return wire.AppendOwnRequest(nil, 1, 1, "test", &wire.ConsumerGroupDescribeRequest{GroupIDs: []string{"a", "b"}})
		}, kreq: kmsg.NewPtrConsumerGroupDescribeRequest()},
		{name: "ShareGroupDescribe", v: 1, req: func() ([]byte, error) {
			return wire.AppendOwnRequest(nil, 1, 1, "test", &wire.ShareGroupDescribeRequest{GroupIDs: []string{"a", "b"}})
		}, kreq: kmsg.NewPtrShareGroupDescribeRequest()},
		{name: "StreamsGroupDescribe", v: 0, req: func() ([]byte, error) {
			return wire.AppendOwnRequest(nil, 0, 1, "test", &wire.StreamsGroupDescribeRequest{GroupIDs: []string{"a", "b"}})
		}, kreq: kmsg.NewPtrStreamsGroupDescribeRequest()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			frame, err := tc.req()
			if err != nil {
				t.Fatal(err)
			}
			// size, key, version, correlation id, client id (int16 length + "test"), empty tags
			body := frame[4+2+2+4+2+len("test")+1:]
			tc.kreq.SetVersion(tc.v)
			if err := tc.kreq.ReadFrom(body); err != nil {
				t.Fatal(err)
			}
			var groups []string
			switch r := tc.kreq.(type) {
			case *kmsg.ConsumerGroupDescribeRequest:
				groups = r.Groups
			case *kmsg.ShareGroupDescribeRequest:
				groups = r.GroupIDs
			case *kmsg.StreamsGroupDescribeRequest:
				groups = r.Groups
			}
			if diff := cmp.Diff([]string{"a", "b"}, groups); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
		})
	}
}

// A classic consumer's member assignment decodes as kmsg encodes it, in each version of the
// consumer protocol; no bytes (a member between assignments) are no partitions; bytes that claim
// more than they hold are refused.
func TestClassicAssignment(t *testing.T) {
	for v := int16(0); v <= 3; v++ {
		a := kmsg.ConsumerMemberAssignment{Version: v, Topics: []kmsg.ConsumerMemberAssignmentTopic{
			{Topic: "t", Partitions: []int32{0, 2}}, {Topic: "u", Partitions: []int32{1}},
		}, UserData: []byte("x")}
		got, err := wire.ClassicAssignment(a.AppendTo(nil))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if diff := cmp.Diff(map[string][]int32{"t": {0, 2}, "u": {1}}, got); diff != "" {
			t.Errorf("v%d (-want +got):\n%s", v, diff)
		}
	}
	if got, err := wire.ClassicAssignment(nil); err != nil || len(got) != 0 {
		t.Errorf("no bytes: %v, %v; want no partitions", got, err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{name: "a topic count above the bytes", b: []byte{0, 0, 0x7f, 0xff, 0xff, 0xff}},
		{name: "a topic name cut short", b: []byte{0, 0, 0, 0, 0, 1, 0, 5, 't'}},
		{name: "a partition cut short", b: []byte{0, 0, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 1, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := wire.ClassicAssignment(tc.b); err == nil {
				t.Errorf("got %v, want an error", got)
			}
		})
	}
}
