package kafkaclient

import (
	"time"
)

// The time-lag rule, the one place every data source that shows a group's time lag takes it
// from: how old the oldest record is that the group has not read. next_record.go finds that
// record with a Fetch; this file says what its timestamp means.

// TimeLag is one partition's time lag, set only when the read asked for it (FetchTimestamps).
type TimeLag struct {
	// Next is the first record a consumer of the group is given when it resumes at its commit
	// (the record at the commit, or the first one after it that still exists and that the
	// isolation level shows); nil where there is none: caught up, no commit, or a commit past
	// the log end.
	Next *NextRecord
	// LagMs is the read's time minus Next's timestamp, in milliseconds: 0 when the group is caught
	// up, and 0 too when Next's timestamp is later than the read's time (Ahead); nil without a
	// commit where records wait (0 where none does), with a commit outside the log, and when Next
	// has no timestamp (-1).
	LagMs *int64
	// Ahead: Next's timestamp is later than the read's time (the producer's clock runs ahead of
	// the provider's, or the application set the record's timestamp): LagMs is 0 then.
	Ahead bool
}

// NextRecord is a record a consumer reads next.
type NextRecord struct {
	Offset int64
	// TimestampMs is the record's timestamp, in milliseconds since the Unix epoch: its CreateTime,
	// or for a topic with message.timestamp.type=LogAppendTime the broker's time of append. -1:
	// the record has none (written by a client older than Kafka 0.10).
	TimestampMs int64
	// LogAppendTime: TimestampMs is the broker's time of append, not the producer's.
	LogAppendTime bool
}

// nextFrom is where a consumer of the group resumes reading, under which isolation level the
// record there is looked for, and whether there is one to look for. None without a commit, with a
// commit outside the log (the consumer is answered OFFSET_OUT_OF_RANGE and resumes where its
// auto.offset.reset points, which the cluster does not know: the age of what it reads next is
// unknown), or at the high watermark (caught up). Records held behind an open transaction
// (Held) wait all the same: the oldest of them is looked for under read_uncommitted. A share
// group's lag is the broker's count of records not yet acknowledged, and its start offset may
// stay behind records already acknowledged, or behind the log start (Kafka 4.4 keeps it there):
// at lag 0 nothing waits, and otherwise the record looked for is the first still in the log.
func nextFrom(p GroupPartitionOffsets, isolation Isolation) (from int64, at Isolation, ok bool) {
	switch {
	case p.Committed == nil || p.OutOfRange || *p.Committed >= p.LogEnd:
		return 0, isolation, false
	case p.Share:
		return max(*p.Committed, p.Earliest), isolation, *p.Lag > 0
	case p.Held():
		return *p.Committed, ReadUncommitted, true
	}
	return *p.Committed, isolation, *p.Lag > 0
}

// setTimeLag applies the rule to p, with next the record found at nextFrom (nil: none below the
// log end, so caught up) and readAt the read's time.
func (p *GroupPartitionOffsets) setTimeLag(next *NextRecord, readAt time.Time) {
	p.TimeLag = TimeLag{}
	switch {
	case p.Committed == nil && p.Earliest < p.LogEnd, p.OutOfRange:
		return // no commit where records wait; a commit outside the log is no position
	case next == nil: // caught up, or no commit where no record waits: nothing to read below the log end
		zero := int64(0)
		p.LagMs = &zero
		return
	}
	p.Next = next
	if next.TimestampMs < 0 {
		return // a record without a timestamp: its age is unknown
	}
	lag := readAt.UnixMilli() - next.TimestampMs
	if lag < 0 {
		lag, p.Ahead = 0, true
	}
	p.LagMs = &lag
}

// MaxTimeLag is the largest LagMs of partitions; nil when there is no partition, or when any
// partition has no LagMs (no commit, a commit outside the log, a record without a timestamp):
// a gate on it must not pass over a partition whose age is unknown.
func MaxTimeLag(partitions []GroupPartitionOffsets) *int64 {
	if len(partitions) == 0 {
		return nil
	}
	var largest int64
	for _, p := range partitions {
		if p.LagMs == nil {
			return nil
		}
		largest = max(largest, *p.LagMs)
	}
	return &largest
}
