package wire

import (
	"github.com/segmentio/kafka-go/protocol"
)

// kafka-go's own ListOffsets message stops at v5, which cannot ask for the offset of the record
// with the largest timestamp (timestamp -3, KIP-734, ListOffsets v7, Kafka 3.0+) nor for the
// tiered-storage offsets (-4 to -6, v8 to v11). These types describe ListOffsets v1 to v11 in
// kafka-go's protocol notation (v6+ are "flexible" versions: compact strings and arrays, tagged
// fields; v10 adds the request's TimeoutMs, KIP-1075; v8, v9 and v11 only add timestamps) and
// replace kafka-go's registration, so that connections negotiate up to v11 (package broker's
// handshake, connect.go) and kafka-go's encoder sends them as they are.
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
	// Tiered storage (KIP-405); a topic without remote storage answers the log start offset for
	// -4 and -1 for -5 and -6 (Kafka 3.9 and 4.4).
	TimestampEarliestLocal         int64 = -4 // the first offset still on the broker's disk; v8+
	TimestampLatestTiered          int64 = -5 // the last offset in remote storage; v9+, KIP-1005
	TimestampEarliestPendingUpload int64 = -6 // the first offset not yet in remote storage; v11+, KIP-1023
)

// The first ListOffsets version that answers each special timestamp. Brokers that serve less read
// -3 as an ordinary time and answer the first record (before Kafka 3.0), and answer
// UNSUPPORTED_VERSION for -6 (Kafka 3.9).
const (
	MaxTimestampVersion          = 7
	EarliestLocalVersion         = 8  // Kafka 3.5
	LatestTieredVersion          = 9  // Kafka 3.9
	EarliestPendingUploadVersion = 11 // Kafka 4.2
)

// ListOffsetsRequest is ListOffsets v1-v11's request.
type ListOffsetsRequest struct {
	_              struct{}                  `kafka:"min=v6,max=v11,tag"`
	ReplicaID      int32                     `kafka:"min=v1,max=v11"`
	IsolationLevel int8                      `kafka:"min=v2,max=v11"`
	Topics         []ListOffsetsRequestTopic `kafka:"min=v1,max=v11"`
	// TimeoutMs bounds a lookup that reads remote storage (a time in an offloaded segment); the
	// broker answers REQUEST_TIMED_OUT for it past this.
	TimeoutMs int32 `kafka:"min=v10,max=v11"`
}

// ListOffsetsRequestTopic is one topic of a ListOffsetsRequest.
type ListOffsetsRequestTopic struct {
	Topic      string                        `kafka:"min=v1,max=v11"`
	Partitions []ListOffsetsRequestPartition `kafka:"min=v1,max=v11"`
}

// ListOffsetsRequestPartition is one partition of a ListOffsetsRequestTopic.
type ListOffsetsRequestPartition struct {
	Partition          int32 `kafka:"min=v1,max=v11"`
	CurrentLeaderEpoch int32 `kafka:"min=v4,max=v11"`
	Timestamp          int64 `kafka:"min=v1,max=v11"`
}

// ApiKey is ListOffsets.
func (r *ListOffsetsRequest) ApiKey() protocol.ApiKey { return protocol.ListOffsets }

// ListOffsetsResponse is ListOffsets v1-v11's response.
type ListOffsetsResponse struct {
	_              struct{}                   `kafka:"min=v6,max=v11,tag"`
	ThrottleTimeMs int32                      `kafka:"min=v2,max=v11"`
	Topics         []ListOffsetsResponseTopic `kafka:"min=v1,max=v11"`
}

// ListOffsetsResponseTopic is one topic of a ListOffsetsResponse.
type ListOffsetsResponseTopic struct {
	Topic      string                         `kafka:"min=v1,max=v11"`
	Partitions []ListOffsetsResponsePartition `kafka:"min=v1,max=v11"`
}

// ListOffsetsResponsePartition is one partition's answer; Offset and Timestamp are placeholders
// (-1) when ErrorCode is set.
type ListOffsetsResponsePartition struct {
	Partition   int32 `kafka:"min=v1,max=v11"`
	ErrorCode   int16 `kafka:"min=v1,max=v11"`
	Timestamp   int64 `kafka:"min=v1,max=v11"`
	Offset      int64 `kafka:"min=v1,max=v11"`
	LeaderEpoch int32 `kafka:"min=v4,max=v11"`
}

// ApiKey is ListOffsets.
func (r *ListOffsetsResponse) ApiKey() protocol.ApiKey { return protocol.ListOffsets }
