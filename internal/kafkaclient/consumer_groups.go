package kafkaclient

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ConsumerGroupsRequest selects consumer groups.
type ConsumerGroupsRequest struct {
	// Topics, when not nil, keeps only the groups that read at least one of these topics (a
	// committed offset there, or a member that owns one of its partitions now or subscribes to
	// it), and only these
	// topics in each group's figures. Each must exist.
	Topics []string
	// GroupID, when set, must match the whole group id (see WholeMatch).
	GroupID *regexp.Regexp
	// Isolation decides what the latest offset, and so the lag, is.
	Isolation Isolation
	// FetchTimestamps also reads each group's time lag (time_lag.go) into MaxTimeLagMs.
	FetchTimestamps bool
}

// GroupSummary is one consumer group's progress over the topics it has commits on.
type GroupSummary struct {
	GroupID string
	// State as the coordinator gives it, by the rule of group_state.go (ListGroups v4+, Kafka 2.6+,
	// or DescribeGroups for a classic group the read describes): Stable, Empty, ...; "" where it
	// does not say.
	State string
	// ProtocolType is "consumer" for consumer groups (classic and KIP-848), "connect" for Kafka
	// Connect workers, "streams" for streams groups (KIP-1071), "share" for share groups,
	// "" for groups that only ever had offsets committed by an admin client.
	ProtocolType string
	// Type is the group's kind (ListGroups v5): classic, consumer, share, streams; "" below v5.
	Type string
	// Topics are the topics the group reads (within the request's Topics), sorted.
	Topics []string
	// Committed: the group has commits on Topics (a share group: share-partition state).
	Committed bool
	// Assigned: its members own partitions of Topics now (assignments.go).
	Assigned bool
	// Subscribed: its members subscribe to a topic of Topics on which the group neither has a
	// commit nor owns a partition yet (a share member that has fetched nothing, say).
	Subscribed bool
	// Verdict is the group's over every partition of Topics, and what the read could see
	// (verdict.go): the same rule as GroupOffsets', so that both data sources say the same.
	Verdict
}

// ConsumerGroups lists the consumer groups of the cluster with their lag, within the Client's
// timeout. It sends one Metadata request (every topic; shared by the reads in flight, as is
// DescribeLogDirs, asked where topics is nil and groups are listed: holdings.go), ListGroups to every broker (a broker
// lists only the groups it coordinates), OffsetFetch to each coordinator for all its selected
// groups at once (one request per group where the coordinator serves OffsetFetch below v8), and
// ListOffsets per partition leader for every committed partition of every group; for share groups,
// which commit nothing, DescribeShareGroupOffsets to each coordinator instead of OffsetFetch
// (share_groups.go); and for groups with members, the describe request of their kind to each
// coordinator (assignments.go). It never sends
// FindCoordinator (which would create __consumer_offsets on a cluster without groups), and
// never joins, syncs or commits.
func (c *Client) ConsumerGroups(ctx context.Context, req ConsumerGroupsRequest) ([]GroupSummary, error) {
	defer c.cluster.holdings.enter()() // it reads what the cluster holds (holdings.go)
	return c.groups.all(ctx, req)
}

