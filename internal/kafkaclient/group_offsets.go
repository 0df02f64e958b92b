package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// GroupOffsetsRequest says which consumer group to read, and which of its topics.
type GroupOffsetsRequest struct {
	GroupID string
	// Topics restricts the read to these topics (every partition of each, committed or not); nil
	// means every topic the group has committed offsets for.
	Topics []string
	// Isolation decides what Latest means (high watermark or last stable offset).
	Isolation Isolation
	// FetchTimestamps also reads the next record of every partition behind (a Fetch at the
	// commit, next_record.go) for its timestamp and the time lag (time_lag.go).
	FetchTimestamps bool
}

// GroupOffsets is a consumer group's progress, as read with DescribeGroups and OffsetFetch only:
// the read never joins, syncs, heartbeats or commits.
type GroupOffsets struct {
	// State is the group's state as its coordinator gives it, by the rule of group_state.go (Stable,
	// Empty, Dead, ...); "" where it does not say.
	State string
	// Type is the group's kind (ClassicGroup, ConsumerGroup, ShareGroup, StreamsGroup), as
	// ListGroups v5 lists it (classic where DescribeGroups describes it); "" where the broker does
	// not name kinds (before ListGroups v5, Kafka 3.8).
	Type string
	// Members is how many members the group has now (the describe API of its kind); -1 where
	// unknown (a live group of a broker before ListGroups v5 that DescribeGroups does not know).
	Members int
	// Partitions are sorted by topic, then partition.
	Partitions []GroupPartitionOffsets
	// Verdict is the group's over Partitions and what the read could see (verdict.go).
	Verdict
}

// GroupPartitionOffsets is one partition's committed offset and lag (verdict.go's rule).
type GroupPartitionOffsets struct {
	Topic     string
	Partition int
	// Committed is the next offset the group will read (OffsetFetch); nil where it has no commit.
	// For a share group, the share-partition start offset (Share).
	Committed *int64
	// Earliest is the partition's log start offset.
	Earliest int64
	// Latest is the partition's latest offset under the request's isolation level.
	Latest int64
	// Lag is Latest - Committed, as Kafka's kafka-consumer-groups.sh shows it: negative for a
	// commit past Latest, never clamped; nil where there is no commit. For a share group, the
	// broker's count where it gives one.
	Lag *int64
	// OutOfRange: the commit lies outside the log, before its start or past its end (the high
	// watermark). A consumer of the group that resumes there is answered OFFSET_OUT_OF_RANGE and
	// resets per its auto.offset.reset instead of reading from the commit. Never for a share group.
	OutOfRange bool
	// LogEnd is the high watermark, the offset the next record gets, whatever the isolation level:
	// under read_committed, where Latest is the last stable offset, the records between the two
	// are held behind an open transaction (Held).
	LogEnd int64
	// Assigned: a member of the group owns the partition now (assignments.go).
	Assigned bool
	// Share: the group is a share group (KIP-932): Committed is its start offset, Lag the broker's.
	Share bool
	// TimeLag is set with FetchTimestamps only (time_lag.go).
	TimeLag
}

// GroupNotFoundError: the group does not exist. Apache Kafka does not say "no such group": it
// describes the group as Dead and fetches no offsets (read: only where nothing is hidden from the
// principal). Some Kafka-compatible services (and franz-go's kfake) answer GROUP_ID_NOT_FOUND
// instead.
type GroupNotFoundError struct {
	GroupID string
	State   string
	// NoGroups: the cluster has no __consumer_offsets topic and no broker lists the group
	// (ListGroups): on Apache Kafka, no group has ever existed on the cluster.
	NoGroups bool
	// Op is the request that answered GROUP_ID_NOT_FOUND (69), if one did.
	Op string
	// Suggestions are the closest ids of the groups its coordinator listed, closest first
	// (suggest.go): what a misspelt or wrongly cased id may have meant.
	Suggestions []string
}

