package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// Raising the timeout is advice only where the time ran out, not after a refused connection.
func TestUnreachableAdvice(t *testing.T) {
	const raise = "raise the provider's timeout"
	if a := unreachableAdvice(&kafkaclient.UnreachableError{}); strings.Contains(a, raise) {
		t.Errorf("refused at once, yet advised to %s: %s", raise, a)
	}
	if a := unreachableAdvice(&kafkaclient.UnreachableError{TimedOut: true}); !strings.Contains(a, raise) {
		t.Errorf("timed out, yet not advised to %s: %s", raise, a)
	}
}

// A read error points at the attribute of the data source that names what failed, and only at
// one the data source has: partition where there is a partition, group_id where there is a
// group_id; elsewhere the error is on the data source as a whole.
func TestReadErrorAttributePath(t *testing.T) {
	var (
		topicMissing = &kafkaclient.TopicNotFoundError{Topic: "t"}
		outOfRange   = &kafkaclient.PartitionOutOfRangeError{Topic: "t", Partition: 3, Partitions: 3}
		groupMissing = &kafkaclient.GroupNotFoundError{GroupID: "g", State: "Dead"}
		fetchDenied  = &kafkaclient.BrokerError{Op: kafkaclient.FetchOp, Topic: "t", Partition: 0,
			Code: kafkaclient.TopicAuthorizationFailed}
		unreachable = &kafkaclient.UnreachableError{Addresses: []string{"127.0.0.1:1"}}
	)
	tests := []struct {
		name        string
		dataSource  func() datasource.DataSource
		attrs       readErrorAttrs
		err         error
		wantSummary string
		wantPath    path.Path // the zero path: on the data source as a whole
	}{
		{name: "partition_offsets/topic not found", dataSource: NewPartitionOffsetsDataSource, attrs: partitionOffsetsErrorAttrs,
			err: topicMissing, wantSummary: "Topic not found", wantPath: path.Root("topic")},
		{name: "partition_offsets/partition out of range", dataSource: NewPartitionOffsetsDataSource, attrs: partitionOffsetsErrorAttrs,
			err: outOfRange, wantSummary: "Partition out of range", wantPath: path.Root("partition")},
		{name: "partition_offsets/unreachable", dataSource: NewPartitionOffsetsDataSource, attrs: partitionOffsetsErrorAttrs,
			err: unreachable, wantSummary: "Cannot reach the Kafka cluster"},
		{name: "topic_offsets/topic not found", dataSource: NewTopicOffsetsDataSource, attrs: topicOffsetsErrorAttrs,
			err: topicMissing, wantSummary: "Topic not found", wantPath: path.Root("topic")},
		{name: "topic_offsets/partition out of range", dataSource: NewTopicOffsetsDataSource, attrs: topicOffsetsErrorAttrs,
			err: outOfRange, wantSummary: "Partition out of range"},
		{name: "topics_offsets/topic not found", dataSource: NewTopicsOffsetsDataSource, attrs: topicsOffsetsErrorAttrs,
			err: topicMissing, wantSummary: "Topic not found", wantPath: path.Root("name_regex")},
		{name: "topics_offsets/partition out of range", dataSource: NewTopicsOffsetsDataSource, attrs: topicsOffsetsErrorAttrs,
			err: outOfRange, wantSummary: "Partition out of range"},
		{name: "consumer_group_offsets/group not found", dataSource: NewConsumerGroupOffsetsDataSource, attrs: consumerGroupOffsetsErrorAttrs,
			err: groupMissing, wantSummary: "Consumer group not found", wantPath: path.Root("group_id")},
		{name: "consumer_group_offsets/topic not found", dataSource: NewConsumerGroupOffsetsDataSource, attrs: consumerGroupOffsetsErrorAttrs,
			err: topicMissing, wantSummary: "Topic not found", wantPath: path.Root("topics")},
		{name: "consumer_group_offsets/partition out of range", dataSource: NewConsumerGroupOffsetsDataSource, attrs: consumerGroupOffsetsErrorAttrs,
			err: outOfRange, wantSummary: "Partition out of range"},
		{name: "consumer_group_offsets/fetch not authorized", dataSource: NewConsumerGroupOffsetsDataSource, attrs: consumerGroupOffsetsErrorAttrs,
			err: fetchDenied, wantSummary: "Not authorized to read records", wantPath: path.Root("fetch_timestamps")},
		{name: "consumer_groups/group not found", dataSource: NewConsumerGroupsDataSource, attrs: consumerGroupsErrorAttrs,
			err: groupMissing, wantSummary: "Consumer group not found"},
		{name: "consumer_groups/topic not found", dataSource: NewConsumerGroupsDataSource, attrs: consumerGroupsErrorAttrs,
			err: topicMissing, wantSummary: "Topic not found", wantPath: path.Root("topics")},
		{name: "consumer_groups/partition out of range", dataSource: NewConsumerGroupsDataSource, attrs: consumerGroupsErrorAttrs,
			err: outOfRange, wantSummary: "Partition out of range"},
		{name: "consumer_groups/fetch not authorized", dataSource: NewConsumerGroupsDataSource, attrs: consumerGroupsErrorAttrs,
			err: fetchDenied, wantSummary: "Not authorized to read records", wantPath: path.Root("fetch_timestamps")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var diags diag.Diagnostics
			addReadError(&diags, tt.err, tt.attrs)
			if len(diags) != 1 || diags[0].Severity() != diag.SeverityError {
				t.Fatalf("want one error, got %v", diags)
			}
			d := diags[0]
			if d.Summary() != tt.wantSummary || !strings.HasPrefix(d.Detail(), tt.err.Error()) {
				t.Errorf("got %q: %q, want %q: %q...", d.Summary(), d.Detail(), tt.wantSummary, tt.err.Error())
			}
			var got path.Path
			if wp, ok := d.(diag.DiagnosticWithPath); ok {
				got = wp.Path()
			}
			if !got.Equal(tt.wantPath) {
				t.Errorf("path %q, want %q", got, tt.wantPath)
			}
			if len(tt.wantPath.Steps()) == 0 {
				return
			}
			var sr datasource.SchemaResponse
			tt.dataSource().Schema(context.Background(), datasource.SchemaRequest{}, &sr)
			if _, ds := sr.Schema.AttributeAtPath(context.Background(), tt.wantPath); ds.HasError() {
				t.Errorf("the data source has no attribute %q: %v", tt.wantPath, ds)
			}
		})
	}
}
