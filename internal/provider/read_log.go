package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// The logs of one data source read: what it did on the wire, so that a slow plan says which read,
// broker and request took the time. Two places, documented in the operations
// guide (templates/guides/operations.md.tmpl, "Logs"):
//
//   - the provider's own logger (TF_LOG_PROVIDER_KAFKA), at DEBUG: one "Kafka read" line when a
//     read ends, beside the data source's other lines: its duration, the brokers it met (address
//     and node id), its requests by API with the slowest of each, its dials and retries, and its
//     outcome;
//   - the "kafka" subsystem (TF_LOG_PROVIDER_KAFKA_KAFKA; unset, the provider's level), the wire as
//     the read met it: at DEBUG a line per dial and per retry (its cause and backoff), at TRACE a
//     line per request (API, version, broker, duration, error or error codes), never its payload.
//
// The lines hold addresses, node ids, API names, durations and error texts (which name topics and
// groups, never a secret). Where the variables turn both off (QuietLogs), no readLog is made.

// readLog is the Observer of one read (kafkaclient.Client.Observe) and its summary.
type readLog struct {
	ctx     context.Context     // the read's, with the kafka subsystem: where the lines go
	client  *kafkaclient.Client // what names a bootstrap server's node id once the cluster answered
	trace   bool                // the subsystem may log at TRACE: worth a line per request
	started time.Time

	mu          sync.Mutex // requests go out in parallel: every count below is under it
	brokers     map[string]int32
	kinds       map[string]*kindTally
	dials       int
	failedDials int
	retries     int
	lastCause   string
}

// kindTally is what a read's requests of one API came to.
type kindTally struct {
	count, failed int
	slowest       time.Duration
}

// startReadLog returns ctx with a new readLog watching the reads made under it, and the readLog;
// ctx and nil when no log of reads can show (nil's end does nothing).
func startReadLog(ctx context.Context, data *providerData) (context.Context, *readLog) {
	if data == nil || data.client == nil || !data.logging.observe {
		return ctx, nil
	}
	ctx = tflog.NewSubsystem(ctx, kafkaSubsystem, tflog.WithLevelFromEnv(providerLogVariable, kafkaSubsystem), tflog.WithRootFields())
	l := &readLog{ctx: ctx, client: data.client, trace: data.logging.trace, started: time.Now(), brokers: map[string]int32{}, kinds: map[string]*kindTally{}}
	return data.client.Observe(ctx, l), l
}

func (l *readLog) Dialed(d kafkaclient.Dial) {
	l.mu.Lock()
	l.meet(d.Broker)
	l.dials++
	if d.Err != nil {
		l.failedDials++
	}
	l.mu.Unlock()
	fields := map[string]any{"broker": brokerName(d.Broker), "took": logDuration(d.Took)}
	if d.Err != nil {
		fields["error"] = d.Err.Error()
	}
	tflog.SubsystemDebug(l.ctx, kafkaSubsystem, "dialled a Kafka broker", fields)
}

func (l *readLog) Requested(r kafkaclient.Request) {
	l.mu.Lock()
	l.meet(r.Broker)
	t := l.kinds[r.Kind]
	if t == nil {
		t = &kindTally{}
		l.kinds[r.Kind] = t
	}
	t.count++
	t.slowest = max(t.slowest, r.Took)
	if r.Err != nil {
		t.failed++
	}
	l.mu.Unlock()
	if !l.trace {
		return // the error codes cost a walk of the answer: only for a line that can show
	}
	fields := map[string]any{"api": r.Kind, "version": r.Version, "broker": brokerName(r.Broker), "took": logDuration(r.Took)}
	if r.Err != nil {
		fields["error"] = r.Err.Error()
	} else if codes := r.Codes(); codes != "" {
		fields["error_codes"] = codes
	}
	tflog.SubsystemTrace(l.ctx, kafkaSubsystem, "Kafka request", fields)
}

func (l *readLog) Retrying(r kafkaclient.Retry) {
	cause := r.Cause.Error()
	l.mu.Lock()
	l.retries++
	l.lastCause = cause
	l.mu.Unlock()
	tflog.SubsystemDebug(l.ctx, kafkaSubsystem, "retrying the Kafka read", map[string]any{
		"attempt": r.Attempt, "cause": cause, "backoff": logDuration(r.Backoff),
	})
}

// meet notes a broker the read met; a node id learnt later replaces -1. Called under l.mu.
func (l *readLog) meet(b kafkaclient.Broker) {
	if id, ok := l.brokers[b.Address]; !ok || id < b.NodeID {
		l.brokers[b.Address] = b.NodeID
	}
}

// end writes the read's summary, its outcome taken from diags. A nil readLog does nothing.
func (l *readLog) end(diags *diag.Diagnostics) {
	if l == nil {
		return
	}
	outcome := "ok"
	for _, d := range diags.Errors() {
		outcome = "error: " + d.Summary()
		break
	}
	l.summary(outcome)
}

// endWith writes the read's summary, its outcome err. A nil readLog does nothing.
func (l *readLog) endWith(err error) {
	if l == nil {
		return
	}
	outcome := "ok"
	if err != nil {
		outcome = "error: " + err.Error()
	}
	l.summary(outcome)
}

// summary writes the "Kafka read" line at DEBUG on the provider's logger.
func (l *readLog) summary(outcome string) {
	took := time.Since(l.started)
	l.mu.Lock()
	fields := l.fieldsLocked()
	l.mu.Unlock()
	fields["took"], fields["outcome"] = logDuration(took), outcome
	tflog.Debug(l.ctx, "Kafka read", fields)
}

// nodeID is the node id of address: as the read met it, else as the cluster's latest answer
// gives it (the bootstrap server the first Metadata request went to). Called under l.mu.
func (l *readLog) nodeID(address string) int32 {
	id := l.brokers[address]
	if id < 0 && l.client != nil {
		id = l.client.NodeID(address)
	}
	return id
}

// fieldsLocked are the summary's counts: brokers and APIs sorted, so that lines compare.
func (l *readLog) fieldsLocked() map[string]any {
	brokers := make([]string, 0, len(l.brokers))
	for _, address := range slices.Sorted(maps.Keys(l.brokers)) {
		brokers = append(brokers, brokerName(kafkaclient.Broker{Address: address, NodeID: l.nodeID(address)}))
	}
	var requests, slowest []string
	failed := 0
	for _, kind := range slices.Sorted(maps.Keys(l.kinds)) {
		t := l.kinds[kind]
		requests = append(requests, fmt.Sprintf("%s=%d", kind, t.count))
		slowest = append(slowest, kind+"="+logDuration(t.slowest))
		failed += t.failed
	}
	fields := map[string]any{
		"brokers": strings.Join(brokers, ", "), "requests": strings.Join(requests, " "),
		"slowest": strings.Join(slowest, " "), "dials": l.dials, "retries": l.retries,
	}
	if failed > 0 {
		fields["failed_requests"] = failed
	}
	if l.failedDials > 0 {
		fields["failed_dials"] = l.failedDials
	}
	if l.retries > 0 {
		fields["last_retry_cause"] = l.lastCause
	}
	return fields
}

// brokerName is a broker as the lines name it: "host:9092 (node 1)", or "(bootstrap)" for an
// address the read knew only from bootstrap_servers.
func brokerName(b kafkaclient.Broker) string {
	if b.NodeID < 0 {
		return b.Address + " (bootstrap)"
	}
	return fmt.Sprintf("%s (node %d)", b.Address, b.NodeID)
}

// logDuration rounds d to what a log reader compares: 3.01s, 12.34ms, 850µs.
func logDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}
