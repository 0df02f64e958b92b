package kafkaclient

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// TopicsOffsetsRequest selects topics by name.
type TopicsOffsetsRequest struct {
	// Name, when set, must match the whole topic name (see WholeMatch); nil selects every topic.
	Name *regexp.Regexp
	// IncludeInternal also selects Kafka's internal topics (__consumer_offsets,
	// __transaction_state, ...), which Metadata marks as internal.
	IncludeInternal bool
	Isolation       Isolation
	// LastWrite also reads each partition's record with the largest timestamp
	// (OffsetsRequest.LastWrite): one more ListOffsets request per leader.
	LastWrite bool
}

// TopicOffsets is one selected topic's partitions.
type TopicOffsets struct {
	Name     string
	Internal bool
	// Partitions are sorted by partition, with Earliest and Latest (and with LastWrite, the max
	// timestamp).
	Partitions []PartitionOffsets
}

// LastWriteMs is the largest record timestamp of partitions (their MaxTimestamp, read with
// OffsetsRequest.LastWrite), in milliseconds since the Unix epoch: the time of the topic's last
// write, as its producers (CreateTime) or its brokers (LogAppendTime) stamped it, records deleted
// since included (lastWrite).
func LastWriteMs(partitions []PartitionOffsets) *int64 {
	return lastWrite(partitions, func(p PartitionOffsets) (bool, *int64) {
		return p.Latest > p.Earliest || p.HighWatermark > p.Earliest, p.MaxTimestamp
	})
}

// lastWrite is the one rule of a last write over partitions, for every read that gives one:
// the largest of the timestamps that partition gives (holds: the partition holds records; ts:
// its largest record timestamp, nil where not known). nil where no partition has one (no record
// ever, or none with a timestamp), and where a partition that holds records has none: the latest
// of the others would then claim a quiet topic that nobody can vouch for.
func lastWrite[T any](partitions []T, partition func(T) (holds bool, ts *int64)) *int64 {
	var last *int64
	for _, p := range partitions {
		holds, ts := partition(p)
		switch {
		case ts == nil && holds:
			return nil
		case ts != nil && (last == nil || *ts > *last):
			last = ts
		}
	}
	return last
}

// TopicsOffsets reads the earliest and latest offsets of every partition of the selected topics,
// sorted by name, within the read's timeout. It sends one Metadata request (a null topic list:
// every topic the principal may DESCRIBE; never an auto-creation; shared by the reads in flight,
// holdings.go) and, for each of the earliest
// and the latest offset, one ListOffsets request per partition leader carrying that leader's
// partitions of every selected topic: the requests grow with the brokers, not with the topics.
//
// Kafka leaves the topics the principal may not DESCRIBE out of Metadata, silently: the read also
// asks each broker which topics it holds (DescribeLogDirs, coverage.go) and fails with a
// *TopicsHiddenError where one the request selects is hidden, rather than answer without it.
// unseen says why the brokers could not tell (no DESCRIBE on the cluster); "" where they could.
func (c *Client) TopicsOffsets(ctx context.Context, req TopicsOffsetsRequest) (topics []TopicOffsets, unseen string, err error) {
	defer c.cluster.holdings.enter()() // it reads what the cluster holds (holdings.go)
	return c.offsets.topics(ctx, req)
}

// TopicsHiddenError: topics the request selects exist, and the principal may not DESCRIBE them.
type TopicsHiddenError struct {
	Topics []string // sorted
}

func (e *TopicsHiddenError) Error() string {
	return fmt.Sprintf("the provider's principal may not DESCRIBE %d topic%s that the selection matches (%s), which Kafka "+
		"leaves out of the read", len(e.Topics), plural(len(e.Topics)), namedTopics(e.Topics))
}

// selects: req selects a topic of this name (a topic Metadata did not describe: internal by name).
func (req TopicsOffsetsRequest) selects(name string) bool {
	return (req.IncludeInternal || !slices.Contains(internalTopics, name)) && (req.Name == nil || req.Name.MatchString(name))
}

// topics is TopicsOffsets: one Metadata request for every topic, then the selected topics' offsets.
func (ofs *offsetReads) topics(ctx context.Context, req TopicsOffsetsRequest) ([]TopicOffsets, string, error) {
	ctx, cancel := ofs.cluster.boundRead(ctx)
	defer cancel()

	var (
		out    []TopicOffsets
		unseen string
	)
	err := ofs.cluster.withRetries(ctx, func(notBefore, believe time.Time) error {
		snap, md, err := ofs.cluster.holdings.snapshot(ctx, notBefore, false) // its DescribeLogDirs goes beside the offsets, below
		if err != nil {
			return err
		}
		selected, leaders, err := selectTopics(md, req)
		if err != nil {
			return err
		}
		if len(selected) == 0 && md.requested.Before(believe) {
			return errStaleMetadata // "no such topic" is told from Metadata asked during the read
		}
		// Which topics are hidden (coverage.go) is asked beside the offsets, not after them.
		var (
			hidden       []string
			unknown      string
			hiddenErr    error
			askedLogDirs = make(chan struct{})
		)
		go func() {
			defer close(askedLogDirs)
			hidden, unknown, hiddenErr = ofs.cluster.hiddenTopics(ctx, snap, req.selects)
		}()
		offsets, err := ofs.listTopicsOffsets(ctx, OffsetsRequest{Isolation: req.Isolation, LastWrite: req.LastWrite}, leaders)
		<-askedLogDirs
		switch {
		case err != nil:
			return err
		case hiddenErr != nil:
			return hiddenErr
		case len(hidden) > 0:
			return &TopicsHiddenError{Topics: hidden}
		}
		unseen = unknown
		out = selected
		for i := range out {
			out[i].Partitions = offsets[out[i].Name]
		}
		return nil
	})
	return out, unseen, err
}

// selectTopics picks the topics of md that req selects, sorted by name, and the leader of each of
// their partitions. A topic that Metadata answers with an error (LEADER_NOT_AVAILABLE while it is
// being created) fails the attempt, retriable codes being retried.
func selectTopics(md *clusterMetadata, req TopicsOffsetsRequest) ([]TopicOffsets, []partitionLeader, error) {
	var (
		selected   []TopicOffsets
		topics     []*clusterTopic // of selected, in the same order
		partitions int
	)
	for i := range md.topics {
		t := &md.topics[i]
		if t.internal && !req.IncludeInternal || req.Name != nil && !req.Name.MatchString(t.name) {
			continue
		}
		if t.code != 0 {
			return nil, nil, &BrokerError{Op: "Metadata", Topic: t.name, Partition: -1, Code: ErrorCode(t.code)}
		}
		selected, topics = append(selected, TopicOffsets{Name: t.name, Internal: t.internal}), append(topics, t)
		partitions += len(t.partitions)
	}
	leaders := make([]partitionLeader, 0, partitions)
	for _, t := range topics {
		for p := range t.partitions {
			l, err := md.leaderOf(t, p)
			if err != nil {
				return nil, nil, err
			}
			leaders = append(leaders, partitionLeader{topicPartition{t.name, int(p)}, l})
		}
	}
	slices.SortFunc(selected, func(a, b TopicOffsets) int { return strings.Compare(a.Name, b.Name) })
	return selected, leaders, nil
}
