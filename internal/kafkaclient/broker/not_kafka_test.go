package broker

import (
	"strings"
	"testing"

	"github.com/segmentio/kafka-go/protocol"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire/wiretest"
)

// The check names what it refused in the error that the read returns.
func TestShapeProblemIsNamedWithTheBroker(t *testing.T) {
	c := &kafkaConn{s: &Dialer{dials: NewDialLog(nil, false)}, address: "broker-1:9092",
		lastKey: protocol.ListOffsets, lastVer: 1}
	err := c.check(wiretest.FrameOf(0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff))
	want := "broker-1:9092: answered ListOffsets v1 with field Topics: an array that claims 2147483647 entries in 0 bytes: not a Kafka broker"
	if err == nil || err.Error() != want || !strings.Contains(err.Error(), "broker-1:9092") {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}
