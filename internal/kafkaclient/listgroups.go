package kafkaclient

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/segmentio/kafka-go/protocol"
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
}

func (r *listGroupsRequest) ApiKey() protocol.ApiKey { return protocol.ListGroups }

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

// listedAnywhere says whether any broker of the latest metadata lists the group (ListGroups on
// each: a broker lists the groups it coordinates), without FindCoordinator.
func (c *Client) listedAnywhere(ctx context.Context, group string) (bool, error) {
	c.cluster.mu.Lock()
	brokers := make([]leader, 0, len(c.cluster.brokers))
	for id, address := range c.cluster.brokers {
		brokers = append(brokers, leader{id: id, address: address})
	}
	c.cluster.mu.Unlock()
	slices.SortFunc(brokers, func(a, b leader) int { return cmp.Compare(a.id, b.id) })
	for _, b := range brokers {
		_, found, err := c.listGroupOn(ctx, b, group)
		if err != nil || found {
			return found, err
		}
	}
	return false, nil
}

// listGroupOn asks one broker for the groups it holds (ListGroups) and returns this one's state
// (empty below ListGroups v4); found is false when the broker does not hold the group.
func (c *Client) listGroupOn(ctx context.Context, broker leader, group string) (state string, found bool, err error) {
	m, err := c.roundTrip(ctx, broker.address, &listGroupsRequest{})
	if err != nil {
		return "", false, c.dials.requestError(fmt.Sprintf("ListGroups on broker %d for group %q", broker.id, group),
			broker.address, int(broker.id), err)
	}
	lg, ok := m.(*listGroupsResponse)
	if !ok {
		return "", false, fmt.Errorf("ListGroups on broker %d for group %q: unexpected answer %T", broker.id, group, m)
	}
	if lg.ErrorCode != 0 {
		return "", false, &BrokerError{Op: fmt.Sprintf("ListGroups on broker %d", broker.id), Group: group, Partition: -1,
			Code: ErrorCode(lg.ErrorCode)}
	}
	for _, g := range lg.Groups {
		if g.GroupID == group {
			return g.GroupState, true, nil
		}
	}
	return "", false, nil
}
