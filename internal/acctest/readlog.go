package acctest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// ReadLog records the reads a chaos test makes while brokers go away: when each began (since the
// cluster was handed to the test), how long it took, and how it ended. Report logs them; the
// chaos tests assert no timings beyond their hang bounds.
type ReadLog struct {
	since func() time.Duration

	mu    sync.Mutex
	reads []Read
}

// Read is one recorded read.
type Read struct {
	Who  string        // which reader or data source
	At   time.Duration // when it began
	Took time.Duration
	Err  error // nil when the read succeeded with the exact values
}

// NewReadLog records reads against the cluster's clock.
func NewReadLog(c *Cluster) *ReadLog { return &ReadLog{since: c.Since} }

// Since is the cluster's clock: when a read begins.
func (l *ReadLog) Since() time.Duration { return l.since() }

// Record adds a read that began at began (c.Since() then) and ended now with err.
func (l *ReadLog) Record(who string, began time.Duration, err error) Read {
	r := Read{Who: who, At: began, Took: l.since() - began, Err: err}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads = append(l.reads, r)
	return r
}

// Reads returns what was recorded, in the order the reads ended.
func (l *ReadLog) Reads() []Read {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reads)
}

// Failed returns the reads that ended with an error.
func (l *ReadLog) Failed() []Read {
	var out []Read
	for _, r := range l.Reads() {
		if r.Err != nil {
			out = append(out, r)
		}
	}
	return out
}

// Report logs every failed read (the first 20; then each distinct error once, with how many
// reads it ended and when) and every read slower than half a second, then a summary of all of
// them (count, failures, median, 90th percentile, slowest).
func (l *ReadLog) Report(t testing.TB) {
	t.Helper()
	reads := l.Reads()
	if len(reads) == 0 {
		t.Log("reads: none recorded")
		return
	}
	var (
		took     []time.Duration
		failed   int
		distinct []string
		byError  = map[string][]Read{}
	)
	for _, r := range reads {
		took = append(took, r.Took)
		switch {
		case r.Err != nil:
			failed++
			if failed <= 20 {
				t.Logf("read t=%s took %s %s: FAILED: %v", r.At, r.Took, r.Who, r.Err)
			}
			msg := r.Err.Error()
			if byError[msg] == nil {
				distinct = append(distinct, msg)
			}
			byError[msg] = append(byError[msg], r)
		case r.Took > 500*time.Millisecond:
			t.Logf("read t=%s took %s %s: ok (slow)", r.At, r.Took, r.Who)
		}
	}
	if failed > 20 {
		for _, msg := range distinct {
			rs := byError[msg]
			t.Logf("%d reads between t=%s and t=%s failed with: %s", len(rs), rs[0].At, rs[len(rs)-1].At, msg)
		}
	}
	slices.Sort(took)
	pct := func(p int) time.Duration { return took[(len(took)-1)*p/100] }
	t.Logf("reads: %d, %d failed; took median %s, p90 %s, max %s; first began t=%s, last ended t=%s",
		len(reads), failed, pct(50), pct(90), took[len(took)-1], reads[0].At, lastEnd(reads))
}

func lastEnd(reads []Read) time.Duration {
	var end time.Duration
	for _, r := range reads {
		end = max(end, r.At+r.Took)
	}
	return end
}

// String is one line about the read, for errors.
func (r Read) String() string {
	if r.Err != nil {
		return fmt.Sprintf("%s at t=%s took %s: %v", r.Who, r.At, r.Took, r.Err)
	}
	return fmt.Sprintf("%s at t=%s took %s: ok", r.Who, r.At, r.Took)
}
