package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// Speaks is, by API key, the versions the provider sends of each API it sends once a
// connection's handshake is done: a connection sends the lower of Max and the broker's highest,
// and treats a broker whose highest is below Min as one that does not serve the API (package
// broker, connect.go). Every request and response of these APIs is a type of franz-go's kmsg,
// generated from Kafka's own message definitions. Max is the last version whose fields the
// provider reads as it should; past it the messages change in ways it does not follow.
var Speaks = map[int16]Versions{
	kmsg.Metadata.Int16():                  {MinMetadataVersion, 8}, // v10 adds topic IDs, v11 drops cluster-authorized operations
	kmsg.ListOffsets.Int16():               {MinListOffsetsVersion, 11},
	kmsg.Fetch.Int16():                     {MinFetchVersion, 11}, // v12 is flexible, v13 names topics by ID
	kmsg.FindCoordinator.Int16():           {0, 2},                // v4 asks for many keys at once, in other fields
	kmsg.ListGroups.Int16():                {0, 5},                // each group's kind: ListGroupsTypeVersion
	kmsg.DescribeGroups.Int16():            {0, 5},
	kmsg.OffsetFetch.Int16():               {2, 9}, // v2 answers every topic for null; v10 names topics by ID
	kmsg.ConsumerGroupDescribe.Int16():     {0, 1}, // KIP-848
	kmsg.ShareGroupDescribe.Int16():        {0, 1}, // KIP-932
	kmsg.StreamsGroupDescribe.Int16():      {0, 0}, // KIP-1071; v1 adds a field the provider does not send
	kmsg.DescribeShareGroupOffsets.Int16(): {0, 1}, // KIP-932; v1 answers the lag: ShareGroupLagVersion
	kmsg.DescribeLogDirs.Int16():           {0, 4}, // every topic a broker holds: what the principal may not see (coverage.go)
	kmsg.DescribeProducers.Int16():         {0, 0}, // KIP-664, Kafka 3.0: a partition's idempotent and transactional producers
	kmsg.ListTransactions.Int16():          {0, 1}, // KIP-664; v1 adds a duration filter (KIP-994), sent as -1: none
	kmsg.DescribeTransactions.Int16():      {0, 0}, // KIP-664: a transactional id's state and partitions
}

// Versions is a range of versions of one API.
type Versions struct{ Min, Max int16 }

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

// Versions that change what the provider can read.
const (
	// MinMetadataVersion: Metadata v4 added AllowAutoTopicCreation; v0-v3 let a broker create any
	// topic asked about.
	MinMetadataVersion = 4
	// MinListOffsetsVersion: ListOffsets v1 answers one offset per partition; v0 is a different format.
	MinListOffsetsVersion = 1
	// MinFetchVersion: Fetch v4 brought the isolation level, the last stable offset and aborted
	// transactions (KIP-98, Kafka 0.11).
	MinFetchVersion = 4
	// ListGroupsTypeVersion is the first ListGroups version whose answer names each group's kind
	// (KIP-1043, Kafka 3.8).
	ListGroupsTypeVersion = 5
	// OffsetFetchBatchVersion is the first OffsetFetch version that asks for many groups at once.
	OffsetFetchBatchVersion = 8
	// ShareGroupLagVersion is the first DescribeShareGroupOffsets version that answers the lag
	// (KIP-1226, Kafka 4.2); v0 (Kafka 4.1) answers the start offset only.
	ShareGroupLagVersion = 1
)

// Fetch request values of a read that is neither a follower nor part of a fetch session: it
// joins no group and the broker keeps nothing.
const (
	FetchConsumerReplica int32 = -1 // ReplicaID of a consumer
	FetchNoSession       int32 = 0  // SessionID: none
	FetchFinalEpoch      int32 = -1 // SessionEpoch: KIP-227 FINAL_EPOCH, no session is created
	FetchNoLeaderEpoch   int32 = -1 // CurrentLeaderEpoch not checked
	FetchNoLogStart      int64 = -1 // LogStartOffset: only followers send one
)
