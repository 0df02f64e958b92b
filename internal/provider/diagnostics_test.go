package provider

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
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
	const raiseOwn = "raise this data source's timeout" // the read's own timeout ran out
	if a := unreachableAdvice(&kafkaclient.UnreachableError{TimedOut: true, PerRead: true}); !strings.Contains(a, raiseOwn) {
		t.Errorf("its own timeout ran out, yet not advised to %s: %s", raiseOwn, a)
	}
}

// A read error points at the attribute of the data source that names what failed, and only at
// one the data source has: partition where there is a partition, group_id where there is a
// group_id; elsewhere the error is on the data source as a whole.
func TestReadErrorAttributePath(t *testing.T) {
	root := path.Root
	dataSources := []struct {
		name       string
		dataSource func() datasource.DataSource
		attrs      readErrorAttrs
		want       readErrorAttrs // where each kind of error must point; the zero path: nowhere
	}{
		{name: "kafka_partition_offsets", dataSource: NewPartitionOffsetsDataSource, attrs: partitionOffsetsErrorAttrs,
			want: readErrorAttrs{topic: root("topic"), partition: root("partition")}},
		{name: "kafka_topic_offsets", dataSource: NewTopicOffsetsDataSource, attrs: topicOffsetsErrorAttrs,
			want: readErrorAttrs{topic: root("topic")}},
		{name: "kafka_topics_offsets", dataSource: NewTopicsOffsetsDataSource, attrs: topicsOffsetsErrorAttrs,
			want: readErrorAttrs{topic: root("name_regex")}},
		{name: "kafka_consumer_group_offsets", dataSource: NewConsumerGroupOffsetsDataSource, attrs: consumerGroupOffsetsErrorAttrs,
			want: readErrorAttrs{topic: root("topics"), group: root("group_id"), fetchTimestamps: root("fetch_timestamps")}},
		{name: "kafka_consumer_groups", dataSource: NewConsumerGroupsDataSource, attrs: consumerGroupsErrorAttrs,
			want: readErrorAttrs{topic: root("topics"), fetchTimestamps: root("fetch_timestamps")}},
	}
	errs := []struct {
		name    string
		err     error
		summary string
		at      func(readErrorAttrs) path.Path // which of a data source's wanted paths
	}{
		{name: "topic not found", err: &kafkaclient.TopicNotFoundError{Topic: "t"}, summary: "Topic not found",
			at: func(a readErrorAttrs) path.Path { return a.topic }},
		{name: "partition out of range", err: &kafkaclient.PartitionOutOfRangeError{Topic: "t", Partition: 3, Partitions: 3},
			summary: "Partition out of range", at: func(a readErrorAttrs) path.Path { return a.partition }},
		{name: "group not found", err: &kafkaclient.GroupNotFoundError{GroupID: "g", State: "Dead"},
			summary: "Consumer group not found", at: func(a readErrorAttrs) path.Path { return a.group }},
		{name: "fetch not authorized", err: &kafkaclient.BrokerError{Op: kafkaclient.FetchOp, Topic: "t", Partition: 0,
			Code: kafkaclient.TopicAuthorizationFailed}, summary: "Not authorized to read records",
			at: func(a readErrorAttrs) path.Path { return a.fetchTimestamps }},
		{name: "unreachable", err: &kafkaclient.UnreachableError{Addresses: []string{"127.0.0.1:1"}},
			summary: "Cannot reach the Kafka cluster", at: func(readErrorAttrs) path.Path { return path.Path{} }},
	}
	for _, ds := range dataSources {
		var sr datasource.SchemaResponse
		ds.dataSource().Schema(context.Background(), datasource.SchemaRequest{}, &sr)
		for _, e := range errs {
			t.Run(ds.name+"/"+e.name, func(t *testing.T) {
				var diags diag.Diagnostics
				addReadError(&diags, e.err, ds.attrs, "")
				if len(diags) != 1 || diags[0].Severity() != diag.SeverityError {
					t.Fatalf("want one error, got %v", diags)
				}
				d := diags[0]
				if d.Summary() != e.summary || !strings.HasPrefix(d.Detail(), e.err.Error()) {
					t.Errorf("got %q: %q, want %q: %q...", d.Summary(), d.Detail(), e.summary, e.err.Error())
				}
				var got path.Path
				if wp, ok := d.(diag.DiagnosticWithPath); ok {
					got = wp.Path()
				}
				want := e.at(ds.want)
				if !got.Equal(want) {
					t.Errorf("path %q, want %q", got, want)
				}
				if len(want.Steps()) == 0 {
					return
				}
				if _, diags := sr.Schema.AttributeAtPath(context.Background(), want); diags.HasError() {
					t.Errorf("the data source has no attribute %q: %v", want, diags)
				}
			})
		}
	}
}

