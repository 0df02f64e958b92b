package wire

import (
	"github.com/segmentio/kafka-go/protocol"
)

// kafka-go's own ListOffsets message stops at v5, which cannot ask for the offset of the record
// with the largest timestamp (timestamp -3, KIP-734, ListOffsets v7, Kafka 3.0+). These types
// describe ListOffsets v1 to v7 in kafka-go's protocol notation (v6+ are "flexible" versions:
// compact strings and arrays, tagged fields) and replace kafka-go's registration, so that
// connections negotiate up to v7 (package broker's handshake, connect.go) and kafka-go's encoder sends
// them as they are.
//
// The registration is process-wide: kafka-go's Client.ListOffsets and Conn offset methods decode
// into these types and break. kafkaclient therefore sends every ListOffsets request itself,
// batched per partition leader, and never calls those.
func init() {
	protocol.Register(&ListOffsetsRequest{}, &ListOffsetsResponse{})
}

// Special ListOffsets timestamps.
const (
	TimestampLatest   int64 = -1 // high watermark (read_uncommitted) or last stable offset (read_committed)
	TimestampEarliest int64 = -2 // log start offset
	TimestampMax      int64 = -3 // the record with the largest timestamp; v7+
)

// MaxTimestampVersion is the first ListOffsets version that answers TimestampMax. Brokers that
// serve less (before Kafka 3.0) read -3 as an ordinary time and answer the first record.
const MaxTimestampVersion = 7

// ListOffsetsRequest is ListOffsets v1-v7's request.
type ListOffsetsRequest struct {
	_              struct{}                  `kafka:"min=v6,max=v7,tag"`
	ReplicaID      int32                     `kafka:"min=v1,max=v7"`
	IsolationLevel int8                      `kafka:"min=v2,max=v7"`
	Topics         []ListOffsetsRequestTopic `kafka:"min=v1,max=v7"`
}

// ListOffsetsRequestTopic is one topic of a ListOffsetsRequest.
type ListOffsetsRequestTopic struct {
	Topic      string                        `kafka:"min=v1,max=v7"`
	Partitions []ListOffsetsRequestPartition `kafka:"min=v1,max=v7"`
}

// ListOffsetsRequestPartition is one partition of a ListOffsetsRequestTopic.
type ListOffsetsRequestPartition struct {
	Partition          int32 `kafka:"min=v1,max=v7"`
	CurrentLeaderEpoch int32 `kafka:"min=v4,max=v7"`
	Timestamp          int64 `kafka:"min=v1,max=v7"`
}

// ApiKey is ListOffsets.
func (r *ListOffsetsRequest) ApiKey() protocol.ApiKey { return protocol.ListOffsets }

// ListOffsetsResponse is ListOffsets v1-v7's response.
type ListOffsetsResponse struct {
	_              struct{}                   `kafka:"min=v6,max=v7,tag"`
	ThrottleTimeMs int32                      `kafka:"min=v2,max=v7"`
	Topics         []ListOffsetsResponseTopic `kafka:"min=v1,max=v7"`
}

// ListOffsetsResponseTopic is one topic of a ListOffsetsResponse.
type ListOffsetsResponseTopic struct {
	Topic      string                         `kafka:"min=v1,max=v7"`
	Partitions []ListOffsetsResponsePartition `kafka:"min=v1,max=v7"`
}

// ListOffsetsResponsePartition is one partition's answer; Offset and Timestamp are placeholders
// (-1) when ErrorCode is set.
type ListOffsetsResponsePartition struct {
	Partition   int32 `kafka:"min=v1,max=v7"`
	ErrorCode   int16 `kafka:"min=v1,max=v7"`
	Timestamp   int64 `kafka:"min=v1,max=v7"`
	Offset      int64 `kafka:"min=v1,max=v7"`
	LeaderEpoch int32 `kafka:"min=v4,max=v7"`
}

// ApiKey is ListOffsets.
func (r *ListOffsetsResponse) ApiKey() protocol.ApiKey { return protocol.ListOffsets }
