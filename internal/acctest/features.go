package acctest

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// What the test broker serves, from every broker's ApiVersions answer (through kadm), as the
// provider decides it: never from KAFKA_VERSION or a tool's output. The versions below are
// Kafka's (clients/src/main/resources/common/message/*.json), written here, not taken from the
// provider's code.

// minMaxVersion is the lowest of the brokers' highest versions of key; false if a broker lacks it.
func (k *Kafka) minMaxVersion(key kmsg.Key) (int16, bool) {
	k.t.Helper()
	lowest := int16(-1)
	for _, v := range k.apiVersions() {
		highest, ok := v.KeyMaxVersion(key.Int16())
		if !ok {
			return -1, false
		}
		if lowest < 0 || highest < lowest {
			lowest = highest
		}
	}
	return lowest, true
}

// lacking is the first broker whose ApiVersions answer lacks key; false when every broker serves it.
func (k *Kafka) lacking(key kmsg.Key) (kadm.BrokerApiVersions, bool) {
	k.t.Helper()
	for _, v := range k.apiVersions() {
		if _, ok := v.KeyMaxVersion(key.Int16()); !ok {
			return v, true
		}
	}
	return kadm.BrokerApiVersions{}, false
}

// ListsGroupTypes reports whether the brokers say each group's type: ListGroups v5 (KIP-1043,
// Kafka 3.8) carries it; before, kafka_consumer_groups' group_type is null.
func (k *Kafka) ListsGroupTypes() bool {
	k.t.Helper()
	v, ok := k.minMaxVersion(kmsg.ListGroups)
	return ok && v >= 5
}

// ListOffsetsVersion is the highest ListOffsets version every broker serves. The special
// timestamps need: -3 (max timestamp, KIP-734) v7, Kafka 3.0; -4 (earliest local, KIP-405) v8,
// Kafka 3.5; -5 (latest tiered, KIP-1005) v9, Kafka 3.9; -6 (earliest pending upload, KIP-1023)
// v11, Kafka 4.2. An older broker reads them as ordinary timestamps, so the provider does not ask.
func (k *Kafka) ListOffsetsVersion() int16 {
	k.t.Helper()
	v, _ := k.minMaxVersion(kmsg.ListOffsets)
	return v
}

// ListOffsetsVersionFor is the ListOffsets version a special timestamp (-3 to -6) needs.
func ListOffsetsVersionFor(timestamp int64) int16 {
	return map[int64]int16{-3: 7, -4: 8, -5: 9, -6: 11}[timestamp]
}

// SCRAMMissing says why the brokers keep no SCRAM credentials, "" when every broker does:
// DescribeUserScramCredentials (API key 50, KIP-554) in its ApiVersions answer. KRaft brokers
// before Kafka 3.5 (KIP-900) do not serve it, and refuse every SCRAM login.
func (k *Kafka) SCRAMMissing() string {
	k.t.Helper()
	if v, ok := k.lacking(kmsg.DescribeUserSCRAMCredentials); ok {
		return fmt.Sprintf("KIP-900: broker %d (%s) keeps no SCRAM credentials: DescribeUserScramCredentials "+
			"(API key 50) is absent from its ApiVersions answer (KRaft serves SCRAM from Kafka 3.5)", v.NodeID, v.VersionGuess())
	}
	return ""
}

// RequireSCRAM skips the test unless every broker keeps SCRAM credentials (SCRAMMissing).
func (k *Kafka) RequireSCRAM() {
	k.t.Helper()
	if reason := k.SCRAMMissing(); reason != "" {
		k.t.Skip(reason)
	}
}
