package wire

import (
	"encoding/binary"
	"errors"

	"github.com/segmentio/kafka-go/protocol"
)

// The describe APIs of Kafka 4's group kinds, for the partitions each group's members are
// assigned now (a group can read a topic before it commits anything there): ConsumerGroupDescribe
// (API 69, KIP-848), ShareGroupDescribe (API 77, KIP-932) and StreamsGroupDescribe (API 89,
// KIP-1071). Each goes to the group's coordinator. kafka-go's tables stop at API 51, so own.go
// encodes and decodes them. Every field of a version is declared, in order, as the decoder walks
// them all; the provider reads a few.
func init() {
	registerOwn(ConsumerGroupDescribe, 1, &ConsumerGroupDescribeRequest{}, &ConsumerGroupDescribeResponse{})
	registerOwn(ShareGroupDescribe, 1, &ShareGroupDescribeRequest{}, &ShareGroupDescribeResponse{})
	registerOwn(StreamsGroupDescribe, 0, &StreamsGroupDescribeRequest{}, &StreamsGroupDescribeResponse{})
}

// API keys of the group describe APIs.
const (
	ConsumerGroupDescribe protocol.ApiKey = 69
	ShareGroupDescribe    protocol.ApiKey = 77
	StreamsGroupDescribe  protocol.ApiKey = 89
)

// GroupDescribeRequest is the request of all three APIs (StreamsGroupDescribe v1 adds a field
// this package does not send: it speaks v0).
type GroupDescribeRequest struct {
	_                           struct{} `kafka:"min=v0,max=v1,tag"`
	GroupIDs                    []string `kafka:"min=v0,max=v1"`
	IncludeAuthorizedOperations bool     `kafka:"min=v0,max=v1"`
}

// ConsumerGroupDescribeRequest is ConsumerGroupDescribe v0-v1's request.
type ConsumerGroupDescribeRequest GroupDescribeRequest

// ApiKey is ConsumerGroupDescribe.
func (r *ConsumerGroupDescribeRequest) ApiKey() protocol.ApiKey { return ConsumerGroupDescribe }

// ShareGroupDescribeRequest is ShareGroupDescribe v0-v1's request (Kafka 4.0 speaks v0, 4.1+ v1;
// the same fields).
type ShareGroupDescribeRequest GroupDescribeRequest

// ApiKey is ShareGroupDescribe.
func (r *ShareGroupDescribeRequest) ApiKey() protocol.ApiKey { return ShareGroupDescribe }

// StreamsGroupDescribeRequest is StreamsGroupDescribe v0's request.
type StreamsGroupDescribeRequest GroupDescribeRequest

// ApiKey is StreamsGroupDescribe.
func (r *StreamsGroupDescribeRequest) ApiKey() protocol.ApiKey { return StreamsGroupDescribe }

// TopicPartitions is the partitions of one topic assigned to a member (ConsumerGroupDescribe and
// ShareGroupDescribe).
type TopicPartitions struct {
	TopicID    [16]byte `kafka:"min=v0,max=v1"`
	TopicName  string   `kafka:"min=v0,max=v1"`
	Partitions []int32  `kafka:"min=v0,max=v1"`
}

// Assignment is a member's assignment (ConsumerGroupDescribe and ShareGroupDescribe).
type Assignment struct {
	TopicPartitions []TopicPartitions `kafka:"min=v0,max=v1"`
}

// ConsumerGroupDescribeResponse is ConsumerGroupDescribe v0-v1's response.
type ConsumerGroupDescribeResponse struct {
	_              struct{}                                      `kafka:"min=v0,max=v1,tag"`
	ThrottleTimeMs int32                                         `kafka:"min=v0,max=v1"`
	Groups         []DescribedGroup[ConsumerGroupDescribeMember] `kafka:"min=v0,max=v1"`
}

// DescribedGroup is one group's answer to ConsumerGroupDescribe or ShareGroupDescribe (the same
// fields, members apart).
type DescribedGroup[M any] struct {
	ErrorCode            int16  `kafka:"min=v0,max=v1"`
	ErrorMessage         string `kafka:"min=v0,max=v1,nullable"`
	GroupID              string `kafka:"min=v0,max=v1"`
	GroupState           string `kafka:"min=v0,max=v1"`
	GroupEpoch           int32  `kafka:"min=v0,max=v1"`
	AssignmentEpoch      int32  `kafka:"min=v0,max=v1"`
	AssignorName         string `kafka:"min=v0,max=v1"`
	Members              []M    `kafka:"min=v0,max=v1"`
	AuthorizedOperations int32  `kafka:"min=v0,max=v1"`
}

