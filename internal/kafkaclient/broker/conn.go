package broker

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// Conn is one long-lived, authenticated connection to one broker, shared by every read of
// a Client. Requests are written as soon as they are sent (pipelining: the next request does not
// wait for the previous answer), and one reader goroutine matches the answers to them in order:
// a broker answers the requests of one connection one at a time, in the order it received them.
//
// A connection that fails (closed, reset, an answer that is not Kafka's, a request that outlived
// its read's deadline without an answer) fails every request still waiting on it and is not used
// again: the pool (pool.go) dials a new one for the next request.
type Conn struct {
	address  string
	kc       *kafkaConn      // watches the connection's frames: errors that say what happened
	pc       *protocol.Conn  // the handshake's round trips (kafka-go), then the reader's buffered reads
	versions map[int16]int16 // by API key: the version sent, negotiated from the broker's ApiVersions answer
	format   *kmsg.RequestFormatter
	serial   uint64    // which of the pool's connections it is
	refusals *refusals // the pool's: the requests its brokers close connections at (refusals.go)

	wmu  sync.Mutex // one request frame on the wire at a time, in correlation-id order
	corr int32      // the last correlation id used; guarded by wmu

	mu           sync.Mutex
	queue        []*Call // written and not yet answered, in the order written
	err          error   // why the connection ended; nil while it is usable
	closedAtHead bool    // the broker closed it at a request, before any byte of the answer (failAt)

	readerDone chan struct{}
}

// Call is one request on a Conn and, once done is closed, its answer.
type Call struct {
	req  kmsg.Request // its version set to the one sent
	corr int32

	res  kmsg.Response
	err  error
	done chan struct{}

	watched *callWatch // who to tell how the call ends (observe.go); nil when its context carries no Observer
}

// ErrClosed: the pool closed the connection while the request waited (Pool.Close, the Client's
// Close), or was closed before the request began. The kafkaclient package reports the same error
// for the reads that Close ends between requests.
var ErrClosed = errors.New("the provider's Kafka client was closed")

// ErrNotReached: the broker closed the connection at an earlier request of the connection, before
// any byte of its answer: it handles a connection's requests in order, so it never began this one
// (or it was never written), which may be sent again on a new connection at once.
var ErrNotReached = errors.New("the broker closed the connection at an earlier request, before it began this one")

// ErrDropped: Pool.Drop closed the connection while the request waited, so that the next request
// to that broker opens a new one (a read that asks a coordinator again); the request may be sent
// again on it.
var ErrDropped = errors.New("the connection was closed to ask the broker again on a new one")

// start runs the reader; the connection's handshake is complete.
func (c *Conn) start() {
	c.readerDone = make(chan struct{})
	go c.readLoop()
}

// alive reports whether the connection can take requests.
func (c *Conn) alive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err == nil
}

// Version is the version this connection sends of key, false when the broker does not serve it.
func (c *Conn) Version(key kmsg.Key) (int16, bool) {
	v, ok := c.versions[key.Int16()]
	return v, ok
}

// Send writes req at once, at the version negotiated for its API (which it sets on req), and
// returns the call to wait on. Sends from several goroutines are written one after the other,
// never interleaved.
func (c *Conn) Send(ctx context.Context, req kmsg.Request) (*Call, error) {
	v, ok := c.versions[req.Key()]
	if !ok {
		return nil, &UnsupportedError{What: fmt.Sprintf("broker %s: the %s API", c.address, kmsg.NameForKey(req.Key())),
			Since: oldestSupported}
	}
	req.SetVersion(v)
	if r := c.refusals.refused(c.address, req); r != nil {
		return nil, r
	}
	o := ObserverOf(ctx) // looked up before the write lock, which pipelined sends queue on
	c.wmu.Lock()
	defer c.wmu.Unlock()
	frame := c.format.AppendRequest(nil, req, c.corr+1)
	cl := &Call{req: req, corr: c.corr + 1, done: make(chan struct{})}
	cl.watch(o)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		if c.closedAtHead {
			err = fmt.Errorf("%w: %w", ErrNotReached, err)
		}
		c.mu.Unlock()
		return nil, err
	}
	c.corr++
	c.queue = append(c.queue, cl)
	c.mu.Unlock()
	deadline, _ := ctx.Deadline() // zero: none
	_ = c.kc.SetWriteDeadline(deadline)
	if _, err := c.kc.Write(frame); err != nil {
		c.fail(err)
		<-cl.done
		cl.report(c.address, nil, cl.err)
		return nil, cl.err
	}
	return cl, nil
}

