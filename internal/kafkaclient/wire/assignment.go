package wire

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// errAssignment: a classic member's assignment bytes do not follow the consumer protocol.
var errAssignment = errors.New("a member assignment that does not follow the consumer protocol")

// ClassicAssignment decodes a classic consumer's member assignment (DescribeGroups'
// MemberAssignment under protocol type "consumer": ConsumerProtocolAssignment, kmsg's
// ConsumerMemberAssignment) into partitions by topic. The bytes come from the group's leader, a
// client; kmsg checks their lengths. No bytes (a member between rebalances) is no partition.
func ClassicAssignment(b []byte) (map[string][]int32, error) {
	out := map[string][]int32{}
	if len(b) == 0 {
		return out, nil
	}
	var a kmsg.ConsumerMemberAssignment
	if err := a.ReadFrom(b); err != nil {
		return nil, errAssignment
	}
	for _, t := range a.Topics {
		out[t.Topic] = append(out[t.Topic], t.Partitions...)
	}
	return out, nil
}
