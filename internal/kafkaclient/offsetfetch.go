package kafkaclient

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// fetchedGroup is one group's answer: its commits by topic (in OffsetFetch v8+'s shape, whichever
// version answered), or the error code the broker gave for the whole group.
type fetchedGroup struct {
	Code   kafka.Error
	Topics []kmsg.OffsetFetchResponseGroupTopic
}

// offsetFetch asks coordinator for every committed offset of groups (all topics: the broker
// leaves out those the principal may not DESCRIBE) in one request. Several groups need
// OffsetFetch v8+ (batch says the broker serves it). Below v8 the request carries the group in
// the v2-v7 fields; both shapes are filled, kmsg encodes the fields of the version sent. No topics
// (null) is every topic.
func (gr *groupReads) offsetFetch(ctx context.Context, coordinator leader, groups []string, batch bool) (map[string]fetchedGroup, error) {
	if len(groups) != 1 && !batch {
		return nil, fmt.Errorf("OffsetFetch for %d groups needs OffsetFetch v%d", len(groups), wire.OffsetFetchBatchVersion)
	}
	req := &kmsg.OffsetFetchRequest{}
	for _, g := range groups {
		req.Groups = append(req.Groups, kmsg.OffsetFetchRequestGroup{Group: g, MemberEpoch: -1}) // no member: an admin's read
	}
	if len(groups) == 1 {
		req.Group = groups[0]
	}
	m, err := gr.cluster.brokers.RoundTrip(ctx, coordinator.address, req)
	if err != nil {
		return nil, err
	}
	res, err := answerAs[*kmsg.OffsetFetchResponse]("OffsetFetch", m)
	if err != nil {
		return nil, err
	}
	out := make(map[string]fetchedGroup, len(groups))
	if len(res.Groups) == 0 && len(groups) == 1 { // v2-v7: the answer is about the one group
		out[groups[0]] = fetchedGroup{Code: kafka.Error(res.ErrorCode), Topics: asGroupTopics(res.Topics)}
		return out, nil
	}
	for _, g := range res.Groups {
		out[g.Group] = fetchedGroup{Code: kafka.Error(g.ErrorCode), Topics: g.Topics}
	}
	for _, g := range groups {
		if _, ok := out[g]; !ok {
			return nil, fmt.Errorf("the broker's answer has no entry for group %q", g)
		}
	}
	return out, nil
}

// asGroupTopics is a v2-v7 answer's topics in the shape of v8+'s.
func asGroupTopics(topics []kmsg.OffsetFetchResponseTopic) []kmsg.OffsetFetchResponseGroupTopic {
	out := make([]kmsg.OffsetFetchResponseGroupTopic, len(topics))
	for i, t := range topics {
		out[i].Topic = t.Topic
		for _, p := range t.Partitions {
			out[i].Partitions = append(out[i].Partitions, kmsg.OffsetFetchResponseGroupTopicPartition{
				Partition: p.Partition, Offset: p.Offset, LeaderEpoch: p.LeaderEpoch, Metadata: p.Metadata, ErrorCode: p.ErrorCode})
		}
	}
	return out
}

// maxGroupsPerOffsetFetch bounds one batched OffsetFetch, so that a cluster with tens of
// thousands of groups does not make one response of hundreds of MiB.
const maxGroupsPerOffsetFetch = 1000

// fetchAllOffsets reads the committed offsets of every listed group from the broker that listed
// it: one OffsetFetch per coordinator (per 1000 groups) where it serves v8+, else one per group.
// Coordinators are asked at once, each one's requests in turn, so that a broker below v8 with many
// groups gets one connection, not one per group. A group that vanished since ListGroups
// (GROUP_ID_NOT_FOUND) is left out.
func (gr *groupReads) fetchAllOffsets(ctx context.Context, listed map[string]listedGroupInfo) (map[string][]kmsg.OffsetFetchResponseGroupTopic, error) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
		out  = map[string][]kmsg.OffsetFetchResponseGroupTopic{}
	)
	for coordinator, groups := range byCoordinator(listed, false) { // a share group commits nothing: fetchAllShareOffsets reads it
		wg.Go(func() {
			fetched, err := gr.fetchFromCoordinator(ctx, coordinator, groups)
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
func (gr *groupReads) fetchFromCoordinator(ctx context.Context, coordinator leader, groups []string) (map[string][]kmsg.OffsetFetchResponseGroupTopic, []error) {
	slices.Sort(groups)
	broker := describeBroker(coordinator.address, int(coordinator.id))
	conn, err := gr.cluster.brokers.Get(ctx, coordinator.address)
	if err != nil {
		return nil, []error{gr.cluster.requestError("OffsetFetch", coordinator.address, int(coordinator.id), err)}
	}
	per := 1
	if v, _ := conn.Version(kmsg.OffsetFetch); v >= wire.OffsetFetchBatchVersion {
		per = maxGroupsPerOffsetFetch
	}
	out := map[string][]kmsg.OffsetFetchResponseGroupTopic{}
	var errs []error
	for chunk := range slices.Chunk(groups, per) {
		fetched, err := gr.offsetFetch(ctx, coordinator, chunk, per > 1)
		if err != nil {
			op := fmt.Sprintf("OffsetFetch for %d group%s", len(chunk), plural(len(chunk)))
			return out, append(errs, gr.cluster.requestError(op, coordinator.address, int(coordinator.id), err))
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
						errs = append(errs, &BrokerError{Op: "OffsetFetch (group " + id + ")", Topic: t.Topic,
							Partition: int(p.Partition), Code: ErrorCode(p.ErrorCode), Broker: broker})
					}
				}
			}
			out[id] = g.Topics
		}
	}
	return out, errs
}
