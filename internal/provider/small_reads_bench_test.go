package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/twmb/franz-go/pkg/kadm"
)

// BenchmarkReadSmall is one read of each data source that a plan makes thousands of times, one
// partition or one group, through the provider server: what the provider spends besides the
// round trips, chiefly reading the configuration and writing the state.
func BenchmarkReadSmall(b *testing.B) {
	c, adm := benchCluster(b, "small", 4)
	var os kadm.Offsets
	for p := range int32(4) {
		os.Add(kadm.Offset{Topic: "small", Partition: p, At: 0, LeaderEpoch: -1})
	}
	if err := adm.CommitAllOffsets(context.Background(), "g", os); err != nil {
		b.Fatal(err)
	}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	for _, bc := range []struct {
		typeName string
		config   map[string]tftypes.Value
	}{
		{"kafka_partition_offsets", map[string]tftypes.Value{"topic": str("small"), "partition": tftypes.NewValue(tftypes.Number, 1)}},
		{"kafka_topic_offsets", map[string]tftypes.Value{"topic": str("small")}},
		{"kafka_topics_offsets", map[string]tftypes.Value{"name_regex": str("small")}},
		{"kafka_consumer_group_offsets", map[string]tftypes.Value{"group_id": str("g")}},
		{"kafka_consumer_groups", map[string]tftypes.Value{"group_id_regex": str("g")}},
	} {
		b.Run(bc.typeName, func(b *testing.B) { benchRead(b, c, bc.typeName, bc.config) })
	}
}
