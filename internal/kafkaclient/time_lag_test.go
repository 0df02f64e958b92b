package kafkaclient

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The time-lag rule: where a consumer of the group resumes, and what the record found there says.
func TestTimeLagRule(t *testing.T) {
	readAt := time.UnixMilli(1_800_000_060_000)
	partition := func(committed *int64, earliest, latest, logEnd int64) GroupPartitionOffsets {
		return GroupPartitionOffsets{Topic: "t", Committed: committed, Earliest: earliest, Latest: latest, LogEnd: logEnd}
	}
	for _, tc := range []struct {
		name     string
		p        GroupPartitionOffsets
		wantFrom *int64 // where the Fetch looks; nil: no Fetch
		next     *NextRecord
		want     TimeLag
	}{
		{
			name: "behind: the record at the commit is a minute old",
			p:    partition(ptr(4), 0, 10, 10), wantFrom: ptr(4),
			next: &NextRecord{Offset: 4, TimestampMs: 1_800_000_000_000},
			want: TimeLag{Next: &NextRecord{Offset: 4, TimestampMs: 1_800_000_000_000}, LagMs: ptr(60_000)},
		},
		{
			name: "caught up: no Fetch, time lag 0",
			p:    partition(ptr(10), 0, 10, 10),
			want: TimeLag{LagMs: ptr(0)},
		},
		{
			name: "read_committed commit between the last stable offset and the high watermark: caught up",
			p:    partition(ptr(12), 0, 10, 15),
			want: TimeLag{LagMs: ptr(0)},
		},
		{
			name: "only markers or aborted records after the commit: caught up",
			p:    partition(ptr(9), 0, 10, 10), wantFrom: ptr(9),
			want: TimeLag{LagMs: ptr(0)},
		},
		{
			name: "no commit: unknown",
			p:    partition(nil, 0, 10, 10),
			want: TimeLag{},
		},
		{
			name: "commit past the log end: unknown",
			p:    partition(ptr(15), 0, 10, 10),
			want: TimeLag{},
		},
		{
			name: "commit before the log start: the oldest record that still exists",
			p:    partition(ptr(2), 4, 10, 10), wantFrom: ptr(4),
			next: &NextRecord{Offset: 4, TimestampMs: 1_800_000_050_000},
			want: TimeLag{Next: &NextRecord{Offset: 4, TimestampMs: 1_800_000_050_000}, LagMs: ptr(10_000)},
		},
		{
			name: "a record stamped after the read: 0, and said",
			p:    partition(ptr(4), 0, 10, 10), wantFrom: ptr(4),
			next: &NextRecord{Offset: 4, TimestampMs: 1_800_000_065_000},
			want: TimeLag{Next: &NextRecord{Offset: 4, TimestampMs: 1_800_000_065_000}, LagMs: ptr(0), Ahead: true},
		},
		{
			name: "a record without a timestamp: unknown",
			p:    partition(ptr(4), 0, 10, 10), wantFrom: ptr(4),
			next: &NextRecord{Offset: 5, TimestampMs: -1},
			want: TimeLag{Next: &NextRecord{Offset: 5, TimestampMs: -1}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, ok := nextFrom(tc.p)
			var gotFrom *int64
			if ok {
				gotFrom = &from
			}
			if diff := cmp.Diff(tc.wantFrom, gotFrom); diff != "" {
				t.Errorf("nextFrom (-want +got):\n%s", diff)
			}
			tc.p.setTimeLag(tc.next, readAt)
			if diff := cmp.Diff(tc.want, tc.p.TimeLag); diff != "" {
				t.Errorf("TimeLag (-want +got):\n%s", diff)
			}
		})
	}
}

// MaxTimeLag is null unless every partition's age is known.
func TestMaxTimeLag(t *testing.T) {
	known := func(ms int64) GroupPartitionOffsets { return GroupPartitionOffsets{TimeLag: TimeLag{LagMs: &ms}} }
	for _, tc := range []struct {
		name string
		ps   []GroupPartitionOffsets
		want *int64
	}{
		{name: "no partition", want: nil},
		{name: "the largest", ps: []GroupPartitionOffsets{known(5), known(70_000), known(0)}, want: ptr(70_000)},
		{name: "one unknown", ps: []GroupPartitionOffsets{known(5), {}}, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, MaxTimeLag(tc.ps)); diff != "" {
				t.Errorf("MaxTimeLag (-want +got):\n%s", diff)
			}
		})
	}
}
