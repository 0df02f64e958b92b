package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// ErrorCode is an error code of the Kafka protocol (the protocol guide's "Error Codes",
// org.apache.kafka.common.protocol.Errors).
type ErrorCode int16

// Codes callers act on: the principal lacks an ACL (Kafka's TOPIC_AUTHORIZATION_FAILED and
// GROUP_AUTHORIZATION_FAILED).
const (
	TopicAuthorizationFailed ErrorCode = 29
	GroupAuthorizationFailed ErrorCode = 30
)

// ErrGroupsHidden: the principal may not DESCRIBE the cluster, so ListGroups lists only the groups
// it may DESCRIBE, and kafka_consumer_groups cannot tell every reader of a topic.
var ErrGroupsHidden = errors.New("the provider's principal may not DESCRIBE the cluster, so the broker's " +
	"ListGroups answer lists only the groups the principal may DESCRIBE: other groups, readers of these topics " +
	"among them, would be missing from the list, and a gate on it could pass while they read")

// TopicNotFoundError: fresh metadata from the cluster says the topic does not exist.
type TopicNotFoundError struct {
	Topic string
	// Suggestions are the closest names of topics the read's metadata described, closest first
	// (suggest.go): what a misspelt or wrongly cased name may have meant.
	Suggestions []string
}

func (e *TopicNotFoundError) Error() string {
	return fmt.Sprintf("topic %q does not exist in the cluster (fresh metadata confirms it)", e.Topic)
}

// PartitionOutOfRangeError: the topic exists but has no such partition.
type PartitionOutOfRangeError struct {
	Topic      string
	Partition  int
	Partitions int // how many the topic has: valid ones are 0 to Partitions-1
}

func (e *PartitionOutOfRangeError) Error() string {
	return fmt.Sprintf("topic %q has %d partition(s) (0 to %d); partition %d does not exist",
		e.Topic, e.Partitions, e.Partitions-1, e.Partition)
}

// UnreachableError: no bootstrap server gave a usable answer.
type UnreachableError struct {
	Addresses []string // the bootstrap servers tried
	Problems  []string // "address: what happened", one per failing address
	TimedOut  bool     // the read's timeout ran out while connecting
	Timeout   time.Duration
	PerRead   bool  // Timeout was the read's own (WithReadTimeout), not Config.Timeout
	Err       error // kafka-go's error, for errors.Is/As
}

