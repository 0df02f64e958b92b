package kafkaclient

import (
	"slices"
	"testing"
	"time"
)

// Every partition state of the verdict, and the reason a user reads for it.
func TestCaughtUp(t *testing.T) {
	// at is a partition under read_uncommitted (latest is the high watermark).
	at := func(committed, earliest, latest int64, assigned bool) GroupPartitionOffsets {
		pos := position{assigned: assigned}
		if committed >= 0 {
			pos.committed = &committed
		}
		return groupPartition("t", PartitionOffsets{Earliest: earliest, Latest: latest, HighWatermark: latest}, pos)
	}
	// committedAt is a partition under read_committed: latest is the last stable offset.
	committedAt := func(committed, stable, highWatermark int64) GroupPartitionOffsets {
		pos := position{}
		if committed >= 0 {
			pos.committed = &committed
		}
		return groupPartition("t", PartitionOffsets{Latest: stable, HighWatermark: highWatermark}, pos)
	}
	share := func(start, lag, earliest, latest int64) GroupPartitionOffsets {
		return groupPartition("t", PartitionOffsets{Earliest: earliest, Latest: latest, HighWatermark: latest},
			position{committed: &start, share: true, shareLag: &lag})
	}
	shareSubscribed := func(earliest, latest int64) GroupPartitionOffsets {
		return groupPartition("t", PartitionOffsets{Earliest: earliest, Latest: latest, HighWatermark: latest}, position{share: true})
	}
	const none = -1
	for _, tc := range []struct {
		name     string
		p        GroupPartitionOffsets
		want     string // "": caught up
		measured bool   // behind by an amount the lag or time lag measures
	}{
		{"at the log end", at(10, 0, 10, true), "", false},
		{"at the log end of an emptied log", at(10, 10, 10, false), "", false},
		{"no commit, no record", at(none, 0, 0, true), "", false},
		{"no commit, no record left (retention)", at(none, 7, 7, false), "", false},
		{"behind", at(4, 0, 10, true), "t/0: lag 6 (committed_offset 4, latest_offset 10)", true},
		{"no commit while a member reads", at(none, 0, 10, true),
			"t/0: no commit while a member reads it, so the lag is unknown (10 offsets in the log; the member started where its auto.offset.reset points)", false},
		{"no commit, records wait (a partition added since the commit)", at(none, 0, 10, false),
			"t/0: no commit, and offsets 0 to 9 wait (a partition added since the group committed, or one it never read): a consumer with auto.offset.reset=latest would skip them", false},
		{"past the log end", at(12, 0, 10, false),
			"t/0: committed offset 12 is past the log end 10 (the topic was recreated, or an unclean leader election): consumers reset per auto.offset.reset", false},
		{"before the log start", at(3, 5, 10, false),
			"t/0: committed offset 3 is before the log start 5: records were deleted unread, and consumers reset per auto.offset.reset", false},
		{"before the log start of an emptied log", at(3, 5, 5, false),
			"t/0: committed offset 3 is before the log start 5: records were deleted unread, and consumers reset per auto.offset.reset", false},
		// read_committed: records held behind an open transaction wait (kafka-consumer-groups.sh counts them).
		{"read_committed, at the last stable offset, records held", committedAt(6, 6, 19),
			"t/0: committed offset 6, and offsets 6 to 18 wait behind an open transaction (last stable offset 6, high watermark 19): read_committed consumers get them once it commits or aborts, and kafka-consumer-groups.sh counts LAG 13 to the high watermark", true},
		{"read_committed, between the last stable offset and the high watermark", committedAt(9, 8, 10),
			"t/0: committed offset 9, and offset 9 waits behind an open transaction (last stable offset 8, high watermark 10): read_committed consumers get them once it commits or aborts, and kafka-consumer-groups.sh counts LAG 1 to the high watermark", true},
		{"read_committed, at the high watermark", committedAt(10, 8, 10), "", false},
		{"read_committed, no commit, only an open transaction's records", committedAt(none, 0, 3),
			"t/0: no commit, and offsets 0 to 2 wait (a partition added since the group committed, or one it never read): a consumer with auto.offset.reset=latest would skip them", false},
		{"read_committed, behind the last stable offset, records held past it", committedAt(4, 6, 19),
			"t/0: lag 2 (committed_offset 4, latest_offset 6), and offsets 6 to 18 wait behind an open transaction (last stable offset 6, high watermark 19): read_committed consumers get them once it commits or aborts, and kafka-consumer-groups.sh counts LAG 15 to the high watermark", true},
		{"read_committed, behind the last stable offset, nothing held", committedAt(4, 6, 6), "t/0: lag 2 (committed_offset 4, latest_offset 6)", true},
		// share groups: the broker's lag decides; the start offset is never out of range.
		{"share group, every record acknowledged, start behind the log start", share(2, 0, 4, 10), "", false},
		{"share group, records to acknowledge", share(8, 12, 0, 20), "t/0: lag 12 (committed_offset 8, latest_offset 20)", true},
		{"share group, acknowledged out of order past its start", share(8, 0, 0, 20), "", false},
		{"share group, subscribed without a start offset, records wait", shareSubscribed(0, 5),
			"t/0: no start offset, and offsets 0 to 4 wait (the share group has delivered nothing from this partition yet): with share.auto.offset.reset=latest, its default, the group would skip them", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.NotCaughtUp(); got != tc.want {
				t.Errorf("NotCaughtUp:\n got %q\nwant %q", got, tc.want)
			}
			if got := tc.p.Measured(); got != tc.measured {
				t.Errorf("Measured %v, want %v", got, tc.measured)
			}
			v, err := Judge("g", []GroupPartitionOffsets{at(10, 0, 10, true), tc.p}, "", false)
			if want := tc.want == ""; err != nil || v.CaughtUp != want || (len(v.NotCaughtUp) == 0) != want {
				t.Errorf("Judge %+v, %v; want caught up %v", v, err, want)
			}
		})
	}
	if v, _ := Judge("g", nil, "", false); v.CaughtUp || len(v.NotCaughtUp) != 1 || v.TotalLag != nil {
		t.Errorf("an empty selection: %+v, want false with one reason, and no total lag (0 would vouch for nothing)", v)
	}
	behind := []GroupPartitionOffsets{at(4, 0, 10, false), at(10, 0, 10, false), at(12, 0, 10, false)}
	v, _ := Judge("g", behind, "", false)
	if v.CaughtUp || !slices.Equal(v.NotCaughtUp, []string{behind[0].NotCaughtUp(), behind[2].NotCaughtUp()}) {
		t.Errorf("two partitions behind: %+v", v)
	}
}

