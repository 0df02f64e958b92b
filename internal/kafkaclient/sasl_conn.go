package kafkaclient

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/saslauthenticate"
	"github.com/segmentio/kafka-go/protocol/saslhandshake"
)

// kafkaConn sits between a brokerConn and its network connection (above TLS, so it sees Kafka
// frames in the clear). During the handshake (broker_dial.go) one request is sent at a time and
// its response read before the next: ApiVersions and, with SASL, SaslHandshake and
// SaslAuthenticate. kafkaConn notes the API key of each request and, for the responses that
// decide whether the connection is usable, reads the whole frame, decodes it with kafka-go's own
// decoder and turns a refusal into a *SASLError naming the broker, the mechanism and the
// identity, with the broker's reason and offered mechanisms that kafka-go would drop. So every
// read that needs the connection gets that error. Once the handshake is done (pipelined), bytes
// pass through and the brokerConn reader asks explainPipelined what a failure means.
//
// It also bounds the first response of a TLS connection (a plaintext one is bounded by
// loggedConn), so that a peer that is not Kafka is not read as a frame of hundreds of MiB.
type kafkaConn struct {
	net.Conn
	s       *secureDialer
	address string
	tls     *tlsState // nil without TLS

	whead    []byte // the start of the request frame being written, until its header is complete
	wremain  int    // bytes of the current request frame still to be written
	requests int    // request frames started
	lastKey  protocol.ApiKey
	lastVer  int16
	awaiting bool // a request was written and its response not yet begun

	rbuf []byte // a captured response frame, served to kafka-go's reads

	readDeadline time.Time // as kafka-go set it: bounds a probe made while explaining an error
	dialDeadline time.Time // the end of kafka-go's connect: bounds the SASL exchange
	err          error     // the error Read returned: kafka-go reads again after one, and must not block

	// pipelined: the handshake is done; reads and writes pass through (brokerConn frames them),
	// from two goroutines, so the fields above are no longer touched.
	pipelined bool
	// firstAnswerPending: no answer has arrived since the handshake (explainPipelined sets it).
	firstAnswerPending bool
}

// noDeadline clears a connection's deadline.
var noDeadline time.Time

func (c *kafkaConn) SetDeadline(t time.Time) error {
	c.readDeadline = t
	return c.Conn.SetDeadline(t)
}

func (c *kafkaConn) SetReadDeadline(t time.Time) error {
	c.readDeadline = t
	return c.Conn.SetReadDeadline(t)
}

// maxControlFrame bounds the responses kafkaConn reads whole (ApiVersions, SASL): a few KiB.
const maxControlFrame = maxFirstFrame

func (c *kafkaConn) Write(p []byte) (int, error) {
	if c.pipelined {
		n, err := c.Conn.Write(p)
		if err != nil {
			err = c.explain(err, false)
		}
		return n, err
	}
	c.noteRequest(p)
	n, err := c.Conn.Write(p)
	if err != nil {
		err = c.explain(err, false)
	}
	return n, err
}

// noteRequest follows the request frames written: size (4 bytes), API key (2), version (2), ...
func (c *kafkaConn) noteRequest(p []byte) {
	for len(p) > 0 {
		if c.wremain == 0 {
			take := min(8-len(c.whead), len(p))
			c.whead = append(c.whead, p[:take]...)
			p = p[take:]
			if len(c.whead) < 8 {
				return
			}
			size := int(int32(binary.BigEndian.Uint32(c.whead)))
			c.lastKey = protocol.ApiKey(binary.BigEndian.Uint16(c.whead[4:]))
			c.lastVer = int16(binary.BigEndian.Uint16(c.whead[6:]))
			c.requests++
			c.awaiting = true
			c.wremain = max(size+4-8, 0)
			c.whead = c.whead[:0]
			if c.wremain == 0 {
				continue
			}
		}
		k := min(len(p), c.wremain)
		c.wremain -= k
		p = p[k:]
	}
}

func (c *kafkaConn) Read(p []byte) (int, error) {
	if c.pipelined {
		return c.Conn.Read(p)
	}
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.read(p)
	var nk *notKafkaError
	if errors.As(err, &nk) {
		c.s.dials.markNotKafka(nk.Address, nk.What)
	}
	if err != nil && n == 0 {
		c.err = err
	}
	return n, err
}

func (c *kafkaConn) read(p []byte) (int, error) {
	if len(c.rbuf) > 0 {
		n := copy(p, c.rbuf)
		c.rbuf = c.rbuf[n:]
		return n, nil
	}
	if !c.awaiting {
		n, err := c.Conn.Read(p)
		if err != nil && n == 0 {
			err = c.explain(err, false)
		}
		return n, err
	}
	// The start of the response to the request just written.
	c.awaiting = false
	control := c.lastKey == protocol.SaslHandshake || c.lastKey == protocol.SaslAuthenticate ||
		c.lastKey == protocol.ApiVersions || (c.requests == 1 && c.tls != nil)
	if !control && !hasShape(c.lastKey) { // response_shape.go: ListOffsets, ListGroups are checked whole
		return c.readCheckedHead(p)
	}
	limit := int32(maxResponseFrame)
	if control {
		limit = maxControlFrame
	}
	if control && c.readDeadline.IsZero() && !c.dialDeadline.IsZero() {
		// kafka-go clears the connection's deadline before the SASL exchange: bound it by the
		// end of the connect, so that a broker that never answers cannot hold this read forever.
		_ = c.Conn.SetReadDeadline(c.dialDeadline)
		defer func() { _ = c.Conn.SetReadDeadline(time.Time{}) }()
	}
	frame, err := c.readFrame(limit)
	if err != nil {
		return 0, err
	}
	if err := c.check(frame); err != nil {
		return 0, err
	}
	c.rbuf = frame
	n := copy(p, c.rbuf)
	c.rbuf = c.rbuf[n:]
	return n, nil
}

