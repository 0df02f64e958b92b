package kafkaclient

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// ConsumerGroupsRequest selects consumer groups.
type ConsumerGroupsRequest struct {
	// Topics, when not nil, keeps only the groups with a committed offset on at least one of these
	// topics, and only these topics in each group's figures. Each must exist.
	Topics []string
	// GroupID, when set, must match the whole group id (see WholeMatch).
	GroupID *regexp.Regexp
	// Isolation decides what the latest offset, and so the lag, is.
	Isolation Isolation
}

// GroupSummary is one consumer group's progress over the topics it has commits on.
type GroupSummary struct {
	GroupID string
	// State as the coordinator lists it (ListGroups v4+, Kafka 2.6+): Stable, Empty, ...; "" from
	// older brokers, which do not say.
	State string
	// ProtocolType is "consumer" for consumer groups (classic and KIP-848), "connect" for Kafka
	// Connect workers, "" for groups that only ever had offsets committed by an admin client.
	ProtocolType string
	// Topics are the topics the group has commits on (within the request's Topics), sorted.
	Topics []string
	// TotalLag sums the positive lags (latest − committed, groups.go's rule) of the committed
	// partitions of Topics.
	TotalLag int64
}

// ConsumerGroups lists the consumer groups of the cluster with their lag, within the Client's
// timeout. It sends one Metadata request (every topic), ListGroups to every broker (a broker
// lists only the groups it coordinates), OffsetFetch to each coordinator for all its selected
// groups at once (one request per group where the coordinator serves OffsetFetch below v8), and
// ListOffsets per partition leader for every committed partition of every group. It never sends
// FindCoordinator (which would create __consumer_offsets on a cluster without groups), and
// never joins, syncs or commits.
func (c *Client) ConsumerGroups(ctx context.Context, req ConsumerGroupsRequest) ([]GroupSummary, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()

	var out []GroupSummary
	err := c.withRetries(ctx, func(_, believe time.Time) error {
		md, err := c.allMetadata(ctx)
		if err != nil {
			return err
		}
		fresh := !md.requested.Before(believe)
		if err := checkTopicsExist(md, req.Topics, fresh); err != nil {
			return err
		}
		listed, err := c.listAllGroups(ctx, md.brokers, req.GroupID)
		if err != nil {
			return err
		}
		committed, err := c.fetchAllOffsets(ctx, listed)
		if err != nil {
			return err
		}
		out, err = c.summarize(ctx, md, req, listed, committed, fresh)
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
// misspelt name would otherwise select no group, and a gate would pass.
func checkTopicsExist(md *clusterMetadata, topics []string, fresh bool) error {
	for _, topic := range topics {
		if t := md.find(topic); t == nil || t.code != 0 {
			if !fresh {
				return errStaleMetadata
			}
			if t != nil && t.code != kafka.UnknownTopicOrPartition {
				return &BrokerError{Op: "Metadata", Topic: topic, Partition: -1, Code: ErrorCode(t.code)}
			}
			return &TopicNotFoundError{Topic: topic}
		}
	}
	return nil
}

// listedGroupInfo is what a coordinator's ListGroups says about one group.
type listedGroupInfo struct {
	coordinator  leader
	state        string
	protocolType string
}

// shareGroupType is ListGroups' type of KIP-932 share groups, whose progress is not kept as
// committed offsets (OffsetFetch does not serve them).
const shareGroupType = "share"

// listAllGroups sends ListGroups to every broker at once and returns the groups whose id
// matches, by id, with the broker that listed them: their coordinator.
func (c *Client) listAllGroups(ctx context.Context, brokers []leader, match *regexp.Regexp) (map[string]listedGroupInfo, error) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
		out  = map[string]listedGroupInfo{}
	)
	for _, b := range brokers {
		wg.Go(func() {
			groups, err := c.listGroupsOn(ctx, b)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			for _, g := range groups {
				if g.GroupType == shareGroupType || match != nil && !match.MatchString(g.GroupID) {
					continue
				}
				out[g.GroupID] = listedGroupInfo{coordinator: b, state: g.GroupState, protocolType: g.ProtocolType}
			}
		})
	}
	wg.Wait()
	return out, firstError(errs)
}

func (c *Client) listGroupsOn(ctx context.Context, b leader) ([]wire.ListGroupsResponseGroup, error) {
	m, err := c.roundTrip(ctx, b.address, &wire.ListGroupsRequest{})
	if err != nil {
		return nil, c.dials.requestError("ListGroups", b.address, int(b.id), err)
	}
	lg, ok := m.(*wire.ListGroupsResponse)
	if !ok {
		return nil, fmt.Errorf("ListGroups on broker %d: unexpected answer %T", b.id, m)
	}
	if lg.ErrorCode != 0 {
		return nil, &brokerCodeError{&BrokerError{Op: "ListGroups", Partition: -1, Code: ErrorCode(lg.ErrorCode),
			Broker: describeBroker(b.address, int(b.id))}}
	}
	return lg.Groups, nil
}

// brokerCodeError: a broker answered a request about no topic or group with an error code. It
// unwraps to the *BrokerError, so that retriable codes are retried.
type brokerCodeError struct{ *BrokerError }

func (e *brokerCodeError) Error() string {
	name, desc := wire.ErrorName(kafka.Error(e.Code))
	return fmt.Sprintf("%s: %s answered %s (error code %d): %s", e.Op, e.Broker, name, int16(e.Code), desc)
}

func (e *brokerCodeError) Unwrap() error { return e.BrokerError }

// maxGroupsPerOffsetFetch bounds one batched OffsetFetch, so that a cluster with tens of
// thousands of groups does not make one response of hundreds of MiB.
const maxGroupsPerOffsetFetch = 1000

// fetchAllOffsets reads the committed offsets of every listed group from the broker that listed
// it: one OffsetFetch per coordinator (per 1000 groups) where it serves v8+, else one per group.
// Coordinators are asked at once, each one's requests in turn, so that a broker below v8 with many
// groups gets one connection, not one per group. A group that vanished since ListGroups
// (GROUP_ID_NOT_FOUND) is left out.
func (c *Client) fetchAllOffsets(ctx context.Context, listed map[string]listedGroupInfo) (map[string][]wire.OffsetFetchResponseTopic, error) {
	byCoordinator := map[leader][]string{}
	for id, g := range listed {
		byCoordinator[g.coordinator] = append(byCoordinator[g.coordinator], id)
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
		out  = map[string][]wire.OffsetFetchResponseTopic{}
	)
	for coordinator, groups := range byCoordinator {
		wg.Go(func() {
			fetched, err := c.fetchFromCoordinator(ctx, coordinator, groups)
			mu.Lock()
			defer mu.Unlock()
			errs = append(errs, err...)
			maps.Copy(out, fetched)
		})
	}
	wg.Wait()
	return out, firstError(errs)
}

// fetchFromCoordinator sends coordinator the OffsetFetch requests for its groups, one after the
// other, and returns each group's commits, and the errors met.
func (c *Client) fetchFromCoordinator(ctx context.Context, coordinator leader, groups []string) (map[string][]wire.OffsetFetchResponseTopic, []error) {
	slices.Sort(groups)
	broker := describeBroker(coordinator.address, int(coordinator.id))
	conn, err := c.brokers.get(ctx, coordinator.address)
	if err != nil {
		return nil, []error{c.dials.requestError("OffsetFetch", coordinator.address, int(coordinator.id), err)}
	}
	per := 1
	if v, _ := conn.version(protocol.OffsetFetch); v >= wire.OffsetFetchBatchVersion {
		per = maxGroupsPerOffsetFetch
	}
	out := map[string][]wire.OffsetFetchResponseTopic{}
	var errs []error
	for chunk := range slices.Chunk(groups, per) {
		fetched, err := c.offsetFetch(ctx, coordinator, chunk, per > 1)
		if err != nil {
			op := fmt.Sprintf("OffsetFetch for %d group%s", len(chunk), plural(len(chunk)))
			return out, append(errs, c.dials.requestError(op, coordinator.address, int(coordinator.id), err))
		}
		for id, g := range fetched {
			switch {
			case g.Code == kafka.GroupIdNotFound:
				continue
			case g.Code != 0:
				errs = append(errs, &BrokerError{Op: "OffsetFetch", Group: id, Partition: -1, Code: ErrorCode(g.Code), Broker: broker})
				continue
			}
			for _, t := range g.Topics {
				for _, p := range t.Partitions {
					if p.ErrorCode != 0 {
						errs = append(errs, &BrokerError{Op: "OffsetFetch (group " + id + ")", Topic: t.Name,
							Partition: int(p.Partition), Code: ErrorCode(p.ErrorCode), Broker: broker})
					}
				}
			}
			out[id] = g.Topics
		}
	}
	return out, errs
}

// summarize keeps the selected groups and topics, reads the latest offset of every committed
// partition (ListOffsets per leader across all topics), and adds up each group's lag.
func (c *Client) summarize(ctx context.Context, md *clusterMetadata, req ConsumerGroupsRequest,
	listed map[string]listedGroupInfo, committed map[string][]wire.OffsetFetchResponseTopic, fresh bool,
) ([]GroupSummary, error) {
	var filter map[string]bool
	if req.Topics != nil {
		filter = map[string]bool{}
		for _, t := range req.Topics {
			filter[t] = true
		}
	}
	byName := map[string]*clusterTopic{}
	for i := range md.topics {
		if md.topics[i].code == 0 {
			byName[md.topics[i].name] = &md.topics[i]
		}
	}
	commits := map[string]map[topicPartition]int64{} // by group
	leaders := map[topicPartition]leader{}
	for id, topics := range committed {
		commits[id] = map[topicPartition]int64{}
		for _, t := range topics {
			if filter != nil && !filter[t.Name] {
				continue
			}
			for _, p := range t.Partitions {
				if p.CommittedOffset < 0 {
					continue // no commit
				}
				tp := topicPartition{t.Name, int(p.Partition)}
				mt := byName[t.Name]
				_, ok := mt.partitionOK(p.Partition)
				if !ok {
					// The topic (or partition) is gone: Kafka drops the commits of deleted topics
					// soon after. A cached layout may also just lag behind.
					if !fresh {
						return nil, errStaleMetadata
					}
					continue
				}
				l, err := md.leaderOf(mt, p.Partition)
				if err != nil {
					return nil, err
				}
				leaders[tp] = l
				commits[id][tp] = p.CommittedOffset
			}
		}
	}
	latest, err := c.listTopicsOffsets(ctx, OffsetsRequest{Isolation: req.Isolation, latestOnly: true}, leaders)
	if err != nil {
		return nil, err
	}
	latestOf := map[topicPartition]int64{}
	for topic, ps := range latest {
		for _, p := range ps {
			latestOf[topicPartition{topic, p.Partition}] = p.Latest
		}
	}

	var out []GroupSummary
	for id, info := range listed {
		if _, fetched := committed[id]; !fetched {
			continue // vanished since ListGroups
		}
		if filter != nil && len(commits[id]) == 0 {
			continue
		}
		s := GroupSummary{GroupID: id, State: info.state, ProtocolType: info.protocolType, Topics: []string{}}
		var partitions []GroupPartitionOffsets
		for tp, offset := range commits[id] {
			// The lag rule of groups.go; the summary needs no earliest offset (only lags are summed).
			latest := PartitionOffsets{Partition: tp.partition, Latest: latestOf[tp]}
			partitions = append(partitions, groupPartition(tp.topic, latest, latest.Latest, map[int]int64{tp.partition: offset}))
			s.Topics = append(s.Topics, tp.topic)
		}
		var ok bool
		if s.TotalLag, ok = TotalLag(partitions); !ok {
			return nil, fmt.Errorf("the total lag of group %q does not fit in a 64-bit integer: the broker "+
				"answered offsets near 2^63, which no real partition reaches", id)
		}
		slices.Sort(s.Topics)
		s.Topics = slices.Compact(s.Topics)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b GroupSummary) int { return strings.Compare(a.GroupID, b.GroupID) })
	return out, nil
}
