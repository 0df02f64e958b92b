package wire

import "github.com/segmentio/kafka-go/protocol"

// Groups of Kafka 4's consumer protocol (KIP-848, group.protocol=consumer) are invisible to
// DescribeGroups, which answers GROUP_ID_NOT_FOUND ("not a classic group"), and kafka-go knows
// neither ConsumerGroupDescribe (API 69, beyond its protocol tables) nor ListGroups past v2,
// which has no state. These types describe ListGroups v0 to v5 (v4 adds each group's state, v5
// its type) in kafka-go's protocol notation and replace kafka-go's registration, as
// listoffsets.go does for ListOffsets: kafka-go's own Client.ListGroups must not be used.
func init() {
	protocol.Register(&ListGroupsRequest{}, &ListGroupsResponse{})
}

// ListGroupsTypeVersion is the first ListGroups version whose answer names each group's kind
// (KIP-1043, Kafka 3.8).
const ListGroupsTypeVersion = 5

// ListGroupsRequest is ListGroups v0-v5's request. The request and the response must span the
// same versions: kafka-go indexes the response decoders by the request's version range.
type ListGroupsRequest struct {
	_            struct{} `kafka:"min=v0,max=v5"`
	_            struct{} `kafka:"min=v3,max=v5,tag"`
	StatesFilter []string `kafka:"min=v4,max=v5"`
	TypesFilter  []string `kafka:"min=v5,max=v5"`
}

// ApiKey is ListGroups.
func (r *ListGroupsRequest) ApiKey() protocol.ApiKey { return protocol.ListGroups }

// ListGroupsResponse is ListGroups v0-v5's response: the groups the broker coordinates.
type ListGroupsResponse struct {
	_              struct{}                  `kafka:"min=v3,max=v5,tag"`
	ThrottleTimeMs int32                     `kafka:"min=v1,max=v5"`
	ErrorCode      int16                     `kafka:"min=v0,max=v5"`
	Groups         []ListGroupsResponseGroup `kafka:"min=v0,max=v5"`
}

// ListGroupsResponseGroup is one group; GroupState is empty below v4, GroupType below v5.
type ListGroupsResponseGroup struct {
	GroupID      string `kafka:"min=v0,max=v5"`
	ProtocolType string `kafka:"min=v0,max=v5"`
	GroupState   string `kafka:"min=v4,max=v5"`
	GroupType    string `kafka:"min=v5,max=v5"`
}

// ApiKey is ListGroups.
func (r *ListGroupsResponse) ApiKey() protocol.ApiKey { return protocol.ListGroups }
