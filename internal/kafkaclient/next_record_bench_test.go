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

// BenchmarkGroupTimeLag: one kafka_consumer_group_offsets read of a group committed in the
// middle of every partition of a topic (each partition one zstd batch of 20 records), without
// and with fetch_timestamps, beside franz-go doing the same work: kadm for the commits and end
// offsets, and a kgo consumer (outside the group) fetching the first record at each commit. Each
// op is a new client, as in a plan. Reported per op: Fetch and ListOffsets requests and the
// bytes the broker sent.
//
//	go test -run '^$' -bench GroupTimeLag -benchmem ./internal/kafkaclient/
func BenchmarkGroupTimeLag(b *testing.B) {
	for _, partitions := range []int32{100, 10_000} {
		for _, rtt := range []time.Duration{0, 20 * time.Millisecond} {
			name := fmt.Sprintf("partitions=%d/rtt=%s", partitions, rtt)
			b.Run(name+"/client=this/fetch_timestamps=false", func(b *testing.B) {
				benchGroupRead(b, rtt, partitions, false)
			})
			b.Run(name+"/client=this/fetch_timestamps=true", func(b *testing.B) {
				benchGroupRead(b, rtt, partitions, true)
			})
			b.Run(name+"/client=kgo", func(b *testing.B) {
				c, dl, counts := timeLagCluster(b, rtt, partitions)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					kgoTimeLag(b, c.ListenAddrs(), partitions)
				}
				b.StopTimer()
				reportFetchCounts(b, dl, counts)
			})
		}
	}
}

func benchGroupRead(b *testing.B, rtt time.Duration, partitions int32, timestamps bool) {
	c, dl, counts := timeLagCluster(b, rtt, partitions)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cl, err := New(Config{BootstrapServers: c.ListenAddrs(), Timeout: time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		res, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g", Topics: []string{"bench"}, FetchTimestamps: timestamps})
		cl.Close()
		if err != nil || len(res.Partitions) != int(partitions) {
			b.Fatalf("got %d partitions, %v", len(res.Partitions), err)
		}
		if timestamps && (res.Partitions[0].Next == nil || res.Partitions[0].Next.Offset != 10) {
			b.Fatalf("partition 0: next record %+v, want offset 10", res.Partitions[0].Next)
		}
	}
	b.StopTimer()
	reportFetchCounts(b, dl, counts)
}

// timeLagCluster is a kfake cluster with topic "bench" of n partitions, each holding one zstd
// batch of 20 records, and group "g" committed at 10 on each.
func timeLagCluster(b *testing.B, rtt time.Duration, n int32) (*kfake.Cluster, *acctest.DelayedListener, func() map[int16]int) {
	b.Helper()
	dl := &acctest.DelayedListener{Delay: rtt}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(n, "bench"), kfake.ListenFn(dl.Listen))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(20*time.Millisecond), kgo.ProducerBatchCompression(kgo.ZstdCompression()))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	t0 := time.Now().Add(-time.Hour)
	for p := range n {
		for i := range 20 {
			cl.Produce(context.Background(), &kgo.Record{Topic: "bench", Partition: p, Value: make([]byte, 100),
				Timestamp: t0.Add(time.Duration(i) * time.Second)}, nil)
		}
	}
	if err := cl.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	var commits kadm.Offsets
	for p := range n {
		commits.Add(kadm.Offset{Topic: "bench", Partition: p, At: 10, LeaderEpoch: -1})
	}
	if err := kadm.NewClient(cl).CommitAllOffsets(context.Background(), "g", commits); err != nil {
		b.Fatal(err)
	}
	dl.Accepted.Store(0)
	dl.Written.Store(0)
	return c, dl, acctest.CountRequests(c)
}

// kgoTimeLag reads what fetch_timestamps reads, with franz-go: the group's commits and the end
// offsets (kadm), then the first record at each commit (a kgo consumer outside the group).
func kgoTimeLag(b *testing.B, seeds []string, n int32) {
	ctx := context.Background()
	kc, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		b.Fatal(err)
	}
	defer kc.Close()
	adm := kadm.NewClient(kc)
	committed, err := adm.FetchOffsets(ctx, "g")
	if err == nil {
		_, err = adm.ListEndOffsets(ctx, "bench")
	}
	if err != nil {
		b.Fatal(err)
	}
	at := map[int32]kgo.Offset{}
	committed.Each(func(o kadm.OffsetResponse) { at[o.Partition] = kgo.NewOffset().At(o.At) })
	cons, err := kgo.NewClient(kgo.SeedBrokers(seeds...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"bench": at}), kgo.FetchMaxPartitionBytes(64<<10))
	if err != nil {
		b.Fatal(err)
	}
	defer cons.Close()
	first := map[int32]time.Time{}
	for int32(len(first)) < n {
		fs := cons.PollFetches(ctx)
		if err := fs.Err(); err != nil {
			b.Fatal(err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if _, ok := first[r.Partition]; !ok {
				first[r.Partition] = r.Timestamp
			}
		})
	}
}

func reportFetchCounts(b *testing.B, dl *acctest.DelayedListener, counts func() map[int16]int) {
	got := counts()
	n := float64(b.N)
	b.ReportMetric(float64(got[int16(kmsg.Fetch)])/n, "Fetch/op")
	b.ReportMetric(float64(got[int16(kmsg.ListOffsets)])/n, "ListOffsets/op")
	b.ReportMetric(float64(dl.Written.Load())/n, "bytes-read/op")
}
