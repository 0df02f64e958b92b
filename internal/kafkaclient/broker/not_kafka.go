package broker

import (
	"errors"
	"fmt"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// A peer that is not a Kafka broker (an HTTP or SSH server, a TLS listener spoken to in
// plaintext, a hostile one) is refused before kafka-go decodes what it sent: the wire package
// says what is wrong with the bytes; the errors here say which address sent them.

var errNotKafka = errors.New("not a Kafka response")

// notKafkaError: what a peer sent cannot be a Kafka response.
type notKafkaError struct {
	Address string
	What    string // e.g. "answered with HTTP (an HTTP server, not a Kafka listener)"
}

func (e *notKafkaError) Error() string { return e.Address + ": " + e.What }

func (e *notKafkaError) Is(target error) bool { return target == errNotKafka }

// checkFrameSize refuses a response whose size prefix (head) no Kafka response has.
func checkFrameSize(address string, head []byte) error {
	if what := wire.FrameSizeProblem(head); what != "" {
		return &notKafkaError{Address: address, What: what}
	}
	return nil
}

// checkApiVersions refuses an ApiVersions response (a whole frame, of request version v) that
// is not Kafka's, or that comes from a broker too old for the provider.
func checkApiVersions(address string, frame []byte, v int16) error {
	notKafka, tooOld := wire.CheckApiVersions(frame, v)
	switch {
	case notKafka != "":
		return &notKafkaError{Address: address, What: notKafka}
	case tooOld != nil:
		return &UnsupportedError{
			What: fmt.Sprintf("broker %s: %s v%d or later (it serves up to v%d; %s)",
				address, tooOld.API, tooOld.Min, tooOld.Got, tooOld.Why),
			Since: oldestSupported,
		}
	}
	return nil
}

// undecodableError refuses a response that does not decode as the answer to its request (decode).
func undecodableError(address, api string, v int16, err error) error {
	return &notKafkaError{Address: address, What: fmt.Sprintf(
		"answered %s v%d with bytes that do not decode as its response (%v): not a Kafka broker", api, v, err)}
}
