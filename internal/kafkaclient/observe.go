package kafkaclient

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// Observer hears what a read does on the wire: each connection dialled, each request answered
// (or left without an answer) and each retry, with its cause. The provider gives one per data
// source read (Client.Observe) and logs what it hears. Its methods are called from the read's
// goroutines, several at once, and on the read's path: it must be safe for concurrent use and
// quick. A request that several reads share (coalesced ListOffsets, batched Fetch, one Metadata
// request for a topic) is told to each of them.
type Observer interface {
	Dialed(Dial)
	Requested(Request)
	Retrying(Retry)
}

// Broker is a broker as a read met it: its address, and its node id from the cluster's metadata,
// -1 while the read knows it only as a bootstrap server.
type Broker struct {
	Address string
	NodeID  int32
}

// Dial is one connect: TCP, TLS, ApiVersions and SASL.
type Dial struct {
	Broker Broker
	Took   time.Duration
	Err    error
}

// Request is one request a read waited for.
type Request struct {
	Kind    string // Kafka's name of its API: Metadata, ListOffsets, OffsetFetch, ...
	Version int16
	Broker  Broker
	Took    time.Duration // from sent to answered (or given up)
	Err     error         // no answer: the connection failed, or the time ran out
	// Codes are the error codes the answer holds, by name and count ("NOT_LEADER_OR_FOLLOWER×2");
	// "" when none, or when Err is set. Computed when called (a walk of the answer, so only for a
	// line that shows), and only during Requested: an Observer keeps nothing of the answer.
	Codes func() string
}

// Retry is one more attempt of a read: what failed, and how long the read waits first.
type Retry struct {
	Attempt int // the attempt about to start: 2 for the first retry
	Cause   error
	Backoff time.Duration
}

// Observe returns ctx carrying o: the reads of c under it tell o what they do on the wire.
func (c *Client) Observe(ctx context.Context, o Observer) context.Context {
	return broker.WithObserver(ctx, &observed{o: o, layout: c.cluster.layout})
}

// NodeID is the node id the Client's latest metadata gives the broker at address; -1 when it
// lists none there (before any answer, or a bootstrap address that no broker advertises). A
// read's summary names by id the bootstrap server it asked before it knew the cluster.
func (c *Client) NodeID(address string) int32 { return c.cluster.layout.brokerID(address) }

// observed is an Observer in the brokers layer's terms: it adds node ids (from the layout) to
// the addresses that layer knows, and names the API of each request.
type observed struct {
	o      Observer
	layout *layout
}

func (ob *observed) Dialed(d broker.Dial) {
	ob.o.Dialed(Dial{Broker: ob.broker(d.Address), Took: d.Took, Err: d.Err})
}

func (ob *observed) Exchanged(x broker.Exchange) {
	res := x.Response
	ob.o.Requested(Request{
		Kind: kmsg.NameForKey(x.Request.Key()), Version: x.Request.GetVersion(), Broker: ob.broker(x.Address),
		Took: x.Took, Err: x.Err, Codes: func() string { return wire.AnswerCodes(res) },
	})
}

func (ob *observed) broker(address string) Broker {
	return Broker{Address: address, NodeID: ob.layout.brokerID(address)}
}

// observeRetry tells the Observer of ctx, if any, of a read's next attempt.
func observeRetry(ctx context.Context, r Retry) {
	if ob, ok := broker.ObserverOf(ctx).(*observed); ok {
		ob.o.Retrying(r)
	}
}
