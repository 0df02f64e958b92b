package broker

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire/wiretest"
)

// noteState is what kafkaConn knows of the request frames written so far.
type noteState struct {
	requests, wremain int
	key               protocol.ApiKey
	ver               int16
	awaiting          bool
	head              string
}

func noted(c *kafkaConn) noteState {
	return noteState{c.requests, c.wremain, c.lastKey, c.lastVer, c.awaiting, string(c.whead)}
}

// FuzzNoteRequest: kafkaConn follows request frames however kafka-go splits its writes; the state
// after the bytes written in one piece is the state after the same bytes in pieces cut anywhere.
func FuzzNoteRequest(f *testing.F) {
	frame := func(key, ver int16, payload int) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(4+payload))
		b = binary.BigEndian.AppendUint16(b, uint16(key))
		b = binary.BigEndian.AppendUint16(b, uint16(ver))
		return append(b, make([]byte, payload)...)
	}
	two := append(frame(18, 0, 10), frame(17, 1, 30)...)
	f.Add(two, []byte{3, 5, 1})
	f.Add(append(frame(2, 7, 100), frame(16, 4, 0)...), []byte{8})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 2, 0, 7, 0, 0, 0, 4}, []byte{1, 1, 1})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		whole := &kafkaConn{}
		whole.noteRequest(data)
		pieces := &kafkaConn{}
		rest := data
		for _, c := range cuts {
			n := min(int(c), len(rest))
			pieces.noteRequest(rest[:n])
			rest = rest[n:]
		}
		pieces.noteRequest(rest)
		if a, b := noted(whole), noted(pieces); a != b {
			t.Fatalf("in one write: %+v; in pieces %v: %+v", a, cuts, b)
		}
	})
}

// peerConn is a broker that answers every request with the bytes of resp, chunk bytes per read,
// then ends the connection.
type peerConn struct {
	resp  []byte
	chunk int
}

func (c *peerConn) Read(p []byte) (int, error) {
	if len(c.resp) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.chunk)], c.resp)
	c.resp = c.resp[n:]
	return n, nil
}

func (c *peerConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *peerConn) Close() error                     { return nil }
func (c *peerConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *peerConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *peerConn) SetDeadline(time.Time) error      { return nil }
func (c *peerConn) SetReadDeadline(time.Time) error  { return nil }
func (c *peerConn) SetWriteDeadline(time.Time) error { return nil }

// connResponses are the responses kafkaConn reads whole before kafka-go decodes them: the
// handshake's.
var connResponses = []protocol.ApiKey{protocol.ApiVersions, protocol.SaslHandshake, protocol.SaslAuthenticate}

const fuzzPassword = "CANARY-fuzz-password"

// FuzzKafkaConnResponse feeds hostile broker bytes through kafkaConn to kafka-go's decoder, as a
// connection of the provider reads them (bufio over the connection, as kafka-go's protocol.Conn),
// for every response kafkaConn reads whole: ApiVersions, SaslHandshake and SaslAuthenticate, in
// every version kafka-go speaks. No input may panic, hang or allocate beyond a
// small multiple of its size; a SASL refusal becomes a *SASLError that names the broker, shows
// the broker's own text quoted, and never the password.
func FuzzKafkaConnResponse(f *testing.F) {
	for i, key := range connResponses {
		for _, v := range wiretest.Versions(int16(key)) {
			f.Add(uint8(i), v, uint8(0), wiretest.Encoded(f, int16(key), v))
		}
	}
	hs := func(code int16, mechs ...string) []byte {
		return wiretest.EncodedMessage(f, 1, &kmsg.SASLHandshakeResponse{ErrorCode: code, SupportedMechanisms: mechs})
	}
	f.Add(uint8(1), int16(1), uint8(3), hs(33, "SCRAM-SHA-512", "OAUTHBEARER"))
	f.Add(uint8(1), int16(1), uint8(0), hs(34))
	authFailed := func(v int16, text string) []byte {
		return wiretest.EncodedMessage(f, v, &kmsg.SASLAuthenticateResponse{ErrorCode: 58, ErrorMessage: &text})
	}
	f.Add(uint8(2), int16(1), uint8(0), authFailed(1, "Authentication failed: Invalid username or password"))
	f.Add(uint8(2), int16(0), uint8(0), authFailed(0, "bad\nline\x1b[31m"))
	f.Add(uint8(1), int16(1), uint8(1), wiretest.FrameOf(0, 0, 0, 1, 0, 0, 0x7f, 0xff, 0xff, 0xff))
	f.Add(uint8(2), int16(1), uint8(0), wiretest.FrameOf(0, 0, 0, 1, 0, 0, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff))
	f.Add(uint8(0), int16(0), uint8(0), []byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
	f.Fuzz(func(t *testing.T, which uint8, v int16, chunk uint8, resp []byte) {
		key := connResponses[int(which)%len(connResponses)]
		if v < key.MinVersion() || v > key.MaxVersion() {
			return
		}
		defer acctest.NoHang("kafkaConn")()
		c := &kafkaConn{Conn: &peerConn{resp: resp, chunk: int(chunk)%64 + 1}, address: "broker-1:9092",
			s: &Dialer{dials: NewDialLog(nil, false), sasl: plain.Mechanism{Username: "app", Password: fuzzPassword},
				identity: `user "app"`}}
		req := binary.BigEndian.AppendUint32(nil, 4)
		req = binary.BigEndian.AppendUint16(req, uint16(key))
		req = binary.BigEndian.AppendUint16(req, uint16(v))
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		var err error
		if n := acctest.AllocatedBy(func() { _, _, err = protocol.ReadResponse(bufio.NewReader(c), key, v) }); n > acctest.AllocLimit(len(resp)) {
			t.Fatalf("%s v%d: %d bytes from the broker made the read allocate %d", key, v, len(resp), n)
		}
		if err == nil {
			return
		}
		text := err.Error()
		if strings.Contains(text, fuzzPassword) {
			t.Fatalf("the error shows the password: %s", text)
		}
		var se *SASLError
		if errors.As(err, &se) {
			if se.Address != "broker-1:9092" || se.Mechanism != "PLAIN" || se.Identity != `user "app"` ||
				!strings.Contains(text, "broker-1:9092") {
				t.Fatalf("SASL error without the broker or identity: %#v", se)
			}
			if r := acctest.ControlRune(text); r >= 0 {
				t.Fatalf("SASL error shows the broker's control character %U raw: %q", r, text)
			}
		}
	})
}
