package kafkaclient

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// dialLog wraps a dialer and remembers, per address, how far the latest connection got. kafka-go
// reports a silent broker as "context deadline exceeded" and a refused one as a bare dial
// error; this record is what lets an error say which address failed and how.
type dialLog struct {
	dial0       func(ctx context.Context, network, address string) (net.Conn, error)
	checkFrames bool
	contacts    *contacts // the Client's: which addresses answered before this read

	mu    sync.Mutex
	addrs map[string]*addrRecord
}

type addrRecord struct {
	dialErr   error  // the last failed dial, nil once a dial succeeded
	connected bool   // a TCP connection was established
	answered  bool   // the peer sent the start of a plausible Kafka response
	notKafka  string // what the peer sent instead of a Kafka response, if it did
	readErr   error  // how a connection that never answered ended (EOF, reset), if it did
	silent    bool   // a read timed out before the peer sent anything
	security  string // a TLS failure that explains the address (tls_dial.go), if any
}

// newDialLog wraps dial. With checkFrames (plaintext connections, where the first bytes read are
// Kafka's), a first response that cannot be Kafka's fails the connection at once. Addresses that
// answer are also noted in contacts, which outlives this log.
func newDialLog(dial func(ctx context.Context, network, address string) (net.Conn, error), checkFrames bool, contacts *contacts) *dialLog {
	return &dialLog{dial0: dial, addrs: map[string]*addrRecord{},
		checkFrames: checkFrames, contacts: contacts}
}

func (d *dialLog) record(address string, update func(r *addrRecord)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.addrs[address]
	if !ok {
		r = &addrRecord{}
		d.addrs[address] = r
	}
	update(r)
}

func (d *dialLog) dial(ctx context.Context, network, address string) (net.Conn, error) {
	// The record describes the latest connection to the address: the Client keeps one log for
	// its whole life, and an address that answered an hour ago may be refusing now.
	conn, err := d.dial0(ctx, network, address)
	if err != nil {
		d.record(address, func(r *addrRecord) { *r = addrRecord{dialErr: err} })
		return nil, err
	}
	d.record(address, func(r *addrRecord) { *r = addrRecord{connected: true} })
	return &loggedConn{Conn: conn, log: d, address: address, checkFrame: d.checkFrames}, nil
}

// maxFirstFrame bounds the size prefix of the first response on a connection, which kafka-go
// always makes an ApiVersions response (a few KiB). An HTTP or TLS server's first bytes read as a
// size of hundreds of MiB, which kafka-go would otherwise try to allocate and wait for.
const maxFirstFrame = 1 << 20

var errNotKafka = errors.New("not a Kafka response")

// notKafkaError: what a peer sent cannot be a Kafka response.
type notKafkaError struct {
	Address string
	What    string // e.g. "answered with HTTP (an HTTP server, not a Kafka listener)"
}

func (e *notKafkaError) Error() string { return e.Address + ": " + e.What }

func (e *notKafkaError) Is(target error) bool { return target == errNotKafka }

// markNotKafka records that address answered with something that is not Kafka, even when its
// first bytes looked plausible.
func (d *dialLog) markNotKafka(address, what string) {
	d.record(address, func(r *addrRecord) { r.answered, r.notKafka = false, what })
}

// loggedConn notes how far the connection got: the first response's size prefix, or an end of
// connection before any answer.
type loggedConn struct {
	net.Conn
	log        *dialLog
	address    string
	checkFrame bool
	answered   bool
	head       []byte // the first bytes read, until the size prefix is complete
}

func (c *loggedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	switch {
	case n > 0 && !c.answered:
		c.head = append(c.head, p[:min(n, 8-len(c.head))]...)
		if c.checkFrame && len(c.head) < 4 {
			break // not enough yet to judge the size prefix
		}
		if what := notKafka(c.head); c.checkFrame && what != "" {
			c.log.record(c.address, func(r *addrRecord) { r.notKafka = what })
			_ = c.Close()
			return 0, &notKafkaError{Address: c.address, What: what}
		}
		c.answered = true
		c.log.record(c.address, func(r *addrRecord) { r.answered, r.readErr, r.notKafka = true, nil, "" })
	case err != nil && !c.answered && isTimeout(err):
		c.log.record(c.address, func(r *addrRecord) { r.silent = !r.answered })
	case err != nil && !c.answered && !errors.Is(err, net.ErrClosed):
		c.log.record(c.address, func(r *addrRecord) {
			if !r.answered {
				r.readErr = err
			}
		})
	}
	return n, err
}