// A broker advertised under a name that does not resolve here has a summary of its own, apart
// from "Cannot reach the Kafka cluster" (bootstrap servers) and "Kafka read timed out", and its
// detail names the broker and the ways out; also when a read wraps the error.
func TestUnresolvableBrokerDiagnostic(t *testing.T) {
	unresolvable := &kafkaclient.UnresolvableBrokerError{
		Op: `ListOffsets (earliest) for topic "orders" partition 3`, BrokerID: 2, Address: "kafka-2:9092",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "kafka-2", IsNotFound: true}},
	}
	const detail = `ListOffsets (earliest) for topic "orders" partition 3: the cluster's metadata gives broker 2 ` +
		`the address kafka-2:9092, and the host name "kafka-2" does not resolve from this machine (no such host). ` +
		"Kafka gives clients the address each broker advertises for the listener they connected to (the broker's " +
		"advertised.listeners), and the machine where Terraform runs cannot resolve this one: a broker behind " +
		"Docker, Kubernetes or a VPN often advertises a name that only its own network knows. Point " +
		"bootstrap_servers at the listener meant for clients outside that network, set the broker's " +
		"advertised.listeners to a host reachable from here, or make the name resolve here (DNS, or the hosts file)."
	for _, tc := range []struct {
		name   string
		err    error
		detail string
	}{
		{name: "as returned", err: unresolvable, detail: detail},
		{name: "wrapped", err: fmt.Errorf("reading: %w", unresolvable), detail: "reading: " + detail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var diags diag.Diagnostics
			addReadError(&diags, tc.err, partitionOffsetsErrorAttrs, "")
			if len(diags) != 1 {
				t.Fatalf("got %d diagnostics, want 1: %v", len(diags), diags)
			}
			d := diags[0]
			if d.Severity() != diag.SeverityError || d.Summary() != "Broker address does not resolve" || d.Detail() != tc.detail {
				t.Fatalf("got %s %q:\n%s\nwant error %q:\n%s", d.Severity(), d.Summary(), d.Detail(),
					"Broker address does not resolve", tc.detail)
			}
		})
	}
}

// A broker keeps answering NOT_LEADER_OR_FOLLOWER, a retriable answer, past the read's timeout. The
// read retries, then stops at the timeout with an error that says it timed out and what kept
// failing where: the partition, the broker, Kafka's current name for the answer. No client
// library's text (kafka-go calls code 6 NOT_LEADER_FOR_PARTITION, with a description about sending
// messages; its errors read "kafka.(*Client).Metadata: ...").
//
// The diagnostic is read straight from the provider server (no Terraform CLI), so that the whole
// detail can be checked for what must not be in it, which an ExpectError pattern cannot do.
func TestRetriableAnswerOutlastingTimeout(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
	seen := acctest.AnswerListOffsets(c, -1, acctest.ErrorCode(6 /* NOT_LEADER_OR_FOLLOWER */))
	broker := c.ListenAddrs()[0]

	began := time.Now()
	diags := readDataSource(t,
		map[string]tftypes.Value{
			"bootstrap_servers": tftypes.NewValue(tftypes.List{ElementType: tftypes.String},
				[]tftypes.Value{tftypes.NewValue(tftypes.String, broker)}),
			"timeout": tftypes.NewValue(tftypes.String, "2s"),
		},
		"kafka_partition_offsets",
		map[string]tftypes.Value{
			"topic":     tftypes.NewValue(tftypes.String, "t"),
			"partition": tftypes.NewValue(tftypes.Number, 0),
		})
	took := time.Since(began)

	if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError {
		t.Fatalf("got %d diagnostics %s; want one error", len(diags), diagText(diags))
	}
	d := diags[0]
	t.Logf("after %s and %d ListOffsets requests: %s", took.Round(time.Millisecond), seen(), diagText(diags))
	if d.Summary != "Kafka read timed out" {
		t.Errorf("summary %q, want %q", d.Summary, "Kafka read timed out")
	}
	for _, want := range []string{"partition 0", broker, "NOT_LEADER_OR_FOLLOWER"} {
		if !strings.Contains(d.Detail, want) {
			t.Errorf("detail does not name %q: %s", want, d.Detail)
		}
	}
	for _, raw := range []string{"NOT_LEADER_FOR_PARTITION", "Not Leader For Partition", "attempted to send messages",
		"kafka.(*Client)", "kafka.(*Transport)", "kafka-go"} {
		if strings.Contains(d.Summary+d.Detail, raw) {
			t.Errorf("diagnostic has client library text %q: %s", raw, diagText(diags))
		}
	}
	if seen() < 2 {
		t.Errorf("%d ListOffsets requests: a retriable answer must be retried until the timeout", seen())
	}
	if took > 3*time.Second { // a hang check: the 2s timeout bounds the read
		t.Errorf("the read took %s with a timeout of 2s", took)
	}
}

// readDataSource configures a new provider server with providerConfig and reads one data source
// of typeName with config (attributes not given are null), as Terraform would, and returns the
// read's diagnostics. Configuration diagnostics fail the test.
func readDataSource(t *testing.T, providerConfig map[string]tftypes.Value, typeName string, config map[string]tftypes.Value) []*tfprotov6.Diagnostic {
	t.Helper()
	srv, schemas := configuredServer(t, providerConfig)
	schema, ok := schemas.DataSourceSchemas[typeName]
	if !ok {
		t.Fatalf("no data source %s", typeName)
	}
	read, err := srv.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{
		TypeName: typeName,
		Config:   dynamicValue(t, schema, config),
	})
	if err != nil {
		t.Fatal(err)
	}
	return read.Diagnostics
}

func diagText(diags []*tfprotov6.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString("[" + d.Summary + ": " + d.Detail + "]")
	}
	return b.String()
}
