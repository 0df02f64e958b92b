package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/twmb/franz-go/pkg/kfake"
)

// BenchmarkReadTopicOffsets10k is one kafka_topic_offsets read of a 10,000-partition topic through
// the provider server, as Terraform asks it (ReadDataSource): the client's requests and the
// framework's conversion of 10,000 partition objects into the state. make bench runs it; the
// Terraform-level figures beside the kadm provider are tools/bench's.
func BenchmarkReadTopicOffsets10k(b *testing.B) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(10000, "wide"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	servers := tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{tftypes.NewValue(tftypes.String, c.ListenAddrs()[0])})
	srv, schemas := configuredServer(b, map[string]tftypes.Value{"bootstrap_servers": servers})
	config := dynamicValue(b, schemas.DataSourceSchemas["kafka_topic_offsets"], map[string]tftypes.Value{
		"topic": tftypes.NewValue(tftypes.String, "wide")})
	b.ReportAllocs()
	for b.Loop() {
		res, err := srv.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{TypeName: "kafka_topic_offsets", Config: config})
		if err != nil || len(res.Diagnostics) > 0 {
			b.Fatal(err, res.Diagnostics)
		}
	}
	b.StopTimer()
	if _, err := srv.StopProvider(context.Background(), &tfprotov6.StopProviderRequest{}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkReadTopicsSet is one kafka_consumer_groups read whose topics set names every topic of
// a cluster of 50 or 5,000 one-partition topics, through the provider server: the framework's
// handling of a large set argument beside the read itself. It reports the time per topic named.
func BenchmarkReadTopicsSet(b *testing.B) {
	for _, n := range []int{50, 5000} {
		b.Run(fmt.Sprintf("topics=%d", n), func(b *testing.B) {
			names := make([]string, n)
			elems := make([]tftypes.Value, n)
			for i := range names {
				names[i] = fmt.Sprintf("t%05d", i)
				elems[i] = tftypes.NewValue(tftypes.String, names[i])
			}
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, names...))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			servers := tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{tftypes.NewValue(tftypes.String, c.ListenAddrs()[0])})
			srv, schemas := configuredServer(b, map[string]tftypes.Value{"bootstrap_servers": servers})
			config := dynamicValue(b, schemas.DataSourceSchemas["kafka_consumer_groups"], map[string]tftypes.Value{
				"topics": tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, elems)})
			b.ReportAllocs()
			for b.Loop() {
				res, err := srv.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{TypeName: "kafka_consumer_groups", Config: config})
				if err != nil || len(res.Diagnostics) > 0 {
					b.Fatal(err, res.Diagnostics)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/topic")
		})
	}
}
