package provider

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkReadTopicsOffsetsBig is one kafka_topics_offsets read of every topic of a cluster of
// 1,000 topics × 100 partitions through the provider server, as Terraform asks it: what to profile
// for the big reads (go test -bench TopicsOffsetsBig -cpuprofile, -memprofile); the
// Terraform-level figures beside kadm are tools/bench's (-topics). BENCH_TOPICS=10000 reads
// 1,000,000 partitions.
func BenchmarkReadTopicsOffsetsBig(b *testing.B) {
	benchmarkReadTopicsOffsetsBig(b, map[string]tftypes.Value{})
}

// BenchmarkReadTopicsOffsetsBigLastWriteTime is the same read with fetch_last_write_time: one more
// ListOffsets lookup (max timestamp) of every partition, and a last write per topic.
func BenchmarkReadTopicsOffsetsBigLastWriteTime(b *testing.B) {
	benchmarkReadTopicsOffsetsBig(b, map[string]tftypes.Value{"fetch_last_write_time": tftypes.NewValue(tftypes.Bool, true)})
}

func benchmarkReadTopicsOffsetsBig(b *testing.B, config map[string]tftypes.Value) {
	topics := 1000
	if n, err := strconv.Atoi(os.Getenv("BENCH_TOPICS")); err == nil {
		topics = n
	}
	names := make([]string, topics)
	for i := range names {
		names[i] = fmt.Sprintf("t%05d", i)
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(100, names...))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	benchReadApart(b, c, "kafka_topics_offsets", config, planApart)
}

// BenchmarkReadConsumerGroupsBig is one kafka_consumer_groups read of 5,000 groups, each with a
// commit on one partition of a 100-partition topic, through the provider server (tools/bench
// -groups for the Terraform-level figures).
func BenchmarkReadConsumerGroupsBig(b *testing.B) {
	c, adm := benchCluster(b, "commits", 100)
	for i := range 5000 {
		var os kadm.Offsets
		os.Add(kadm.Offset{Topic: "commits", Partition: int32(i % 100), At: 0, LeaderEpoch: -1})
		if err := adm.CommitAllOffsets(context.Background(), fmt.Sprintf("g%05d", i), os); err != nil {
			b.Fatal(err)
		}
	}
	benchReadApart(b, c, "kafka_consumer_groups", map[string]tftypes.Value{}, planApart)
}

// benchRead reads the data source typeName with config from a provider configured for c, b.N times.
func benchRead(b *testing.B, c *kfake.Cluster, typeName string, config map[string]tftypes.Value) {
	benchReadApart(b, c, typeName, config, 0)
}

// planApart is how far apart (timer stopped) benchReadApart's reads are when each is to cost what
// a plan's one read does: reads that follow within a moment share what the cluster holds
// (kafkaclient's holdings.go, 200 ms), as a plan's reads do.
const planApart = 300 * time.Millisecond

// benchReadApart is benchRead with the reads apart (0: back to back).
func benchReadApart(b *testing.B, c *kfake.Cluster, typeName string, config map[string]tftypes.Value, apart time.Duration) {
	servers := tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{tftypes.NewValue(tftypes.String, c.ListenAddrs()[0])})
	srv, schemas := configuredServer(b, map[string]tftypes.Value{"bootstrap_servers": servers})
	cfg := dynamicValue(b, schemas.DataSourceSchemas[typeName], config)
	b.ReportAllocs()
	for b.Loop() {
		if apart > 0 {
			b.StopTimer()
			time.Sleep(apart)
			b.StartTimer()
		}
		res, err := srv.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{TypeName: typeName, Config: cfg})
		if err != nil || len(res.Diagnostics) > 0 {
			b.Fatal(err, res.Diagnostics)
		}
	}
	b.StopTimer()
	if _, err := srv.StopProvider(context.Background(), &tfprotov6.StopProviderRequest{}); err != nil {
		b.Fatal(err)
	}
}

// benchCluster is a one-broker kfake cluster with topic of partitions, and an admin client of it
// to arrange commits; both end with the benchmark.
func benchCluster(b *testing.B, topic string, partitions int32) (*kfake.Cluster, *kadm.Client) {
	b.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topic))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()[0]))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cl.Close)
	return c, kadm.NewClient(cl)
}
