package broker

import (
	"encoding/binary"
	"errors"
	"net"
	"time"

	"github.com/segmentio/kafka-go/protocol"
)

// kafkaConn sits between a Conn and its network connection (above TLS, so it sees Kafka
// frames in the clear). During the handshake (connect.go) one request is sent at a time and
// its response read before the next: ApiVersions and, with SASL, SaslHandshake and
// SaslAuthenticate. kafkaConn notes the API key of each request and, for the responses that
// decide whether the connection is usable, reads the whole frame, decodes it with kafka-go's own
// decoder and turns a refusal into a *SASLError naming the broker, the mechanism and the
// identity, with the broker's reason and offered mechanisms that kafka-go would drop. So every
// read that needs the connection gets that error. Once the handshake is done (pipelined), bytes
// pass through and the Conn reader asks explainPipelined what a failure means.
//
// It also bounds the first response of a TLS connection (a plaintext one is bounded by
// loggedConn), so that a peer that is not Kafka is not read as a frame of hundreds of MiB.
//
// Its jobs, one file each: this one follows the request frames written (noteRequest);
// kafka_conn_frames.go captures the handshake's responses whole; kafka_conn_verdicts.go says what
// ApiVersions and SASL answers mean; kafka_conn_explain.go says what a failed read or write means.
type kafkaConn struct {
	net.Conn
	s       *Dialer
	address string
	tls     *tlsState // nil without TLS

	whead    []byte // the start of the request frame being written, until its header is complete
	wremain  int    // bytes of the current request frame still to be written
	requests int    // request frames started
	lastKey  protocol.ApiKey
	lastVer  int16
	awaiting bool // a request was written and its response not yet begun

	rbuf []byte // a captured response frame, served to kafka-go's reads

	readDeadline time.Time // as the handshake set it (connect.go): bounds a probe made while explaining an error
	err          error     // the error Read returned: kafka-go reads again after one, and must not block

	// pipelined: the handshake is done; reads and writes pass through (Conn frames them),
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
