package kafkaclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// The lookups of a ListOffsets read, each described once: the timestamp sent, its name in
// errors, its place in a round, whether an answer of -1 means "no such record", what it needs of
// the broker, and where its answer goes. A read plans here what each leader is asked
// (planLookups), and hands the coalescer listings (lookup.listing) that carry all it needs to
// send them and read their answers: the coalescer does not come back here.

// lookup is one ListOffsets timestamp to ask every partition for.
type lookup struct {
	timestamp int64
	op        string // for errors: what was asked
	// order is the lookup's place in a round: earliest first, latest last. A broker handles one
	// connection's requests in order, so every offset a read gets lies between its earliest and
	// its latest.
	order int
	// mayFindNone: the broker answers offset -1, without an error, when no record matches.
	mayFindNone bool
	needs       *feature // what the broker must serve for it; nil: every supported broker does
	// optional: a leader that cannot answer it (needs), or that refused it (*RefusedError), is
	// not asked, or its answer is left out, and its partitions' values stay nil, each with why
	// (PartitionOffsets.Unanswered), where otherwise the read fails with that error. So a lookup
	// a read can go without never costs the others.
	optional bool
	name     LookupName // an optional lookup's, in Unanswered
	// uncommitted: asked under read_uncommitted whatever the read's isolation level.
	uncommitted bool
	set         func(p *PartitionOffsets, offset, timestamp int64)
}

// feature is a lookup that older brokers cannot answer.
type feature struct {
	what    string // e.g. "the max timestamp offset"
	kip     string
	version int16  // the first ListOffsets version that answers it
	since   string // the first Apache Kafka release that has it
}

var (
	earliestLookup = lookup{timestamp: wire.TimestampEarliest, op: "ListOffsets (earliest)", order: 0,
		set: func(p *PartitionOffsets, o, _ int64) { p.Earliest = o }}
	timestampLookup = lookup{op: "ListOffsets (by timestamp)", order: 4, mayFindNone: true, // timestamp: the read's
		set: func(p *PartitionOffsets, o, _ int64) {
			if o >= 0 { // -1: no record at or after the timestamp
				p.TimestampOffset = &o
			}
		}}
	maxTimestampLookup = lookup{timestamp: wire.TimestampMax, op: "ListOffsets (max timestamp)", order: 5, mayFindNone: true,
		needs:    &feature{what: "the max timestamp offset", kip: "KIP-734", version: wire.MaxTimestampVersion, since: "3.0"},
		optional: true, name: LookupMaxTimestamp,
		set: func(p *PartitionOffsets, o, ts int64) {
			if o >= 0 { // -1: the partition holds no record (or, read_committed, none below the LSO)
				p.MaxTimestampOffset, p.MaxTimestamp = &o, &ts
			}
		}}
	// lastWriteLookup is maxTimestampLookup under read_uncommitted whatever the read's isolation
	// level: the last write, open transactions' records included. Not optional: the writers'
	// reads cannot tell "never written" from "not known" without it.
	lastWriteLookup = func() lookup {
		l := maxTimestampLookup
		l.op, l.uncommitted, l.optional, l.name = "ListOffsets (max timestamp, read_uncommitted)", true, false, ""
		return l
	}()
	latestLookup = lookup{timestamp: wire.TimestampLatest, op: "ListOffsets (latest)", order: 6,
		set: func(p *PartitionOffsets, o, _ int64) { p.Latest = o }}
	// highWatermarkLookup is latest under read_uncommitted whatever the read's isolation level,
	// asked after the last stable offset so that the two answers are in order.
	highWatermarkLookup = lookup{timestamp: wire.TimestampLatest, op: "ListOffsets (high watermark)", order: 7,
		uncommitted: true, set: func(p *PartitionOffsets, o, _ int64) { p.HighWatermark = o }}
)

