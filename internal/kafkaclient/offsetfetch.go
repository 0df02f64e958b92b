package kafkaclient

import (
	"context"
	"fmt"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
)

// kafka-go's OffsetFetch message stops at v5: one group per request. OffsetFetch v8 (KIP-709,
// Kafka 3.0) asks for the commits of many groups at once, which kafka_consumer_groups needs to
// read every group of a cluster in a few requests. These types describe OffsetFetch v2 to v9 in
// kafka-go's protocol notation (v6+ are flexible versions; v8+ carry groups; v9 adds the member
// id and epoch of KIP-848, which an admin read leaves null and -1) and replace kafka-go's
// registration, as listoffsets.go does for ListOffsets: kafka-go's own Client.OffsetFetch must
// not be used. v2 is the first version whose null topic list means "every topic"; every broker
// that serves Metadata v4 (which this provider requires) serves it.
//
// The request goes to the coordinator the callers know, from ListGroups or FindCoordinator.
func init() {
	protocol.Register(&offsetFetchRequest{}, &offsetFetchResponse{})
}

type offsetFetchRequest struct {
	_             struct{}                  `kafka:"min=v6,max=v9,tag"`
	GroupID       string                    `kafka:"min=v2,max=v7"`
	Topics        []offsetFetchRequestTopic `kafka:"min=v2,max=v7,nullable"`
	Groups        []offsetFetchRequestGroup `kafka:"min=v8,max=v9"`
	RequireStable bool                      `kafka:"min=v7,max=v9"`
}

type offsetFetchRequestTopic struct {
	Name             string  `kafka:"min=v2,max=v9"`
	PartitionIndexes []int32 `kafka:"min=v2,max=v9"`
}

type offsetFetchRequestGroup struct {
	GroupID     string                    `kafka:"min=v8,max=v9"`
	MemberID    string                    `kafka:"min=v9,max=v9,nullable"` // "" is sent as null: an admin read
	MemberEpoch int32                     `kafka:"min=v9,max=v9"`
	Topics      []offsetFetchRequestTopic `kafka:"min=v8,max=v9,nullable"`
}

func (r *offsetFetchRequest) ApiKey() protocol.ApiKey { return protocol.OffsetFetch }

type offsetFetchResponse struct {
	_              struct{}                   `kafka:"min=v6,max=v9,tag"`
	ThrottleTimeMs int32                      `kafka:"min=v3,max=v9"`
	Topics         []offsetFetchResponseTopic `kafka:"min=v2,max=v7"`
	ErrorCode      int16                      `kafka:"min=v2,max=v7"`
	Groups         []offsetFetchResponseGroup `kafka:"min=v8,max=v9"`
}

type offsetFetchResponseGroup struct {
	GroupID   string                     `kafka:"min=v8,max=v9"`
	Topics    []offsetFetchResponseTopic `kafka:"min=v8,max=v9"`
	ErrorCode int16                      `kafka:"min=v8,max=v9"`
}

type offsetFetchResponseTopic struct {
	Name       string                         `kafka:"min=v2,max=v9"`
	Partitions []offsetFetchResponsePartition `kafka:"min=v2,max=v9"`
}

type offsetFetchResponsePartition struct {
	Partition            int32  `kafka:"min=v2,max=v9"`
	CommittedOffset      int64  `kafka:"min=v2,max=v9"`
	CommittedLeaderEpoch int32  `kafka:"min=v5,max=v9"`
	Metadata             string `kafka:"min=v2,max=v9,nullable"`
	ErrorCode            int16  `kafka:"min=v2,max=v9"`
}

func (r *offsetFetchResponse) ApiKey() protocol.ApiKey { return protocol.OffsetFetch }

// offsetFetchBatchVersion is the first OffsetFetch version that carries several groups.
const offsetFetchBatchVersion = 8

// fetchedGroup is one group's answer: its commits by topic, or the error code the broker gave
// for the whole group.
type fetchedGroup struct {
	Code   kafka.Error
	Topics []offsetFetchResponseTopic
}

// offsetFetch asks coordinator for every committed offset of groups (all topics: the broker
// leaves out those the principal may not DESCRIBE) in one request. Several groups need
// OffsetFetch v8+ (batch says the broker serves it). Below v8 the request carries the group in
// the v2-v7 fields; both shapes are filled, kafka-go encodes the fields of the version it
// negotiated.
func (c *Client) offsetFetch(ctx context.Context, coordinator leader, groups []string, batch bool) (map[string]fetchedGroup, error) {
	if len(groups) != 1 && !batch {
		return nil, fmt.Errorf("OffsetFetch for %d groups needs OffsetFetch v%d", len(groups), offsetFetchBatchVersion)
	}
	req := &offsetFetchRequest{}
	for _, g := range groups {
		req.Groups = append(req.Groups, offsetFetchRequestGroup{GroupID: g, MemberEpoch: -1})
	}
	if len(groups) == 1 {
		req.GroupID = groups[0]
	}
	m, err := c.roundTrip(ctx, coordinator.address, req)
	if err != nil {
		return nil, err
	}
	res, ok := m.(*offsetFetchResponse)
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