// all is ConsumerGroups.
func (gr *groupReads) all(ctx context.Context, req ConsumerGroupsRequest) ([]GroupSummary, error) {
	ctx, cancel := gr.cluster.boundRead(ctx)
	defer cancel()

	var out []GroupSummary
	err := gr.cluster.withRetries(ctx, func(notBefore, believe time.Time) error {
		snap, md, err := gr.cluster.holdings.snapshot(ctx, notBefore, false)
		if err != nil {
			return err
		}
		if err := md.listsEveryGroup(); err != nil {
			return err
		}
		fresh := !md.requested.Before(believe)
		if err := gr.checkTopicsExist(ctx, md, req.Topics, fresh); err != nil {
			return err
		}
		listed, err := gr.listAllGroups(ctx, md.brokers, req.GroupID)
		if err != nil {
			return err
		}
		if req.Topics == nil && len(listed) > 0 { // asked beside the groups' requests: unseenTopics below
			gr.cluster.holdings.prefetchHeld(ctx, snap)
		}
		committed, err := gr.fetchAllOffsets(ctx, listed)
		if err != nil {
			return err
		}
		shared, lags, idle, err := gr.fetchAllShareOffsets(ctx, listed) // share_groups.go
		if err != nil {
			return err
		}
		maps.Copy(committed, shared)
		assigned, subscribed, err := gr.fetchAllAssignments(ctx, listed)
		if err != nil {
			return err
		}
		for id, topics := range idle { // share-partition state without a start offset: subscribed
			subscribed.add(id, slices.Collect(maps.Keys(topics)))
		}
		unseen := ""
		if req.Topics == nil && len(listed) > 0 {
			if unseen, err = gr.cluster.unseenTopics(ctx, snap); err != nil { // coverage.go
				return err
			}
		}
		out, err = gr.summarize(ctx, md, req, listed, committed, lags, groupReaders{assigned, subscribed}, fresh, unseen)
		return err
	})
	return out, err
}

// WholeMatch compiles an RE2 pattern that must match a whole name, as Kafka's own tools match
// topic and group patterns: "orders" matches "orders", not "orders.v2".
func WholeMatch(pattern string) (*regexp.Regexp, error) {
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, err // the error quotes the user's pattern, not the anchored one
	}
	return regexp.Compile(`^(?:` + pattern + `)$`)
}

