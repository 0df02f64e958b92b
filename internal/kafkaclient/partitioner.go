package kafkaclient

import (
	"sync"

	"github.com/segmentio/kafka-go"
)

// MaxPartitionCount bounds PartitionForKey's partition count: far above any real topic's, and
// small enough that the table of partition numbers it keeps stays a few MiB.
const MaxPartitionCount = 1_000_000

// PartitionForKey is the partition that Kafka's default partitioner picks for a record with a
// non-null key in a topic of partitionCount partitions (1 to MaxPartitionCount): the Java
// client's toPositive(murmur2(keyBytes)) % numPartitions (BuiltInPartitioner.partitionForKey),
// which kafka-go's Murmur2Balancer computes as (murmur2(key) & 0x7fffffff) % len(partitions)
// and returns the partition at that index. An empty key is a key like any other (only a null
// key is spread over partitions).
func PartitionForKey(key []byte, partitionCount int) int {
	if key == nil {
		key = []byte{} // Murmur2Balancer spreads a nil key at random: this is a key, if empty
	}
	return kafka.Murmur2Balancer{}.Balance(kafka.Message{Key: key}, partitionNumbers(partitionCount)...)
}

var (
	partitionNumbersMu sync.Mutex
	partitionNumbersOf []int // 0, 1, 2, ...: Balance only reads it
)

// partitionNumbers returns 0 to n-1, from a table shared by every call.
func partitionNumbers(n int) []int {
	partitionNumbersMu.Lock()
	defer partitionNumbersMu.Unlock()
	for i := len(partitionNumbersOf); i < n; i++ {
		partitionNumbersOf = append(partitionNumbersOf, i)
	}
	return partitionNumbersOf[:n:n]
}