// acquaintance says what the process knows of address; id is the broker id the cluster's
// metadata gives it, -1 for a bootstrap server.
func (d *dialLog) acquaintance(address string, id int) acquaintance {
	switch {
	case d.contacts.answeredBefore(address):
		return answered
	case id >= 0:
		return named
	}
	return stranger
}

// problems describes, one phrase per address, every address that failed, sorted by address.
func (d *dialLog) problems() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for addr, r := range d.addrs {
		if p := r.problem(d.acquaintance(addr, -1)); p != "" {
			out = append(out, addr+": "+p)
		}
	}
	sort.Strings(out)
	return out
}

// notKafka says what head, the first bytes of a response, looks like when its size prefix cannot
// start a Kafka response; "" when it can.
func notKafka(head []byte) string {
	if len(head) < 4 {
		return ""
	}
	size := int32(binary.BigEndian.Uint32(head))
	if size > 0 && size <= maxFirstFrame {
		return ""
	}
	switch {
	case head[0] == 0x15 || head[0] == 0x16:
		return "answered with TLS: a TLS/plaintext mismatch, the port is a TLS listener (SSL or SASL_SSL) " +
			"while the provider speaks plaintext (add a tls block, or use the plaintext port)"
	case bytes.HasPrefix(head, []byte("HTTP")):
		return "answered with HTTP (an HTTP server, not a Kafka listener)"
	case bytes.HasPrefix(head, []byte("SSH-")):
		return "answered with SSH (an SSH server, not a Kafka listener)"
	}
	return fmt.Sprintf("answered with bytes that are not a Kafka response (first bytes % x)", head)
}

// acquaintance is what the process knows of an address when one of its connections fails: it
// decides whether the failure reads as a wrong address or as a broker that went away.
type acquaintance int

const (
	stranger acquaintance = iota // a bootstrap server that never answered: maybe not a Kafka listener
	named                        // a broker that the cluster's metadata names, not answered yet
	answered                     // it answered like Kafka earlier in this process
)

// problem describes what went wrong at the address, "" if nothing did.
func (r *addrRecord) problem(known acquaintance) string {
	switch {
	case r.security != "":
		return r.security
	case r.answered:
		return ""
	case r.notKafka != "":
		return r.notKafka
	case known == answered && r.connected:
		return "stopped answering: it answered earlier in this run, then accepted a TCP connection and sent " +
			"nothing back (a paused, overloaded or partitioned broker)"
	case known == named && r.connected:
		return "did not answer: the cluster's metadata names it as a broker, and it accepted a TCP connection " +
			"and sent nothing back (a paused, overloaded or partitioned broker)"
	case known == answered && r.dialErr != nil:
		return describeDialError(r.dialErr) + "; it answered earlier in this run (a broker restarting or down)"
	case known == named && r.dialErr != nil:
		return describeDialError(r.dialErr) + "; the cluster's metadata names it as a broker (restarting or " +
			"down; if it lasts, check the broker's advertised.listeners: this is the address the cluster gives for it)"
	case r.connected && r.readErr != nil:
		return "accepted the TCP connection, then closed it without a Kafka response " +
			"(is this a Kafka listener, and does it expect TLS or SASL?)"
	case r.connected:
		return "accepted the TCP connection but never answered the Kafka handshake (ApiVersions) " +
			"(is this a Kafka listener, and does it expect TLS?)"
	case r.dialErr != nil:
		return describeDialError(r.dialErr)
	}
	return ""
}

func describeDialError(err error) string {
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("host name lookup failed (%s)", dnsErr.Err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused (nothing listens on that port)"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host or network unreachable"
	case isTimeout(err):
		return "TCP connection timed out (a firewall dropping packets, or a wrong host?)"
	}
	return strings.TrimPrefix(err.Error(), "dial tcp ")
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}

// isConnectionLoss reports errors that mean "the connection broke mid-request": worth a retry on
// a new connection.
func isConnectionLoss(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed)
}