// ConsumerGroupDescribeMember is one member: Assignment is what it owns now, TargetAssignment
// what the coordinator is moving it to.
type ConsumerGroupDescribeMember struct {
	MemberID             string     `kafka:"min=v0,max=v1"`
	InstanceID           string     `kafka:"min=v0,max=v1,nullable"`
	RackID               string     `kafka:"min=v0,max=v1,nullable"`
	MemberEpoch          int32      `kafka:"min=v0,max=v1"`
	ClientID             string     `kafka:"min=v0,max=v1"`
	ClientHost           string     `kafka:"min=v0,max=v1"`
	SubscribedTopicNames []string   `kafka:"min=v0,max=v1"`
	SubscribedTopicRegex string     `kafka:"min=v0,max=v1,nullable"`
	Assignment           Assignment `kafka:"min=v0,max=v1"`
	TargetAssignment     Assignment `kafka:"min=v0,max=v1"`
	MemberType           int8       `kafka:"min=v1,max=v1"`
}

// ApiKey is ConsumerGroupDescribe.
func (r *ConsumerGroupDescribeResponse) ApiKey() protocol.ApiKey { return ConsumerGroupDescribe }

// ShareGroupDescribeResponse is ShareGroupDescribe v0-v1's response.
type ShareGroupDescribeResponse struct {
	_              struct{}                                   `kafka:"min=v0,max=v1,tag"`
	ThrottleTimeMs int32                                      `kafka:"min=v0,max=v1"`
	Groups         []DescribedGroup[ShareGroupDescribeMember] `kafka:"min=v0,max=v1"`
}

// ShareGroupDescribeMember is one member of a share group and the partitions it fetches from.
type ShareGroupDescribeMember struct {
	MemberID             string     `kafka:"min=v0,max=v1"`
	RackID               string     `kafka:"min=v0,max=v1,nullable"`
	MemberEpoch          int32      `kafka:"min=v0,max=v1"`
	ClientID             string     `kafka:"min=v0,max=v1"`
	ClientHost           string     `kafka:"min=v0,max=v1"`
	SubscribedTopicNames []string   `kafka:"min=v0,max=v1"`
	Assignment           Assignment `kafka:"min=v0,max=v1"`
}

// ApiKey is ShareGroupDescribe.
func (r *ShareGroupDescribeResponse) ApiKey() protocol.ApiKey { return ShareGroupDescribe }

// StreamsGroupDescribeResponse is StreamsGroupDescribe v0's response. A streams member is
// assigned tasks, not partitions: an active task is a subtopology and partition numbers, and the
// subtopology's source topics are the topics it reads those partitions of.
type StreamsGroupDescribeResponse struct {
	_              struct{}                    `kafka:"min=v0,max=v0,tag"`
	ThrottleTimeMs int32                       `kafka:"min=v0,max=v0"`
	Groups         []StreamsGroupDescribeGroup `kafka:"min=v0,max=v0"`
}

// StreamsGroupDescribeGroup is one group's answer; Topology is nil before the group has one.
type StreamsGroupDescribeGroup struct {
	ErrorCode            int16                        `kafka:"min=v0,max=v0"`
	ErrorMessage         string                       `kafka:"min=v0,max=v0,nullable"`
	GroupID              string                       `kafka:"min=v0,max=v0"`
	GroupState           string                       `kafka:"min=v0,max=v0"`
	GroupEpoch           int32                        `kafka:"min=v0,max=v0"`
	AssignmentEpoch      int32                        `kafka:"min=v0,max=v0"`
	Topology             *StreamsTopology             `kafka:"min=v0,max=v0"`
	Members              []StreamsGroupDescribeMember `kafka:"min=v0,max=v0"`
	AuthorizedOperations int32                        `kafka:"min=v0,max=v0"`
}

// StreamsTopology is a streams group's topology.
type StreamsTopology struct {
	Epoch         int32                `kafka:"min=v0,max=v0"`
	Subtopologies []StreamsSubtopology `kafka:"min=v0,max=v0,nullable"`
}

// StreamsSubtopology is one subtopology and the topics it reads (SourceTopics: the user's input
// topics; RepartitionSourceTopics: internal ones).
type StreamsSubtopology struct {
	SubtopologyID           string             `kafka:"min=v0,max=v0"`
	SourceTopics            []string           `kafka:"min=v0,max=v0"`
	RepartitionSinkTopics   []string           `kafka:"min=v0,max=v0"`
	StateChangelogTopics    []StreamsTopicInfo `kafka:"min=v0,max=v0"`
	RepartitionSourceTopics []StreamsTopicInfo `kafka:"min=v0,max=v0"`
}

// StreamsTopicInfo is an internal topic of a topology.
type StreamsTopicInfo struct {
	Name              string            `kafka:"min=v0,max=v0"`
	Partitions        int32             `kafka:"min=v0,max=v0"`
	ReplicationFactor int16             `kafka:"min=v0,max=v0"`
	TopicConfigs      []StreamsKeyValue `kafka:"min=v0,max=v0"`
}

