package provider

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// logLine is one decoded tflog line.
type logLine map[string]any

func (l logLine) text(key string) string { return fmt.Sprint(l[key]) }

// logLines decodes what a tflogtest logger wrote.
func logLines(t *testing.T, buf *bytes.Buffer) []logLine {
	t.Helper()
	entries, err := tflogtest.MultilineJSONDecode(buf)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]logLine, len(entries))
	for i, e := range entries {
		out[i] = e
	}
	return out
}

// withMessage are the lines of lines whose message is msg.
func withMessage(lines []logLine, msg string) []logLine {
	var out []logLine
	for _, l := range lines {
		if l["@message"] == msg {
			out = append(out, l)
		}
	}
	return out
}

// readPartitionLogged reads kafka_partition_offsets of t/0 through a new provider server on c,
// with the provider's logger writing to the returned buffer, and its level variables unset.
func readPartitionLogged(t *testing.T, c *kfake.Cluster) *bytes.Buffer {
	t.Helper()
	t.Setenv(providerLogVariable, "")
	t.Setenv(kafkaLogVariable, "")
	servers := tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{tftypes.NewValue(tftypes.String, c.ListenAddrs()[0])})
	srv, schemas := configuredServer(t, map[string]tftypes.Value{"bootstrap_servers": servers})
	cfg := dynamicValue(t, schemas.DataSourceSchemas["kafka_partition_offsets"], map[string]tftypes.Value{
		"topic": tftypes.NewValue(tftypes.String, "t"), "partition": tftypes.NewValue(tftypes.Number, 0),
	})
	var buf bytes.Buffer
	res, err := srv.ReadDataSource(tflogtest.RootLogger(context.Background(), &buf), &tfprotov6.ReadDataSourceRequest{TypeName: "kafka_partition_offsets", Config: cfg})
	if err != nil || len(res.Diagnostics) > 0 {
		t.Fatal(err, diagText(res.Diagnostics))
	}
	return &buf
}

// A read logs, at DEBUG on the provider's logger, one summary: the brokers it met, its requests by
// API and their slowest, dials, retries, duration, outcome; and in the kafka subsystem a DEBUG
// line per dial and a TRACE line per request.
func TestReadLogLines(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
	produceFake(t, c, "t", 0, 3)
	addr := c.ListenAddrs()[0]
	lines := logLines(t, readPartitionLogged(t, c))

	summaries := withMessage(lines, "Kafka read")
	if len(summaries) != 1 {
		t.Fatalf("%d summaries, want 1; lines:\n%v", len(summaries), lines)
	}
	s := summaries[0]
	want := map[string]string{
		"@level": "debug", "@module": "provider", "topic": "t", "partition": "0",
		"brokers": addr + " (node 0)", "requests": "ListOffsets=3 Metadata=1", "dials": "1", "retries": "0", "outcome": "ok",
	}
	for key, v := range want {
		if got := s.text(key); got != v {
			t.Errorf("summary %s = %q, want %q; line %v", key, got, v, s)
		}
	}
	if !strings.HasPrefix(s.text("slowest"), "ListOffsets=") || !strings.Contains(s.text("slowest"), " Metadata=") || s["took"] == nil {
		t.Errorf("summary without the slowest request of each API or the read's duration: %v", s)
	}

	dials := withMessage(lines, "dialled a Kafka broker")
	if len(dials) != 1 || dials[0].text("@level") != "debug" || dials[0].text("@module") != "provider.kafka" ||
		dials[0].text("broker") != addr+" (bootstrap)" || dials[0]["took"] == nil || dials[0]["error"] != nil {
		t.Errorf("dial lines %v; want one at DEBUG in provider.kafka, to %s (bootstrap), its duration, no error", dials, addr)
	}
	apis := map[string]int{}
	for _, l := range withMessage(lines, "Kafka request") {
		if l.text("@level") != "trace" || l.text("@module") != "provider.kafka" || l["version"] == nil || l["took"] == nil || l["broker"] == nil {
			t.Errorf("request line %v; want TRACE in provider.kafka with version, took and broker", l)
		}
		apis[l.text("api")]++
	}
	if diff := cmp.Diff(map[string]int{"Metadata": 1, "ListOffsets": 3}, apis); diff != "" {
		t.Errorf("request lines by API (-want +got):\n%s", diff)
	}
}

