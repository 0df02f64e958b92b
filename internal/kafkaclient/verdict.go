package kafkaclient

import (
	"fmt"
	"math"
	"strings"
)

// The verdict, the one place every reader of a group's progress takes it from: both group data
// sources and the wait. A partition's state (its commit, log start, high watermark, the
// isolation level's end, lag) is built here (groupPartition), its verdict read here
// (NotCaughtUp), and a group's over its partitions and what the read could see (Judge). Its time
// lag follows the same state (time_lag.go). It fails closed: each thing the cluster does not
// vouch for (no commit where records wait, a commit outside the log, records held behind an open
// transaction, a topic the principal may not see, an empty selection) keeps it false, with a
// reason.

// position is what a group's coordinator says of one partition.
type position struct {
	committed *int64 // the group's commit (a share group: its start offset); nil: none
	share     bool   // a share group: committed is the share-partition start offset
	shareLag  *int64 // a share group's lag as the broker counts it (KIP-1226); nil: not given
	assigned  bool   // a member owns the partition now
}

// groupPartition is the lag rule. Lag is latest − committed, as Kafka's kafka-consumer-groups.sh
// computes it: not clamped, so a commit past the log end reads as negative (a commit before the
// log start reads as the whole distance to latest). A commit is out of range when it lies before
// the log start or past the high watermark. A share group's lag is the broker's count where it
// gives one (latest − start offset, an upper bound, where it does not), and its start offset is
// never out of range: the broker moves it with the log start.
func groupPartition(topic string, bounds PartitionOffsets, pos position) GroupPartitionOffsets {
	gp := GroupPartitionOffsets{Topic: topic, Partition: bounds.Partition, Earliest: bounds.Earliest,
		Latest: bounds.Latest, LogEnd: bounds.HighWatermark, Assigned: pos.assigned, Share: pos.share}
	if pos.committed == nil {
		return gp
	}
	offset := *pos.committed
	lag := bounds.Latest - offset // both 0 or more: cannot overflow
	if pos.share && pos.shareLag != nil {
		lag = *pos.shareLag
	}
	gp.Committed, gp.Lag = &offset, &lag
	gp.OutOfRange = !pos.share && (offset < bounds.Earliest || offset > bounds.HighWatermark)
	return gp
}

// GroupPartition is the lag rule for one partition of a consumer group (not a share group): its
// commit (nil: none) against the partition's bounds, read with OffsetsRequest.HighWatermark. The
// reads build theirs the same way; it is for callers that judge partitions of their own (Judge).
func GroupPartition(topic string, bounds PartitionOffsets, committed *int64, assigned bool) GroupPartitionOffsets {
	return groupPartition(topic, bounds, position{committed: committed, assigned: assigned})
}

// NotCaughtUp says why the group has not caught up on p, in a line for a plan's output that names
// the partition; "" where it has: nothing waits for it there, up to the high watermark.
func (p GroupPartitionOffsets) NotCaughtUp() string {
	where := fmt.Sprintf("%s/%d: ", p.Topic, p.Partition)
	switch {
	case p.Committed == nil && p.Earliest >= p.LogEnd:
		return "" // no record, so nothing waits, wherever the group starts
	case p.Committed == nil && p.Assigned:
		return where + fmt.Sprintf("no commit while a member reads it, so the lag is unknown (%d offsets in "+
			"the log; the member started where its auto.offset.reset points)", p.LogEnd-p.Earliest)
	case p.Committed == nil && p.Share:
		return where + fmt.Sprintf("no start offset, and %s (the share group has delivered nothing from this "+
			"partition yet): with share.auto.offset.reset=latest, its default, the group would skip them",
			waiting(p.Earliest, p.LogEnd))
	case p.Committed == nil:
		return where + fmt.Sprintf("no commit, and %s (a partition added since the group committed, or one it "+
			"never read): a consumer with auto.offset.reset=latest would skip them", waiting(p.Earliest, p.LogEnd))
	case p.OutOfRange && *p.Committed > p.LogEnd:
		return where + fmt.Sprintf("committed offset %d is past the log end %d (the topic was recreated, or "+
			"an unclean leader election): consumers reset per auto.offset.reset", *p.Committed, p.LogEnd)
	case p.OutOfRange:
		return where + fmt.Sprintf("committed offset %d is before the log start %d: records were deleted "+
			"unread, and consumers reset per auto.offset.reset", *p.Committed, p.Earliest)
	case *p.Lag > 0 && p.heldOffsets() > 0:
		return where + fmt.Sprintf("lag %d (committed_offset %d, latest_offset %d), and %s", *p.Lag, *p.Committed,
			p.Latest, p.heldBehind(p.Latest))
	case *p.Lag > 0:
		return where + fmt.Sprintf("lag %d (committed_offset %d, latest_offset %d)", *p.Lag, *p.Committed, p.Latest)
	case p.Held():
		return where + fmt.Sprintf("committed offset %d, and %s", *p.Committed, p.heldBehind(*p.Committed))
	}
	return ""
}

