package provider

import (
	"fmt"
	"strings"
	"time"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// How a wait's reads compare with each other: the rate of progress, the time left, and which
// partitions behind have stopped moving (wait.stall_timeout).

// progressTracker remembers the previous read of a wait.
type progressTracker struct {
	start   time.Time
	prevAt  time.Time // zero before the first read that found the group
	prevLag int64
	commits map[string]int64     // "topic/partition" to committed offset, of the previous read
	movedAt map[string]time.Time // "topic/partition" to when its commit last moved (or was first seen)
}

func newProgressTracker(start time.Time) *progressTracker {
	return &progressTracker{start: start, movedAt: map[string]time.Time{}}
}

// noCommit stands for "no commit" in the tracker's maps, so that a first commit is a move.
const noCommit = -1

// stalled is, of a read's partitions not caught up, those whose commit has not moved for timeout
// (Burrow's rule, per partition: one partition stuck behind a poison record stalls, however fast
// the others commit). Empty before a partition has been watched that long.
func (t *progressTracker) stalled(now time.Time, p groupProgress, timeout time.Duration) []kafkaclient.GroupPartitionOffsets {
	var out []kafkaclient.GroupPartitionOffsets
	for _, gp := range p.partitions {
		if at, ok := t.movedAt[partitionKey(gp)]; ok && gp.NotCaughtUp() != "" && now.Sub(at) >= timeout {
			out = append(out, gp)
		}
	}
	return out
}

func partitionKey(gp kafkaclient.GroupPartitionOffsets) string {
	return fmt.Sprintf("%s/%d", gp.Topic, gp.Partition)
}

// progressRate is how fast the group moved between two reads.
type progressRate struct {
	known            bool // false on the first read
	commitsPerSecond float64
	timeLeft         time.Duration // 0: the lag is not shrinking
}

// observe takes a read of the group made at now and returns the rate since the previous one.
func (t *progressTracker) observe(now time.Time, p groupProgress) progressRate {
	commits := make(map[string]int64, len(p.partitions))
	var advanced int64
	for _, gp := range p.partitions {
		key, committed := partitionKey(gp), int64(noCommit)
		if gp.Committed != nil {
			committed = *gp.Committed
		}
		prev, had := t.commits[key]
		if !had || prev != committed {
			t.movedAt[key] = now
		}
		commits[key] = committed
		if had && prev != noCommit && committed > prev {
			advanced += committed - prev
		}
	}
	var r progressRate
	if !t.prevAt.IsZero() {
		dt := now.Sub(t.prevAt).Seconds()
		r.known = dt > 0
		if r.known {
			r.commitsPerSecond = float64(advanced) / dt
			if shrink := float64(t.prevLag-p.totalLag) / dt; shrink > 0 && p.totalLag > 0 {
				r.timeLeft = time.Duration(float64(p.totalLag) / shrink * float64(time.Second))
			}
		}
	}
	t.prevAt, t.prevLag, t.commits = now, p.totalLag, commits
	return r
}

// elapsed is the time since the wait began.
func (t *progressTracker) elapsed(now time.Time) time.Duration { return now.Sub(t.start) }

// groupStalledError: partitions of the group are behind and their commits did not move for
// wait.stall_timeout.
type groupStalledError struct {
	group   string
	state   string
	s       waitSettings
	stalled []kafkaclient.GroupPartitionOffsets
	last    groupProgress
}

func (e *groupStalledError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "consumer group %q (state %q) has stalled: the committed offset of %d partition(s) not caught "+
		"up did not move for stall_timeout %s: %s", e.group, e.state, len(e.stalled), e.s.stallTimeout,
		listPartitions(e.stalled, stalledFigures))
	e.last.describe(&b, e.s)
	return b.String()
}

// stalledFigures shows a stalled partition: its commit, or that it has none.
func stalledFigures(gp kafkaclient.GroupPartitionOffsets) string {
	if gp.Committed == nil {
		return fmt.Sprintf("%s/%d (no commit, latest %d)", gp.Topic, gp.Partition, gp.Latest)
	}
	return committedFigures(gp)
}
