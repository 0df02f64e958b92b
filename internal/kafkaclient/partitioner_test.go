package kafkaclient

import (
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// PartitionForKey (kafka-go's Murmur2Balancer) against franz-go's Kafka-compatible partitioner,
// an independent implementation of the Java client's murmur2 and toPositive: 20,000 keys of
// every length remainder mod 4, bytes above 0x7f included, over many partition counts.
func TestPartitionForKeyMatchesFranzGo(t *testing.T) {
	oracle := kgo.StickyKeyPartitioner(nil).ForTopic("t")
	rng := rand.New(rand.NewPCG(1, 2))
	keys := [][]byte{{}, []byte("tenant-42"), []byte("ключ"), []byte("🔑"), {0xff, 0xfe, 0x80}}
	for range 20_000 {
		k := make([]byte, rng.IntN(64))
		for i := range k {
			k[i] = byte(rng.UintN(256))
		}
		keys = append(keys, k)
	}
	counts := []int{1, 2, 3, 6, 7, 12, 100, 1000, 4099, MaxPartitionCount}
	mismatches := 0
	for _, k := range keys {
		for _, n := range counts {
			want := oracle.Partition(&kgo.Record{Key: k}, n)
			if got := PartitionForKey(k, n); got != want {
				mismatches++
				if mismatches < 10 {
					t.Errorf("key %q, %d partitions: got %d, franz-go says %d", k, n, got, want)
				}
			}
		}
	}
	if mismatches > 0 {
		t.Fatalf("%d mismatches", mismatches)
	}
}

// A nil key is taken as the empty key, hashed like any other: never spread at random, as
// kafka-go's Murmur2Balancer does with a nil key.
func TestPartitionForKeyNilIsEmptyKey(t *testing.T) {
	want := kgo.StickyKeyPartitioner(nil).ForTopic("t").Partition(&kgo.Record{Key: []byte{}}, 1000)
	for range 50 {
		if got := PartitionForKey(nil, 1000); got != want {
			t.Fatalf("nil key: got %d, want %d (the empty key's partition)", got, want)
		}
	}
}
