package provider

import (
	"fmt"
	"strings"
	"time"
)

// How a wait's reads compare with each other: the rate of progress, the time left, and whether
// the group's commits have stopped moving (wait.stall_timeout).

// progressTracker remembers the previous read of a wait.
type progressTracker struct {
	start     time.Time
	prevAt    time.Time // zero before the first read that found the group
	prevLag   int64
	commits   map[string]int64 // "topic/partition" to committed offset, of the previous read
	lastMoved time.Time        // when a committed offset last moved (or the first read)
}

func newProgressTracker(start time.Time) *progressTracker { return &progressTracker{start: start} }

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
	moved := t.prevAt.IsZero()
	for _, gp := range p.partitions {
		if gp.Committed == nil {
			continue
		}
		key := fmt.Sprintf("%s/%d", gp.Topic, gp.Partition)
		commits[key] = *gp.Committed
		prev, had := t.commits[key]
		if !had || prev != *gp.Committed {
			moved = true
		}
		if had && *gp.Committed > prev {
			advanced += *gp.Committed - prev
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
	if moved {
		t.lastMoved = now
	}
	t.prevAt, t.prevLag, t.commits = now, p.totalLag, commits
	return r
}

// stalledFor is how long no committed offset has moved; 0 before the group was first found.
func (t *progressTracker) stalledFor(now time.Time) time.Duration {
	if t.lastMoved.IsZero() {
		return 0
	}
	return now.Sub(t.lastMoved)
}

// elapsed is the time since the wait began.
func (t *progressTracker) elapsed(now time.Time) time.Duration { return now.Sub(t.start) }

// groupStalledError: the group is behind and none of its commits moved for wait.stall_timeout.
type groupStalledError struct {
	group string
	state string
	s     waitSettings
	since time.Duration
	last  groupProgress
}

func (e *groupStalledError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "consumer group %q (state %q) has stalled: no partition's committed offset moved for %s "+
		"(stall_timeout %s) while the group is behind", e.group, e.state, e.since.Round(time.Second), e.s.stallTimeout)
	// none of the partitions below moved: they are the ones that did not
	e.last.describe(&b, e.s)
	return b.String()
}