// On a cluster of three, the summary names by node id both the bootstrap server that answered
// Metadata and the leader that answered ListOffsets.
func TestReadLogNamesEachBrokerByNodeID(t *testing.T) {
	c := acctest.Fake(t, kfake.NumBrokers(3), kfake.SeedTopics(3, "t"))
	seed := c.ListenAddrs()[0]
	p := int32(0)
	for p < 3 && c.LeaderFor("t", p) == 0 {
		p++ // a partition whose leader is not the bootstrap server (node 0)
	}
	if p == 3 {
		t.Skip("kfake made node 0 the leader of every partition")
	}
	leader := c.LeaderFor("t", p)
	t.Setenv(providerLogVariable, "")
	t.Setenv(kafkaLogVariable, "")
	cl, err := kafkaclient.New(kafkaclient.Config{BootstrapServers: []string{seed}, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var buf bytes.Buffer
	ctx, rl := startReadLog(tflogtest.RootLogger(context.Background(), &buf), &providerData{client: cl, logging: readLoggingFrom(os.Getenv)})
	_, err = cl.PartitionOffsets(ctx, "t", int(p))
	rl.endWith(err)
	s := withMessage(logLines(t, &buf), "Kafka read")
	var addrs []string
	for id, a := range c.ListenAddrs() {
		if int32(id) == 0 || int32(id) == leader {
			addrs = append(addrs, fmt.Sprintf("%s (node %d)", a, id))
		}
	}
	slices.Sort(addrs)
	if want := strings.Join(addrs, ", "); len(s) != 1 || s[0].text("brokers") != want {
		t.Errorf("summaries %v; want one naming brokers %q", s, want)
	}
}

// A retry is a DEBUG line with its cause and backoff; the request whose answer caused it names
// the answer's error code at TRACE; the summary counts it and says the last cause.
func TestReadLogRetry(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
	produceFake(t, c, "t", 0, 3)
	acctest.AnswerListOffsets(c, 1, acctest.ErrorCode(6)) // NOT_LEADER_OR_FOLLOWER, once
	lines := logLines(t, readPartitionLogged(t, c))

	retries := withMessage(lines, "retrying the Kafka read")
	if len(retries) != 1 || retries[0].text("@module") != "provider.kafka" || retries[0].text("attempt") != "2" ||
		!strings.Contains(retries[0].text("cause"), "NOT_LEADER_OR_FOLLOWER") || retries[0]["backoff"] == nil {
		t.Fatalf("retry lines %v; want one, attempt 2, caused by NOT_LEADER_OR_FOLLOWER, with its backoff", retries)
	}
	var coded []string
	for _, l := range withMessage(lines, "Kafka request") {
		if l["error_codes"] != nil {
			coded = append(coded, l.text("api")+": "+l.text("error_codes"))
		}
	}
	if diff := cmp.Diff([]string{"ListOffsets: NOT_LEADER_OR_FOLLOWER×1"}, coded); diff != "" {
		t.Errorf("request lines with error codes (-want +got):\n%s", diff)
	}
	s := withMessage(lines, "Kafka read")
	if len(s) != 1 || s[0].text("retries") != "1" || s[0].text("requests") != "ListOffsets=6 Metadata=2" ||
		!strings.Contains(s[0].text("last_retry_cause"), "NOT_LEADER_OR_FOLLOWER") {
		t.Errorf("summaries %v; want one counting the retry, its cause, and both attempts' requests", s)
	}
}

// TF_LOG_PROVIDER_KAFKA_KAFKA, the name tflog.WithLevelFromEnv gives the subsystem's variable,
// sets its level apart from the provider's: DEBUG drops the request lines, OFF every subsystem
// line, and the summary stays on the provider's logger.
func TestKafkaSubsystemLevelVariable(t *testing.T) {
	if kafkaLogVariable != "TF_LOG_PROVIDER_KAFKA_KAFKA" {
		t.Fatalf("the subsystem's variable is %s, want TF_LOG_PROVIDER_KAFKA_KAFKA (the operations guide names it)", kafkaLogVariable)
	}
	c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
	for level, want := range map[string]map[string]int{
		"TRACE": {"Kafka read": 1, "dialled a Kafka broker": 1, "Kafka request": 3},
		"DEBUG": {"Kafka read": 1, "dialled a Kafka broker": 1},
		"OFF":   {"Kafka read": 1},
	} {
		t.Run(level, func(t *testing.T) {
			t.Setenv(kafkaLogVariable, level)
			cl, err := kafkaclient.New(kafkaclient.Config{BootstrapServers: c.ListenAddrs(), Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			var buf bytes.Buffer
			// Every line is logged: only the variable, read by tflog, can drop them.
			data := &providerData{client: cl, logging: readLogging{observe: true, trace: true}}
			ctx, rl := startReadLog(tflogtest.RootLogger(context.Background(), &buf), data)
			_, err = cl.PartitionOffsets(ctx, "t", 0)
			rl.endWith(err)
			got := map[string]int{}
			for _, l := range logLines(t, &buf) {
				got[l.text("@message")]++
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("lines by message with %s=%s (-want +got):\n%s", kafkaLogVariable, level, diff)
			}
		})
	}
}

// Requests end in parallel: the counts are exact under the race detector.
func TestReadLogCountsConcurrentRequests(t *testing.T) {
	l := &readLog{ctx: context.Background(), started: time.Now(), brokers: map[string]int32{}, kinds: map[string]*kindTally{}}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			for range 20 {
				l.Requested(kafkaclient.Request{Kind: "ListOffsets", Broker: kafkaclient.Broker{Address: "b:9092", NodeID: int32(i % 2)}, Took: time.Duration(i) * time.Millisecond})
			}
			l.Retrying(kafkaclient.Retry{Attempt: 2, Cause: fmt.Errorf("cause %d", i)})
		})
	}
	wg.Wait()
	f := l.fieldsLocked()
	if f["requests"] != "ListOffsets=1000" || f["retries"] != 50 || f["slowest"] != "ListOffsets=49ms" || f["brokers"] != "b:9092 (node 1)" {
		t.Errorf("fields %v; want 1000 ListOffsets, 50 retries, the slowest 49ms, node 1", f)
	}
}

// On the real broker, with TF_LOG=DEBUG captured (TF_ACC_LOG_PATH): every read of a one-partition
// kafka_partition_offsets logs a summary that names the partition's leader by address and node id
// and counts exactly its requests: one Metadata (each Terraform command configures a new client),
// three ListOffsets (earliest, max timestamp, latest).
func TestAccReadLog_summary(t *testing.T) {
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	k.Produce(topic, 0, 2)
	md, err := k.Admin.Metadata(t.Context(), topic)
	if err != nil {
		t.Fatal(err)
	}
	leaderID := md.Topics[topic].Partitions[0].Leader
	i := slices.IndexFunc(md.Brokers, func(b kadm.BrokerDetail) bool { return b.NodeID == leaderID })
	if i < 0 {
		t.Fatalf("the metadata lists no broker %d", leaderID)
	}
	b := md.Brokers[i]
	leader := fmt.Sprintf("%s (node %d)", net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port))), leaderID)

	logFile := filepath.Join(t.TempDir(), "debug.log")
	t.Setenv("TF_LOG", "DEBUG")
	t.Setenv("TF_ACC_LOG_PATH", logFile)
	t.Setenv(providerLogVariable, "")
	t.Setenv(kafkaLogVariable, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            offsetsConfig(t, topic, 0),
			ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 0, 2),
		}},
	})

	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	var summaries []string
	for line := range strings.Lines(string(data)) {
		if strings.Contains(line, "] kafka: Kafka read: ") && strings.Contains(line, "topic="+topic) {
			summaries = append(summaries, line)
		}
	}
	if len(summaries) == 0 {
		t.Fatalf("%s (%d bytes) has no Kafka read summary of topic %s", logFile, len(data), topic)
	}
	for _, s := range summaries {
		for _, want := range []string{"[DEBUG]", "tf_data_source_type=kafka_partition_offsets", `requests="ListOffsets=3 Metadata=1"`,
			leader, "dials=1", "retries=0", "outcome=ok", "slowest=", "took="} {
			if !strings.Contains(s, want) {
				t.Errorf("summary lacks %q:\n%s", want, s)
			}
		}
		if strings.Contains(s, "(bootstrap)") {
			t.Errorf("summary names a bootstrap server without its node id:\n%s", s)
		}
	}
	t.Logf("%d summaries, the first:\n%s", len(summaries), summaries[0])
}
