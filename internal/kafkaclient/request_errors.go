package kafkaclient

import (
	"errors"
	"fmt"
	"strings"

	"github.com/segmentio/kafka-go"
)

// What a request that got no broker answer reports: the brokers layer's diagnosis of the address
// (broker.DialLog.Describe), in the typed errors of this package.

// requestError describes a request to address (broker id, or -1 for a bootstrap server) that
// failed without a broker answer. TLS, SASL and version errors pass through: they say what to fix;
// so does a refusal, named with op and the broker.
func (cv *clusterView) requestError(op, address string, id int, err error) error {
	var (
		code    kafka.Error
		refused *RefusedError
	)
	switch {
	case errors.As(err, &refused):
		named := *refused
		named.Op, named.Broker = op, describeBroker(address, id)
		return &named
	case configFailure(err) != nil:
		return err
	case errors.As(err, &code):
		return &BrokerError{Op: op, Partition: -1, Code: ErrorCode(code), Broker: describeBroker(address, id)}
	}
	return &ConnectionError{Op: op, Broker: describeBroker(address, id), Address: address, BrokerID: id,
		Problem: cv.dials.Describe(address, id, err), Err: err}
}

// seedError is the error of a failed choice of bootstrap server: a TLS, SASL or version failure
// as it is (it says what to fix; no address list hides it), else what each address did.
func (cv *clusterView) seedError(err error) error {
	if typed := configFailure(err); typed != nil {
		return typed
	}
	return &ConnectionError{Op: "connecting to a bootstrap server", BrokerID: -1, Problem: cv.bootstrapProblems(), Err: err}
}

func (cv *clusterView) bootstrapProblems() string {
	if p := cv.dials.Problems(); len(p) > 0 {
		return strings.Join(p, "; ")
	}
	return "no bootstrap server answered (" + strings.Join(cv.cfg.BootstrapServers, ", ") + ")"
}

// describeBroker names a broker for errors: "broker 2 (127.0.0.1:9092)", or the bare address of
// a bootstrap server.
func describeBroker(address string, id int) string {
	if id < 0 || address == "" {
		return address
	}
	return fmt.Sprintf("broker %d (%s)", id, address)
}

// configFailure returns the TLS, SASL, version or refusal error in err, if any: failures that the
// configuration or the brokers must fix, not time, reported as they are.
func configFailure(err error) error {
	var (
		tlsErr  *TLSError
		sasl    *SASLError
		unsup   *UnsupportedError
		refused *RefusedError
	)
	switch {
	case errors.As(err, &refused):
		return refused
	case errors.As(err, &tlsErr):
		return tlsErr
	case errors.As(err, &sasl):
		return sasl
	case errors.As(err, &unsup):
		return unsup
	}
	return nil
}
