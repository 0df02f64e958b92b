package kafkaclient

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The drained verdict: true only where every signal is proven quiet, each reason otherwise.
func TestJudgeDrained(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ms := func(d time.Duration) *int64 { v := now.Add(-d).UnixMilli(); return &v }
	quiet := TopicWriters{Name: "a", Partitions: []PartitionWriters{{HighWatermark: 2, MaxTimestamp: ms(48 * time.Hour)}}}
	caughtUp := GroupSummary{GroupID: "r", Verdict: Verdict{CaughtUp: true}}
	behind := GroupSummary{GroupID: "s", Verdict: Verdict{NotCaughtUp: []string{"a/0: lag 1 (committed_offset 1, latest_offset 2)"}}}
	for _, c := range []struct {
		name       string
		writers    TopicProducers
		readers    []GroupSummary
		notDrained []string
		lastWrite  *int64
	}{
		{name: "quiet, read", writers: TopicProducers{Topics: []TopicWriters{quiet}}, readers: []GroupSummary{caughtUp},
			notDrained: []string{}, lastWrite: ms(48 * time.Hour)},
		{name: "no topic left", notDrained: []string{}},
		{name: "written within quiet_for", writers: TopicProducers{Topics: []TopicWriters{{Name: "a",
			Partitions: []PartitionWriters{{HighWatermark: 2, MaxTimestamp: ms(time.Minute)}}}}},
			notDrained: []string{"a: last write 2026-12-01T11:59:00.000Z (the largest record timestamp, ListOffsets -3), within quiet_for (1h0m0s)"},
			lastWrite:  ms(time.Minute)},
		{name: "a producer wrote since the largest timestamp (its records deleted)", writers: TopicProducers{Topics: []TopicWriters{{Name: "a",
			Partitions: []PartitionWriters{{Partition: 3, HighWatermark: 2, LogStartOffset: 2,
				Producers: []ActiveProducer{{ProducerID: 7, LastTimestamp: ms(2 * time.Minute)}}}}}}},
			notDrained: []string{"a: last write 2026-12-01T11:58:00.000Z (producer id 7 on partition 3, DescribeProducers), within quiet_for (1h0m0s)"},
			lastWrite:  ms(2 * time.Minute)},
		{name: "records of unknown time", writers: TopicProducers{Topics: []TopicWriters{{Name: "a",
			Partitions: []PartitionWriters{{HighWatermark: 2}}}}},
			notDrained: []string{"a: holds records without a known write time (records without a timestamp), so nobody can vouch that it is quiet"}},
		{name: "a producer of unknown time", writers: TopicProducers{Topics: []TopicWriters{{Name: "a",
			Partitions: []PartitionWriters{{HighWatermark: 2, MaxTimestamp: ms(48 * time.Hour), Producers: []ActiveProducer{{ProducerID: 9}}}}}}},
			notDrained: []string{"a: partition 0: producer id 9 has no last write time, so nobody can vouch that it is quiet"}},
		{name: "an open transaction", writers: TopicProducers{Topics: []TopicWriters{{Name: "a", OpenTransactions: 1, HangingTransactions: 1,
			Partitions: quiet.Partitions}}}, readers: []GroupSummary{caughtUp},
			notDrained: []string{"a: 1 open transaction (1 hanging): read_committed readers wait behind it, and it may still write"},
			lastWrite:  ms(48 * time.Hour)},
		{name: "a reader behind", writers: TopicProducers{Topics: []TopicWriters{quiet}}, readers: []GroupSummary{caughtUp, behind},
			notDrained: []string{"group s has not caught up: a/0: lag 1 (committed_offset 1, latest_offset 2)"}, lastWrite: ms(48 * time.Hour)},
		{name: "topics the brokers cannot vouch for", writers: TopicProducers{Topics: []TopicWriters{quiet}, Unseen: "broker 1 answered DescribeLogDirs with CLUSTER_AUTHORIZATION_FAILED (error code 31)"},
			notDrained: []string{"topics not seen: cannot tell whether the provider's principal may DESCRIBE every topic the " +
				"pattern matches (broker 1 answered DescribeLogDirs with CLUSTER_AUTHORIZATION_FAILED (error code 31)), and Kafka " +
				"leaves the topics it may not out of the read: name the topics, or grant the principal DESCRIBE on the cluster"},
			lastWrite: ms(48 * time.Hour)},
		{name: "topics no ACL lets the brokers vouch for", writers: TopicProducers{Topics: []TopicWriters{quiet}, Unseen: "broker 1 does not serve DescribeLogDirs" + notByACL},
			notDrained: []string{"topics not seen: cannot tell whether the provider's principal may DESCRIBE every topic the " +
				"pattern matches (broker 1 does not serve DescribeLogDirs, which no ACL changes), and Kafka leaves the topics " +
				"it may not out of the read: name the topics"}, lastWrite: ms(48 * time.Hour)},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := judgeDrained(c.writers, c.readers, now, time.Hour)
			if diff := cmp.Diff(c.notDrained, d.NotDrained); diff != "" {
				t.Errorf("not drained (-want +got):\n%s", diff)
			}
			if d.Drained != (len(c.notDrained) == 0) {
				t.Errorf("drained = %v with reasons %q", d.Drained, d.NotDrained)
			}
			if show(d.LastWriteMs) != show(c.lastWrite) {
				t.Errorf("last write %s, want %s", show(d.LastWriteMs), show(c.lastWrite))
			}
		})
	}
}
