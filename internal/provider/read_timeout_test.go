package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

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
