package wire

import "github.com/segmentio/kafka-go/protocol"

// kafka-go's OffsetFetch message stops at v5: one group per request. OffsetFetch v8 (KIP-709,
// Kafka 3.0) asks for the commits of many groups at once, which kafka_consumer_groups needs to
// read every group of a cluster in a few requests. These types describe OffsetFetch v2 to v9 in
// kafka-go's protocol notation (v6+ are flexible versions; v8+ carry groups; v9 adds the member
// id and epoch of KIP-848, which an admin read leaves null and -1) and replace kafka-go's
// registration, as listoffsets.go does for ListOffsets: kafka-go's own Client.OffsetFetch must
// not be used. v2 is the first version whose null topic list means "every topic"; every broker
// that serves Metadata v4 (which this provider requires) serves it.
//
// The request goes to the group's coordinator (from ListGroups or FindCoordinator).
func init() {
	protocol.Register(&OffsetFetchRequest{}, &OffsetFetchResponse{})
}

// OffsetFetchRequest is OffsetFetch v2-v9's request: one group in GroupID (v2-v7) or several in Groups (v8+).
type OffsetFetchRequest struct {
	_             struct{}                  `kafka:"min=v6,max=v9,tag"`
	GroupID       string                    `kafka:"min=v2,max=v7"`
	Topics        []OffsetFetchRequestTopic `kafka:"min=v2,max=v7,nullable"`
	Groups        []OffsetFetchRequestGroup `kafka:"min=v8,max=v9"`
	RequireStable bool                      `kafka:"min=v7,max=v9"`
}

// OffsetFetchRequestTopic is the partitions asked of one topic; a nil list asks for every topic.
type OffsetFetchRequestTopic struct {
	Name             string  `kafka:"min=v2,max=v9"`
	PartitionIndexes []int32 `kafka:"min=v2,max=v9"`
}

// OffsetFetchRequestGroup is one group of a v8+ request.
type OffsetFetchRequestGroup struct {
	GroupID     string                    `kafka:"min=v8,max=v9"`
	MemberID    string                    `kafka:"min=v9,max=v9,nullable"` // "" is sent as null: an admin read
	MemberEpoch int32                     `kafka:"min=v9,max=v9"`
	Topics      []OffsetFetchRequestTopic `kafka:"min=v8,max=v9,nullable"`
}

// ApiKey is OffsetFetch.
func (r *OffsetFetchRequest) ApiKey() protocol.ApiKey { return protocol.OffsetFetch }

// OffsetFetchResponse is OffsetFetch v2-v9's response.
type OffsetFetchResponse struct {
	_              struct{}                   `kafka:"min=v6,max=v9,tag"`
	ThrottleTimeMs int32                      `kafka:"min=v3,max=v9"`
	Topics         []OffsetFetchResponseTopic `kafka:"min=v2,max=v7"`
	ErrorCode      int16                      `kafka:"min=v2,max=v7"`
	Groups         []OffsetFetchResponseGroup `kafka:"min=v8,max=v9"`
}

// OffsetFetchResponseGroup is one group's answer (v8+).
type OffsetFetchResponseGroup struct {
	GroupID   string                     `kafka:"min=v8,max=v9"`
	Topics    []OffsetFetchResponseTopic `kafka:"min=v8,max=v9"`
	ErrorCode int16                      `kafka:"min=v8,max=v9"`
}

// OffsetFetchResponseTopic is one topic's commits.
type OffsetFetchResponseTopic struct {
	Name       string                         `kafka:"min=v2,max=v9"`
	Partitions []OffsetFetchResponsePartition `kafka:"min=v2,max=v9"`
}

// OffsetFetchResponsePartition is one partition's commit; CommittedOffset -1: none.
type OffsetFetchResponsePartition struct {
	Partition            int32  `kafka:"min=v2,max=v9"`
	CommittedOffset      int64  `kafka:"min=v2,max=v9"`
	CommittedLeaderEpoch int32  `kafka:"min=v5,max=v9"`
	Metadata             string `kafka:"min=v2,max=v9,nullable"`
	ErrorCode            int16  `kafka:"min=v2,max=v9"`
}

// ApiKey is OffsetFetch.
func (r *OffsetFetchResponse) ApiKey() protocol.ApiKey { return protocol.OffsetFetch }

// OffsetFetchBatchVersion is the first OffsetFetch version that carries several groups.
const OffsetFetchBatchVersion = 8