func (e *GroupNotFoundError) Error() string {
	switch {
	case e.Op != "":
		return fmt.Sprintf("consumer group %q does not exist: %s answered GROUP_ID_NOT_FOUND (error code 69)",
			e.GroupID, e.Op)
	case e.NoGroups:
		return fmt.Sprintf("consumer group %q does not exist: no broker lists it (ListGroups), and the cluster "+
			"has no %s topic (on Apache Kafka: no consumer group has ever existed on this cluster)", e.GroupID, offsetsTopic)
	}
	return fmt.Sprintf("consumer group %q does not exist: its coordinator neither describes nor lists it "+
		"(state %q) and OffsetFetch answers no committed offset for it", e.GroupID, e.State)
}

// groupReads is the room of the group reads: one group's commits, members and lag (this file),
// every group's (consumer_groups.go), and the requests they share: ListGroups (listgroups.go),
// OffsetFetch (offsetfetch.go), the describe APIs of each group kind (assignments.go) and
// DescribeShareGroupOffsets (share_groups.go). A group's lag is read through the other rooms.
type groupReads struct {
	cluster *clusterView
	offsets *offsetReads
	lags    *timeLags
}

// GroupOffsets reads a consumer group's committed offsets and the earliest and latest offsets of
// its partitions, within the read's timeout.
func (c *Client) GroupOffsets(ctx context.Context, req GroupOffsetsRequest) (GroupOffsets, error) {
	if req.Topics == nil { // it asks what the cluster holds (coverage.go)
		defer c.cluster.holdings.enter()()
	}
	return c.groups.read(ctx, req)
}

// read is GroupOffsets.
func (gr *groupReads) read(ctx context.Context, req GroupOffsetsRequest) (GroupOffsets, error) {
	ctx, cancel := gr.cluster.boundRead(ctx)
	defer cancel()
	r := &groupRead{gr: gr, group: req.GroupID}
	err := gr.cluster.withRetries(ctx, func(notBefore, believe time.Time) error { return r.attempt(ctx, notBefore, believe) })
	if errors.Is(err, errNoGroups) {
		return GroupOffsets{}, &GroupNotFoundError{GroupID: req.GroupID, State: "Dead", NoGroups: true}
	}
	if err != nil {
		return GroupOffsets{}, err
	}
	out := GroupOffsets{State: r.state, Type: r.kind, Members: r.members}
	topics, unseen := req.Topics, ""
	if topics == nil {
		for t := range r.committed {
			topics = append(topics, t)
		}
		for tp := range r.owns {
			topics = append(topics, tp.topic)
		}
		for t := range r.subscribed {
			topics = append(topics, t)
		}
		if unseen, err = gr.unseen(ctx); err != nil {
			return GroupOffsets{}, err
		}
	}
	slices.Sort(topics)
	topics = slices.Compact(topics)
	offsets, err := gr.topicsOffsets(ctx, req.Isolation, topics)
	var tnf *TopicNotFoundError
	if errors.As(err, &tnf) && req.Topics == nil {
		return GroupOffsets{}, fmt.Errorf("group %q has committed offsets for a topic that no longer exists "+
			"(list the topics to read in topics): %w", req.GroupID, err)
	}
	if err != nil {
		return GroupOffsets{}, err
	}
	// Nothing hidden: without topics, the read saw every topic of the cluster; with topics, Metadata
	// answered for each (a hidden one fails the read above).
	if r.unknown() && unseen == "" {
		return GroupOffsets{}, &GroupNotFoundError{GroupID: req.GroupID, State: r.state, Suggestions: suggest(req.GroupID, r.listed)}
	}
	for _, topic := range topics {
		for _, p := range offsets[topic] {
			pos := position{share: r.kind == ShareGroup, assigned: r.owns[topicPartition{topic, p.Partition}]}
			if offset, ok := r.committed[topic][p.Partition]; ok {
				pos.committed = &offset
			}
			if lag, ok := r.lags[topic][p.Partition]; ok {
				pos.shareLag = &lag
			}
			out.Partitions = append(out.Partitions, groupPartition(topic, p, pos))
		}
	}
	if req.FetchTimestamps {
		if err := gr.lags.readTimeLags(ctx, req.Isolation, out.Partitions); err != nil {
			return GroupOffsets{}, err
		}
	}
	out.Verdict, err = Judge(req.GroupID, out.Partitions, unseen, req.FetchTimestamps)
	return out, err
}