// Wait returns the answer to cl, or gives up when ctx ends. A request whose read ran out of
// time without an answer means a broker that stopped answering (paused, overloaded,
// partitioned): the connection is dropped, so that the next read dials again instead of
// queueing behind it. Every request sent passes here (or fails in Send): where it is observed.
func (c *Conn) Wait(ctx context.Context, cl *Call) (kmsg.Response, error) {
	res, err := c.wait(ctx, cl)
	cl.report(c.address, res, err)
	return res, err
}

func (c *Conn) wait(ctx context.Context, cl *Call) (kmsg.Response, error) {
	select {
	case <-cl.done:
		return cl.res, cl.err
	case <-ctx.Done():
	}
	select {
	case <-cl.done: // answered at the same moment
		return cl.res, cl.err
	default:
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		c.fail(fmt.Errorf("no answer to %s within the read's timeout: %w", kmsg.NameForKey(cl.req.Key()), os.ErrDeadlineExceeded))
	}
	return nil, ctx.Err()
}

// RoundTrip sends req and waits for its answer.
func (c *Conn) RoundTrip(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	cl, err := c.Send(ctx, req)
	if err != nil {
		return nil, err
	}
	return c.Wait(ctx, cl)
}

// readLoop reads the answers in order until the connection fails or is closed, and gives each
// to the request it answers.
func (c *Conn) readLoop() {
	defer close(c.readerDone)
	for answered := 0; ; answered++ {
		frame, atStart, err := c.readFrame(answered == 0)
		if err != nil {
			c.failAt(err, atStart && closedByPeer(err))
			return
		}
		cl := c.next()
		if err := c.answer(cl, frame); err != nil {
			c.fail(err)
			if cl != nil {
				cl.err = c.failure()
				close(cl.done)
			}
			return
		}
	}
}

// readFrame reads one response frame whole, size prefix included. The size is checked before
// anything is read (wire.FrameSizeProblem): a peer's size prefix is never trusted for an
// allocation beyond wire.MaxResponseFrame, and the buffer grows with the bytes received, not
// with what the prefix claims. first: no answer has arrived on the connection yet. atStart: the
// read failed before any byte of the frame.
func (c *Conn) readFrame(first bool) (frame []byte, atStart bool, _ error) {
	var head [4]byte
	n, err := io.ReadFull(c.pc, head[:])
	if err != nil {
		return nil, n == 0, c.kc.explainPipelined(err, n == 0, first)
	}
	if err := checkFrameSize(c.address, head[:]); err != nil {
		return nil, false, err
	}
	size := int64(binary.BigEndian.Uint32(head[:]))
	buf := bytes.NewBuffer(make([]byte, 0, 4+min(size, 64<<10)))
	buf.Write(head[:])
	got, err := buf.ReadFrom(io.LimitReader(c.pc, size))
	if err == nil && got < size {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, false, c.kc.explainPipelined(err, false, first)
	}
	return buf.Bytes(), false, nil
}

// next takes the oldest request waiting for an answer (nil when none is): the broker answers a
// connection's requests in the order it received them.
func (c *Conn) next() *Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		return nil
	}
	cl := c.queue[0]
	c.queue = c.queue[1:]
	return cl
}