// A read that could not see every topic the group may read is never caught up, and its totals
// are unknown: a gate on total_lag == 0 or max_time_lag_ms must not pass either.
func TestUnseenTopicsAreNotCaughtUp(t *testing.T) {
	ten := int64(10)
	caughtUp := groupPartition("t", PartitionOffsets{Latest: 10, HighWatermark: 10}, position{committed: &ten})
	caughtUp.setTimeLag(nil, time.Now())
	const unseen = "topics not seen: the provider's principal may not DESCRIBE 1 topic of the cluster (tb), ..."
	v, err := Judge("g", []GroupPartitionOffsets{caughtUp}, unseen, true)
	if err != nil || v.CaughtUp || !slices.Equal(v.NotCaughtUp, []string{unseen}) || v.TotalLag != nil || v.MaxTimeLagMs != nil {
		t.Fatalf("got %+v, %v; want not caught up for the unseen topics alone, total and time lag unknown", v, err)
	}
	v, _ = Judge("g", []GroupPartitionOffsets{caughtUp}, "", true)
	if !v.CaughtUp || v.TotalLag == nil || *v.TotalLag != 0 || v.MaxTimeLagMs == nil || *v.MaxTimeLagMs != 0 {
		t.Fatalf("with every topic seen: %+v, want caught up, total 0, time lag 0", v)
	}
}

