package wire_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// An answer's error codes are counted at every depth, named as Kafka names them, by code.
func TestAnswerCodes(t *testing.T) {
	lo := kmsg.NewPtrListOffsetsResponse()
	for _, codes := range [][]int16{{6, 0, 6}, {3}} {
		topic := kmsg.NewListOffsetsResponseTopic()
		for _, code := range codes {
			p := kmsg.NewListOffsetsResponseTopicPartition()
			p.ErrorCode = code
			topic.Partitions = append(topic.Partitions, p)
		}
		lo.Topics = append(lo.Topics, topic)
	}
	md := kmsg.NewPtrMetadataResponse()
	md.Topics = []kmsg.MetadataResponseTopic{{ErrorCode: 3}, {Partitions: []kmsg.MetadataResponseTopicPartition{{ErrorCode: 5}}}}
	fc := kmsg.NewPtrFindCoordinatorResponse()
	fc.ErrorCode = 15
	unknown := kmsg.NewPtrFindCoordinatorResponse()
	unknown.ErrorCode = 9999
	for _, tc := range []struct {
		name string
		res  kmsg.Response
		want string
	}{
		{"none", kmsg.NewPtrListOffsetsResponse(), ""},
		{"no answer", nil, ""},
		{"partitions", lo, "UNKNOWN_TOPIC_OR_PARTITION×1, NOT_LEADER_OR_FOLLOWER×2"},
		{"topic and partition", md, "UNKNOWN_TOPIC_OR_PARTITION×1, LEADER_NOT_AVAILABLE×1"},
		{"the response's own", fc, "COORDINATOR_NOT_AVAILABLE×1"},
		{"a code unknown to the provider", unknown, "code 9999×1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := wire.AnswerCodes(tc.res); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
