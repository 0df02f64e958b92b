package kafkaclient

import (
	"context"
	"fmt"

	"github.com/segmentio/kafka-go"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// fetchedGroup is one group's answer: its commits by topic, or the error code the broker gave
// for the whole group.
type fetchedGroup struct {
	Code   kafka.Error
	Topics []wire.OffsetFetchResponseTopic
}

// offsetFetch asks coordinator for every committed offset of groups (all topics: the broker
// leaves out those the principal may not DESCRIBE) in one request. Several groups need
// OffsetFetch v8+ (batch says the broker serves it). Below v8 the request carries the group in
// the v2-v7 fields; both shapes are filled, kafka-go encodes the fields of the version it
// negotiated.
func (c *Client) offsetFetch(ctx context.Context, coordinator leader, groups []string, batch bool) (map[string]fetchedGroup, error) {
	if len(groups) != 1 && !batch {
		return nil, fmt.Errorf("OffsetFetch for %d groups needs OffsetFetch v%d", len(groups), wire.OffsetFetchBatchVersion)
	}
	req := &wire.OffsetFetchRequest{}
	for _, g := range groups {
		req.Groups = append(req.Groups, wire.OffsetFetchRequestGroup{GroupID: g, MemberEpoch: -1})
	}
	if len(groups) == 1 {
		req.GroupID = groups[0]
	}
	m, err := c.roundTrip(ctx, coordinator.address, req)
	if err != nil {
		return nil, err
	}
	res, ok := m.(*wire.OffsetFetchResponse)
	if !ok {
		return nil, fmt.Errorf("unexpected answer %T", m)
	}
	out := make(map[string]fetchedGroup, len(groups))
	if len(res.Groups) == 0 && len(groups) == 1 { // v2-v7: the answer is about the one group
		out[groups[0]] = fetchedGroup{Code: kafka.Error(res.ErrorCode), Topics: res.Topics}
		return out, nil
	}
	for _, g := range res.Groups {
		out[g.GroupID] = fetchedGroup{Code: kafka.Error(g.ErrorCode), Topics: g.Topics}
	}
	for _, g := range groups {
		if _, ok := out[g]; !ok {
			return nil, fmt.Errorf("the broker's answer has no entry for group %q", g)
		}
	}
	return out, nil
}