func (e *UnreachableError) Error() string {
	var b strings.Builder
	b.WriteString("cannot reach any bootstrap server")
	if e.TimedOut {
		fmt.Fprintf(&b, " within the timeout of %s", e.Timeout)
	}
	switch {
	case len(e.Problems) > 0:
		b.WriteString(": " + strings.Join(e.Problems, "; "))
	case e.Err != nil:
		fmt.Fprintf(&b, " (%s): %v", strings.Join(e.Addresses, ", "), e.Err)
	default:
		fmt.Fprintf(&b, " (%s)", strings.Join(e.Addresses, ", "))
	}
	return b.String()
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// BrokerError: the broker answered a partition with an error code that retrying will not fix
// (TOPIC_AUTHORIZATION_FAILED, UNSUPPORTED_VERSION, ...), or a retriable one that outlasted
// the timeout.
type BrokerError struct {
	Op        string // what was asked, e.g. "ListOffsets (earliest)"
	Group     string // the consumer group asked about, if any
	Topic     string
	Partition int    // -1 when the error is not about one partition
	Broker    string // the broker that answered, e.g. "broker 2 (127.0.0.1:9092)"; "" if not known
	Code      ErrorCode
	NoLeader  bool // Metadata names no leader for the partition (Code says why)
}

func (e *BrokerError) Error() string {
	var about string
	switch {
	case e.Group != "":
		about = fmt.Sprintf("group %q", e.Group)
	case e.Partition < 0:
		about = fmt.Sprintf("topic %q", e.Topic)
	default:
		about = fmt.Sprintf("topic %q partition %d", e.Topic, e.Partition)
	}
	name, desc := wire.ErrorName(kafka.Error(e.Code))
	if e.NoLeader {
		return fmt.Sprintf("%s for %s: the partition has no leader (%s, error code %d): %s",
			e.Op, about, name, int16(e.Code), desc)
	}
	who := "broker"
	if e.Broker != "" {
		who = e.Broker
	}
	return fmt.Sprintf("%s for %s: %s", e.Op, about, e.answeredBy(who))
}

// answeredBy says that who answered e's error code, with Kafka's name and description for it.
func (e *BrokerError) answeredBy(who string) string {
	name, desc := wire.ErrorName(kafka.Error(e.Code))
	return fmt.Sprintf("%s answered %s (error code %d): %s", who, name, int16(e.Code), desc)
}

// ConnectionError: a request got no answer because the connection to the broker failed (refused,
// closed, silent). Retried once the cluster has answered in this process; at first contact it
// becomes an *UnreachableError, and a broker's host name that does not resolve an
// *UnresolvableBrokerError (retry.go, wrongAddress).
type ConnectionError struct {
	Op       string // what was asked, e.g. `ListOffsets (latest) for topic "t" partitions 0, 3`
	Broker   string // e.g. "broker 2 (127.0.0.1:9092)", or a bootstrap server's address
	Address  string // the address dialled ("" when several were), as Broker names it
	BrokerID int    // the broker's id in the cluster's answers; -1 for a bootstrap server
	Problem  string // what happened there, in words
	Err      error
}

func (e *ConnectionError) Error() string {
	if e.Broker == "" {
		return e.Op + ": " + e.Problem
	}
	return fmt.Sprintf("%s: %s %s", e.Op, e.Broker, e.Problem)
}

func (e *ConnectionError) Unwrap() error { return e.Err }

func (e *BrokerError) Unwrap() error { return kafka.Error(e.Code) }

// UnresolvableBrokerError: the cluster's answer, requested during the read, gives a broker an
// address whose host name does not resolve here (the resolver says no such host): the broker's
// advertised.listeners name a host that only its own network knows (Docker, Kubernetes, a VPN).
// Waiting does not fix it, so it is reported at once, as a refused bootstrap server is.
type UnresolvableBrokerError struct {
	Op       string // what was asked, e.g. `ListOffsets (latest) for topic "t" partition 0`
	BrokerID int
	Address  string // host:port, as the cluster advertises it
	Err      error  // the failed dial, with its *net.DNSError
}

func (e *UnresolvableBrokerError) Error() string {
	host, _, _ := net.SplitHostPort(e.Address)
	return fmt.Sprintf("%s: the cluster's metadata gives broker %d the address %s, and the host name %q "+
		"does not resolve from this machine (no such host)", e.Op, e.BrokerID, e.Address, host)
}

func (e *UnresolvableBrokerError) Unwrap() error { return e.Err }

// ReadEndedError: the read was cancelled, or passed its own deadline before its requests went
// out, while it waited for a broker's answer. The broker did not fail, so the error does not say
// it did; Err is the read context's error (context.Canceled or context.DeadlineExceeded).
type ReadEndedError struct {
	Op     string // what the read waited for, e.g. `ListOffsets for topic "t" partition 0`
	Broker string // e.g. "broker 2 (127.0.0.1:9092)"
	Sent   bool   // its requests had gone out to the broker
	Err    error
}

func (e *ReadEndedError) Error() string {
	how := "timed out"
	if errors.Is(e.Err, context.Canceled) {
		how = "was cancelled"
	}
	if e.Sent {
		return fmt.Sprintf("%s: the read %s while it waited for the answer of %s", e.Op, how, e.Broker)
	}
	return fmt.Sprintf("%s: the read %s while its requests waited to go to %s with those of the reads beside it",
		e.Op, how, e.Broker)
}

func (e *ReadEndedError) Unwrap() error { return e.Err }

// ImpossibleAnswerError: a broker answered what Apache Kafka never answers (a record found by time
// without its timestamp; records at or past the high watermark of the same Fetch answer), as some
// Kafka-compatible services do: its offsets cannot be trusted for the read, which fails rather
// than report them. Not retried: the broker answers so every time.
type ImpossibleAnswerError struct {
	Op     string // what was asked, e.g. `ListOffsets (by timestamp) for topic "t" partition 0`
	Broker string // e.g. "broker 1 (127.0.0.1:9092)"
	What   string // what it answered
	Kafka  string // what Apache Kafka answers instead
}

func (e *ImpossibleAnswerError) Error() string {
	return fmt.Sprintf("%s: %s answered %s, which Apache Kafka never does (%s): its offsets cannot be trusted "+
		"for this read", e.Op, e.Broker, e.What, e.Kafka)
}

// TimeoutError: the read did not finish within the timeout although the cluster answered; Last is
// the error of the last attempt, Before (if not nil) the failure that caused that attempt, when
// the timeout itself cut the last attempt short.
type TimeoutError struct {
	Timeout time.Duration
	PerRead bool // Timeout was the read's own (WithReadTimeout), not Config.Timeout
	Last    error
	Before  error
}

func (e *TimeoutError) Error() string {
	if e.Last == nil {
		return fmt.Sprintf("no answer from the Kafka cluster within the timeout of %s", e.Timeout)
	}
	msg := fmt.Sprintf("no complete answer from the Kafka cluster within the timeout of %s; still failing: %v",
		e.Timeout, e.Last)
	if e.Before != nil {
		msg += fmt.Sprintf(" (the timeout cut that attempt short; the attempt before it failed with: %v)", e.Before)
	}
	return msg
}

func (e *TimeoutError) Unwrap() error { return e.Last }

// codeError is a response's error code as an error, nil for 0.
func codeError(code int16) error {
	if code == 0 {
		return nil
	}
	return kafka.Error(code)
}

// groupError is err, met by op about group, as a typed error: GROUP_ID_NOT_FOUND a
// *GroupNotFoundError, another code a *BrokerError.
func groupError(op, group string, err error) error {
	if err == nil {
		return nil
	}
	var code kafka.Error
	switch {
	case errors.As(err, &code) && code == kafka.GroupIdNotFound:
		// Apache Kafka answers an unknown group with no offsets; some services, kfake among them,
		// with this code: both mean the group does not exist.
		return &GroupNotFoundError{GroupID: group, State: "Dead", Op: op}
	case errors.As(err, &code):
		return &BrokerError{Op: op, Group: group, Partition: -1, Code: ErrorCode(code)}
	}
	return fmt.Errorf("%s for group %q: %w", op, group, err)
}
