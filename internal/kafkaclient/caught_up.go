package kafkaclient

import "fmt"

// The caught-up verdict, the one place both group data sources take it from. A group has caught up
// on a selection when the cluster vouches, for every partition of it, that the group has nothing
// left to read there. It fails closed: each thing the cluster does not vouch for (no commit where
// records wait, a commit outside the log, an empty selection) keeps it false, with a reason.

// NotCaughtUp says why the group has not caught up on p, in a line for a plan's output that names
// the partition; "" where it has: its lag is 0, or it has no commit on a partition that holds no
// record (nothing waits, wherever the group starts).
func (p GroupPartitionOffsets) NotCaughtUp() string {
	where := fmt.Sprintf("%s/%d: ", p.Topic, p.Partition)
	switch {
	case p.Committed == nil && p.Earliest >= p.Latest:
		return ""
	case p.Committed == nil && p.Assigned:
		return where + fmt.Sprintf("no commit while a member reads it, so the lag is unknown (%d offsets in "+
			"the log; the member started where its auto.offset.reset points)", p.Latest-p.Earliest)
	case p.Committed == nil:
		return where + fmt.Sprintf("no commit, and offsets %d to %d wait (a partition added since the group "+
			"committed, or one it never read): a consumer with auto.offset.reset=latest would skip them",
			p.Earliest, p.Latest-1)
	case p.OutOfRange && *p.Committed > p.LogEnd:
		return where + fmt.Sprintf("committed offset %d is past the log end %d (the topic was recreated, or "+
			"an unclean leader election): consumers reset per auto.offset.reset", *p.Committed, p.LogEnd)
	case p.OutOfRange:
		return where + fmt.Sprintf("committed offset %d is before the log start %d: records were deleted "+
			"unread, and consumers reset per auto.offset.reset", *p.Committed, p.Earliest)
	case *p.Lag > 0:
		return where + fmt.Sprintf("lag %d (committed_offset %d, latest_offset %d)", *p.Lag, *p.Committed, p.Latest)
	case *p.Lag < 0:
		return where + fmt.Sprintf("committed offset %d is past the last stable offset %d (read_committed): "+
			"a commit of records not yet committed by their transaction", *p.Committed, p.Latest)
	}
	return ""
}

// CaughtUp is the verdict over a group's partitions: true only when there is at least one and
// none is NotCaughtUp; the reasons otherwise, one line each, in the partitions' order.
func CaughtUp(partitions []GroupPartitionOffsets) (bool, []string) {
	if len(partitions) == 0 {
		return false, []string{"no partition: the group has no commit and no member on the selected topics, " +
			"so the cluster cannot vouch that it has read anything"}
	}
	reasons := []string{}
	for _, p := range partitions {
		if r := p.NotCaughtUp(); r != "" {
			reasons = append(reasons, r)
		}
	}
	return len(reasons) == 0, reasons
}
