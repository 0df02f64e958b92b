package kafkaclient

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// BenchmarkTopicOffsets reads every partition of a 1,000-partition topic on a 3-broker kfake
// cluster. It reports the ListOffsets requests and partitions one read sends: kafka-go's
// Client.ListOffsets would send one request per partition and lookup (2,000 here).
//
//	go test -run '^$' -bench TopicOffsets -benchmem ./internal/kafkaclient/
func BenchmarkTopicOffsets(b *testing.B) {
	const n = 1000
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(n, "wide"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	count := acctest.ListOffsetsEntries(c)
	cl, err := New(Config{BootstrapServers: c.ListenAddrs(), Timeout: 30 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()

	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "wide"})
		if err != nil || len(got) != n {
			b.Fatalf("got %d partitions, %v", len(got), err)
		}
	}
	b.StopTimer()
	requests, partitions := count()
	b.ReportMetric(float64(requests)/float64(b.N), "ListOffsets-requests/op")
	b.ReportMetric(float64(partitions)/float64(b.N), "partitions-asked/op")
}
