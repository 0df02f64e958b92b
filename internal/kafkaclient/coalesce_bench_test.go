package kafkaclient

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// Benchmarks of concurrent partition reads, side by side with franz-go's kadm, on a kfake cluster whose writes reach
// the client rtt later (acctest.DelayedListener: a simulated round trip). Each op is what one
// provider process does in a plan: a new client, the reads, Close. Timings are for benchstat;
// the counts (connections, requests by API) per op are exact.
//
//	make bench   (or: go test -run '^$' -bench 'PartitionReads|TopicOffsets10k' -count 3 ./internal/kafkaclient/)

func benchCluster(b *testing.B, rtt time.Duration, partitions int32) (*kfake.Cluster, *acctest.DelayedListener, func() map[int16]int) {
	b.Helper()
	dl := &acctest.DelayedListener{Delay: rtt}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, "bench"), kfake.ListenFn(dl.Listen))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c, dl, acctest.CountRequests(c)
}

func reportCounts(b *testing.B, dl *acctest.DelayedListener, counts func() map[int16]int) {
	got := counts()
	n := float64(b.N)
	b.ReportMetric(float64(dl.Accepted.Load())/n, "connections/op")
	b.ReportMetric(float64(got[int16(kmsg.ListOffsets)])/n, "ListOffsets/op")
	b.ReportMetric(float64(got[int16(kmsg.Metadata)])/n, "Metadata/op")
}

// BenchmarkPartitionReads: 200 kafka_partition_offsets reads of one topic, 10 at a time.
// "this" reads as the data source does (earliest, max timestamp, latest); "kadm" as a kadm
// provider does (ListStartOffsets, ListEndOffsets of the topic, keeping the one partition).
func BenchmarkPartitionReads(b *testing.B) {
	const reads, parallel = 200, 10
	for _, rtt := range []time.Duration{0, time.Millisecond, 20 * time.Millisecond} {
		b.Run(fmt.Sprintf("rtt=%s/client=this", rtt), func(b *testing.B) {
			c, dl, counts := benchCluster(b, rtt, reads)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cl, err := New(Config{BootstrapServers: c.ListenAddrs(), Timeout: 30 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				readConcurrently(b, cl, "bench", reads, parallel)
				cl.Close()
			}
			b.StopTimer()
			reportCounts(b, dl, counts)
		})
		b.Run(fmt.Sprintf("rtt=%s/client=kadm", rtt), func(b *testing.B) {
			c, dl, counts := benchCluster(b, rtt, reads)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				kadmReads(b, c.ListenAddrs(), reads, parallel)
			}
			b.StopTimer()
			reportCounts(b, dl, counts)
		})
	}
}

func kadmReads(b *testing.B, seeds []string, reads, parallel int) {
	kc, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		b.Fatal(err)
	}
	defer kc.Close()
	adm := kadm.NewClient(kc)
	sem := make(chan struct{}, parallel)
	errs := make(chan error, reads)
	for p := 0; p < reads; p++ {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			ctx := context.Background()
			start, err := adm.ListStartOffsets(ctx, "bench")
			if err == nil {
				err = start.Error()
			}
			if err == nil {
				var end kadm.ListedOffsets
				if end, err = adm.ListEndOffsets(ctx, "bench"); err == nil {
					_, ok := end.Lookup("bench", int32(p))
					if err = end.Error(); err == nil && !ok {
						err = fmt.Errorf("partition %d missing", p)
					}
				}
			}
			errs <- err
		}()
	}
	for i := 0; i < reads; i++ {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTopicOffsets10k: one kafka_topic_offsets read of a 10,000-partition topic.
func BenchmarkTopicOffsets10k(b *testing.B) {
	const n = 10000
	for _, rtt := range []time.Duration{0, 20 * time.Millisecond} {
		b.Run(fmt.Sprintf("rtt=%s/client=this", rtt), func(b *testing.B) {
			c, dl, counts := benchCluster(b, rtt, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cl, err := New(Config{BootstrapServers: c.ListenAddrs(), Timeout: 30 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "bench"})
				cl.Close()
				if err != nil || len(got) != n {
					b.Fatalf("got %d partitions, %v", len(got), err)
				}
			}
			b.StopTimer()
			reportCounts(b, dl, counts)
		})
		b.Run(fmt.Sprintf("rtt=%s/client=kadm", rtt), func(b *testing.B) {
			c, dl, counts := benchCluster(b, rtt, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
				if err != nil {
					b.Fatal(err)
				}
				adm := kadm.NewClient(kc)
				start, err := adm.ListStartOffsets(context.Background(), "bench")
				if err == nil {
					var end kadm.ListedOffsets
					end, err = adm.ListEndOffsets(context.Background(), "bench")
					if err == nil && (len(start["bench"]) != n || len(end["bench"]) != n) {
						err = fmt.Errorf("got %d/%d partitions", len(start["bench"]), len(end["bench"]))
					}
				}
				kc.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			reportCounts(b, dl, counts)
		})
	}
}
