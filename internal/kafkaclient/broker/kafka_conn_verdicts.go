package broker

import (
	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// check decodes a captured response of the handshake: ApiVersions is checked in full
// (wire.CheckApiVersions), the SASL answers are decoded by kmsg before kafka-go reads them, and a
// SASL refusal becomes a *SASLError.
func (c *kafkaConn) check(frame []byte) error {
	switch c.lastKey {
	case protocol.ApiVersions:
		if err := checkApiVersions(c.address, frame, c.lastVer); err != nil {
			return err
		}
		c.s.dials.noteKafka(c.address) // a Kafka broker: past first contact
		return nil
	case protocol.SaslHandshake:
		res := kmsg.NewPtrSASLHandshakeResponse()
		if err := decode(res, c.lastVer, frame); err != nil {
			return undecodableError(c.address, "SaslHandshake", c.lastVer, err)
		}
		if res.ErrorCode == 0 {
			return nil
		}
		e := c.saslError(SASLMechanismNotEnabled, kafka.Error(res.ErrorCode))
		e.Offered = res.SupportedMechanisms
		if kafka.Error(res.ErrorCode) == kafka.IllegalSASLState {
			e.Problem = SASLListenerWithoutSASL
		}
		return e
	case protocol.SaslAuthenticate:
		res := kmsg.NewPtrSASLAuthenticateResponse()
		if err := decode(res, c.lastVer, frame); err != nil {
			return undecodableError(c.address, "SaslAuthenticate", c.lastVer, err)
		}
		if res.ErrorCode == 0 {
			return nil
		}
		e := c.saslError(SASLAuthenticationFailed, kafka.Error(res.ErrorCode))
		if res.ErrorMessage != nil {
			e.BrokerMessage = *res.ErrorMessage
		}
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
