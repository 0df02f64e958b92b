package kafkaclient

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"syscall"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
)

// The one retry policy of every read: what is retried, how long to wait, when to stop.
//
//   - Broker answers that fresh metadata can cure (a moved leader, an election, a coordinator
//     loading) are retried: see retriable. So are the askAgain errors of the reads: an answer
//     that a cached layout or a moment of leader change explains.
//   - A failed or lost connection (refused, reset, closed, silent) is retried once the cluster
//     has answered in this process: a broker restarting or crashing, whose leaderships move within
//     the controller's session timeout. A wrong address does not become right by waiting
//     (wrongAddress): at first contact the failure is reported at once as an *UnreachableError,
//     and a broker whose host name does not resolve, as an answer requested during the read
//     gives it, as an *UnresolvableBrokerError. A resolver that fails for the moment is retried.
//   - Everything else (authorization, TLS, SASL, a topic that fresh metadata says is missing)
//     is reported at once.
//   - The read's timeout bounds it all; what was still failing then comes back as *TimeoutError.

// The steps of backoff: from backoffMin, doubling up to backoffMax.
const (
	backoffMin = 50 * time.Millisecond
	backoffMax = time.Second
)

// backoff is the schedule of one read's waits between attempts, each ended early by the read's
// deadline. A wait is drawn from the upper half of its step (equal jitter: from half the step to
// the step), so that reads that failed together on one restarting broker do not all try again at
// the same moment, yet none waits longer than its step.
type backoff struct {
	step  time.Duration       // the next wait's upper bound: backoffMin, doubling to backoffMax
	randN func(n int64) int64 // a number in [0, n): math/rand/v2's Int64N; tests pass their own
}

func newBackoff(randN func(n int64) int64) *backoff {
	return &backoff{step: backoffMin, randN: randN}
}

// next is the wait before the next attempt.
func (b *backoff) next() time.Duration {
	d := b.step
	b.step = min(2*b.step, backoffMax)
	half := d / 2
	return half + time.Duration(b.randN(int64(d-half)+1))
}

// withRetries runs op until it succeeds, fails for good, or ctx ends. op gets two times:
// notBefore, how recent the metadata it uses must be (zero on the first attempt: the cached
// layout will do), and believe, from when metadata must have been requested for a "no such topic
// or partition" to be reported (the read's start, then the last failure). Every attempt after
// the first asks for metadata requested after the failure that caused it: the layout that sent
// the request to a moved leader or a restarted broker is stale.
func (cv *clusterView) withRetries(ctx context.Context, op func(notBefore, believe time.Time) error) error {
	wait := newBackoff(rand.Int64N)
	var notBefore time.Time
	believe := time.Now()
	var before error // the failure that caused this attempt, if any
	attempt := 1
	for {
		err := op(notBefore, believe)
		if err == nil {
			return nil
		}
		if cv.life.Err() != nil {
			return errClosed // Close ended the connections: another attempt cannot succeed
		}
		if ctx.Err() != nil {
			return cv.timeoutError(ctx, err, before)
		}
		if wrong := cv.wrongAddress(err, believe); wrong != nil {
			return wrong
		}
		if !isRetriable(err) {
			return err
		}
		notBefore = time.Now()
		believe = notBefore
		before = err
		attempt++
		pause := wait.next()
		observeRetry(ctx, Retry{Attempt: attempt, Cause: err, Backoff: pause})
		select {
		case <-ctx.Done():
			return cv.timeoutError(ctx, err, nil)
		case <-cv.life.Done():
			return errClosed
		case <-time.After(pause):
		}
	}
}

// wrongAddress is the error to report at once for a connection failure that waiting does not
// cure, nil for any other failure: a bootstrap server that fails before any address has answered
// (first contact: a typo more likely than a broker down), and a broker whose advertised host name
// does not resolve, when an answer to a request sent at or after believe gives that address (the
// name from a cached layout is asked of the cluster again first: the broker may have moved).
func (cv *clusterView) wrongAddress(err error, believe time.Time) error {
	if !cv.dials.Reached() && isConnFailure(err) {
		return &UnreachableError{Addresses: cv.cfg.BootstrapServers, Problems: cv.dials.Problems(), Err: err}
	}
	if ce := unresolvedName(err); ce != nil && cv.layout.namedSince(ce.Address, believe) {
		return &UnresolvableBrokerError{Op: ce.Op, BrokerID: ce.BrokerID, Address: ce.Address, Err: ce.Err}
	}
	return nil
}