// heldBehind says that the offsets from from to the high watermark wait behind an open
// transaction, and what kafka-consumer-groups.sh counts as LAG: from the commit to the high
// watermark.
func (p GroupPartitionOffsets) heldBehind(from int64) string {
	return fmt.Sprintf("%s behind an open transaction (last stable offset %d, high watermark %d): read_committed "+
		"consumers get them once it commits or aborts, and kafka-consumer-groups.sh counts LAG %d to the high watermark",
		waiting(from, p.LogEnd), p.Latest, p.LogEnd, p.LogEnd-*p.Committed)
}

// waiting says which offsets, from and below end, wait: "offset 4 waits", "offsets 4 to 9 wait".
func waiting(from, end int64) string {
	if end-from == 1 {
		return fmt.Sprintf("offset %d waits", from)
	}
	return fmt.Sprintf("offsets %d to %d wait", from, end-1)
}

// Held: under read_committed, the commit is at or past the last stable offset and below the high
// watermark: the records from the commit on are held back by an open transaction. They wait for
// the group all the same (kafka-consumer-groups.sh counts them), and if the transaction hangs
// no read_committed consumer ever gets past it.
func (p GroupPartitionOffsets) Held() bool {
	return p.Committed != nil && !p.Share && !p.OutOfRange && *p.Lag <= 0 && *p.Committed < p.LogEnd
}

// heldOffsets is how many offsets past p's commit wait behind an open transaction: under
// read_committed, from the last stable offset (or the commit, where it lies past it) to the high
// watermark. 0 under read_uncommitted, where the two are one, and for a partition without a commit
// inside the log or of a share group (whose lag is the broker's count).
func (p GroupPartitionOffsets) heldOffsets() int64 {
	if p.Committed == nil || p.Share || p.OutOfRange {
		return 0
	}
	return p.LogEnd - max(*p.Committed, p.Latest)
}

// Measured: p has not caught up, by an amount its lag or time lag measures: a commit inside the
// log with a positive lag, or held behind an open transaction. The other reasons (no commit where
// records wait, a commit outside the log) leave the group's position unknown.
func (p GroupPartitionOffsets) Measured() bool {
	return p.Committed != nil && !p.OutOfRange && (*p.Lag > 0 || p.Held())
}

// LagUnknown: a member owns the partition, which holds records, and the group has no commit there.
// Where the member starts (its auto.offset.reset) is not in the cluster, so neither is its lag:
// the group is not caught up there, by an amount nobody knows.
func (p GroupPartitionOffsets) LagUnknown() bool {
	return p.Assigned && p.Committed == nil && p.Earliest < p.LogEnd
}

