package wire

import "github.com/segmentio/kafka-go/protocol"

// DescribeShareGroupOffsets (API 90, KIP-932, Kafka 4.0) answers a share group's progress per
// partition: the share-partition start offset (every record before it is acknowledged or
// archived) and, from v1 (KIP-1226, Kafka 4.2), the share-partition lag: the records at or after
// the start offset not yet acknowledged, up to the high watermark. A share group keeps no
// consumer-group commits: OffsetFetch answers nothing for it. kafka-go's protocol tables stop at
// API 51, so these types are encoded and decoded by this package (own.go), from the same
// `kafka:"..."` tags kafka-go reads. Every version is flexible. The request goes to the group's
// coordinator.
func init() {
	registerOwn(DescribeShareGroupOffsets, 1, &DescribeShareGroupOffsetsRequest{}, &DescribeShareGroupOffsetsResponse{})
}

// DescribeShareGroupOffsets is API key 90.
const DescribeShareGroupOffsets protocol.ApiKey = 90

// ShareGroupLagVersion is the first DescribeShareGroupOffsets version that answers the lag.
const ShareGroupLagVersion = 1

// DescribeShareGroupOffsetsRequest is DescribeShareGroupOffsets v0-v1's request.
type DescribeShareGroupOffsetsRequest struct {
	_      struct{}                                `kafka:"min=v0,max=v1,tag"`
	Groups []DescribeShareGroupOffsetsRequestGroup `kafka:"min=v0,max=v1"`
}

// DescribeShareGroupOffsetsRequestGroup is one group; nil Topics asks for every topic-partition
// the group has state for.
type DescribeShareGroupOffsetsRequestGroup struct {
	GroupID string                                  `kafka:"min=v0,max=v1"`
	Topics  []DescribeShareGroupOffsetsRequestTopic `kafka:"min=v0,max=v1,nullable"`
}

// DescribeShareGroupOffsetsRequestTopic is the partitions asked of one topic.
type DescribeShareGroupOffsetsRequestTopic struct {
	TopicName  string  `kafka:"min=v0,max=v1"`
	Partitions []int32 `kafka:"min=v0,max=v1"`
}

// ApiKey is DescribeShareGroupOffsets.
func (r *DescribeShareGroupOffsetsRequest) ApiKey() protocol.ApiKey { return DescribeShareGroupOffsets }

// DescribeShareGroupOffsetsResponse is DescribeShareGroupOffsets v0-v1's response.
type DescribeShareGroupOffsetsResponse struct {
	_              struct{}                                 `kafka:"min=v0,max=v1,tag"`
	ThrottleTimeMs int32                                    `kafka:"min=v0,max=v1"`
	Groups         []DescribeShareGroupOffsetsResponseGroup `kafka:"min=v0,max=v1"`
}

// DescribeShareGroupOffsetsResponseGroup is one group's answer.
type DescribeShareGroupOffsetsResponseGroup struct {
	GroupID      string                                   `kafka:"min=v0,max=v1"`
	Topics       []DescribeShareGroupOffsetsResponseTopic `kafka:"min=v0,max=v1"`
	ErrorCode    int16                                    `kafka:"min=v0,max=v1"`
	ErrorMessage string                                   `kafka:"min=v0,max=v1,nullable"`
}

// DescribeShareGroupOffsetsResponseTopic is one topic's partitions.
type DescribeShareGroupOffsetsResponseTopic struct {
	TopicName  string                                       `kafka:"min=v0,max=v1"`
	TopicID    [16]byte                                     `kafka:"min=v0,max=v1"`
	Partitions []DescribeShareGroupOffsetsResponsePartition `kafka:"min=v0,max=v1"`
}

// DescribeShareGroupOffsetsResponsePartition is one share-partition: StartOffset -1 where the
// group has no state for it; Lag -1 where the broker does not know it (and below v1).
type DescribeShareGroupOffsetsResponsePartition struct {
	PartitionIndex int32  `kafka:"min=v0,max=v1"`
	StartOffset    int64  `kafka:"min=v0,max=v1"`
	LeaderEpoch    int32  `kafka:"min=v0,max=v1"`
	Lag            int64  `kafka:"min=v1,max=v1"`
	ErrorCode      int16  `kafka:"min=v0,max=v1"`
	ErrorMessage   string `kafka:"min=v0,max=v1,nullable"`
}

// ApiKey is DescribeShareGroupOffsets.
func (r *DescribeShareGroupOffsetsResponse) ApiKey() protocol.ApiKey {
	return DescribeShareGroupOffsets
}
