package broker

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/segmentio/kafka-go/protocol"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// During the handshake kafkaConn reads the responses that decide whether the connection is usable
// (ApiVersions, SASL, and the first response over TLS) whole, at most wire.MaxFirstFrame bytes,
// and checks them (kafka_conn_verdicts.go) before kafka-go decodes a byte. Of any other it checks
// the size prefix before kafka-go sizes a buffer from it.

func (c *kafkaConn) read(p []byte) (int, error) {
	if len(c.rbuf) > 0 {
		return c.serve(p), nil
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
	if !control {
		return c.readCheckedHead(p)
	}
	frame, err := c.readFrame()
	if err != nil {
		return 0, err
	}
	if err := c.check(frame); err != nil {
		return 0, err
	}
	c.rbuf = frame
	return c.serve(p), nil
}

// serve copies the captured frame's next bytes into p.
func (c *kafkaConn) serve(p []byte) int {
	n := copy(p, c.rbuf)
	c.rbuf = c.rbuf[n:]
	return n
}

// readCheckedHead reads the size prefix of a response kafka-go reads itself and checks it
// (wire.FrameSizeProblem) before kafka-go sizes a buffer from it.
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
	return c.serve(p), nil
}

// readFrame reads one whole response frame of at most wire.MaxFirstFrame bytes (the handshake's
// answers take a few KiB), size prefix included. The buffer grows with the bytes received, not
// with what the size prefix claims.
func (c *kafkaConn) readFrame() ([]byte, error) {
	var head [4]byte
	n, err := io.ReadFull(c.Conn, head[:])
	if err != nil {
		if n == 0 {
			return nil, c.explain(err, true)
		}
		return nil, c.explain(err, false)
	}
	size := int32(binary.BigEndian.Uint32(head[:]))
	if size < 4 || size > wire.MaxFirstFrame {
		what := wire.NotKafka(head[:])
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
