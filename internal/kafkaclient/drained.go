package kafkaclient

// "May this topic go?": the one verdict every retirement gate reads. A topic is drained when the
// read proves all of: nobody wrote to it within the quiet period (by every signal Kafka gives:
// the largest record timestamp, that of records deleted since included, and each producer's last
// write), no transaction is open on it, every group that reads it (every kind ConsumerGroups
// lists) has caught up, and nothing the selection covers is hidden from the principal. Drained
// means consumed, not empty: records every reader has read may stay until retention takes them.
// A topic named that does not exist is drained (there is nothing left to retire); a pattern that
// matches none is too, and says so.

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"
)

// DrainedRequest selects topics by name (Topics) or by a whole-name pattern (Name): exactly one.
type DrainedRequest struct {
	Topics []string
	Name   *regexp.Regexp
	// QuietFor is how long nobody may have written to a topic.
	QuietFor time.Duration
}

// Drained is the verdict over the selected topics, and what it was read from.
type Drained struct {
	// Drained: every topic selected that exists is drained, and the read saw every topic the
	// selection covers. NotDrained are the reasons otherwise, one line each.
	Drained    bool
	NotDrained []string
	// Topics are the selected topics that exist, sorted; Missing those named that do not.
	Topics, Missing []string
	// NoMatch: the pattern matches no topic the principal may DESCRIBE (and none it may not).
	NoMatch bool
	// LastWriteMs is the latest write of the topics by every signal (lastWrite's rule); nil where
	// none was ever written or, where records are left, where one's time is not known.
	LastWriteMs *int64
	// Readers are the groups that read a topic of Topics, sorted.
	Readers []string
}

// TopicsDrained reads the selected topics' writers (TopicProducers) and then their readers
// (ConsumerGroups), within the read's timeout as a whole (WithReadTimeout, else the Client's), and judges them at now.
func (c *Client) TopicsDrained(ctx context.Context, req DrainedRequest, now time.Time) (Drained, error) {
	defer c.cluster.holdings.enter()() // its two reads share what the cluster holds (holdings.go)
	ctx, cancel := c.cluster.boundRead(ctx)
	defer cancel()
	writers, missing, noMatch, err := c.drainedWriters(ctx, req)
	if err != nil {
		return Drained{}, err
	}
	var readers []GroupSummary
	if names := topicNames(writers.Topics); len(names) > 0 {
		if readers, err = c.ConsumerGroups(ctx, ConsumerGroupsRequest{Topics: names}); err != nil {
			return Drained{}, err
		}
	}
	d := judgeDrained(writers, readers, now, req.QuietFor)
	d.Missing, d.NoMatch = missing, noMatch
	return d, nil
}

// drainedWriters is TopicProducers of the topics that exist: a topic named that the cluster
// confirms missing is left out (missing), and a pattern that matches none reads as noMatch.
func (c *Client) drainedWriters(ctx context.Context, req DrainedRequest) (w TopicProducers, missing []string, noMatch bool, err error) {
	topics := slices.Clone(req.Topics)
	for {
		if req.Name == nil && len(topics) == 0 {
			return TopicProducers{}, missing, false, nil
		}
		w, err = c.TopicProducers(ctx, TopicProducersRequest{Topics: topics, Name: req.Name})
		var (
			notFound *TopicNotFoundError
			none     *NoTopicMatchError
		)
		switch {
		case errors.As(err, &none):
			return TopicProducers{}, nil, true, nil
		case errors.As(err, &notFound) && slices.Contains(topics, notFound.Topic):
			missing = append(missing, notFound.Topic)
			topics = slices.DeleteFunc(topics, func(t string) bool { return t == notFound.Topic })
		default:
			slices.Sort(missing)
			return w, missing, false, err
		}
	}
}

func topicNames(topics []TopicWriters) []string {
	names := make([]string, len(topics))
	for i, t := range topics {
		names[i] = t.Name
	}
	return names
}

