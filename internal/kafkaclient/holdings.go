package kafkaclient

// What the cluster holds: Metadata for every topic, and the topics its brokers hold
// (DescribeLogDirs, which a read without topics needs to vouch that it saw every topic:
// coverage.go). On a cluster of thousands of topics each is a big answer, and every
// kafka_topics_offsets, kafka_consumer_groups, group read without topics and writers' read by
// pattern needs them: they share one snapshot instead of asking each, as reads of the same
// partitions share ListOffsets (coalesce.go). A snapshot is shared
//   - while reads that may use it are in flight (holdings.enter), and for viewIdle after the last
//     one ended: Terraform keeps reads running through a plan (-parallelism), and starts the next
//     ones within milliseconds of those that end together (reads that shared a ListOffsets round),
//     so a plan asks once; once none has run for viewIdle, the next read asks again, so that the
//     polls of a wait (a second apart at least) each see a new one;
//   - for viewMaxAge at most after it was asked;
//   - never by an attempt that needs a newer one (withRetries' notBefore: a retry after a failure
//     asks again), and never once a request of it failed.
// What a snapshot cannot confirm is asked fresh before it is reported: a topic, partition or
// selection that a snapshot older than the read lacks (errStaleMetadata, then a new snapshot), and
// each topic the brokers hold that Metadata did not list (hiddenOf: Metadata by name). What it
// can still miss is what changed in the seconds since it was asked (a topic created then, beside
// others that a pattern matches; a topic created then and hidden): a plan's reads were never one
// instant, and viewMaxAge bounds it.

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// viewMaxAge bounds how long a snapshot is shared while reads keep running: a few seconds, so that
// a plan of reads that overlap asks once. viewIdle is how long it outlives the last read in
// flight: far below a wait's shortest poll interval (1 s), far above the moment Terraform takes to
// start the next reads.
const (
	viewMaxAge = 5 * time.Second
	viewIdle   = 200 * time.Millisecond
)

// holdings is the Client's current snapshot of what the cluster holds, and the reads in flight
// that may use it.
type holdings struct {
	cv           *clusterView
	maxAge, idle time.Duration // viewMaxAge, viewIdle; tests set their own
	mu           sync.Mutex
	current      *clusterSnapshot // nil: the next read asks
	inFlight     int
	idleSince    time.Time // when the last read in flight ended
}

// clusterSnapshot is one Metadata answer for every topic and, once a read asks for it, the topics
// the brokers it lists hold. Each part is asked once, by the first read that needs it, and never
// changes once answered.
type clusterSnapshot struct {
	requested time.Time // when it was asked, before its Metadata request was sent

	mdDone      chan struct{}
	md          *clusterMetadata
	mdErr       error
	mdObservers *sharedObservers // of the reads that waited for the Metadata request

	heldAsked     bool // under holdings.mu
	heldDone      chan struct{}
	absent        []string // topics the brokers hold that md does not list, sorted
	unknown       string   // why some broker did not say which topics it holds
	heldErr       error
	heldObservers *sharedObservers
}

func newHoldings(cv *clusterView) *holdings {
	return &holdings{cv: cv, maxAge: viewMaxAge, idle: viewIdle}
}

// enter counts a read that may use a snapshot as in flight until leave is called. The first read
// after none ran for the idle time asks again.
func (h *holdings) enter() (leave func()) {
	h.mu.Lock()
	if h.inFlight == 0 && time.Since(h.idleSince) >= h.idle {
		h.current = nil
	}
	h.inFlight++
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.inFlight--; h.inFlight == 0 {
			h.idleSince = time.Now()
		}
	}
}