// StreamsKeyValue is a topic config or a client tag.
type StreamsKeyValue struct {
	Key   string `kafka:"min=v0,max=v0"`
	Value string `kafka:"min=v0,max=v0"`
}

// StreamsGroupDescribeMember is one member of a streams group.
type StreamsGroupDescribeMember struct {
	MemberID         string              `kafka:"min=v0,max=v0"`
	MemberEpoch      int32               `kafka:"min=v0,max=v0"`
	InstanceID       string              `kafka:"min=v0,max=v0,nullable"`
	RackID           string              `kafka:"min=v0,max=v0,nullable"`
	ClientID         string              `kafka:"min=v0,max=v0"`
	ClientHost       string              `kafka:"min=v0,max=v0"`
	TopologyEpoch    int32               `kafka:"min=v0,max=v0"`
	ProcessID        string              `kafka:"min=v0,max=v0"`
	UserEndpoint     *StreamsEndpoint    `kafka:"min=v0,max=v0"`
	ClientTags       []StreamsKeyValue   `kafka:"min=v0,max=v0"`
	TaskOffsets      []StreamsTaskOffset `kafka:"min=v0,max=v0"`
	TaskEndOffsets   []StreamsTaskOffset `kafka:"min=v0,max=v0"`
	Assignment       StreamsAssignment   `kafka:"min=v0,max=v0"`
	TargetAssignment StreamsAssignment   `kafka:"min=v0,max=v0"`
	IsClassic        bool                `kafka:"min=v0,max=v0"`
}

// StreamsEndpoint is a member's interactive-query endpoint (Port is a uint16 on the wire).
type StreamsEndpoint struct {
	Host string `kafka:"min=v0,max=v0"`
	Port int16  `kafka:"min=v0,max=v0"`
}

// StreamsTaskOffset is a task's offset as the member reports it.
type StreamsTaskOffset struct {
	SubtopologyID string `kafka:"min=v0,max=v0"`
	Partition     int32  `kafka:"min=v0,max=v0"`
	Offset        int64  `kafka:"min=v0,max=v0"`
}

// StreamsAssignment is a member's tasks: active ones read their source partitions.
type StreamsAssignment struct {
	ActiveTasks  []StreamsTaskIDs `kafka:"min=v0,max=v0"`
	StandbyTasks []StreamsTaskIDs `kafka:"min=v0,max=v0"`
	WarmupTasks  []StreamsTaskIDs `kafka:"min=v0,max=v0"`
}

// StreamsTaskIDs is the partitions of one subtopology's tasks.
type StreamsTaskIDs struct {
	SubtopologyID string  `kafka:"min=v0,max=v0"`
	Partitions    []int32 `kafka:"min=v0,max=v0"`
}

// ApiKey is StreamsGroupDescribe.
func (r *StreamsGroupDescribeResponse) ApiKey() protocol.ApiKey { return StreamsGroupDescribe }

// errAssignment: a classic member's assignment bytes do not follow the consumer protocol.
var errAssignment = errors.New("a member assignment that does not follow the consumer protocol")

// ClassicAssignment decodes a classic consumer's member assignment (DescribeGroups'
// MemberAssignment under protocol type "consumer": ConsumerProtocolAssignment, any version: an
// int16 version, then topics with their partitions; what follows is not read). Lengths are
// checked against the bytes left: the bytes come from the group's leader, a client. No bytes (a
// member between rebalances) is no partition.
func ClassicAssignment(b []byte) (map[string][]int32, error) {
	out := map[string][]int32{}
	if len(b) == 0 {
		return out, nil
	}
	d := &plainDecoder{rest: b}
	d.take(2) // version
	for range d.count(4) {
		topic := string(d.take(d.count(2)))
		for range d.count(4) {
			out[topic] = append(out[topic], int32(binary.BigEndian.Uint32(d.take(4))))
		}
	}
	if d.bad {
		return nil, errAssignment
	}
	return out, nil
}

// plainDecoder reads non-flexible fields; the first short read marks it bad and yields zeros.
type plainDecoder struct {
	rest []byte
	bad  bool
}

func (d *plainDecoder) take(n int) []byte {
	if d.bad || n > len(d.rest) {
		d.bad = true
		return make([]byte, n)
	}
	p := d.rest[:n]
	d.rest = d.rest[n:]
	return p
}

// count reads a width-byte length; a negative one (null) is 0; one above the bytes left is bad.
func (d *plainDecoder) count(width int) int {
	var n int
	if width == 2 {
		n = int(int16(binary.BigEndian.Uint16(d.take(2))))
	} else {
		n = int(int32(binary.BigEndian.Uint32(d.take(4))))
	}
	if n > len(d.rest) {
		d.bad = true
	}
	if n < 0 || d.bad {
		return 0
	}
	return n
}
