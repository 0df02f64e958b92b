package kafkaclient

import (
	"encoding/binary"
	"fmt"
)

// kafka-go trusts what it reads: a negative frame size panics in its decoder, and an array
// count is allocated before it is checked against the bytes left (kafka-go issue #1439), so a
// 14-byte frame can ask for gigabytes. kafkaConn therefore checks the size of every response
// frame, and the first response of every connection, ApiVersions, in full, so that a peer that is
// not Kafka is refused before kafka-go decodes anything it sent. Later responses whose types this
// package registers or decodes itself (ListOffsets, ListGroups, SaslHandshake, SaslAuthenticate)
// are read whole and walked before kafka-go decodes them (response_shape.go). kafka-go's own
// responses (Metadata, FindCoordinator, OffsetFetch, DescribeGroups) are not yet: a broker that
// answers ApiVersions properly and then sends hostile arrays there is not defended against;
// adding their types to shapes would be enough (FuzzResponseShape already checks the walker on them).

// maxResponseFrame bounds any response frame: far above what Metadata for a large cluster or
// ListOffsets for thousands of partitions take, far below what would exhaust memory.
const maxResponseFrame = 256 << 20

// checkFrameSize says what is wrong with a response's size prefix, or nil.
func checkFrameSize(address string, head []byte) error {
	size := int32(binary.BigEndian.Uint32(head))
	if size >= 4 && size <= maxResponseFrame { // at least the correlation id
		return nil
	}
	what := notKafka(head)
	if what == "" {
		what = fmt.Sprintf("answered with a frame size of %d bytes, which no Kafka response has", size)
	}
	return &notKafkaError{Address: address, What: what}
}

// Minimum Kafka protocol versions this provider relies on.
const (
	// Metadata v4 added AllowAutoTopicCreation; v0-v3 let a broker create any topic asked about.
	minMetadataVersion = 4
	// ListOffsets v1 answers one offset per partition; v0 is a different format.
	minListOffsetsVersion = 1
)

// checkApiVersions checks a whole ApiVersions response frame (size prefix included) of request
// version v: its array fits in the frame, and the broker serves Metadata and ListOffsets in
// versions that keep this provider read-only and correct.
func checkApiVersions(address string, frame []byte, v int16) error {
	if v >= 3 {
		return nil // kafka-go sends ApiVersions v0 on every new connection; later versions are not checked
	}
	body := frame[8:] // size, correlation id
	if len(body) < 6 {
		return &notKafkaError{Address: address, What: fmt.Sprintf("answered ApiVersions with %d bytes, too short for a Kafka response", len(frame))}
	}
	count := int32(binary.BigEndian.Uint32(body[2:6]))
	entries := body[6:]
	if count < 0 || int(count) > len(entries)/6 {
		return &notKafkaError{Address: address, What: fmt.Sprintf(
			"answered ApiVersions with a response that claims %d API versions in %d bytes: not a Kafka broker", count, len(entries))}
	}
	maxVersion := map[int16]int16{}
	for i := 0; i < int(count); i++ {
		e := entries[6*i:]
		maxVersion[int16(binary.BigEndian.Uint16(e))] = int16(binary.BigEndian.Uint16(e[4:]))
	}
	if code := int16(binary.BigEndian.Uint16(body[:2])); code != 0 || count == 0 {
		return nil // kafka-go reports the error code itself
	}
	for _, need := range []struct {
		key  int16
		name string
		min  int16
		why  string
	}{
		{3, "Metadata", minMetadataVersion, "older versions let the broker create the topics asked about"},
		{2, "ListOffsets", minListOffsetsVersion, "older versions answer in a format this provider does not read"},
	} {
		if got, ok := maxVersion[need.key]; !ok || got < need.min {
			return &UnsupportedError{
				What:  fmt.Sprintf("broker %s: %s v%d or later (it serves up to v%d; %s)", address, need.name, need.min, got, need.why),
				Since: "0.11",
			}
		}
	}
	return nil
}
