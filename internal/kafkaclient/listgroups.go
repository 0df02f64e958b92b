package kafkaclient

import (
	"context"
	"fmt"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/findcoordinator"
)

// Groups of Kafka 4's consumer protocol (KIP-848, group.protocol=consumer) are invisible to
// DescribeGroups, which answers GROUP_ID_NOT_FOUND ("not a classic group"), and kafka-go knows
// neither ConsumerGroupDescribe (API 69, beyond its protocol tables) nor ListGroups past v2,
// which has no state. These types describe ListGroups v0 to v5 (v4 adds each group's state, v5
// its type) in kafka-go's protocol notation and replace kafka-go's registration, as
// listoffsets.go does for ListOffsets: kafka-go's own Client.ListGroups must not be used.
func init() {
	protocol.Register(&listGroupsRequest{}, &listGroupsResponse{})
}

// The request and the response must span the same versions: kafka-go indexes the response
// decoders by the request's version range.
type listGroupsRequest struct {
	_            struct{} `kafka:"min=v0,max=v5"`
	_            struct{} `kafka:"min=v3,max=v5,tag"`
	StatesFilter []string `kafka:"min=v4,max=v5"`
	TypesFilter  []string `kafka:"min=v5,max=v5"`

	coordinator int32 // where to send it; not on the wire
}

func (r *listGroupsRequest) ApiKey() protocol.ApiKey { return protocol.ListGroups }

func (r *listGroupsRequest) Broker(cluster protocol.Cluster) (protocol.Broker, error) {
	if b, ok := cluster.Brokers[r.coordinator]; ok {
		return b, nil
	}
	return protocol.Broker{}, fmt.Errorf("group coordinator %d is not in the cluster's metadata", r.coordinator)
}

type listGroupsResponse struct {
	_              struct{}                  `kafka:"min=v3,max=v5,tag"`
	ThrottleTimeMs int32                     `kafka:"min=v1,max=v5"`
	ErrorCode      int16                     `kafka:"min=v0,max=v5"`
	Groups         []listGroupsResponseGroup `kafka:"min=v0,max=v5"`
}

type listGroupsResponseGroup struct {
	GroupID      string `kafka:"min=v0,max=v5"`
	ProtocolType string `kafka:"min=v0,max=v5"`
	GroupState   string `kafka:"min=v4,max=v5"`
	GroupType    string `kafka:"min=v5,max=v5"`
}

func (r *listGroupsResponse) ApiKey() protocol.ApiKey { return protocol.ListGroups }

var _ protocol.BrokerMessage = (*listGroupsRequest)(nil)

// listedGroup asks the group's coordinator for the groups it holds (ListGroups) and returns
// this one's state; found is false when the coordinator does not hold the group.
func (c *Client) listedGroup(ctx context.Context, tt *topicTransport, group string) (state string, found bool, err error) {
	m, err := tt.transport.RoundTrip(ctx, tt.addr(), &findcoordinator.Request{Key: group})
	if err != nil {
		return "", false, tt.dials.requestError(fmt.Sprintf("FindCoordinator for group %q", group), "", -1, err)
	}
	fc, ok := m.(*findcoordinator.Response)
	if !ok {
		return "", false, fmt.Errorf("FindCoordinator for group %q: unexpected answer %T", group, m)
	}
	if fc.ErrorCode != 0 {
		return "", false, &BrokerError{Op: "FindCoordinator", Group: group, Partition: -1, Code: kafka.Error(fc.ErrorCode)}
	}
	return c.listGroupOn(ctx, tt, fc.NodeID, group)
}

// listedAnywhere says whether any of the brokers lists the group (ListGroups on each: a broker
// lists the groups it coordinates), without FindCoordinator.
func (c *Client) listedAnywhere(ctx context.Context, tt *topicTransport, brokers []kafka.Broker, group string) (bool, error) {
	for _, b := range brokers {
		_, found, err := c.listGroupOn(ctx, tt, int32(b.ID), group)
		if err != nil || found {
			return found, err
		}
	}
	return false, nil
}

// listGroupOn asks one broker for the groups it holds (ListGroups) and returns this one's state
// (empty below ListGroups v4); found is false when the broker does not hold the group.
func (c *Client) listGroupOn(ctx context.Context, tt *topicTransport, broker int32, group string) (state string, found bool, err error) {
	m, err := tt.transport.RoundTrip(ctx, tt.addr(), &listGroupsRequest{coordinator: broker})
	if err != nil {
		return "", false, tt.dials.requestError(fmt.Sprintf("ListGroups on broker %d for group %q", broker, group), "", -1, err)
	}
	lg, ok := m.(*listGroupsResponse)
	if !ok {
		return "", false, fmt.Errorf("ListGroups on broker %d for group %q: unexpected answer %T", broker, group, m)
	}
	if lg.ErrorCode != 0 {
		return "", false, &BrokerError{Op: fmt.Sprintf("ListGroups on broker %d", broker), Group: group, Partition: -1,
			Code: kafka.Error(lg.ErrorCode)}
	}
	for _, g := range lg.Groups {
		if g.GroupID == group {
			return g.GroupState, true, nil
		}
	}
	return "", false, nil
}
