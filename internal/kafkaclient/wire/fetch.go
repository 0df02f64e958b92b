package wire

import "github.com/segmentio/kafka-go/protocol"

// kafka-go's Fetch message (protocol/fetch) decodes a partition's records itself, whole, into
// memory, and its decoder ignores a batch's maxTimestamp, so records of a LogAppendTime topic
// come out with the producer's time. These types describe Fetch v4 to v11 (the non-flexible
// versions that Kafka 4.x still serves: KIP-896 removed v0-v3) in kafka-go's protocol notation,
// with each partition's records left as the bytes the broker sent (records.go reads them), and
// replace kafka-go's registration, as listoffsets.go does for ListOffsets: kafka-go's own
// Client.Fetch, Conn and Reader must not be used. Connections negotiate up to v11 by themselves
// (package broker's handshake selects within the registered range, connect.go).
//
// A read sends ReplicaID -1 (a consumer, not a follower), SessionID 0 and SessionEpoch -1 (no
// fetch session, KIP-227's FINAL_EPOCH: the broker keeps nothing), no forgotten topics and no
// rack: it joins no group and commits nothing.
func init() {
	protocol.Register(&FetchRequest{}, &FetchResponse{})
}

// Fetch request constants of a read that is neither a follower nor part of a fetch session.
const (
	FetchConsumerReplica int32 = -1 // ReplicaID of a consumer
	FetchNoSession       int32 = 0  // SessionID: none
	FetchFinalEpoch      int32 = -1 // SessionEpoch: KIP-227 FINAL_EPOCH, no session is created
	FetchNoLeaderEpoch   int32 = -1 // CurrentLeaderEpoch not checked
	FetchNoLogStart      int64 = -1 // LogStartOffset: only followers send one
)

// MinFetchVersion is the first Fetch version these types describe (isolation level, last stable
// offset and aborted transactions: KIP-98, Kafka 0.11).
const MinFetchVersion = 4

// FetchRequest is Fetch v4-v11's request.
type FetchRequest struct {
	ReplicaID       int32                        `kafka:"min=v4,max=v11"`
	MaxWaitTime     int32                        `kafka:"min=v4,max=v11"` // ms
	MinBytes        int32                        `kafka:"min=v4,max=v11"`
	MaxBytes        int32                        `kafka:"min=v4,max=v11"` // the whole response; soft for its first partition (KIP-74)
	IsolationLevel  int8                         `kafka:"min=v4,max=v11"`
	SessionID       int32                        `kafka:"min=v7,max=v11"`
	SessionEpoch    int32                        `kafka:"min=v7,max=v11"`
	Topics          []FetchRequestTopic          `kafka:"min=v4,max=v11"`
	ForgottenTopics []FetchRequestForgottenTopic `kafka:"min=v7,max=v11"`
	RackID          string                       `kafka:"min=v11,max=v11"`
}

// FetchRequestTopic is one topic of a FetchRequest.
type FetchRequestTopic struct {
	Topic      string                  `kafka:"min=v4,max=v11"`
	Partitions []FetchRequestPartition `kafka:"min=v4,max=v11"`
}

// FetchRequestPartition is one partition of a FetchRequestTopic.
type FetchRequestPartition struct {
	Partition          int32 `kafka:"min=v4,max=v11"`
	CurrentLeaderEpoch int32 `kafka:"min=v9,max=v11"`
	FetchOffset        int64 `kafka:"min=v4,max=v11"`
	LogStartOffset     int64 `kafka:"min=v5,max=v11"`
	PartitionMaxBytes  int32 `kafka:"min=v4,max=v11"`
}

// FetchRequestForgottenTopic is a topic to drop from a fetch session; a read without a session sends none.
type FetchRequestForgottenTopic struct {
	Topic      string  `kafka:"min=v7,max=v11"`
	Partitions []int32 `kafka:"min=v7,max=v11"`
}

// ApiKey is Fetch.
func (r *FetchRequest) ApiKey() protocol.ApiKey { return protocol.Fetch }

// FetchResponse is Fetch v4-v11's response.
type FetchResponse struct {
	ThrottleTimeMs int32                `kafka:"min=v4,max=v11"`
	ErrorCode      int16                `kafka:"min=v7,max=v11"`
	SessionID      int32                `kafka:"min=v7,max=v11"`
	Topics         []FetchResponseTopic `kafka:"min=v4,max=v11"`
}

// FetchResponseTopic is one topic of a FetchResponse.
type FetchResponseTopic struct {
	Topic      string                   `kafka:"min=v4,max=v11"`
	Partitions []FetchResponsePartition `kafka:"min=v4,max=v11"`
}

// FetchResponsePartition is one partition's answer. Records are the record batches as the broker
// sent them (nil when it sent null): NextRecordAt reads them; the last may be partial.
type FetchResponsePartition struct {
	Partition            int32                     `kafka:"min=v4,max=v11"`
	ErrorCode            int16                     `kafka:"min=v4,max=v11"`
	HighWatermark        int64                     `kafka:"min=v4,max=v11"`
	LastStableOffset     int64                     `kafka:"min=v4,max=v11"`
	LogStartOffset       int64                     `kafka:"min=v5,max=v11"`
	AbortedTransactions  []FetchAbortedTransaction `kafka:"min=v4,max=v11,nullable"`
	PreferredReadReplica int32                     `kafka:"min=v11,max=v11"`
	Records              []byte                    `kafka:"min=v4,max=v11,nullable"`
}

// FetchAbortedTransaction is an aborted transaction among the records returned (read_committed only).
type FetchAbortedTransaction struct {
	ProducerID  int64 `kafka:"min=v4,max=v11"`
	FirstOffset int64 `kafka:"min=v4,max=v11"`
}

// ApiKey is Fetch.
func (r *FetchResponse) ApiKey() protocol.ApiKey { return protocol.Fetch }

// Aborted is the partition's aborted transactions as NextRecordAt takes them.
func (p *FetchResponsePartition) Aborted() []AbortedTxn {
	out := make([]AbortedTxn, len(p.AbortedTransactions))
	for i, a := range p.AbortedTransactions {
		out[i] = AbortedTxn(a)
	}
	return out
}
