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
		lastKey: protocol.SaslHandshake, lastVer: 1}
	err := c.check(wiretest.FrameOf(0, 0, 0, 1, 0, 0, 0x7f, 0xff, 0xff, 0xff)) // 2^31-1 mechanisms in no bytes
	want := "broker-1:9092: answered SaslHandshake v1 with bytes that do not decode as its response " +
		"(response did not contain enough data to be valid): not a Kafka broker"
	if err == nil || err.Error() != want || !strings.Contains(err.Error(), "broker-1:9092") {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}
