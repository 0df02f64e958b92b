package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// A peer's bytes are checked before anything decodes them. The size prefix of every response
// frame (FrameSizeProblem) bounds the buffer it is read into. The first response of every
// connection, ApiVersions, is decoded by kafka-go, which trusts what it reads (an array count is
// allocated before it is checked against the bytes left, kafka-go issue #1439): kmsg decodes it
// first (CheckApiVersions), so that a peer that is not Kafka is refused before kafka-go decodes
// anything it sent. Every later response is decoded by kmsg, which checks every count
// and length against the bytes left (package broker, conn.go).

// MaxResponseFrame bounds any response frame: far above what Metadata for a large cluster or
// ListOffsets for thousands of partitions take, far below what would exhaust memory.
const MaxResponseFrame = 256 << 20

// MaxFirstFrame bounds the size prefix of the first response on a connection, which is always
// an ApiVersions response (a few KiB), and of the other responses of the handshake (SASL). An
// HTTP or TLS server's first bytes read as a size of hundreds of MiB, which kafka-go would
// otherwise try to allocate and wait for.
const MaxFirstFrame = 1 << 20

// FrameSizeProblem says what is wrong with a response's size prefix (its first 4 bytes), ""
// when nothing is.
func FrameSizeProblem(head []byte) string {
	size := int32(binary.BigEndian.Uint32(head))
	if size >= 4 && size <= MaxResponseFrame { // at least the correlation id
		return ""
	}
	if what := NotKafka(head); what != "" {
		return what
	}
	return fmt.Sprintf("answered with a frame size of %d bytes, which no Kafka response has", size)
}

// NotKafka says what head, the first bytes of a connection's first response, looks like when
// its size prefix cannot start a Kafka response; "" when it can (or when fewer than 4 bytes
// came).
func NotKafka(head []byte) string {
	if len(head) < 4 {
		return ""
	}
	size := int32(binary.BigEndian.Uint32(head))
	if size > 0 && size <= MaxFirstFrame {
		return ""
	}
	switch {
	case head[0] == 0x15 || head[0] == 0x16:
		return "answered with TLS: a TLS/plaintext mismatch, the port is a TLS listener (SSL or SASL_SSL) " +
			"while the provider speaks plaintext (add a tls block, or use the plaintext port)"
	case bytes.HasPrefix(head, []byte("HTTP")):
		return "answered with HTTP (an HTTP server, not a Kafka listener)"
	case bytes.HasPrefix(head, []byte("SSH-")):
		return "answered with SSH (an SSH server, not a Kafka listener)"
	}
	return fmt.Sprintf("answered with bytes that are not a Kafka response (first bytes % x)", head)
}

// TooOld names an API that a broker serves below the version the provider needs.
type TooOld struct {
	API      string // e.g. "Metadata"
	Min, Got int16  // the version needed, the highest served (0 when not served at all)
	Why      string // what older versions would do
}

// CheckApiVersions checks a whole ApiVersions response frame (size prefix included) of request
// version v: it decodes as such (kmsg, which checks every count against the bytes left; else
// notKafka says what is wrong), and the broker serves Metadata and ListOffsets in versions that
// keep the provider read-only and correct (else tooOld names the first that it does not).
func CheckApiVersions(frame []byte, v int16) (notKafka string, tooOld *TooOld) {
	if v >= 3 {
		return "", nil // the handshake (package broker, connect.go) sends v0; later versions are not checked
	}
	res := kmsg.NewPtrApiVersionsResponse()
	res.SetVersion(v)
	if err := res.ReadFrom(frame[8:]); err != nil { // after the size and the correlation id
		return fmt.Sprintf("answered ApiVersions with %d bytes that do not decode as its response (%v): "+
			"not a Kafka broker", len(frame)-8, err), nil
	}
	if res.ErrorCode != 0 || len(res.ApiKeys) == 0 {
		return "", nil // the handshake reports the error code itself (package broker, connect.go)
	}
	maxVersion := map[int16]int16{}
	for _, k := range res.ApiKeys {
		maxVersion[k.ApiKey] = k.MaxVersion
	}
	for _, need := range []struct {
		key kmsg.Key
		TooOld
	}{
		{kmsg.Metadata, TooOld{API: "Metadata", Min: MinMetadataVersion, Why: "older versions let the broker create the topics asked about"}},
		{kmsg.ListOffsets, TooOld{API: "ListOffsets", Min: MinListOffsetsVersion, Why: "older versions answer in a format this provider does not read"}},
	} {
		if got, ok := maxVersion[need.key.Int16()]; !ok || got < need.Min {
			need.Got = got
			return "", &need.TooOld
		}
	}
	return "", nil
}