// The tiered-storage lookups (KIP-405), optional: -1 (nothing in remote storage) and a broker too
// old leave them nil.
var (
	earliestLocalLookup = tieredLookup(wire.TimestampEarliestLocal, LookupEarliestLocal, 1,
		feature{what: "the earliest local offset", kip: "KIP-405", version: wire.EarliestLocalVersion, since: "3.5"},
		func(p *PartitionOffsets) **int64 { return &p.EarliestLocal })
	latestTieredLookup = tieredLookup(wire.TimestampLatestTiered, LookupLatestTiered, 2,
		feature{what: "the latest tiered offset", kip: "KIP-1005", version: wire.LatestTieredVersion, since: "3.9"},
		func(p *PartitionOffsets) **int64 { return &p.LatestTiered })
	earliestPendingUploadLookup = tieredLookup(wire.TimestampEarliestPendingUpload, LookupEarliestPendingUpload, 3,
		feature{what: "the earliest pending upload offset", kip: "KIP-1023", version: wire.EarliestPendingUploadVersion, since: "4.2"},
		func(p *PartitionOffsets) **int64 { return &p.EarliestPendingUpload })
	tieredLookups = []lookup{earliestLocalLookup, latestTieredLookup, earliestPendingUploadLookup}
)

func tieredLookup(ts int64, name LookupName, order int, needs feature, field func(*PartitionOffsets) **int64) lookup {
	return lookup{timestamp: ts, op: "ListOffsets (" + string(name) + ")", order: order, mayFindNone: true, needs: &needs,
		optional: true, name: name,
		set: func(p *PartitionOffsets, o, _ int64) {
			if o >= 0 {
				*field(p) = &o
			}
		}}
}

// lookups are the lookups req asks for, in the order of a round.
func lookups(req OffsetsRequest) []lookup {
	var out []lookup
	if !req.latestOnly {
		out = append(out, earliestLookup)
	}
	if req.TieredOffsets {
		out = append(out, tieredLookups...)
	}
	if req.TimestampMs != nil {
		l := timestampLookup
		l.timestamp = *req.TimestampMs
		out = append(out, l)
	}
	switch {
	case req.MaxTimestamp:
		out = append(out, maxTimestampLookup)
	case req.LastWrite:
		out = append(out, lastWriteLookup)
	}
	out = append(out, latestLookup)
	if req.HighWatermark && req.Isolation == ReadCommitted {
		out = append(out, highWatermarkLookup)
	}
	return out
}

// listing is the lookup as the coalescer sends it under isolation, and reads its answers.
func (l lookup) listing(isolation Isolation) listing {
	if l.uncommitted {
		isolation = ReadUncommitted
	}
	ls := listing{key: lookupKey{isolation: isolation, timestamp: l.timestamp}, order: l.order, op: l.op,
		mayFindNone: l.mayFindNone}
	if l.needs != nil {
		ls.unsupported = l.unsupported("")
	}
	return ls
}

// lookupPlan is what a read asks each leader: its partitions and listings for the coalescer
// (asks), the same as lookups, whose answers the read takes from the rounds (asked), and the
// optional lookups a leader is not asked, each with why (unasked).
type lookupPlan struct {
	asks    map[leader]leaderAsk
	asked   map[leader][]lookup
	unasked map[leader][]Unanswered
}

