package broker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
)

// What a failed connection means, in words, from what the DialLog saw of its address: the
// errors that name the broker, say how far the connection got, and what to check.

// acquaintance is what the process knows of an address when one of its connections fails: it
// decides whether the failure reads as a wrong address or as a broker that went away.
type acquaintance int

const (
	stranger acquaintance = iota // a bootstrap server that never answered: maybe not a Kafka listener
	named                        // a broker that the cluster's metadata names, not answered yet
	answered                     // it answered like Kafka earlier in this process
)

// namedButUnreachable follows a failed dial to a broker that the cluster's metadata names.
const namedButUnreachable = "; the cluster's metadata names it as a broker (restarting or down; if it lasts, " +
	"check the broker's advertised.listeners: this is the address the cluster gives for it)"

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
		return describeDialError(r.dialErr) + namedButUnreachable
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
	case IsTimeout(err):
		return "TCP connection timed out (a firewall dropping packets, or a wrong host?)"
	}
	return strings.TrimPrefix(err.Error(), "dial tcp ")
}

// IsNameNotFound reports a dial whose host name does not exist for the resolver (NXDOMAIN, or
// absent from the hosts file): unlike a resolver that failed for the moment (IsTemporary) or did
// not answer (IsTimeout), asking again gives the same answer.
func IsNameNotFound(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound && !dnsErr.IsTemporary && !dnsErr.IsTimeout
}

// IsTimeout reports an error that means time ran out: the context's, a deadline of the
// connection, or the network's own timeout.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}

// IsConnectionLoss reports errors that mean "the connection broke mid-request": worth a retry on
// a new connection.
func IsConnectionLoss(err error) bool {
	return closedByPeer(err) || errors.Is(err, net.ErrClosed) || errors.Is(err, ErrDropped)
}

// closedByPeer reports the errors of a connection that the peer closed or reset.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// Describe says what happened on the way to address, from what this read's connections saw and
// whether the address answered earlier in the process.
func (d *DialLog) Describe(address string, id int, err error) string {
	if address == "" {
		return plainError(err)
	}
	known := d.acquaintance(address, id)
	d.mu.Lock()
	r := d.addrs[address]
	p := ""
	if r != nil {
		p = r.problem(known)
	}
	d.mu.Unlock()
	if p != "" {
		return p
	}
	var op *net.OpError
	switch {
	case known == answered && IsTimeout(err):
		return "stopped answering (it answered earlier in this run; a paused, overloaded or partitioned broker)"
	case known == named && errors.As(err, &op) && op.Op == "dial":
		return describeDialError(err) + namedButUnreachable
	}
	return plainError(err)
}

// plainError says in words what a connection error was.
func plainError(err error) string {
	var op *net.OpError
	switch {
	case errors.As(err, &op) && op.Op == "dial":
		return describeDialError(err)
	case IsTimeout(err) || errors.Is(err, context.Canceled):
		return "did not answer in time"
	case IsConnectionLoss(err):
		return "closed the connection before answering (a broker shutting down or restarting)"
	}
	return "failed: " + err.Error()
}
