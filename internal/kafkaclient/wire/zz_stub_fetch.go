package wire

import "github.com/segmentio/kafka-go/protocol"

type FetchRequest struct {
	ReplicaID, MaxWaitTime, MinBytes, MaxBytes int32
	IsolationLevel                             int8
	SessionID, SessionEpoch                    int32
	Topics                                     []FetchRequestTopic
}
type FetchRequestTopic struct {
	Topic      string
	Partitions []FetchRequestPartition
}
type FetchRequestPartition struct {
	Partition, CurrentLeaderEpoch     int32
	FetchOffset, LogStartOffset       int64
	PartitionMaxBytes                 int32
}

func (r *FetchRequest) ApiKey() protocol.ApiKey { return protocol.Fetch }

type FetchResponse struct {
	ErrorCode int16
	Topics    []FetchResponseTopic
}
type FetchResponseTopic struct {
	Topic      string
	Partitions []FetchResponsePartition
}
type FetchResponsePartition struct {
	Partition                       int32
	ErrorCode                       int16
	HighWatermark, LastStableOffset int64
	AbortedTransactions             []FetchResponseAbortedTransaction
	Records                         []byte
}
type FetchResponseAbortedTransaction struct{ ProducerID, FirstOffset int64 }

func (r *FetchResponse) ApiKey() protocol.ApiKey { return protocol.Fetch }

type AbortedTxn struct{ ProducerID, FirstOffset int64 }
type NextRecord struct {
	Offset    int64
	Timestamp int64
	LogAppend bool
}
type Scan struct {
	Found     bool
	Record    NextRecord
	Next      int64
	NeedBytes int32
}

func NextRecordAt(records []byte, from int64, readCommitted bool, aborted []AbortedTxn) (Scan, error) {
	return Scan{}, nil
}
