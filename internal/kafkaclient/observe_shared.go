package kafkaclient

import (
	"context"
	"slices"
	"sync"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
)

// sharedObservers are the Observers of the reads that share one request (a coalescer round, a
// Fetch batch, a topic's Metadata request): the request goes out under a context that carries
// them all, so that each read's logs count it. A read that joins after something was told (it
// found a Metadata request under way, whose answer came meanwhile) hears it when it joins.
// A shared request holds a pointer, nil (nothing allocated, nothing told) while no read brought
// an Observer.
type sharedObservers struct {
	mu   sync.Mutex
	all  []broker.Observer
	told []func(broker.Observer) // what the Observers heard so far, for those that join later
}

// joined adds the Observer of ctx, if it carries one, and tells it what was told before. It
// returns s, or a new sharedObservers when s is nil and ctx carries an Observer.
func (s *sharedObservers) joined(ctx context.Context) *sharedObservers {
	o := broker.ObserverOf(ctx)
	if o == nil {
		return s
	}
	if s == nil {
		s = &sharedObservers{}
	}
	s.add(o)
	return s
}

// joinedOnce is joined for a non-nil s, leaving out an Observer that joined already: a read that
// asked for a shared request and later waits for it hears it once.
func (s *sharedObservers) joinedOnce(ctx context.Context) *sharedObservers {
	o := broker.ObserverOf(ctx)
	if o == nil {
		return s
	}
	s.mu.Lock()
	known := slices.Contains(s.all, o)
	s.mu.Unlock()
	if !known {
		s.add(o)
	}
	return s
}

// release forgets what was told, once the shared request is done and no read joins any more: it
// holds the answers (an Exchange's Response), which can be large.
func (s *sharedObservers) release() {
	s.mu.Lock()
	s.told = nil
	s.mu.Unlock()
}

func (s *sharedObservers) add(o broker.Observer) {
	s.mu.Lock()
	s.all = append(s.all, o)
	told := s.told[:len(s.told):len(s.told)]
	s.mu.Unlock()
	for _, tell := range told {
		tell(o)
	}
}

// context is ctx carrying the shared Observers; ctx itself when s is nil (no read brought one).
func (s *sharedObservers) context(ctx context.Context) context.Context {
	if s == nil {
		return ctx
	}
	return broker.WithObserver(ctx, s)
}

func (s *sharedObservers) Dialed(d broker.Dial) {
	s.tell(func(o broker.Observer) { o.Dialed(d) })
}

func (s *sharedObservers) Exchanged(x broker.Exchange) {
	s.tell(func(o broker.Observer) { o.Exchanged(x) })
}

// tell tells every Observer joined so far, outside the lock (they log), and keeps it for later ones.
func (s *sharedObservers) tell(fn func(broker.Observer)) {
	s.mu.Lock()
	s.told = append(s.told, fn)
	all := s.all[:len(s.all):len(s.all)]
	s.mu.Unlock()
	for _, o := range all {
		fn(o)
	}
}