// answer decodes frame as the answer to cl and completes cl. An error means the connection
// cannot be trusted any more (an answer to no request, or one that does not decode as the answer
// to its request: kmsg checks every count and length against the bytes left, so a hostile peer
// cannot make it allocate more than the frame holds); cl is then left to the caller.
func (c *Conn) answer(cl *Call, frame []byte) error {
	if corr := int32(binary.BigEndian.Uint32(frame[4:8])); cl == nil || corr != cl.corr {
		return &notKafkaError{Address: c.address, What: fmt.Sprintf(
			"answered with correlation id %d, which no request waiting on the connection has", corr)}
	}
	res := cl.req.ResponseKind()
	if err := decode(res, cl.req.GetVersion(), frame); err != nil {
		return undecodableError(c.address, kmsg.NameForKey(cl.req.Key()), cl.req.GetVersion(), err)
	}
	cl.res = res
	c.refusals.answered(c.address, cl.req)
	close(cl.done)
	return nil
}

// decode reads a whole response frame (size prefix, correlation id, the header's tagged fields
// in flexible versions, body) as res of version v. kmsg checks every count and length against
// the bytes left.
func decode(res kmsg.Response, v int16, frame []byte) error {
	res.SetVersion(v)
	body := kbin.Reader{Src: frame[8:]}
	if res.IsFlexible() && res.Key() != kmsg.ApiVersions.Int16() { // ApiVersions' header is never flexible
		kmsg.SkipTags(&body)
	}
	if err := body.Complete(); err != nil {
		return err
	}
	return res.ReadFrom(body.Src)
}

// roundTripOnce sends req, its version set, on a connection of its own (a probe of a listener) and
// decodes the answer, read whole (at most wire.MaxFirstFrame bytes), into res.
func roundTripOnce(rw io.ReadWriter, clientID string, req kmsg.Request, res kmsg.Response) error {
	if _, err := rw.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID(clientID)).AppendRequest(nil, req, 1)); err != nil {
		return err
	}
	var head [4]byte
	if _, err := io.ReadFull(rw, head[:]); err != nil {
		return err
	}
	size := int32(binary.BigEndian.Uint32(head[:]))
	if size < 4 || size > wire.MaxFirstFrame {
		return fmt.Errorf("a %s response frame of %d bytes", kmsg.NameForKey(req.Key()), size)
	}
	frame := make([]byte, 4+int(size))
	copy(frame, head[:])
	if _, err := io.ReadFull(rw, frame[4:]); err != nil {
		return err
	}
	return decode(res, req.GetVersion(), frame)
}

func (c *Conn) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// fail ends the connection with err (the first cause wins) and fails every request waiting.
func (c *Conn) fail(err error) { c.failAt(err, false) }

// failAt is fail; closedAtHead: the peer closed the connection before any byte of the answer to
// the first request waiting, which fails with a *RefusedError where that close makes one
// (refusals.go).
func (c *Conn) failAt(err error, closedAtHead bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err, c.closedAtHead = err, closedAtHead
	waiting := c.queue
	c.queue = nil
	c.mu.Unlock()
	_ = c.kc.Close()
	for i, cl := range waiting {
		switch {
		case !closedAtHead:
			cl.err = err
		case i == 0:
			cl.err = err
			if r := c.refusals.closed(c, cl.req); r != nil {
				cl.err = r
			}
		default:
			cl.err = fmt.Errorf("%w: %w", ErrNotReached, err)
		}
		close(cl.done)
	}
}

// close ends the connection, failing the requests that wait with why, and waits for its reader.
func (c *Conn) close(why error) {
	c.fail(why)
	if c.readerDone != nil {
		<-c.readerDone
	}
}

// handshakeDeadline bounds a connect: the read's deadline, at most dialTimeout from now.
func handshakeDeadline(ctx context.Context, dialTimeout time.Duration) time.Time {
	d := time.Now().Add(dialTimeout)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		return cd
	}
	return d
}
