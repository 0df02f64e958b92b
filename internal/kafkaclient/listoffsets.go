package kafkaclient

import (
	"github.com/segmentio/kafka-go/protocol"
)

// kafka-go's own ListOffsets message stops at v5, which cannot ask for the offset of the record
// with the largest timestamp (timestamp -3, KIP-734, ListOffsets v7, Kafka 3.0+). These types
// describe ListOffsets v1 to v7 in kafka-go's protocol notation (v6+ are "flexible" versions:
// compact strings and arrays, tagged fields) and replace kafka-go's registration, so that
// connections negotiate up to v7 (broker_dial.go) and kafka-go's encoder sends them as they are.
//
// The registration is process-wide: kafka-go's Client.ListOffsets and Conn offset methods decode
// into these types and break. This package therefore sends every ListOffsets request itself
// (listOffsetsRequest), batched per partition leader, and never calls those.
func init() {
	protocol.Register(&listOffsetsRequest{}, &listOffsetsResponse{})
}

// Special ListOffsets timestamps.
const (
	timestampLatest   int64 = -1 // high watermark (read_uncommitted) or last stable offset (read_committed)
	timestampEarliest int64 = -2 // log start offset
	timestampMax      int64 = -3 // the record with the largest timestamp; v7+
)

type listOffsetsRequest struct {
	_              struct{}                  `kafka:"min=v6,max=v7,tag"`
	ReplicaID      int32                     `kafka:"min=v1,max=v7"`
	IsolationLevel int8                      `kafka:"min=v2,max=v7"`
	Topics         []listOffsetsRequestTopic `kafka:"min=v1,max=v7"`
}

type listOffsetsRequestTopic struct {
	Topic      string                        `kafka:"min=v1,max=v7"`
	Partitions []listOffsetsRequestPartition `kafka:"min=v1,max=v7"`
}

type listOffsetsRequestPartition struct {
	Partition          int32 `kafka:"min=v1,max=v7"`
	CurrentLeaderEpoch int32 `kafka:"min=v4,max=v7"`
	Timestamp          int64 `kafka:"min=v1,max=v7"`
}

func (r *listOffsetsRequest) ApiKey() protocol.ApiKey { return protocol.ListOffsets }

type listOffsetsResponse struct {
	_              struct{}                   `kafka:"min=v6,max=v7,tag"`
	ThrottleTimeMs int32                      `kafka:"min=v2,max=v7"`
	Topics         []listOffsetsResponseTopic `kafka:"min=v1,max=v7"`
}

type listOffsetsResponseTopic struct {
	Topic      string                         `kafka:"min=v1,max=v7"`
	Partitions []listOffsetsResponsePartition `kafka:"min=v1,max=v7"`
}

type listOffsetsResponsePartition struct {
	Partition   int32 `kafka:"min=v1,max=v7"`
	ErrorCode   int16 `kafka:"min=v1,max=v7"`
	Timestamp   int64 `kafka:"min=v1,max=v7"`
	Offset      int64 `kafka:"min=v1,max=v7"`
	LeaderEpoch int32 `kafka:"min=v4,max=v7"`
}

func (r *listOffsetsResponse) ApiKey() protocol.ApiKey { return protocol.ListOffsets }
