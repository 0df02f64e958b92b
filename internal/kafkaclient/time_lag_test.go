package kafkaclient

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// The time-lag rule: where a consumer of the group resumes, and what the record found there says.
func TestTimeLagRule(t *testing.T) {
	readAt := time.UnixMilli(1_800_000_060_000)
	bounds := func(earliest, latest, logEnd int64) PartitionOffsets {
		return PartitionOffsets{Earliest: earliest, Latest: latest, HighWatermark: logEnd}
	}
	partition := func(committed *int64, earliest, latest, logEnd int64) GroupPartitionOffsets {
		return groupPartition("t", bounds(earliest, latest, logEnd), position{committed: committed})
	}
	share := func(start, lag, earliest, latest int64) GroupPartitionOffsets {
		return groupPartition("t", bounds(earliest, latest, latest), position{committed: &start, share: true, shareLag: &lag})
	}
	for _, tc := range []struct {
		name     string
		p        GroupPartitionOffsets
		wantFrom *int64 // where the Fetch looks; nil: no Fetch
		held     bool   // the Fetch looks under read_uncommitted, though the read is read_committed
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
			// Under read_committed, held behind an open transaction (last stable offset 10, high
			// watermark 15): the oldest held record counts, looked for under read_uncommitted.
			name: "read_committed commit at the last stable offset: the held record's age",
			p:    partition(ptr(10), 0, 10, 15), wantFrom: ptr(10), held: true,
			next: &NextRecord{Offset: 10, TimestampMs: 1_800_000_000_000},
			want: TimeLag{Next: &NextRecord{Offset: 10, TimestampMs: 1_800_000_000_000}, LagMs: ptr(60_000)},
		},
		{
			name: "read_committed commit between the last stable offset and the high watermark: held too",
			p:    partition(ptr(12), 0, 10, 15), wantFrom: ptr(12), held: true,
			next: &NextRecord{Offset: 12, TimestampMs: 1_800_000_030_000},
			want: TimeLag{Next: &NextRecord{Offset: 12, TimestampMs: 1_800_000_030_000}, LagMs: ptr(30_000)},
		},
		{
			name: "read_committed commit at the high watermark: caught up",
			p:    partition(ptr(15), 0, 10, 15),
			want: TimeLag{LagMs: ptr(0)},
		},
		{
			// Kafka keeps a share group's start offset behind the log start after DeleteRecords:
			// with nothing left to acknowledge, nothing waits.
			name: "share group behind the log start, lag 0: caught up",
			p:    share(2, 0, 4, 10),
			want: TimeLag{LagMs: ptr(0)},
		},
		{
			name: "share group behind the log start, lag 3: the first record still in the log",
			p:    share(2, 3, 4, 10), wantFrom: ptr(4),
			next: &NextRecord{Offset: 4, TimestampMs: 1_800_000_000_000},
			want: TimeLag{Next: &NextRecord{Offset: 4, TimestampMs: 1_800_000_000_000}, LagMs: ptr(60_000)},
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
			// Where the consumer resumes is its auto.offset.reset's: the log start's young record
			// must not pass a time gate for a consumer that skips to the end.
			name: "commit before the log start: unknown",
			p:    partition(ptr(2), 4, 10, 10),
			want: TimeLag{},
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
			from, iso, ok := nextFrom(tc.p, ReadCommitted)
			var gotFrom *int64
			if ok {
				gotFrom = &from
			}
			if diff := cmp.Diff(tc.wantFrom, gotFrom); diff != "" {
				t.Errorf("nextFrom (-want +got):\n%s", diff)
			}
			if want := map[bool]Isolation{false: ReadCommitted, true: ReadUncommitted}[tc.held]; ok && iso != want {
				t.Errorf("nextFrom looks under isolation %d, want %d", iso, want)
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

// The cost and values of FetchTimestamps on kfake: no Fetch without it; with it, one
// Fetch per partition leader for all the partitions it leads, and the exact next records.

// timeLagT0 stamps the test records: T0, T0+10 s and T0+20 s in one batch per partition.
var timeLagT0 = time.UnixMilli(1_790_000_000_250)

// fetchCountCluster: topic t of four partitions on brokers nodes (partition p led by
// leaders[p]), each a batch of three records (codecs none, gzip, lz4, zstd) stamped T0+10p s,
// T0+10p+10 s, T0+10p+20 s; group g committed at 1 (p0), 3 (p1: caught up), 0 (p2) and 2 (p3).
func fetchCountCluster(t *testing.T, brokers int, leaders []int32) *kfake.Cluster {
	t.Helper()
	c := newCluster(t, kfake.NumBrokers(brokers), kfake.SeedTopics(4, "t"))
	for p, node := range leaders {
		if err := c.MoveTopicPartition("t", int32(p), node); err != nil {
			t.Fatal(err)
		}
	}
	for p, codec := range []string{"none", "gzip", "lz4", "zstd"} {
		acctest.FakeProduceBatch(t, c, "t", int32(p), codec, stamped(10*p, 10*p+10, 10*p+20)...)
	}
	for p, at := range []int64{1, 3, 0, 2} {
		acctest.FakeCommit(t, c, "g", "t", int32(p), at)
	}
	return c
}

// nextRecords shows each partition's next record, "-" for none.
func nextRecords(ps []GroupPartitionOffsets) []string {
	var out []string
	for _, p := range ps {
		s := "-"
		if p.Next != nil {
			s = fmt.Sprintf("offset %d at %s logAppend=%v", p.Next.Offset,
				time.UnixMilli(p.Next.TimestampMs).UTC().Format(time.RFC3339Nano), p.Next.LogAppendTime)
		}
		out = append(out, fmt.Sprintf("t/%d: %s", p.Partition, s))
	}
	return out
}

// checkLags: each partition's LagMs is the read's time minus its next record's timestamp, 0
// when caught up; the read took place between from and to.
func checkLags(t *testing.T, ps []GroupPartitionOffsets, from, to time.Time) {
	t.Helper()
	for _, p := range ps {
		switch {
		case p.LagMs == nil:
			t.Errorf("t/%d: LagMs nil", p.Partition)
		case p.Next == nil && *p.LagMs != 0:
			t.Errorf("t/%d caught up: LagMs %d, want 0", p.Partition, *p.LagMs)
		case p.Next != nil && (*p.LagMs < from.UnixMilli()-p.Next.TimestampMs || *p.LagMs > to.UnixMilli()-p.Next.TimestampMs):
			t.Errorf("t/%d: LagMs %d is not the read's time minus %d", p.Partition, *p.LagMs, p.Next.TimestampMs)
		}
	}
}

func TestGroupOffsetsFetchTimestampsRequests(t *testing.T) {
	wantNext := []string{
		"t/0: offset 1 at " + stamped(10)[0].UTC().Format(time.RFC3339Nano) + " logAppend=false", // inside the batch
		"t/1: -", // caught up: no Fetch for it
		"t/2: offset 0 at " + stamped(20)[0].UTC().Format(time.RFC3339Nano) + " logAppend=false",
		"t/3: offset 2 at " + stamped(50)[0].UTC().Format(time.RFC3339Nano) + " logAppend=false", // the batch's last
	}
	for _, tc := range []struct {
		name            string
		brokers         int
		leaders         []int32 // by partition; nil: kfake's choice on one broker
		fetchTimestamps bool
		wantFetches     map[int32]int // by broker
		wantNext        []string
	}{
		{name: "without FetchTimestamps: no Fetch", brokers: 1, wantFetches: map[int32]int{},
			wantNext: []string{"t/0: -", "t/1: -", "t/2: -", "t/3: -"}},
		{name: "one leader: one Fetch for its three partitions behind", brokers: 1, fetchTimestamps: true,
			wantFetches: map[int32]int{0: 1}, wantNext: wantNext},
		{name: "two leaders: one Fetch each", brokers: 2, leaders: []int32{0, 1, 0, 1}, fetchTimestamps: true,
			wantFetches: map[int32]int{0: 1, 1: 1}, wantNext: wantNext},
		{name: "two leaders, the second with only a caught-up partition: one Fetch", brokers: 2, leaders: []int32{0, 1, 0, 0},
			fetchTimestamps: true, wantFetches: map[int32]int{0: 1}, wantNext: wantNext},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fetchCountCluster(t, tc.brokers, tc.leaders)
			cl := newClient(t, c, 5*time.Second)
			fetches := acctest.CountRequestsByBroker(c, int16(kmsg.Fetch))
			from := time.Now()
			res, err := cl.GroupOffsets(t.Context(), GroupOffsetsRequest{GroupID: "g", FetchTimestamps: tc.fetchTimestamps})
			to := time.Now()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantFetches, fetches()); diff != "" {
				t.Errorf("Fetch requests by broker (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantNext, nextRecords(res.Partitions)); diff != "" {
				t.Errorf("next records (-want +got):\n%s", diff)
			}
			if !tc.fetchTimestamps {
				for _, p := range res.Partitions {
					if p.TimeLag != (TimeLag{}) {
						t.Errorf("t/%d: a time lag without FetchTimestamps: %+v", p.Partition, p.TimeLag)
					}
				}
				if got := MaxTimeLag(res.Partitions); got != nil {
					t.Errorf("MaxTimeLag %d without FetchTimestamps, want nil", *got)
				}
				return
			}
			checkLags(t, res.Partitions, from, to)
			// the largest: partition 0's record at T0+10 s is the oldest unread
			if got := MaxTimeLag(res.Partitions); got == nil || *got != *res.Partitions[0].LagMs {
				t.Errorf("MaxTimeLag %v, want partition 0's %d", got, *res.Partitions[0].LagMs)
			}
		})
	}
}

// kafka_consumer_groups: groups at the same offset of a partition share its search; groups at
// different offsets of one partition need one Fetch per offset (a Fetch names a partition once).
func TestConsumerGroupsFetchTimestampsRequests(t *testing.T) {
	for _, tc := range []struct {
		name        string
		commits     map[string]int64 // group -> offset on t/0
		fetch       bool
		wantFetches int
		wantMax     map[string]*int64 // group -> the next record's timestamp in ms; nil: caught up (0)
	}{
		{name: "without FetchTimestamps: no Fetch", commits: map[string]int64{"a": 1, "b": 2}, wantFetches: 0},
		{name: "two groups at one offset: one Fetch", commits: map[string]int64{"a": 1, "b": 1, "c": 3}, fetch: true,
			wantFetches: 1, wantMax: map[string]*int64{"a": ptr(stamped(10)[0].UnixMilli()), "b": ptr(stamped(10)[0].UnixMilli()), "c": nil}},
		// The caught-up group's time lag is its own 0, not the age of the record at offset 0 that
		// the other group's search found.
		{name: "a caught-up group beside one at offset 0: its own 0", commits: map[string]int64{"a": 0, "b": 3}, fetch: true,
			wantFetches: 1, wantMax: map[string]*int64{"a": ptr(stamped(0)[0].UnixMilli()), "b": nil}},
		{name: "two groups at two offsets: two Fetches", commits: map[string]int64{"a": 1, "b": 2}, fetch: true,
			wantFetches: 2, wantMax: map[string]*int64{"a": ptr(stamped(10)[0].UnixMilli()), "b": ptr(stamped(20)[0].UnixMilli())}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, kfake.SeedTopics(1, "t"))
			acctest.FakeProduceBatch(t, c, "t", 0, "snappy", stamped(0, 10, 20)...)
			for g, at := range tc.commits {
				acctest.FakeCommit(t, c, g, "t", 0, at)
			}
			cl := newClient(t, c, 5*time.Second)
			fetches := acctest.CountRequestsByBroker(c, int16(kmsg.Fetch))
			from := time.Now()
			groups, err := cl.ConsumerGroups(t.Context(), ConsumerGroupsRequest{FetchTimestamps: tc.fetch})
			to := time.Now()
			if err != nil {
				t.Fatal(err)
			}
			if got := fetches()[0]; got != tc.wantFetches {
				t.Errorf("%d Fetch requests, want %d", got, tc.wantFetches)
			}
			if len(groups) != len(tc.commits) {
				t.Fatalf("groups %s, want %d", showGroups(groups), len(tc.commits))
			}
			for _, g := range groups {
				switch ts, behind := tc.wantMax[g.GroupID]; {
				case !tc.fetch:
					if g.MaxTimeLagMs != nil {
						t.Errorf("group %s: MaxTimeLagMs %d without FetchTimestamps", g.GroupID, *g.MaxTimeLagMs)
					}
				case g.MaxTimeLagMs == nil:
					t.Errorf("group %s: MaxTimeLagMs nil", g.GroupID)
				case !behind || ts == nil:
					if *g.MaxTimeLagMs != 0 {
						t.Errorf("group %s caught up: MaxTimeLagMs %d, want 0", g.GroupID, *g.MaxTimeLagMs)
					}
				case *g.MaxTimeLagMs < from.UnixMilli()-*ts || *g.MaxTimeLagMs > to.UnixMilli()-*ts:
					t.Errorf("group %s: MaxTimeLagMs %d is not the read's time minus %d", g.GroupID, *g.MaxTimeLagMs, *ts)
				}
			}
		})
	}
}
