package kafkaclient

import (
	"slices"
	"testing"
)

// Every partition state of the verdict, and the reason a user reads for it.
func TestCaughtUp(t *testing.T) {
	at := func(committed, earliest, latest int64, assigned bool) GroupPartitionOffsets {
		p := groupPartition("t", PartitionOffsets{Partition: 0, Earliest: earliest, Latest: latest}, latest,
			map[int]int64{})
		if committed >= 0 {
			p = groupPartition("t", PartitionOffsets{Partition: 0, Earliest: earliest, Latest: latest}, latest,
				map[int]int64{0: committed})
		}
		p.Assigned = assigned
		return p
	}
	const none = -1
	for _, tc := range []struct {
		name string
		p    GroupPartitionOffsets
		want string // "": caught up
	}{
		{"at the log end", at(10, 0, 10, true), ""},
		{"at the log end of an emptied log", at(10, 10, 10, false), ""},
		{"no commit, no record", at(none, 0, 0, true), ""},
		{"no commit, no record left (retention)", at(none, 7, 7, false), ""},
		{"behind", at(4, 0, 10, true), "t/0: lag 6 (committed_offset 4, latest_offset 10)"},
		{"no commit while a member reads", at(none, 0, 10, true),
			"t/0: no commit while a member reads it, so the lag is unknown (10 offsets in the log; the member started where its auto.offset.reset points)"},
		{"no commit, records wait (a partition added since the commit)", at(none, 0, 10, false),
			"t/0: no commit, and offsets 0 to 9 wait (a partition added since the group committed, or one it never read): a consumer with auto.offset.reset=latest would skip them"},
		{"past the log end", at(12, 0, 10, false),
			"t/0: committed offset 12 is past the log end 10 (the topic was recreated, or an unclean leader election): consumers reset per auto.offset.reset"},
		{"before the log start", at(3, 5, 10, false),
			"t/0: committed offset 3 is before the log start 5: records were deleted unread, and consumers reset per auto.offset.reset"},
		{"before the log start of an emptied log", at(3, 5, 5, false),
			"t/0: committed offset 3 is before the log start 5: records were deleted unread, and consumers reset per auto.offset.reset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.NotCaughtUp(); got != tc.want {
				t.Errorf("NotCaughtUp:\n got %q\nwant %q", got, tc.want)
			}
			ok, reasons := CaughtUp([]GroupPartitionOffsets{at(10, 0, 10, true), tc.p})
			if want := tc.want == ""; ok != want || (len(reasons) == 0) != want {
				t.Errorf("CaughtUp %v %q, want %v", ok, reasons, want)
			}
		})
	}
	// Under read_committed, a commit between the last stable offset (latest) and the high watermark.
	p := groupPartition("t", PartitionOffsets{Partition: 0, Latest: 8}, 10, map[int]int64{0: 9})
	if got, want := p.NotCaughtUp(), "t/0: committed offset 9 is past the last stable offset 8 (read_committed): "+
		"a commit of records not yet committed by their transaction"; got != want {
		t.Errorf("read_committed: got %q, want %q", got, want)
	}
	if ok, reasons := CaughtUp(nil); ok || len(reasons) != 1 {
		t.Errorf("an empty selection: CaughtUp %v %q, want false with one reason", ok, reasons)
	}
	ok, reasons := CaughtUp([]GroupPartitionOffsets{at(4, 0, 10, false), at(10, 0, 10, false), at(12, 0, 10, false)})
	if ok || !slices.Equal(reasons, []string{at(4, 0, 10, false).NotCaughtUp(), at(12, 0, 10, false).NotCaughtUp()}) {
		t.Errorf("two partitions behind: CaughtUp %v %q", ok, reasons)
	}
}