// planLookups is what a read asks each leader of its partitions (leaders): its partitions, in
// the order of leaders, and the lookups of req that the leader can answer (leaderLookups), as the
// coalescer's listings under req's isolation level.
func (ofs *offsetReads) planLookups(ctx context.Context, req OffsetsRequest, leaders []partitionLeader) (lookupPlan, error) {
	byLeader := map[leader][]topicPartition{}
	for _, pl := range leaders {
		byLeader[pl.leader] = append(byLeader[pl.leader], pl.topicPartition)
	}
	plan := lookupPlan{asks: make(map[leader]leaderAsk, len(byLeader)), asked: make(map[leader][]lookup, len(byLeader)),
		unasked: map[leader][]Unanswered{}}
	all := lookups(req)
	for l, tps := range byLeader {
		var listings []listing
		for _, lk := range all {
			why, err := ofs.unanswerable(ctx, l, lk)
			switch {
			case err != nil:
				return lookupPlan{}, err
			case why == nil:
				plan.asked[l] = append(plan.asked[l], lk)
				listings = append(listings, lk.listing(req.Isolation))
			case lk.optional:
				plan.unasked[l] = append(plan.unasked[l], Unanswered{Lookup: lk.name, Err: why})
			default:
				return lookupPlan{}, why
			}
		}
		plan.asks[l] = leaderAsk{partitions: tps, listings: listings}
	}
	return plan, nil
}

// unanswerable says why leader l cannot answer lk, nil where it can: it refused lk's request
// (*RefusedError), or it serves ListOffsets below the version lk needs (*UnsupportedError, from
// the version its connection negotiated: lookup.servedBy). err: the connection to l failed.
func (ofs *offsetReads) unanswerable(ctx context.Context, l leader, lk lookup) (why, err error) {
	if r := ofs.cluster.brokers.Refused(l.address, lk.probe()); r != nil {
		return ofs.cluster.requestError(lk.op, l.address, int(l.id), r), nil
	}
	if lk.needs == nil {
		return nil, nil
	}
	conn, err := ofs.cluster.brokers.Get(ctx, l.address)
	if err != nil {
		return nil, ofs.cluster.requestError(lk.op, l.address, int(l.id), err)
	}
	served, _ := conn.Version(kmsg.ListOffsets)
	return lk.servedBy(l.address, served), nil
}

// probe is a request of lk's kind, to ask the brokers layer whether a broker refused it.
func (l lookup) probe() *kmsg.ListOffsetsRequest {
	return &kmsg.ListOffsetsRequest{Topics: []kmsg.ListOffsetsRequestTopic{{
		Partitions: []kmsg.ListOffsetsRequestTopicPartition{{Timestamp: l.timestamp}}}}}
}

// servedBy refuses the lookup when a broker serves ListOffsets only up to version served: brokers
// older than the feature read its timestamp as an ordinary time and answer a record, not an
// error, so the version decides before the request goes out.
func (l lookup) servedBy(address string, served int16) error {
	if l.needs == nil || served >= l.needs.version {
		return nil
	}
	return l.unsupported(fmt.Sprintf("; broker %s serves up to v%d", address, served))
}

// unsupported is the error for a broker that cannot answer the lookup; more adds to its
// parenthesis.
func (l lookup) unsupported(more string) *UnsupportedError {
	return &UnsupportedError{
		What:  fmt.Sprintf("%s (ListOffsets v%d, %s%s)", l.needs.what, l.needs.version, l.needs.kip, more),
		Since: l.needs.since,
	}
}

// LookupName names an optional lookup in PartitionOffsets.Unanswered.
type LookupName string

// The optional lookups.
const (
	LookupMaxTimestamp          LookupName = "max timestamp"
	LookupEarliestLocal         LookupName = "earliest local"
	LookupLatestTiered          LookupName = "latest tiered"
	LookupEarliestPendingUpload LookupName = "earliest pending upload"
)

// Unanswered is an optional lookup that a partition's leader did not answer: its values stay nil.
type Unanswered struct {
	Lookup LookupName
	// Err says why: *UnsupportedError where the broker serves ListOffsets below the version that
	// answers it (it is not asked, or it answered UNSUPPORTED_VERSION), *RefusedError where it
	// closes the connection at it.
	Err error
}

// goesWithout says whether an optional lookup that failed with err leaves its values nil instead
// of failing the read: the broker does not serve it, or refuses it.
func goesWithout(err error) bool {
	return errors.As(err, new(*UnsupportedError)) || errors.As(err, new(*RefusedError))
}
