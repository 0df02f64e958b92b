package broker

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Pool holds the Client's connections: at most one per broker address, dialled when a request
// first needs it and kept for the life of the Client, so that a plan of hundreds of data sources
// costs one TCP connect, one TLS handshake and one SASL login per broker (brokers and managed
// services throttle new connections: max.connection.creation.rate, KIP-612). A connection that
// failed is replaced by a new one at the next request. Reads that need a connection being dialled
// wait for that dial instead of starting their own.
type Pool struct {
	dialer      *Dialer // TCP, TLS; it also holds the SASL mechanism and the client id
	dialTimeout time.Duration
	refusals    *refusals     // the requests the brokers close connections at (refusals.go)
	dials       atomic.Uint64 // connections dialled: each one's serial

	mu      sync.Mutex
	conns   map[string]*Conn
	dialing map[string]*dialCall
	closed  bool
}

// dialCall is a connect under way; waiters read conn and err once done is closed.
type dialCall struct {
	done chan struct{}
	conn *Conn
	err  error
}

// NewPool returns an empty pool whose connections are dialled by dialer, each connect bounded
// by dialTimeout.
func NewPool(dialer *Dialer, dialTimeout time.Duration) *Pool {
	return &Pool{dialer: dialer, dialTimeout: dialTimeout, refusals: newRefusals(), conns: map[string]*Conn{},
		dialing: map[string]*dialCall{}}
}

// Get returns the live connection to address, dialling it if there is none. The dial runs in
// the first caller's goroutine, bounded by its context; callers that arrive meanwhile share its
// outcome.
func (b *Pool) Get(ctx context.Context, address string) (*Conn, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, ErrClosed
	}
	if c := b.conns[address]; c != nil && c.alive() {
		b.mu.Unlock()
		return c, nil
	}
	if d := b.dialing[address]; d != nil {
		b.mu.Unlock()
		select {
		case <-d.done:
			return d.conn, d.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	d := &dialCall{done: make(chan struct{})}
	b.dialing[address] = d
	b.mu.Unlock()

	conn, err := b.connectObserved(ctx, address)
	conn, old, err := b.keep(address, conn, err)
	if old != nil {
		defer old.close(ErrClosed) // failed already; its reader is ending
	}
	d.conn, d.err = conn, err
	close(d.done)
	return conn, err
}

// RoundTrip sends one request to address on its connection (Get) and waits for the answer.
func (b *Pool) RoundTrip(ctx context.Context, address string, req kmsg.Request) (kmsg.Response, error) {
	conn, err := b.Get(ctx, address)
	if err != nil {
		return nil, err
	}
	return conn.RoundTrip(ctx, req)
}

// keep ends the dial to address: a new connection takes the place of the failed one (old, for
// the caller to close), unless the pool was closed meanwhile.
func (b *Pool) keep(address string, conn *Conn, err error) (kept, old *Conn, _ error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.dialing, address)
	if err != nil {
		return nil, nil, err
	}
	if b.closed {
		conn.close(ErrClosed)
		return nil, nil, ErrClosed
	}
	old = b.conns[address]
	b.conns[address] = conn
	return conn, old, nil
}

// Drop closes the connection to address, if any: the next request dials a new one.
func (b *Pool) Drop(address string) {
	b.mu.Lock()
	c := b.conns[address]
	delete(b.conns, address)
	b.mu.Unlock()
	if c != nil {
		c.close(ErrDropped)
	}
}

// Close ends every connection and waits for their readers; later requests fail.
func (b *Pool) Close() {
	b.mu.Lock()
	b.closed = true
	conns := b.conns
	b.conns = map[string]*Conn{}
	b.mu.Unlock()
	for _, c := range conns {
		c.close(ErrClosed)
	}
}