// unseen is what a read of every topic the group reads could not see (coverage.go).
func (gr *groupReads) unseen(ctx context.Context) (string, error) {
	var why string
	err := gr.cluster.withRetries(ctx, func(notBefore, _ time.Time) error {
		s, _, err := gr.cluster.holdings.snapshot(ctx, notBefore, true)
		if err != nil {
			return err
		}
		why, err = gr.cluster.unseenTopics(ctx, s)
		return err
	})
	return why, err
}

// groupRead is what the attempts of one GroupOffsets read learn of the group.
type groupRead struct {
	gr        *groupReads
	group     string
	state     string
	live      bool // the coordinator says the group has members
	committed map[string]map[int]int64
	doubtedAt time.Time // when the group first seemed not to exist

	kind       string                   // classic, consumer, share, streams (share_groups.go)
	lags       map[string]map[int]int64 // a share group's lags, as its coordinator counts them
	subscribed map[string]bool          // a share group's topics with state and no start offset

	members int                     // -1 where unknown
	owns    map[topicPartition]bool // what its members own now (assignments.go)
	listed  []string                // the groups its coordinator listed, where it was asked
}

// unknown: the coordinator neither describes nor lists the group (Dead), and OffsetFetch shows
// no commit. On Apache Kafka a group with commits is described Empty, so that is "not found"; but
// OffsetFetch leaves out the topics the principal may not DESCRIBE, so the read believes it only
// where nothing it covers is hidden (read). A group the coordinator describes or lists exists,
// whatever commits it shows.
func (r *groupRead) unknown() bool {
	return !r.live && len(r.committed) == 0 && r.kind != ShareGroup && r.state == "Dead"
}

// attempt is one try of withRetries: find the coordinator, the group's state and its commits.
func (r *groupRead) attempt(ctx context.Context, notBefore, believe time.Time) error {
	gr := r.gr
	if err := gr.groupMayExist(ctx, r.group, notBefore, believe); err != nil {
		return err
	}
	// Asked once per attempt: NOT_COORDINATOR and a refused connection mean it moved.
	coordinator, err := gr.findCoordinator(ctx, r.group)
	if err != nil {
		return err
	}
	d, err := gr.describeGroup(ctx, coordinator, r.group)
	if err != nil {
		return err
	}
	r.state, r.kind, r.live, r.members, r.owns, r.listed = d.state, d.kind, d.live, d.members, d.owns, d.listed
	if r.kind == ShareGroup { // listed, so it exists, with or without members and offsets
		so, err := gr.fetchShareOffsets(ctx, coordinator, r.group)
		r.committed, r.lags, r.subscribed = so.starts, so.lags, so.subscribed
		return err
	}
	if r.committed, err = gr.fetchCommitted(ctx, coordinator, r.group); err != nil {
		return err
	}
	if !r.live && len(r.committed) == 0 {
		// A coordinator that has just taken the group over (its broker restarted) can answer
		// for a moment as if the group did not exist (Kafka 4.4, measured in the chaos tests:
		// up to a few hundred milliseconds). "Not found" is believed once the attempts, each
		// with the coordinator looked up again and a new connection to it, have said so for
		// groupDoubt.
		if r.doubtedAt.IsZero() {
			r.doubtedAt = time.Now()
		}
		if time.Since(r.doubtedAt) < groupDoubt {
			gr.cluster.brokers.Drop(coordinator.address)
			return errGroupNotConfirmed
		}
	}
	return nil
}

// topicsOffsets reads the earliest and latest offsets (and the high watermark) of every partition of topics at once: one
// Metadata request for the topics not cached (cacheMetadata), and one round of ListOffsets per
// leader across the topics, not a round trip of each per topic.
func (gr *groupReads) topicsOffsets(ctx context.Context, isolation Isolation, topics []string) (map[string][]PartitionOffsets, error) {
	if len(topics) == 0 {
		return nil, nil
	}
	gr.cluster.cacheMetadata(ctx, topics)
	var out map[string][]PartitionOffsets
	err := gr.cluster.withRetries(ctx, func(notBefore, believe time.Time) error {
		leaders := map[topicPartition]leader{}
		for _, topic := range topics {
			ls, err := gr.cluster.leaders(ctx, topic, nil, notBefore, believe)
			if err != nil {
				return err
			}
			for p, l := range ls {
				leaders[topicPartition{topic, p}] = l
			}
		}
		var err error
		out, err = gr.offsets.listTopicsOffsets(ctx, OffsetsRequest{Isolation: isolation, HighWatermark: true}, partitionLeaders(leaders))
		return err
	})
	return out, err
}