// judgeDrained is the verdict at now: the reasons, topic by topic in name order (the pattern's
// unseen topics first), then each reader that has not caught up.
func judgeDrained(w TopicProducers, readers []GroupSummary, now time.Time, quietFor time.Duration) Drained {
	d := Drained{Topics: topicNames(w.Topics), NotDrained: []string{}, LastWriteMs: lastWriteOfAll(w.Topics)}
	if w.Unseen != "" {
		d.NotDrained = append(d.NotDrained, "topics not seen: cannot tell whether the provider's principal may "+
			"DESCRIBE every topic the pattern matches ("+w.Unseen+"), and Kafka leaves the topics it may not out "+
			"of the read: name the topics"+orGrantDescribeCluster(w.Unseen))
	}
	since := now.Add(-quietFor).UnixMilli()
	for _, t := range w.Topics {
		d.NotDrained = append(d.NotDrained, writersNotDrained(t, since, quietFor)...)
	}
	for _, g := range readers {
		d.Readers = append(d.Readers, g.GroupID)
		if !g.CaughtUp {
			d.NotDrained = append(d.NotDrained, fmt.Sprintf("group %s has not caught up: %s", g.GroupID, g.Reasons(3)))
		}
	}
	slices.Sort(d.Readers)
	d.Drained = len(d.NotDrained) == 0
	return d
}

// writersNotDrained says why t's writers keep it from being drained: a write since (ms), a write
// of unknown time, a transaction open.
func writersNotDrained(t TopicWriters, since int64, quietFor time.Duration) []string {
	var out []string
	switch last := t.lastWriteOfAll(); {
	case last.unknown != "":
		out = append(out, fmt.Sprintf("%s: %s, so nobody can vouch that it is quiet", t.Name, last.unknown))
	case last.ms != nil && *last.ms > since:
		out = append(out, fmt.Sprintf("%s: last write %s (%s), within quiet_for (%s)", t.Name,
			time.UnixMilli(*last.ms).UTC().Format("2006-01-02T15:04:05.000Z07:00"), last.by, quietFor))
	}
	if t.OpenTransactions > 0 {
		out = append(out, fmt.Sprintf("%s: %d open transaction%s (%d hanging): read_committed readers wait "+
			"behind it, and it may still write", t.Name, t.OpenTransactions, plural(t.OpenTransactions), t.HangingTransactions))
	}
	return out
}

// topicLastWrite is a topic's last write by every signal: ms and which signal gave it (by), or
// why it is not known (unknown).
type topicLastWrite struct {
	ms      *int64
	by      string
	unknown string
}

// lastWriteOfAll is t's last write: the largest record timestamp (LastWrite's rule) or a
// producer's last write, whichever is later; not known where a partition holds records without
// a known time, or a producer the leader keeps state for has none.
func (t TopicWriters) lastWriteOfAll() topicLastWrite {
	records := t.LastWrite()
	if records == nil && holdsRecords(t) {
		return topicLastWrite{unknown: "holds records without a known write time (records without a timestamp)"}
	}
	last := topicLastWrite{ms: records, by: "the largest record timestamp, ListOffsets -3"}
	for _, p := range t.Partitions {
		for _, pr := range p.Producers {
			switch {
			case pr.LastTimestamp == nil:
				return topicLastWrite{unknown: fmt.Sprintf("partition %d: producer id %d has no last write time", p.Partition, pr.ProducerID)}
			case last.ms == nil || *pr.LastTimestamp > *last.ms:
				last = topicLastWrite{ms: pr.LastTimestamp, by: fmt.Sprintf("producer id %d on partition %d, DescribeProducers",
					pr.ProducerID, p.Partition)}
			}
		}
	}
	return last
}

// holdsRecords: a partition of t holds records.
func holdsRecords(t TopicWriters) bool {
	return slices.ContainsFunc(t.Partitions, func(p PartitionWriters) bool { holds, _ := p.lastWrite(); return holds })
}

// lastWriteOfAll is the latest of the topics' last writes; nil where one is not known.
func lastWriteOfAll(topics []TopicWriters) *int64 {
	var out *int64
	for _, t := range topics {
		last := t.lastWriteOfAll()
		if last.unknown != "" {
			return nil
		}
		if last.ms != nil && (out == nil || *last.ms > *out) {
			out = last.ms
		}
	}
	return out
}