// readCheckedHead reads the size prefix of a response kafka-go reads itself and checks it
// (frames.go) before kafka-go sizes a buffer from it.
func (c *kafkaConn) readCheckedHead(p []byte) (int, error) {
	var head [4]byte
	n, err := io.ReadFull(c.Conn, head[:])
	if err != nil {
		return 0, c.explain(err, n == 0)
	}
	if err := checkFrameSize(c.address, head[:]); err != nil {
		return 0, err
	}
	c.rbuf = head[:]
	n = copy(p, c.rbuf)
	c.rbuf = c.rbuf[n:]
	return n, nil
}

// readFrame reads one whole response frame of at most limit bytes, size prefix included. The
// buffer grows with the bytes received, not with what the size prefix claims.
func (c *kafkaConn) readFrame(limit int32) ([]byte, error) {
	var head [4]byte
	n, err := io.ReadFull(c.Conn, head[:])
	if err != nil {
		if n == 0 {
			return nil, c.explain(err, true)
		}
		return nil, c.explain(err, false)
	}
	size := int32(binary.BigEndian.Uint32(head[:]))
	if limit > maxControlFrame {
		if err := checkFrameSize(c.address, head[:]); err != nil {
			return nil, err
		}
	} else if size < 4 || size > limit {
		what := notKafka(head[:])
		if what == "" {
			what = fmt.Sprintf("answered with a frame of %d bytes where a %s response of a few KiB belongs", size, c.lastKey)
		}
		return nil, &notKafkaError{Address: c.address, What: what}
	}
	buf := bytes.NewBuffer(make([]byte, 0, 4+min(int(size), 64<<10)))
	buf.Write(head[:])
	got, err := buf.ReadFrom(io.LimitReader(c.Conn, int64(size)))
	if err == nil && got < int64(size) {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, c.explain(err, false)
	}
	return buf.Bytes(), nil
}

// check decodes a captured response: ApiVersions is checked in full (frames.go), the responses
// with a shape (response_shape.go) are walked before kafka-go decodes them, and a SASL refusal
// becomes a *SASLError.
func (c *kafkaConn) check(frame []byte) error {
	if problem := checkShape(c.lastKey, c.lastVer, frame); problem != "" {
		return &notKafkaError{Address: c.address, What: fmt.Sprintf("answered %s v%d with %s: not a Kafka broker",
			c.lastKey, c.lastVer, problem)}
	}
	switch c.lastKey {
	case protocol.ApiVersions:
		if err := checkApiVersions(c.address, frame, c.lastVer); err != nil {
			return err
		}
		c.s.dials.contacts.noteAnswered(c.address) // a Kafka broker: past first contact
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
		e.Identity = identityOf(c.s.sasl)
	}
	return e
}

// explain turns a read or write error into a typed one where the state of the connection says
// what it means. atResponseStart: nothing of the awaited response was read yet.
func (c *kafkaConn) explain(err error, atResponseStart bool) error {
	if c.tls != nil {
		if p, detail := remoteAlert(err, c.tls); detail != "" {
			return &TLSError{Address: c.address, Problem: p, Detail: detail, Err: err}
		}
	}
	closed := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
	if !closed || !atResponseStart {
		return err
	}
	switch {
	case !c.pipelined && c.lastKey == protocol.SaslAuthenticate:
		// Brokers may answer bad credentials by closing the connection. (Not wrapping err:
		// kafka-go turns any error that is io.EOF into io.ErrUnexpectedEOF, and retries.)
		return c.saslError(SASLAuthenticationFailed, kafka.SASLAuthenticationFailed)
	case c.s.sasl == nil && (c.firstAnswerPending || !c.pipelined && c.requests == 2 && c.lastKey != protocol.SaslHandshake):
		// The broker answered ApiVersions, then dropped the first real request: what a SASL
		// listener does to a client that skips authentication. Ask it to be sure.
		if offered, ok := c.s.probeSASL(c.address, c.readDeadline); ok {
			return &SASLError{Address: c.address, Problem: SASLRequired, Offered: offered}
		}
	}
	return err
}

// explainPipelined explains a read error after the handshake, from the brokerConn reader.
// atResponseStart: nothing of the awaited answer was read; first: no answer has arrived since
// the handshake (a SASL listener drops a client that skips authentication at its first request).
func (c *kafkaConn) explainPipelined(err error, atResponseStart, first bool) error {
	c.firstAnswerPending = first
	return c.explain(err, atResponseStart)
}

// probeSASL opens one more connection to address and sends a SaslHandshake (v1) to learn
// whether the listener uses SASL and which mechanisms it enables. ok is false when it does not
// use SASL or the probe failed.
func (s *secureDialer) probeSASL(address string, deadline time.Time) (offered []string, ok bool) {
	if limit := time.Now().Add(3 * time.Second); deadline.IsZero() || deadline.After(limit) {
		deadline = limit
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	conn, _, err := s.dialTLS(ctx, "tcp", address)
	if err != nil {
		return nil, false
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(deadline)
	msg, err := roundTripChecked(conn, s.clientID, 1, &saslhandshake.Request{Mechanism: "PLAIN"}) // response_shape.go
	if err != nil {
		return nil, false
	}
	res, isRes := msg.(*saslhandshake.Response)
	// A SASL listener answers with its enabled mechanisms; Kafka's other listeners with
	// ILLEGAL_SASL_STATE (and franz-go's kfake, without SASL, with an empty list).
	if !isRes || kafka.Error(res.ErrorCode) == kafka.IllegalSASLState || len(res.Mechanisms) == 0 {
		return nil, false
	}
	return res.Mechanisms, true
}
