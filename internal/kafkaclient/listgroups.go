package kafkaclient

// ListGroups, the one request that lists groups without creating anything (FindCoordinator for
// a group makes Apache Kafka create __consumer_offsets): each broker lists the groups it
// coordinates, so the broker that lists a group is its coordinator.

import (
	"context"
	"fmt"
	"regexp"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// listedAnywhere says whether any broker of the latest metadata lists the group (ListGroups on
// each: a broker lists the groups it coordinates), without FindCoordinator.
func (gr *groupReads) listedAnywhere(ctx context.Context, group string) (bool, error) {
	for _, b := range gr.cluster.layout.knownBrokers() {
		groups, err := gr.listGroupsOn(ctx, b, group)
		if err != nil {
			return false, err
		}
		if _, found := listedGroup(groups, group); found {
			return true, nil
		}
	}
	return false, nil
}

// listedGroupInfo is what a coordinator's ListGroups says about one group.
type listedGroupInfo struct {
	coordinator  leader
	state        string
	protocolType string
	groupType    string // ListGroups v5's; "" below
}

// byCoordinator is the ids of the listed share groups (share) or of the others (!share), by
// the broker that listed them: their coordinator.
func byCoordinator(listed map[string]listedGroupInfo, share bool) map[leader][]string {
	out := map[leader][]string{}
	for id, g := range listed {
		if (g.groupType == ShareGroup) == share {
			out[g.coordinator] = append(out[g.coordinator], id)
		}
	}
	return out
}

// listAllGroups sends ListGroups to every broker at once and returns the groups whose id
// matches, by id, with the broker that listed them: their coordinator.
func (gr *groupReads) listAllGroups(ctx context.Context, brokers []leader, match *regexp.Regexp) (map[string]listedGroupInfo, error) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
		out  = map[string]listedGroupInfo{}
	)
	for _, b := range brokers {
		wg.Go(func() {
			groups, err := gr.listGroupsOn(ctx, b, "")
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			for _, g := range groups {
				if match != nil && !match.MatchString(g.Group) {
					continue
				}
				out[g.Group] = listedGroupInfo{coordinator: b, state: g.GroupState, protocolType: g.ProtocolType, groupType: g.GroupType}
			}
		})
	}
	wg.Wait()
	return out, firstError(errs)
}

// listGroupsOn asks one broker for the groups it coordinates (ListGroups). group, when set, is
// the one group the caller looks for, and errors name it.
func (gr *groupReads) listGroupsOn(ctx context.Context, b leader, group string) ([]kmsg.ListGroupsResponseGroup, error) {
	about := ""
	if group != "" {
		about = fmt.Sprintf(" for group %q", group)
	}
	m, err := gr.cluster.brokers.RoundTrip(ctx, b.address, &kmsg.ListGroupsRequest{})
	if err != nil {
		op := "ListGroups"
		if group != "" {
			op = fmt.Sprintf("ListGroups on broker %d%s", b.id, about)
		}
		return nil, gr.cluster.requestError(op, b.address, int(b.id), err)
	}
	lg, err := answerAs[*kmsg.ListGroupsResponse](fmt.Sprintf("ListGroups on broker %d%s", b.id, about), m)
	switch {
	case err != nil:
		return nil, err
	case lg.ErrorCode != 0 && group != "":
		return nil, &BrokerError{Op: fmt.Sprintf("ListGroups on broker %d", b.id), Group: group, Partition: -1,
			Code: ErrorCode(lg.ErrorCode)}
	case lg.ErrorCode != 0:
		return nil, &brokerCodeError{&BrokerError{Op: "ListGroups", Partition: -1, Code: ErrorCode(lg.ErrorCode),
			Broker: describeBroker(b.address, int(b.id))}}
	}
	return lg.Groups, nil
}

// listedGroup is group's entry in groups (one broker's ListGroups answer: its state is empty
// below ListGroups v4, its type below v5); found is false when the broker does not list the group.
func listedGroup(groups []kmsg.ListGroupsResponseGroup, group string) (g kmsg.ListGroupsResponseGroup, found bool) {
	for _, g := range groups {
		if g.Group == group {
			return g, true
		}
	}
	return g, false
}

// brokerCodeError: a broker answered a request about no topic or group with an error code. It
// unwraps to the *BrokerError, so that retriable codes are retried.
type brokerCodeError struct{ *BrokerError }

func (e *brokerCodeError) Error() string {
	return e.Op + ": " + e.answeredBy(e.Broker)
}

func (e *brokerCodeError) Unwrap() error { return e.BrokerError }
