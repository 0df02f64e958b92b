package broker

import (
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// A broker may advertise a request in ApiVersions and close the connection at it, at once, every
// time, while it answers other requests: Kafka-compatible services that implement the protocol
// themselves do (one closes at ListOffsets timestamp -3 although it advertises ListOffsets v9).
// To a client that is a lost connection, which is also what a broker restarting looks like, and a
// lost connection is retried until the read's timeout. What tells the two apart: a restarting
// broker refuses or drops new connections for a while, and once it is back it answers; a broker
// that refuses a request answers the ApiVersions of each new connection, then closes it again at
// the same request. So a peer's close counts against the request that was waiting first on the
// connection (the one the broker was answering: it answers a connection's requests in order), and
// RefusedAfter such closes in a row, each on a connection dialled since the one before and whose
// ApiVersions the broker answered, with no answer to that kind of request in between, are a
// refusal: a *RefusedError, which is not retried, and every later request of that kind to the
// broker fails with it at once, unsent, for the life of the pool.

// RefusedAfter is how many closes in a row, each on a new connection, make a refusal: a broker
// restarting closes a connection once, and may close the next one it had just answered while it
// shuts down; three in a row at one kind of request, each right after a handshake it answered, is
// no restart. The retries before cost a few hundred milliseconds (backoffMin, doubling).
const RefusedAfter = 3

// RefusedError: a broker closed the connection at one kind of request on RefusedAfter new
// connections in a row, each time before any byte of an answer, although it answered each
// connection's ApiVersions (and advertises the request there).
type RefusedError struct {
	Op      string // what was asked, e.g. `ListOffsets (max timestamp) for topic "t" partition 0`; "" where not known
	Broker  string // e.g. "broker 1 (127.0.0.1:9092)"; the address where not known
	Address string
	Request string // the kind of request, e.g. "ListOffsets v9 (timestamp -3)"
	API     string // its API, e.g. "ListOffsets"
	Version int16
	Closes  int
}

func (e *RefusedError) Error() string {
	msg := fmt.Sprintf("%s closed the connection at %s, before any answer, on %d new connections in a row, each "+
		"right after it answered the connection's ApiVersions: it advertises %s v%d but does not serve this request "+
		"(a Kafka-compatible service that does not implement it, or a broker failing on it: its log says which)",
		e.Broker, e.Request, e.Closes, e.API, e.Version)
	if e.Op != "" {
		return e.Op + ": " + msg
	}
	return msg
}

// requestKind is what refusals are kept by: the API and, for ListOffsets, the special timestamp
// its partitions ask (0 for a lookup by time), since a broker may answer -1 and -2 and close at -3.
// The version is not part of it: a broker negotiates the same one on every connection.
type requestKind struct {
	key       int16
	timestamp int64
}

func kindOf(req kmsg.Request) requestKind {
	k := requestKind{key: req.Key()}
	if lo, ok := req.(*kmsg.ListOffsetsRequest); ok && len(lo.Topics) > 0 && len(lo.Topics[0].Partitions) > 0 {
		k.timestamp = min(lo.Topics[0].Partitions[0].Timestamp, 0) // the coalescer asks one timestamp per request
	}
	return k
}

// describe names the kind at version v.
func (k requestKind) describe(v int16) string {
	s := fmt.Sprintf("%s v%d", kmsg.NameForKey(k.key), v)
	switch {
	case k.key != kmsg.ListOffsets.Int16():
	case k.timestamp < 0:
		s += fmt.Sprintf(" (timestamp %d)", k.timestamp)
	default:
		s += " (a lookup by time)"
	}
	return s
}

type refusalKey struct {
	address string
	kind    requestKind
}

// closeRecord is the closes in a row of one kind of request at one address.
type closeRecord struct {
	conn    uint64 // the connection of the latest close (Conn.serial)
	closes  int
	refused *RefusedError // once closes reached RefusedAfter
}

// refusals are the closes of a pool's connections, by address and kind of request.
type refusals struct {
	mu      sync.Mutex
	records map[refusalKey]*closeRecord
}

func newRefusals() *refusals { return &refusals{records: map[refusalKey]*closeRecord{}} }

// closed notes that c's peer closed it while req was the first request waiting for an answer, and
// returns the refusal this makes, if it does.
func (r *refusals) closed(c *Conn, req kmsg.Request) *RefusedError {
	k := refusalKey{c.address, kindOf(req)}
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.records[k]
	if rec == nil {
		rec = &closeRecord{}
		r.records[k] = rec
	}
	if rec.conn == c.serial { // one close per connection
		return rec.refused
	}
	rec.conn = c.serial
	rec.closes++
	if rec.closes >= RefusedAfter && rec.refused == nil {
		rec.refused = &RefusedError{Broker: c.address, Address: c.address, Request: k.kind.describe(req.GetVersion()),
			API: kmsg.NameForKey(k.kind.key), Version: req.GetVersion(), Closes: rec.closes}
	}
	return rec.refused
}

// answered notes that the broker at address answered req: closes at its kind so far were not a
// refusal (a broker restarting).
func (r *refusals) answered(address string, req kmsg.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.records) == 0 {
		return
	}
	k := refusalKey{address, kindOf(req)}
	if rec := r.records[k]; rec != nil && rec.refused == nil {
		delete(r.records, k)
	}
}

// refused is the refusal of req's kind by the broker at address, nil where there is none.
func (r *refusals) refused(address string, req kmsg.Request) *RefusedError {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rec := r.records[refusalKey{address, kindOf(req)}]; rec != nil {
		return rec.refused
	}
	return nil
}

// Refused is the refusal of req's kind by the broker at address (a *RefusedError), nil where it
// refused none: what a read plans without, before it sends anything.
func (b *Pool) Refused(address string, req kmsg.Request) *RefusedError {
	return b.refusals.refused(address, req)
}