// groupDoubt is how long a group must keep seeming not to exist before the read says so.
const groupDoubt = 500 * time.Millisecond

// errGroupNotConfirmed asks withRetries for another look at a group that seemed not to exist.
var errGroupNotConfirmed error = askAgain("the group seemed not to exist; asking its coordinator again")

// offsetsTopic is Kafka's internal topic of group metadata and committed offsets.
const offsetsTopic = "__consumer_offsets"

// errNoGroups: __consumer_offsets does not exist and no broker lists the group.
var errNoGroups = errors.New("no broker lists the group and " + offsetsTopic + " does not exist")

// groupMayExist decides, before any request that finds the group's coordinator, whether the
// group can exist. FindCoordinator for a group makes Apache Kafka create __consumer_offsets,
// which a read must not do. Where the metadata lists __consumer_offsets, the coordinator is
// asked. Where it does not, ListGroups on every broker (which creates nothing) decides: on Apache
// Kafka no broker lists a group then (no group has ever existed), while Kafka-compatible services
// that keep offsets elsewhere (Azure Event Hubs; franz-go's kfake) list it, a group with commits
// and no members as Empty. A "no" from a cached layout is asked again fresh before it is believed.
func (gr *groupReads) groupMayExist(ctx context.Context, group string, notBefore, believe time.Time) error {
	md, err := gr.cluster.topicMetadata(ctx, offsetsTopic, notBefore)
	if err != nil {
		return err
	}
	if !md.missing() {
		return nil
	}
	listed, err := gr.listedAnywhere(ctx, group)
	switch {
	case err != nil || listed:
		return err
	case md.requested.Before(believe):
		return errStaleMetadata
	}
	return errNoGroups
}

// findCoordinator asks the seed which broker coordinates the group.
func (gr *groupReads) findCoordinator(ctx context.Context, group string) (leader, error) {
	op := fmt.Sprintf("FindCoordinator for group %q", group)
	addr, err := gr.cluster.seedAddr(ctx)
	if err != nil {
		return leader{}, gr.cluster.seedError(err)
	}
	sent := time.Now()
	m, err := gr.cluster.brokers.RoundTrip(ctx, addr, &kmsg.FindCoordinatorRequest{CoordinatorKey: group}) // CoordinatorType 0: a group
	if err != nil {
		gr.cluster.layout.dropSeed(addr)
		return leader{}, gr.cluster.requestError(op, addr, -1, err)
	}
	fc, err := answerAs[*kmsg.FindCoordinatorResponse](op, m)
	if err != nil {
		return leader{}, err
	}
	if fc.ErrorCode != 0 {
		return leader{}, &BrokerError{Op: "FindCoordinator", Group: group, Partition: -1, Code: ErrorCode(fc.ErrorCode)}
	}
	coordinator := leader{id: fc.NodeID, address: net.JoinHostPort(fc.Host, strconv.Itoa(int(fc.Port)))}
	gr.cluster.layout.noteNamed(coordinator.address, sent)
	return coordinator, nil
}

// describedGroup is what a group's coordinator says of it.
type describedGroup struct {
	state, kind string
	live        bool                    // it has members
	members     int                     // how many; -1 where no describe API answers for its kind
	owns        map[topicPartition]bool // what its members own now (assignments.go)
	listed      []string                // the groups ListGroups listed, where the coordinator was asked
}

