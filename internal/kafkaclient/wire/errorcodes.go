package wire

import (
	"strings"

	"github.com/segmentio/kafka-go"
)

// renamed are Kafka's current names (org.apache.kafka.common.protocol.Errors) and descriptions
// for the codes whose kafka-go v0.4.51 name is an old one, or missing.
var renamed = map[kafka.Error][2]string{
	6: {"NOT_LEADER_OR_FOLLOWER", "the broker is not the leader of this partition (or not a replica): " +
		"leadership moved, and the client's metadata is out of date"},
	13: {"NETWORK_EXCEPTION", "the server disconnected before a response was received"},
	14: {"COORDINATOR_LOAD_IN_PROGRESS", "the coordinator is loading and hence cannot process requests"},
	15: {"COORDINATOR_NOT_AVAILABLE", "the coordinator is not available"},
	16: {"NOT_COORDINATOR", "this is not the correct coordinator"},
	78: {"OFFSET_NOT_AVAILABLE", "the leader high watermark has not caught up from a recent leader " +
		"election, so the offsets cannot be guaranteed to be monotonically increasing"},
}

// ErrorName is Kafka's name for code (as brokers log it: NOT_LEADER_OR_FOLLOWER) and its
// description.
func ErrorName(code kafka.Error) (name, description string) {
	if r, ok := renamed[code]; ok {
		return r[0], r[1]
	}
	if code.Title() == "" {
		return "an error code unknown to this provider", "see the Kafka protocol's error codes"
	}
	return strings.ToUpper(strings.ReplaceAll(code.Title(), " ", "_")), code.Description()
}