// unresolvedName is the *ConnectionError in err of a dial to a broker of the cluster whose host
// name does not resolve (broker.IsNameNotFound), nil when err is no such failure.
func unresolvedName(err error) *ConnectionError {
	var ce *ConnectionError
	if errors.As(err, &ce) && ce.BrokerID >= 0 && broker.IsNameNotFound(ce.Err) {
		return ce
	}
	return nil
}

// timeoutError says why the timeout ran out: no broker ever answered (first contact), or what
// the last attempt was still failing on. When the timeout itself cut that attempt short, before
// (the failure that caused the attempt) is said too: it is what kept the read from finishing.
func (cv *clusterView) timeoutError(ctx context.Context, last, before error) error {
	timeout, perRead := cv.readTimeout(ctx)
	if !cv.dials.Reached() {
		return &UnreachableError{
			Addresses: cv.cfg.BootstrapServers, Problems: cv.dials.Problems(),
			TimedOut: true, Timeout: timeout, PerRead: perRead, Err: last,
		}
	}
	if !isRetriable(last) && !errors.Is(last, context.DeadlineExceeded) {
		return last // a lasting failure that happened to end as the time ran out
	}
	te := &TimeoutError{Timeout: timeout, PerRead: perRead, Last: last}
	if before != nil && broker.IsTimeout(last) && before.Error() != last.Error() {
		te.Before = before
	}
	return te
}

// retriable are the partition error codes that a retry with fresh metadata can cure.
var retriable = map[kafka.Error]bool{
	kafka.UnknownTopicOrPartition:      true, // stale layout; fresh metadata decides
	kafka.LeaderNotAvailable:           true,
	kafka.NotLeaderForPartition:        true, // NOT_LEADER_OR_FOLLOWER
	kafka.RequestTimedOut:              true,
	kafka.KafkaStorageError:            true,
	kafka.FencedLeaderEpoch:            true,
	kafka.UnknownLeaderEpoch:           true,
	kafka.OffsetNotAvailable:           true,
	kafka.BrokerNotAvailable:           true,
	kafka.ReplicaNotAvailable:          true,
	kafka.NotEnoughReplicas:            true,
	kafka.Error(-1):                    true, // UNKNOWN_SERVER_ERROR: an unexpected failure on the broker; the timeout bounds it
	kafka.GroupLoadInProgress:          true, // COORDINATOR_LOAD_IN_PROGRESS
	kafka.GroupCoordinatorNotAvailable: true,
	kafka.NotCoordinatorForGroup:       true,
}

// askAgain is an error a read returns to withRetries for another attempt with fresh metadata:
// what it saw may be an artefact of a cached layout or of a leader change.
type askAgain string

func (e askAgain) Error() string { return string(e) }

// isRetriable says whether err may go away on another attempt with fresh metadata.
func isRetriable(err error) bool {
	var (
		again askAgain
		be    *BrokerError
		ce    *ConnectionError
		tnf   *TopicNotFoundError
		oor   *PartitionOutOfRangeError
		un    *UnreachableError
		unres *UnresolvableBrokerError
	)
	switch {
	case errors.As(err, &again):
		return true
	case configFailure(err) != nil:
		return false // the same certificate, credentials or broker version fail the same way again
	case errors.As(err, &be):
		return retriable[kafka.Error(be.Code)]
	case errors.As(err, &ce):
		return true
	case errors.As(err, &tnf), errors.As(err, &oor), errors.As(err, &un), errors.As(err, &unres):
		return false
	}
	return isConnFailure(err)
}

// isConnFailure reports a connection that failed or broke: refused, reset, closed, timed out.
func isConnFailure(err error) bool {
	var ce *ConnectionError
	return errors.As(err, &ce) || errors.Is(err, syscall.ECONNREFUSED) || broker.IsConnectionLoss(err) || broker.IsTimeout(err)
}

// firstError picks the error to report: a non-retriable one before a retriable one, so that a
// lasting failure is not hidden behind a passing one, then the lowest partition.
func firstError(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b error) int {
		if ra, rb := lasting(a), lasting(b); ra != rb {
			return ra - rb
		}
		return partitionOf(a) - partitionOf(b)
	})
	return errs[0]
}

// lasting ranks an error by how likely it is to last, most likely first: non-retriable; a host
// name that did not resolve (lasting once the cluster's answer confirms the name: wrongAddress);
// the others, which another attempt may cure.
func lasting(err error) int {
	switch {
	case !isRetriable(err):
		return 0
	case unresolvedName(err) != nil:
		return 1
	}
	return 2
}

func partitionOf(err error) int {
	var be *BrokerError
	if errors.As(err, &be) {
		return be.Partition
	}
	return -1
}
