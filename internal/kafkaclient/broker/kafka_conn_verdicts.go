package broker

import (
	"bytes"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/saslauthenticate"
	"github.com/segmentio/kafka-go/protocol/saslhandshake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// check decodes a captured response: ApiVersions is checked in full (wire.CheckApiVersions), the responses
// with a shape (wire.CheckShape) are walked before kafka-go decodes them, and a SASL refusal
// becomes a *SASLError.
func (c *kafkaConn) check(frame []byte) error {
	if problem := wire.CheckShape(c.lastKey, c.lastVer, frame); problem != "" {
		return shapeError(c.address, c.lastKey, c.lastVer, problem)
	}
	switch c.lastKey {
	case protocol.ApiVersions:
		if err := checkApiVersions(c.address, frame, c.lastVer); err != nil {
			return err
		}
		c.s.dials.noteKafka(c.address) // a Kafka broker: past first contact
		return nil
	case protocol.SaslHandshake:
		// A frame that does not decode is left for kafka-go to report.
		_, msg, _ := protocol.ReadResponse(bytes.NewReader(frame), c.lastKey, c.lastVer)
		res, ok := msg.(*saslhandshake.Response)
		if !ok || res.ErrorCode == 0 {
			return nil
		}
		e := c.saslError(SASLMechanismNotEnabled, kafka.Error(res.ErrorCode))
		e.Offered = res.Mechanisms
		if kafka.Error(res.ErrorCode) == kafka.IllegalSASLState {
			e.Problem = SASLListenerWithoutSASL
		}
		return e
	case protocol.SaslAuthenticate:
		_, msg, _ := protocol.ReadResponse(bytes.NewReader(frame), c.lastKey, c.lastVer)
		res, ok := msg.(*saslauthenticate.Response)
		if !ok || res.ErrorCode == 0 {
			return nil
		}
		e := c.saslError(SASLAuthenticationFailed, kafka.Error(res.ErrorCode))
		e.BrokerMessage = res.ErrorMessage
		if e.BrokerMessage == "" {
			e.BrokerMessage = kafka.Error(res.ErrorCode).Title()
		}
		return e
	}
	return nil
}

func (c *kafkaConn) saslError(p SASLProblem, err error) *SASLError {
	e := &SASLError{Address: c.address, Problem: p, Err: err}
	if c.s.sasl != nil {
		e.Mechanism = c.s.sasl.Name()
		e.Identity = c.s.identity
	}
	return e
}