// describeGroup asks the group's coordinator for its state, kind, members and what they own.
// DescribeGroups answers for classic groups; a group it does not know (Dead, or GROUP_ID_NOT_FOUND), a KIP-848 consumer group among
// them, is looked up with ListGroups on its coordinator, then, with members, described by the API
// of its kind. A group neither knows is Dead without members: OffsetFetch then decides whether it
// exists (its commits outlive its members).
func (gr *groupReads) describeGroup(ctx context.Context, coordinator leader, group string) (describedGroup, error) {
	m, err := gr.cluster.brokers.RoundTrip(ctx, coordinator.address, &kmsg.DescribeGroupsRequest{Groups: []string{group}})
	if err != nil {
		return describedGroup{}, gr.cluster.requestError(fmt.Sprintf("DescribeGroups for group %q", group),
			coordinator.address, int(coordinator.id), err)
	}
	op := fmt.Sprintf("DescribeGroups for group %q", group)
	res, err := answerAs[*kmsg.DescribeGroupsResponse](op, m)
	if err != nil {
		return describedGroup{}, err
	}
	if len(res.Groups) != 1 {
		return describedGroup{}, fmt.Errorf("%s: %d groups in the answer, want 1", op, len(res.Groups))
	}
	g := res.Groups[0]
	state, isClassic := describedState(g) // DescribeGroups describes classic groups only (group_state.go)
	switch code := kafka.Error(g.ErrorCode); {
	case isClassic:
		owns, counts := owned{}, memberCounts{}
		if err := classicOwned(owns, counts, g); err != nil {
			return describedGroup{}, err
		}
		return describedGroup{state: state, kind: gr.classicKind(ctx, coordinator), live: len(g.Members) > 0,
			members: counts[group], owns: owns[group]}, nil
	case code != 0 && code != kafka.GroupIdNotFound:
		return describedGroup{}, &BrokerError{Op: "DescribeGroups", Group: group, Partition: -1, Code: ErrorCode(code)}
	}
	groups, err := gr.listGroupsOn(ctx, coordinator, group)
	if err != nil {
		return describedGroup{state: "Dead"}, err
	}
	lg, found := listedGroup(groups, group)
	if !found {
		return describedGroup{state: "Dead", listed: groupIDs(groups)}, nil
	}
	d := describedGroup{state: lg.GroupState, kind: lg.GroupType, live: lg.GroupState != "Empty" && lg.GroupState != "Dead", members: -1}
	if !d.live {
		d.members = 0
		return d, nil
	}
	if d.kind == "" { // a broker before ListGroups v5 does not say which API describes it
		return d, nil
	}
	got, err := gr.describeAssignments(ctx, coordinator, d.kind, []string{group})
	if n, ok := got.counts[group]; ok {
		d.members, d.owns = n, got.owns[group]
	}
	return d, err
}

// classicKind is the kind of a group DescribeGroups describes, as kafka_consumer_groups would read
// it from ListGroups: ClassicGroup where the coordinator names kinds (ListGroups v5, Kafka 3.8+),
// "" where it does not, so that both data sources say the same of one group.
func (gr *groupReads) classicKind(ctx context.Context, coordinator leader) string {
	conn, err := gr.cluster.brokers.Get(ctx, coordinator.address) // the connection DescribeGroups just used
	if err != nil {
		return ""
	}
	if v, _ := conn.Version(kmsg.ListGroups); v < wire.ListGroupsTypeVersion {
		return ""
	}
	return ClassicGroup
}

// fetchCommitted returns the group's committed offsets by topic and partition (OffsetFetch for
// all topics: brokers leave out the topics the principal may not DESCRIBE); partitions without a
// commit (-1) are left out.
func (gr *groupReads) fetchCommitted(ctx context.Context, coordinator leader, group string) (map[string]map[int]int64, error) {
	fetched, err := gr.offsetFetch(ctx, coordinator, []string{group}, false)
	if err != nil {
		return nil, gr.cluster.requestError(fmt.Sprintf("OffsetFetch for group %q", group),
			coordinator.address, int(coordinator.id), err)
	}
	g := fetched[group]
	if err := groupError("OffsetFetch", group, codeError(int16(g.Code))); err != nil {
		return nil, err
	}
	out := map[string]map[int]int64{}
	for _, t := range g.Topics {
		for _, p := range t.Partitions {
			if err := groupError("OffsetFetch", group, codeError(p.ErrorCode)); err != nil {
				var be *BrokerError
				if errors.As(err, &be) {
					be.Topic, be.Partition = t.Topic, int(p.Partition)
				}
				return nil, err
			}
			if p.Offset < 0 {
				continue
			}
			if out[t.Topic] == nil {
				out[t.Topic] = map[int]int64{}
			}
			out[t.Topic][int(p.Partition)] = p.Offset
		}
	}
	return out, nil
}
