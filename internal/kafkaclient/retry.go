package kafkaclient

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/segmentio/kafka-go"
)

// The one retry policy of every read: what is retried, how long to wait, when to stop.
//
//   - Broker answers that fresh metadata can cure (a moved leader, an election, a coordinator
//     loading) are retried: see retriable in errors.go.
//   - A failed or lost connection (refused, reset, closed, silent) is retried once the cluster
//     has answered in this process: a broker restarting or crashing, whose leaderships move within
//     the controller's session timeout. At first contact it is reported at once as an
//     *UnreachableError: a wrong address does not become right by waiting.
//   - Everything else (authorization, TLS, SASL, a topic that fresh metadata says is missing)
//     is reported at once.
//   - The read's timeout bounds it all; what was still failing then comes back as *TimeoutError.

// Backoff between attempts: doubles from backoffMin up to backoffMax, always inside the timeout.
const (
	backoffMin = 50 * time.Millisecond
	backoffMax = time.Second
)

// withRetries runs op until it succeeds, fails for good, or ctx ends. op gets two times:
// notBefore, how recent the metadata it uses must be (zero on the first attempt: the cached
// layout will do), and believe, from when metadata must have been requested for a "no such topic
// or partition" to be reported (the read's start, then the last failure). Every attempt after
// the first asks for metadata requested after the failure that caused it: the layout that sent
// the request to a moved leader or a restarted broker is stale.
func (c *Client) withRetries(ctx context.Context, op func(notBefore, believe time.Time) error) error {
	backoff := backoffMin
	var notBefore time.Time
	believe := time.Now()
	for {
		err := op(notBefore, believe)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return c.timeoutError(err)
		}
		if !c.dials.reached() && isConnFailure(err) {
			return &UnreachableError{Addresses: c.cfg.BootstrapServers, Problems: c.dials.problems(), Err: err}
		}
		if !isRetriable(err) {
			return err
		}
		notBefore = time.Now()
		believe = notBefore
		select {
		case <-ctx.Done():
			return c.timeoutError(err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, backoffMax)
	}
}

// seedError is the error of a failed choice of bootstrap server: a TLS, SASL or version failure
// as it is (it says what to fix; no address list hides it), else what each address did.
func (c *Client) seedError(err error) error {
	if typed := configFailure(err); typed != nil {
		return typed
	}
	return &ConnectionError{Op: "connecting to a bootstrap server", Problem: c.bootstrapProblems(), Err: err}
}

func (c *Client) bootstrapProblems() string {
	if p := c.dials.problems(); len(p) > 0 {
		return strings.Join(p, "; ")
	}
	return "no bootstrap server answered (" + strings.Join(c.cfg.BootstrapServers, ", ") + ")"
}

// timeoutError says why the timeout ran out: no broker ever answered (first contact), or what
// the last attempt was still failing on.
func (c *Client) timeoutError(last error) error {
	if !c.dials.reached() {
		return &UnreachableError{
			Addresses: c.cfg.BootstrapServers, Problems: c.dials.problems(),
			TimedOut: true, Timeout: c.cfg.Timeout, Err: last,
		}
	}
	if !isRetriable(last) && !errors.Is(last, context.DeadlineExceeded) {
		return last // a lasting failure that happened to end as the time ran out
	}
	return &TimeoutError{Timeout: c.cfg.Timeout, Last: last}
}

// configFailure returns the TLS, SASL or version error in err, if any: failures that the
// configuration must fix, reported as they are.
func configFailure(err error) error {
	var (
		tlsErr *TLSError
		sasl   *SASLError
		unsup  *UnsupportedError
	)
	switch {
	case errors.As(err, &tlsErr):
		return tlsErr
	case errors.As(err, &sasl):
		return sasl
	case errors.As(err, &unsup):
		return unsup
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func joinInts(ps []int32) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, ", ")
}

// isRetriable says whether err may go away on another attempt with fresh metadata.
func isRetriable(err error) bool {
	if errors.Is(err, errStaleMetadata) || errors.Is(err, errInconsistentOffsets) || errors.Is(err, errGroupNotConfirmed) {
		return true
	}
	var (
		be      *BrokerError
		tlsErr  *TLSError
		saslErr *SASLError
		ce      *ConnectionError
		tnf     *TopicNotFoundError
		oor     *PartitionOutOfRangeError
		un      *UnreachableError
	)
	switch {
	case errors.As(err, &tlsErr), errors.As(err, &saslErr):
		return false // the same certificate or credentials fail the same way again
	case errors.As(err, &be):
		return retriable[kafka.Error(be.Code)]
	case errors.As(err, &ce):
		return true
	case errors.As(err, &tnf), errors.As(err, &oor), errors.As(err, &un):
		return false
	}
	return isConnFailure(err)
}

// isConnFailure reports a connection that failed or broke: refused, reset, closed, timed out.
func isConnFailure(err error) bool {
	var ce *ConnectionError
	return errors.As(err, &ce) || errors.Is(err, syscall.ECONNREFUSED) || isConnectionLoss(err) || isTimeout(err)
}
