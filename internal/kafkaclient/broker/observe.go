package broker

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Observer hears of the connections dialled and the requests made under a context that carries
// one (WithObserver): what a read did on the wire, for the provider's logs. It is told from the
// goroutines of the requests, several at once, and on the read's path: it must be safe for
// concurrent use and quick. Without one, a request costs a context lookup and a nil pointer.
type Observer interface {
	Dialed(Dial)
	Exchanged(Exchange)
}

// Dial is one connect to a broker: TCP, TLS, ApiVersions and SASL, as Pool.Get made it.
type Dial struct {
	Address string
	Took    time.Duration
	Err     error
}

// Exchange is one request and its answer, or the error that left it without one (a broken
// connection, the read's time run out). Request and Response are valid only during the call: an
// Observer takes what it needs (the API, the version, the error codes), never the payload.
type Exchange struct {
	Address  string
	Request  kmsg.Request  // its version set to the one sent
	Response kmsg.Response // nil when Err is set
	Took     time.Duration
	Err      error
}

type observerKey struct{}

// WithObserver returns ctx carrying o: the dials and requests made under it are told to o.
func WithObserver(ctx context.Context, o Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

// ObserverOf is the Observer ctx carries, nil when none.
func ObserverOf(ctx context.Context) Observer {
	o, _ := ctx.Value(observerKey{}).(Observer)
	return o
}

// callWatch is whom to tell how an observed call ends, and since when it is out. A pointer on
// Call, allocated only when observed: a call without an Observer grows by one word.
type callWatch struct {
	observer Observer
	sent     time.Time
}

// watch remembers, on a call whose context carries an Observer o, whom to tell and since when.
func (cl *Call) watch(o Observer) {
	if o != nil {
		cl.watched = &callWatch{observer: o, sent: time.Now()}
	}
}

// report tells the call's Observer, if any, how the call ended.
func (cl *Call) report(address string, res kmsg.Response, err error) {
	if w := cl.watched; w != nil {
		w.observer.Exchanged(Exchange{Address: address, Request: cl.req, Response: res, Took: time.Since(w.sent), Err: err})
	}
}

// connectObserved is connect, told to the Observer of ctx if it carries one.
func (b *Pool) connectObserved(ctx context.Context, address string) (*Conn, error) {
	o := ObserverOf(ctx)
	if o == nil {
		return b.connect(ctx, address)
	}
	start := time.Now()
	conn, err := b.connect(ctx, address)
	o.Dialed(Dial{Address: address, Took: time.Since(start), Err: err})
	return conn, err
}