// total_lag == 0 never stands beside records that wait: under read_committed a commit at the last
// stable offset has lag 0, and the records held behind the open transaction count from the commit
// to the high watermark (as kafka-consumer-groups.sh counts them); a lag counts as it is.
func TestTotalLagCountsHeldRecords(t *testing.T) {
	at := func(committed, stable, highWatermark int64) GroupPartitionOffsets {
		return groupPartition("t", PartitionOffsets{Latest: stable, HighWatermark: highWatermark}, position{committed: &committed})
	}
	held, behind := at(6, 6, 19), at(4, 6, 6)
	v, err := Judge("g", []GroupPartitionOffsets{held, behind}, "", false)
	if err != nil || v.CaughtUp || v.TotalLag == nil || *v.TotalLag != 13+2 {
		t.Fatalf("got %+v, %v; want not caught up, total lag 15 (13 held + lag 2)", v, err)
	}
}

// A consumer group's partition with a commit inside the log adds the high watermark minus the
// commit to total_lag, as kafka-consumer-groups.sh counts LAG, whatever the isolation level. One
// partition: offsets 0-4 plain records, 5-6 an open transaction, 7-9 plain records (last stable
// offset 5, high watermark 10). A group committed at 3, below the last stable offset, is 7 behind
// (lag 2 to the last stable offset, 5 held past it), not 2: one committed at 5 is 5 behind, and
// the group further behind never reads as the nearer one. Under read_uncommitted total_lag is the
// lag. A share group keeps the broker's lag.
func TestTotalLagCountsToTheHighWatermark(t *testing.T) {
	const stable, highWatermark = 5, 10
	readCommitted := func(committed int64) GroupPartitionOffsets {
		return groupPartition("t", PartitionOffsets{Latest: stable, HighWatermark: highWatermark}, position{committed: &committed})
	}
	readUncommitted := func(committed int64) GroupPartitionOffsets {
		return groupPartition("t", PartitionOffsets{Latest: highWatermark, HighWatermark: highWatermark}, position{committed: &committed})
	}
	for _, tc := range []struct {
		name       string
		p          GroupPartitionOffsets
		total      int64
		held, lag  int64
		wantReason string
	}{
		{"read_committed, committed below the last stable offset", readCommitted(3), 7, 5, 2,
			"t/0: lag 2 (committed_offset 3, latest_offset 5), and offsets 5 to 9 wait behind an open transaction " +
				"(last stable offset 5, high watermark 10): read_committed consumers get them once it commits or aborts, " +
				"and kafka-consumer-groups.sh counts LAG 7 to the high watermark"},
		{"read_committed, committed at the last stable offset", readCommitted(5), 5, 5, 0,
			"t/0: committed offset 5, and offsets 5 to 9 wait behind an open transaction (last stable offset 5, high " +
				"watermark 10): read_committed consumers get them once it commits or aborts, and kafka-consumer-groups.sh " +
				"counts LAG 5 to the high watermark"},
		{"read_committed, committed inside the open transaction", readCommitted(6), 4, 4, -1,
			"t/0: committed offset 6, and offsets 6 to 9 wait behind an open transaction (last stable offset 5, high " +
				"watermark 10): read_committed consumers get them once it commits or aborts, and kafka-consumer-groups.sh " +
				"counts LAG 4 to the high watermark"},
		{"read_committed, at the high watermark", readCommitted(10), 0, 0, -5, ""},
		{"read_uncommitted, committed at 3", readUncommitted(3), 7, 0, 7, "t/0: lag 7 (committed_offset 3, latest_offset 10)"},
		{"share group: the broker's lag", groupPartition("t", PartitionOffsets{Latest: stable, HighWatermark: highWatermark},
			position{committed: ptr(3), share: true, shareLag: ptr(1)}), 1, 0, 1,
			"t/0: lag 1 (committed_offset 3, latest_offset 5)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.heldOffsets(); got != tc.held || *tc.p.Lag != tc.lag {
				t.Errorf("held %d, lag %d; want held %d, lag %d (the lag attribute stays latest − committed)",
					got, *tc.p.Lag, tc.held, tc.lag)
			}
			if got := tc.p.NotCaughtUp(); got != tc.wantReason {
				t.Errorf("NotCaughtUp:\n got %q\nwant %q", got, tc.wantReason)
			}
			v, err := Judge("g", []GroupPartitionOffsets{tc.p}, "", false)
			if err != nil || v.TotalLag == nil || *v.TotalLag != tc.total || v.CaughtUp != (tc.total == 0) {
				t.Errorf("Judge %+v, %v; want total lag %d, caught up %v", v, err, tc.total, tc.total == 0)
			}
		})
	}
}
