package kafkaclient

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

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
	m, err := c.roundTrip(ctx, broker.address, &wire.ListGroupsRequest{})
	if err != nil {
		return "", false, c.dials.requestError(fmt.Sprintf("ListGroups on broker %d for group %q", broker.id, group),
			broker.address, int(broker.id), err)
	}
	lg, ok := m.(*wire.ListGroupsResponse)
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