// behind is what p adds to the total lag: its positive lag and the offsets held behind an open
// transaction past it. For a commit inside the log of a consumer group that is the high watermark
// minus the commit, kafka-consumer-groups.sh's LAG, whatever the isolation level (under
// read_committed the lag alone stops at the last stable offset), so that a total of 0 never stands
// beside records that wait, and a group below the last stable offset is not counted short of one
// at it. A share group adds the broker's lag.
func (p GroupPartitionOffsets) behind() int64 {
	if p.Lag == nil {
		return 0
	}
	return max(*p.Lag, 0) + p.heldOffsets()
}

// Verdict is a group's verdict over the partitions read, the one every data source shows.
type Verdict struct {
	// CaughtUp: at least one partition was read, none is NotCaughtUp, and the read saw every
	// topic it covers (Unseen is ""). NotCaughtUp are the reasons otherwise, one line each: Unseen
	// first, then the partitions' in their order.
	CaughtUp    bool
	NotCaughtUp []string
	// Uncommitted counts the partitions whose lag is unknown (LagUnknown).
	Uncommitted int
	// TotalLag sums what each partition is behind (behind): for a consumer group's commit inside
	// the log, the high watermark minus the commit, as kafka-consumer-groups.sh counts LAG; for a
	// share group, its positive lag. A negative lag (a commit past the log end) must not cancel
	// another partition's real lag. nil where the group lags by an amount nobody knows
	// (Uncommitted > 0), where a partition has not caught up by an amount no lag measures (no
	// commit where records wait, a commit outside the log: a sum without it would read 0 while
	// records wait), where no partition was read (0 would vouch for nothing), or the read did not
	// see every topic (Unseen).
	TotalLag *int64
	// MaxTimeLagMs is the largest time lag (MaxTimeLag), with timestamps read; nil where any is
	// unknown, and where TotalLag is.
	MaxTimeLagMs *int64
	// Unseen says why the read cannot vouch that it covers every topic the group reads; "" where
	// it can (coverage.go).
	Unseen string
}

// Judge is the verdict over partitions, read with timestamps or not, where unseen says what the
// read could not see ("" where it saw every topic it covers). It fails where the total lag does
// not fit in an int64.
func Judge(group string, partitions []GroupPartitionOffsets, unseen string, timestamps bool) (Verdict, error) {
	v := Verdict{NotCaughtUp: []string{}, Unseen: unseen}
	if unseen != "" {
		v.NotCaughtUp = append(v.NotCaughtUp, unseen)
	}
	if len(partitions) == 0 {
		v.NotCaughtUp = append(v.NotCaughtUp, "no partition: the group has no commit and no member on the "+
			"selected topics, so the cluster cannot vouch that it has read anything")
	}
	var total int64
	unmeasured := false
	for _, p := range partitions {
		if r := p.NotCaughtUp(); r != "" {
			v.NotCaughtUp = append(v.NotCaughtUp, r)
			unmeasured = unmeasured || !p.Measured()
		}
		if p.LagUnknown() {
			v.Uncommitted++
		}
		behind := p.behind()
		if behind > math.MaxInt64-total {
			return Verdict{}, fmt.Errorf("the total lag of group %q does not fit in a 64-bit integer: the broker "+
				"answered offsets near 2^63, which no real partition reaches", group)
		}
		total += behind
	}
	v.CaughtUp = len(v.NotCaughtUp) == 0
	if v.Uncommitted > 0 || unmeasured || unseen != "" || len(partitions) == 0 { // no partition: no figure
		return v, nil
	}
	v.TotalLag = &total
	if timestamps {
		v.MaxTimeLagMs = MaxTimeLag(partitions)
	}
	return v, nil
}

// Reasons is the verdict's reasons joined for an error message, at most limit of them, the rest
// counted.
func (v Verdict) Reasons(limit int) string {
	if len(v.NotCaughtUp) <= limit {
		return strings.Join(v.NotCaughtUp, "; ")
	}
	return strings.Join(v.NotCaughtUp[:limit], "; ") + fmt.Sprintf("; and %d more", len(v.NotCaughtUp)-limit)
}
