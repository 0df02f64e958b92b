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

// Benchmarks of the reads that ask what a cluster of many topics holds (holdings.go), side by
// side with franz-go's kadm, on one broker. Each op is what one provider process does in a plan:
// a new client, the reads (10 at a time, as Terraform runs them), Close. The request counts per
// op are exact.
//
//	go test -run '^$' -bench 'ManyTopics' -benchtime 3x ./internal/kafkaclient/

// manyTopics are the clusters: topics × partitions.
var manyTopics = []struct{ topics, partitions int }{{5000, 20}, {20000, 5}}

// heldGroups is the groups of a many-topics cluster: group gNNN commits on partition 0 of topic tNNNNN.
const heldGroups = 100

func manyTopicsBenchCluster(b *testing.B, topics, partitions int) (*kfake.Cluster, func() map[int16]int) {
	b.Helper()
	names := make([]string, topics)
	for i := range names {
		names[i] = fmt.Sprintf("t%05d", i)
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(int32(partitions), names...))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	for i := range heldGroups {
		acctest.FakeCommit(b, c, fmt.Sprintf("g%03d", i), names[i], 0, 0)
	}
	return c, acctest.CountRequests(c)
}

func reportHeldCounts(b *testing.B, counts func() map[int16]int) {
	got, n := counts(), float64(b.N)
	for _, k := range []kmsg.Key{kmsg.Metadata, kmsg.DescribeLogDirs, kmsg.ListOffsets} {
		b.ReportMetric(float64(got[int16(k)])/n, k.Name()+"/op")
	}
}

// parallelReads runs n reads, 10 at a time, and fails on the first error.
func parallelReads(b *testing.B, n int, read func(i int) error) {
	sem := make(chan struct{}, 10)
	errs := make(chan error, n)
	for i := range n {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- read(i)
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGroupReadsManyTopics: 1, 10 and 100 kafka_consumer_group_offsets reads of one group
// each, without topics (this: the group's commits and whether any topic is hidden), with the
// group's topic named (this-topics), kadm's Lag of the group (kadm), and kadm's Lag with the
// requests a read without topics adds, each read its own (kadm-held: Metadata for every topic and
// DescribeLogDirs of every broker, as this client sent them before reads shared them; up to 10
// reads: 100 take a minute and more an op, ten times 10's).
func BenchmarkGroupReadsManyTopics(b *testing.B) {
	for _, size := range manyTopics {
		var (
			c      *kfake.Cluster
			counts func() map[int16]int
		)
		for _, reads := range []int{1, 10, 100} {
			name := fmt.Sprintf("cluster=%dx%d/reads=%d", size.topics, size.partitions, reads)
			for _, client := range []string{"this", "this-topics", "kadm", "kadm-held"} {
				if client == "kadm-held" && reads > 10 {
					continue
				}
				b.Run(name+"/client="+client, func(sub *testing.B) {
					if c == nil { // made once per size, for the sub-benchmarks that run, closed with b
						c, counts = manyTopicsBenchCluster(b, size.topics, size.partitions)
					}
					b := sub
					before := counts()
					b.ResetTimer()
					for range b.N {
						benchGroupReads(b, c, client, reads)
					}
					b.StopTimer()
					reportHeldCounts(b, func() map[int16]int { return minusCounts(counts(), before) })
				})
			}
		}
	}
}

func benchGroupReads(b *testing.B, c *kfake.Cluster, client string, reads int) {
	ctx := context.Background()
	if client == "kadm" || client == "kadm-held" {
		kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
		if err != nil {
			b.Fatal(err)
		}
		defer kc.Close()
		adm := kadm.NewClient(kc)
		parallelReads(b, reads, func(i int) error {
			lags, err := adm.Lag(ctx, fmt.Sprintf("g%03d", i%heldGroups))
			if err == nil {
				err = lags.Error()
			}
			if err == nil && client == "kadm-held" {
				if _, err = adm.Metadata(ctx); err == nil {
					_, err = adm.DescribeAllLogDirs(ctx, nil)
				}
			}
			return err
		})
		return
	}
	cl, err := New(Config{BootstrapServers: c.ListenAddrs(), Timeout: 60 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	parallelReads(b, reads, func(i int) error {
		req := GroupOffsetsRequest{GroupID: fmt.Sprintf("g%03d", i%heldGroups)}
		if client == "this-topics" {
			req.Topics = []string{fmt.Sprintf("t%05d", i%heldGroups)}
		}
		res, err := cl.GroupOffsets(ctx, req)
		if err == nil && !res.CaughtUp {
			err = fmt.Errorf("group %s: %+v, want caught up", req.GroupID, res.Verdict)
		}
		return err
	})
}

// BenchmarkConsumerGroupsManyTopics: 10 kafka_consumer_groups reads of every group (100, each
// with one commit) on a cluster of 20,000 topics, and kadm's Lag of every group.
func BenchmarkConsumerGroupsManyTopics(b *testing.B) {
	const reads = 10
	var c *kfake.Cluster
	var counts func() map[int16]int
	for _, client := range []string{"this", "kadm"} {
		b.Run("cluster=20000x5/reads=10/client="+client, func(sub *testing.B) {
			if c == nil { // made once, for the sub-benchmarks that run, closed with b
				c, counts = manyTopicsBenchCluster(b, 20000, 5)
			}
			b := sub
			ctx := context.Background()
			before := counts()
			b.ResetTimer()
			for range b.N {
				if client == "kadm" {
					kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
					if err != nil {
						b.Fatal(err)
					}
					adm := kadm.NewClient(kc)
					parallelReads(b, reads, func(int) error {
						lags, err := adm.Lag(ctx)
						if err == nil && len(lags) != heldGroups {
							err = fmt.Errorf("%d groups, want %d", len(lags), heldGroups)
						}
						return err
					})
					kc.Close()
					continue
				}
				cl, err := New(Config{BootstrapServers: c.ListenAddrs(), Timeout: 60 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				parallelReads(b, reads, func(int) error {
					gs, err := cl.ConsumerGroups(ctx, ConsumerGroupsRequest{})
					if err == nil && len(gs) != heldGroups {
						err = fmt.Errorf("%d groups, want %d", len(gs), heldGroups)
					}
					return err
				})
				cl.Close()
			}
			b.StopTimer()
			reportHeldCounts(b, func() map[int16]int { return minusCounts(counts(), before) })
		})
	}
}

// minusCounts is the requests counted between two snapshots.
func minusCounts(after, before map[int16]int) map[int16]int {
	out := map[int16]int{}
	for k, v := range after {
		out[k] = v - before[k]
	}
	return out
}