// snapshot is a snapshot asked at or after notBefore, and its Metadata for every topic: the
// current one where it may be shared, else a new one. A read that will ask which topics the
// brokers hold (held) has a new snapshot ask them beside its Metadata request, not after it.
func (h *holdings) snapshot(ctx context.Context, notBefore time.Time, held bool) (*clusterSnapshot, *clusterMetadata, error) {
	h.mu.Lock()
	s := h.current
	if s != nil && !s.requested.Before(notBefore) && time.Since(s.requested) < h.maxAge {
		h.mu.Unlock()
		if err := waitFor(ctx, s.mdDone, s.mdObservers); err != nil {
			return nil, nil, err
		}
		return s, s.md, s.mdErr
	}
	s = &clusterSnapshot{requested: time.Now(), mdDone: make(chan struct{}), mdObservers: &sharedObservers{},
		heldDone: make(chan struct{}), heldObservers: &sharedObservers{}, heldAsked: held}
	if h.inFlight > 0 { // a read that did not enter shares nothing
		h.current = s
	}
	h.mu.Unlock()
	if held {
		// To the brokers the latest metadata lists; the Metadata answer tells whether one is missing.
		early := h.cv.layout.knownBrokers()
		heldCtx := s.heldObservers.joinedOnce(ctx).context(ctx)
		go h.askHeld(heldCtx, s, early)
	}
	s.md, s.mdErr = h.cv.allMetadata(s.mdObservers.joinedOnce(ctx).context(ctx))
	h.settle(s, s.mdDone, s.mdObservers, s.mdErr)
	return s, s.md, s.mdErr
}

// absentTopics is every topic the brokers hold (DescribeLogDirs to each broker, asked once per
// snapshot) that the snapshot's Metadata does not list, sorted; or, in unknown, why some broker
// did not say which topics it holds.
func (h *holdings) absentTopics(ctx context.Context, s *clusterSnapshot) (absent []string, unknown string, err error) {
	h.mu.Lock()
	asked := s.heldAsked
	s.heldAsked = true
	h.mu.Unlock()
	if !asked {
		h.askHeld(s.heldObservers.joinedOnce(ctx).context(ctx), s, nil)
	} else if err := waitFor(ctx, s.heldDone, s.heldObservers); err != nil {
		return nil, "", err
	}
	return s.absent, s.unknown, s.heldErr
}

// prefetchHeld has s ask which topics the brokers hold, if no read did, without waiting for the
// answer: a read that will need it asks it beside its other requests.
func (h *holdings) prefetchHeld(ctx context.Context, s *clusterSnapshot) {
	h.mu.Lock()
	asked := s.heldAsked
	s.heldAsked = true
	h.mu.Unlock()
	if !asked {
		go h.askHeld(s.heldObservers.joinedOnce(ctx).context(ctx), s, nil)
	}
}

// askHeld asks DescribeLogDirs of the brokers early at once, then, once s's Metadata is in, of
// those it lists that early left out, and settles s's topics held.
func (h *holdings) askHeld(ctx context.Context, s *clusterSnapshot, early []leader) {
	held, unknown, err := h.cv.heldTopics(ctx, early)
	if err == nil {
		select {
		case <-s.mdDone:
			err = s.mdErr
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if err == nil {
		late, why, lateErr := h.cv.heldTopics(ctx, slices.DeleteFunc(slices.Clone(s.md.brokers), func(b leader) bool {
			return slices.Contains(early, b)
		}))
		held, err = append(held, late...), lateErr
		unknown = strings.Join(slices.DeleteFunc([]string{unknown, why}, func(u string) bool { return u == "" }), "; ")
	}
	s.unknown, s.heldErr = unknown, err
	if err == nil {
		slices.Sort(held)
		for _, topic := range slices.Compact(held) {
			if s.md.find(topic) == nil {
				s.absent = append(s.absent, topic)
			}
		}
	}
	h.settle(s, s.heldDone, s.heldObservers, err)
}

// settle ends a part of s that the read asking it answered (done), and the sharing of s where it
// failed. The part's request goes out under the context of the read that asked it, as a topic's
// Metadata request does (metadata.go): a read that waits for it and outlives that read gets its
// failure, and asks again. Its observers then forget the answers, which s outlives.
func (h *holdings) settle(s *clusterSnapshot, done chan struct{}, observers *sharedObservers, err error) {
	if err != nil {
		h.mu.Lock()
		if h.current == s {
			h.current = nil
		}
		h.mu.Unlock()
	}
	close(done)
	observers.release()
}

// waitFor waits until done is closed or ctx ends; a read that waits for a request under way hears
// it (observers).
func waitFor(ctx context.Context, done chan struct{}, observers *sharedObservers) error {
	select {
	case <-done:
		return nil
	default:
	}
	observers.joinedOnce(ctx)
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
