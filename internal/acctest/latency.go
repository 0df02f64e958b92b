package acctest

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// DelayedListener is a kfake.ListenFn that simulates a network round trip: whatever the broker
// writes reaches the client delay later (a delay line, not a slower link: writes do not wait for
// each other). It counts the connections accepted and the bytes the broker wrote to them (what
// the clients read).
type DelayedListener struct {
	Delay    time.Duration
	Accepted atomic.Int64
	Written  atomic.Int64
}

// Listen is the kfake.ListenFn.
func (d *DelayedListener) Listen(network, address string) (net.Listener, error) {
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	return &delayedListener{Listener: ln, d: d}, nil
}

type delayedListener struct {
	net.Listener
	d *DelayedListener
}

func (l *delayedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.d.Accepted.Add(1)
	c = &countedConn{Conn: c, n: &l.d.Written}
	if l.d.Delay <= 0 {
		return c, nil
	}
	dc := &delayedConn{Conn: c, delay: l.d.Delay, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go dc.drain()
	return dc, nil
}

type delayedWrite struct {
	at   time.Time
	data []byte
}

type delayedConn struct {
	net.Conn
	delay time.Duration

	mu     sync.Mutex
	queue  []delayedWrite
	closed bool
	wake   chan struct{}
	done   chan struct{}
	once   sync.Once
}

func (c *delayedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	c.queue = append(c.queue, delayedWrite{at: time.Now().Add(c.delay), data: append([]byte(nil), p...)})
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (c *delayedConn) drain() {
	for {
		c.mu.Lock()
		var next *delayedWrite
		if len(c.queue) > 0 {
			next = &c.queue[0]
		}
		c.mu.Unlock()
		if next == nil {
			select {
			case <-c.wake:
				continue
			case <-c.done:
				return
			}
		}
		if wait := time.Until(next.at); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-c.done:
				t.Stop()
				return
			}
		}
		if _, err := c.Conn.Write(next.data); err != nil {
			_ = c.Close()
			return
		}
		c.mu.Lock()
		c.queue = c.queue[1:]
		c.mu.Unlock()
	}
}

func (c *delayedConn) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		close(c.done)
	})
	return c.Conn.Close()
}

// countedConn adds what is written to it to n.
type countedConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.n.Add(int64(n))
	return n, err
}