// checkTopicsExist confirms, from fresh metadata, that every topic of a filter exists: a
// misspelt name would otherwise select no group, and a gate would pass. A topic the answer for
// every topic leaves out is asked by name: Kafka leaves out the topics the principal may not
// DESCRIBE, and answers TOPIC_AUTHORIZATION_FAILED for them by name, UNKNOWN_TOPIC_OR_PARTITION
// for the ones that do not exist.
func (gr *groupReads) checkTopicsExist(ctx context.Context, md *clusterMetadata, topics []string, fresh bool) error {
	var missing []string
	for _, topic := range topics {
		if t := md.find(topic); t == nil || t.code != 0 {
			if !fresh {
				return errStaleMetadata
			}
			if t != nil && t.code != kafka.UnknownTopicOrPartition {
				return &BrokerError{Op: "Metadata", Topic: topic, Partition: -1, Code: ErrorCode(t.code)}
			}
			missing = append(missing, topic)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	res, err := gr.cluster.askMetadata(ctx, missing)
	if err != nil {
		return err
	}
	for topic, t := range topicsOf(res, missing, md.requested) {
		switch t.code {
		case kafka.UnknownTopicOrPartition:
			return &TopicNotFoundError{Topic: topic, Suggestions: suggest(topic, md.existingTopics())}
		case 0:
			return errStaleMetadata // created since
		default:
			return &BrokerError{Op: "Metadata", Topic: topic, Partition: -1, Code: ErrorCode(t.code)}
		}
	}
	return nil
}

// summarize keeps the selected groups and topics, reads the log bounds of every partition of the
// topics the selected groups read (ListOffsets per leader across all topics, one round), the time
// lags when asked, and judges each group over its partitions and what the read could see
// (unseen).
func (gr *groupReads) summarize(ctx context.Context, md *clusterMetadata, req ConsumerGroupsRequest,
	listed map[string]listedGroupInfo, committed map[string][]kmsg.OffsetFetchResponseGroupTopic,
	shareLags map[string]map[topicPartition]int64, readers groupReaders, fresh bool, unseen string,
) ([]GroupSummary, error) {
	commits, err := selectCommits(md, req.Topics, committed, fresh)
	if err != nil {
		return nil, err
	}
	owns, err := selectOwned(md, req.Topics, readers.owns, fresh)
	if err != nil {
		return nil, err
	}
	subs, err := selectSubscribed(md, req.Topics, readers.subscribed, fresh)
	if err != nil {
		return nil, err
	}
	var ids []string
	for id := range listed {
		if _, fetched := committed[id]; !fetched {
			continue // vanished since ListGroups
		}
		if req.Topics != nil && len(commits[id]) == 0 && len(owns[id]) == 0 && len(subs[id]) == 0 {
			continue
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	bounds, err := gr.readBounds(ctx, md, req.Isolation, ids, commits, owns, subs)
	if err != nil {
		return nil, err
	}
	out := make([]GroupSummary, len(ids))
	partitions := make([][]GroupPartitionOffsets, len(ids)) // of out's groups, in the same order
	for i, id := range ids {
		out[i], partitions[i] = groupSummary(id, listed[id], md, commits[id], owns[id], subs[id], bounds, shareLags[id])
	}
	if req.FetchTimestamps {
		if err := gr.lags.readTimeLags(ctx, req.Isolation, partitions...); err != nil {
			return nil, err
		}
	}
	for i, id := range ids {
		if out[i].Verdict, err = Judge(id, partitions[i], unseen, req.FetchTimestamps); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readBounds reads the log bounds (earliest and latest offsets) of every partition of the topics
// the groups ids read (a commit there, or a member that owns one of its partitions or subscribes
// to it): the lag of
// a commit, and for the caught-up verdict whether records wait where the group has no commit (a
// partition added since it committed, say). One ListOffsets round per leader.
func (gr *groupReads) readBounds(ctx context.Context, md *clusterMetadata, isolation Isolation, ids []string,
	commits map[string]map[topicPartition]int64, owns owned, subs subscriptions,
) (map[topicPartition]PartitionOffsets, error) {
	leaders := map[topicPartition]leader{}
	for _, id := range ids {
		for _, topic := range readTopics(commits[id], owns[id], subs[id]) {
			mt := md.existing(topic)
			for partition := range mt.partitions {
				l, err := md.leaderOf(mt, partition)
				if err != nil {
					return nil, err
				}
				leaders[topicPartition{topic, int(partition)}] = l
			}
		}
	}
	bounds := map[topicPartition]PartitionOffsets{}
	if len(leaders) == 0 {
		return bounds, nil
	}
	res, err := gr.offsets.listTopicsOffsets(ctx, OffsetsRequest{Isolation: isolation, HighWatermark: true}, partitionLeaders(leaders))
	for topic, ps := range res {
		for _, p := range ps {
			bounds[topicPartition{topic, p.Partition}] = p
		}
	}
	return bounds, err
}

// readTopics is the topics of a group's commits, owned partitions and subscriptions, sorted, each once.
func readTopics(commits map[topicPartition]int64, owns map[topicPartition]bool, subscribed map[string]bool) []string {
	topics := []string{}
	for tp := range commits {
		topics = append(topics, tp.topic)
	}
	for tp := range owns {
		topics = append(topics, tp.topic)
	}
	for topic := range subscribed {
		topics = append(topics, topic)
	}
	slices.Sort(topics)
	return slices.Compact(topics)
}

// selectCommits keeps each group's commits to the selected topics (nil: all) and to partitions
// the metadata knows. A commit to a partition the metadata lacks is asked again with fresh
// metadata, then left out.
func selectCommits(md *clusterMetadata, topics []string, committed map[string][]kmsg.OffsetFetchResponseGroupTopic, fresh bool,
) (map[string]map[topicPartition]int64, error) {
	filter := topicSet(topics)
	commits := map[string]map[topicPartition]int64{} // by group
	for id, topics := range committed {
		commits[id] = map[topicPartition]int64{}
		for _, t := range topics {
			if filter != nil && !filter[t.Topic] {
				continue
			}
			for _, p := range t.Partitions {
				if p.Offset < 0 {
					continue // no commit
				}
				if !md.existing(t.Topic).hasPartition(p.Partition) {
					// The topic (or partition) is gone: Kafka drops the commits of deleted topics
					// soon after. A cached layout may also just lag behind.
					if !fresh {
						return nil, errStaleMetadata
					}
					continue
				}
				commits[id][topicPartition{t.Topic, int(p.Partition)}] = p.Offset
			}
		}
	}
	return commits, nil
}

// groupReaders is what the describe APIs say the groups' members read.
type groupReaders struct {
	owns       owned
	subscribed subscriptions
}

// selectSubscribed keeps, of the topics each group's members subscribe to, the selected ones
// (nil: all) that the metadata knows. A topic the metadata lacks is asked again with fresh
// metadata (it may be new), then left out: a member may subscribe to a topic that does not exist.
func selectSubscribed(md *clusterMetadata, topics []string, subscribed subscriptions, fresh bool) (subscriptions, error) {
	filter := topicSet(topics)
	out := subscriptions{}
	for id, ts := range subscribed {
		for topic := range ts {
			switch {
			case filter != nil && !filter[topic]:
			case md.existing(topic) != nil:
				out.add(id, []string{topic})
			case !fresh:
				return nil, errStaleMetadata
			}
		}
	}
	return out, nil
}

// selectOwned keeps, of what each group's members own, the partitions of the selected topics
// (nil: all) that the metadata knows. A partition the metadata lacks is asked again with fresh
// metadata (it may be new), then left out: an assignment may name a topic deleted since.
func selectOwned(md *clusterMetadata, topics []string, assigned owned, fresh bool) (owned, error) {
	filter := topicSet(topics)
	out := owned{}
	for id, tps := range assigned {
		for tp := range tps {
			switch {
			case filter != nil && !filter[tp.topic]:
			case md.existing(tp.topic).hasPartition(int32(tp.partition)):
				out.add(id, tp.topic, []int32{int32(tp.partition)})
			case !fresh:
				return nil, errStaleMetadata
			}
		}
	}
	return out, nil
}

// topicSet is topics as a set; nil for nil (every topic).
func topicSet(topics []string) map[string]bool {
	if topics == nil {
		return nil
	}
	set := make(map[string]bool, len(topics))
	for _, t := range topics {
		set[t] = true
	}
	return set
}

// groupSummary is one group's summary, but its verdict: every partition of the topics it reads,
// with its commit there (a share group's start offset, and its lag where the broker gives it)
// and whether a member owns it, from the bounds read (verdict.go's groupPartition); and those
// partitions, sorted.
func groupSummary(id string, info listedGroupInfo, md *clusterMetadata, commits map[topicPartition]int64,
	owns map[topicPartition]bool, subscribed map[string]bool, bounds map[topicPartition]PartitionOffsets,
	shareLags map[topicPartition]int64,
) (GroupSummary, []GroupPartitionOffsets) {
	s := GroupSummary{GroupID: id, State: info.state, ProtocolType: info.protocolType, Type: info.groupType,
		Topics: readTopics(commits, owns, subscribed), Committed: len(commits) > 0, Assigned: len(owns) > 0}
	s.Subscribed = len(readTopics(commits, owns, nil)) < len(s.Topics)
	var partitions []GroupPartitionOffsets
	for _, topic := range s.Topics {
		for _, partition := range slices.Sorted(maps.Keys(md.existing(topic).partitions)) {
			tp := topicPartition{topic, int(partition)}
			pos := position{share: info.groupType == ShareGroup, assigned: owns[tp]}
			if offset, ok := commits[tp]; ok {
				pos.committed = &offset
			}
			if lag, ok := shareLags[tp]; ok {
				pos.shareLag = &lag
			}
			partitions = append(partitions, groupPartition(topic, bounds[tp], pos))
		}
	}
	return s, partitions
}
