package kafkaclient

// A topic's writers (KIP-664, Kafka 3.0): who still writes to a topic, and which transaction
// holds a read_committed consumer back. Each partition's leader describes the idempotent and
// transactional producers it keeps state for (DescribeProducers); every broker lists the
// transactions it coordinates (ListTransactions), so the broker that lists a transactional id is
// its coordinator and is asked to describe it (DescribeTransactions). FindCoordinator is never
// sent for a transactional id: on Apache Kafka it creates __transaction_state. A producer without
// idempotence leaves no producer state: only the largest record timestamp (ListOffsets -3,
// KIP-734) sees it.

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TopicProducersRequest selects topics by name (Topics) or by a whole-name pattern (Name):
// exactly one of the two.
type TopicProducersRequest struct {
	// Topics must each exist.
	Topics []string
	// Name must match the whole topic name (WholeMatch) of at least one topic; Kafka's internal
	// topics are left out.
	Name *regexp.Regexp
}

// TopicProducers is what the selected topics' partition leaders and the transaction
// coordinators say of their writers.
type TopicProducers struct {
	Topics []TopicWriters // sorted by name
	// Transactions are the transactions open on a partition of the topics, sorted by
	// transactional id ("" first), producer id and epoch.
	Transactions []OpenTransaction
	// Unseen, for a selection by pattern, says why the brokers could not tell whether a topic it
	// matches is hidden from the principal (coverage.go); "" where they could.
	Unseen string
}

// TopicWriters is one topic's partitions and what they add up to.
type TopicWriters struct {
	Name       string
	Partitions []PartitionWriters // sorted by partition
	// ActiveProducers is how many distinct producer ids the partitions' leaders describe.
	ActiveProducers int
	// OpenTransactions counts the Transactions with a partition of this topic open,
	// HangingTransactions those of them that hang on a partition of this topic.
	OpenTransactions, HangingTransactions int
}

// LastWrite is the largest record timestamp of the topic's partitions (ms), by the rule of
// LastWriteMs: nil where none holds a record, and where one that holds records has no known
// timestamp.
func (t TopicWriters) LastWrite() *int64 {
	return lastWrite(t.Partitions, PartitionWriters.lastWrite)
}

// LastWrite is the last write of every partition of topics, by the rule of LastWriteMs.
func LastWrite(topics []TopicWriters) *int64 {
	var all []PartitionWriters
	for _, t := range topics {
		all = append(all, t.Partitions...)
	}
	return lastWrite(all, PartitionWriters.lastWrite)
}

func (p PartitionWriters) lastWrite() (holds bool, ts *int64) {
	return p.HighWatermark > p.LogStartOffset, p.MaxTimestamp
}

// PartitionWriters is one partition's ends of the log and its producers.
type PartitionWriters struct {
	Partition int
	// HighWatermark and LastStableOffset are ListOffsets -1 under read_uncommitted and
	// read_committed, read in one round: the records between them are held behind open
	// transactions.
	HighWatermark, LastStableOffset int64
	// LogStartOffset is the first offset still in the log (ListOffsets -2).
	LogStartOffset int64
	// MaxTimestamp is the largest record timestamp (ListOffsets -3, read_uncommitted), in ms,
	// that of a record deleted since included (OffsetsRequest.LastWrite); nil when the partition
	// never held a record, or holds records without a timestamp.
	MaxTimestamp *int64
	Producers    []ActiveProducer // sorted by producer id, then epoch
}

// ActiveProducer is one producer the partition's leader keeps state for (DescribeProducers).
type ActiveProducer struct {
	ProducerID       int64
	ProducerEpoch    int32
	LastSequence     int32
	LastTimestamp    *int64 // ms; nil where the broker answers -1
	CoordinatorEpoch int32
	// CurrentTxnStartOffset is the first offset of the producer's open transaction on the
	// partition; nil when none is open.
	CurrentTxnStartOffset *int64
}

// OpenTransaction is one producer id and epoch with a transaction open on partitions of the
// selected topics, with what its coordinator says of it.
type OpenTransaction struct {
	ProducerID    int64
	ProducerEpoch int32
	Partitions    []OpenPartition // sorted by topic, partition
	// TransactionalID is the id a coordinator lists for the producer id; "" when none does.
	TransactionalID string
	// State and TimeoutMs are the coordinator's (DescribeTransactions): "" and nil when no
	// coordinator lists the producer id, or it no longer knows the id.
	State     string
	TimeoutMs *int64
	// StartTime (ms) is when the coordinator's transaction began, where State is open
	// (openState); nil elsewhere, since DescribeTransactions answers -1 in Empty and still the
	// ended transaction's start in CompleteCommit and CompleteAbort.
	StartTime *int64
	// Hanging: open on a partition where its coordinator does not hold it (KIP-664's rule, see
	// hangingReason); Why says why, per reason with its partitions.
	Hanging bool
	Why     string
}

// OpenPartition is a partition where a transaction is open, from its first offset.
type OpenPartition struct {
	Topic       string
	Partition   int
	StartOffset int64
	// Hanging: the transaction hangs on this partition (OpenTransaction.Why says why).
	Hanging bool

	why string // hangingReason's
}

// NoTopicMatchError: a pattern selects no topic that the principal may DESCRIBE. A read of
// nothing would say "nobody writes", so it is an error.
type NoTopicMatchError struct {
	Pattern string
}

func (e *NoTopicMatchError) Error() string {
	return fmt.Sprintf("no topic of the cluster matches the whole-name pattern %q (Metadata lists only the topics "+
		"the provider's principal may DESCRIBE, and never Kafka's internal topics here)", e.Pattern)
}

// DescribeProducersOp is the Op of the *BrokerError for a partition DescribeProducers refused:
// TOPIC_AUTHORIZATION_FAILED there means the principal lacks READ on the topic.
const DescribeProducersOp = "DescribeProducers"

// TopicProducers reads the writers of the selected topics within the read's timeout: Metadata
// (the topics named, or every topic for a pattern), ListOffsets per leader (the last stable
// offset and high watermark in one round, then the largest record timestamp), DescribeProducers
// per leader and, only where a transaction is open, ListTransactions on every broker filtered by
// those producer ids and DescribeTransactions on the brokers that list them. A transaction that
// seems to hang is confirmed by describing its partitions again.
func (c *Client) TopicProducers(ctx context.Context, req TopicProducersRequest) (TopicProducers, error) {
	if req.Name != nil { // a pattern selects from what the cluster holds (holdings.go)
		defer c.cluster.holdings.enter()()
	}
	return (&producerReads{cluster: c.cluster, offsets: c.offsets}).read(ctx, req)
}

// producerReads is the room of TopicProducers; it shares the cluster view and the ListOffsets
// rounds of the other reads.
type producerReads struct {
	cluster *clusterView
	offsets *offsetReads
}

func (pr *producerReads) read(ctx context.Context, req TopicProducersRequest) (TopicProducers, error) {
	if (req.Name == nil) == (len(req.Topics) == 0) {
		return TopicProducers{}, fmt.Errorf("select topics either by name or by a pattern")
	}
	ctx, cancel := pr.cluster.boundRead(ctx)
	defer cancel()
	pr.cluster.cacheMetadata(ctx, req.Topics)
	var out TopicProducers
	err := pr.cluster.withRetries(ctx, func(notBefore, believe time.Time) error {
		leaders, unseen, err := pr.selectPartitions(ctx, req, notBefore, believe)
		if err != nil {
			return err
		}
		partitions, err := pr.readPartitions(ctx, leaders)
		if err != nil {
			return err
		}
		txns, err := pr.openTransactions(ctx, partitions, leaders)
		if err != nil {
			return err
		}
		out = assembleWriters(partitions, txns)
		out.Unseen = unseen
		return nil
	})
	return out, err
}

// selectPartitions is the leader of every partition of the selected topics. A pattern's
// selection fails with a *TopicsHiddenError where it matches a topic hidden from the principal,
// as kafka_topics_offsets' does: a read without it would say nobody writes there; unseen says
// why the brokers could not tell.
func (pr *producerReads) selectPartitions(ctx context.Context, req TopicProducersRequest, notBefore, believe time.Time) (out map[topicPartition]leader, unseen string, err error) {
	out = map[topicPartition]leader{}
	if req.Name == nil {
		for _, topic := range req.Topics {
			ls, err := pr.cluster.leaders(ctx, topic, nil, notBefore, believe)
			if err != nil {
				return nil, "", err
			}
			for p, l := range ls {
				out[topicPartition{topic, p}] = l
			}
		}
		return out, "", nil
	}
	snap, md, err := pr.cluster.holdings.snapshot(ctx, notBefore, true)
	if err != nil {
		return nil, "", err
	}
	byName := TopicsOffsetsRequest{Name: req.Name}
	selected, leaders, err := selectTopics(md, byName)
	if err != nil {
		return nil, "", err
	}
	hidden, unseen, err := pr.cluster.hiddenTopics(ctx, snap, byName.selects) // coverage.go
	switch {
	case err != nil:
		return nil, "", err
	case len(hidden) > 0:
		return nil, "", &TopicsHiddenError{Topics: hidden}
	case len(selected) == 0 && md.requested.Before(believe):
		return nil, "", errStaleMetadata // "no topic matches" is told from Metadata asked during the read
	case len(selected) == 0: // the user's pattern, without WholeMatch's anchors
		return nil, "", &NoTopicMatchError{Pattern: strings.TrimSuffix(strings.TrimPrefix(req.Name.String(), "^(?:"), ")$")}
	}
	for _, pl := range leaders {
		out[pl.topicPartition] = pl.leader
	}
	return out, unseen, nil
}

// readPartitions reads every partition's offsets and producers. Each leader's ApiVersions answer
// is checked for DescribeProducers first: a broker that lacks it fails the read at once, naming
// it, before any ListOffsets round (which such a broker may refuse too, for another reason).
func (pr *producerReads) readPartitions(ctx context.Context, leaders map[topicPartition]leader) (map[topicPartition]*PartitionWriters, error) {
	if err := pr.describeProducersServed(ctx, leaders); err != nil {
		return nil, err
	}
	pls := partitionLeaders(leaders)
	// One round for both ends, so that the last stable offset is never above the high watermark.
	ends, err := pr.offsets.listTopicsOffsets(ctx, OffsetsRequest{Isolation: ReadCommitted, HighWatermark: true, latestOnly: true}, pls)
	if err != nil {
		return nil, err
	}
	// read_uncommitted: under read_committed the broker leaves out a largest timestamp at or
	// above the last stable offset, the writes of an open transaction.
	maxes, err := pr.offsets.listTopicsOffsets(ctx, OffsetsRequest{Isolation: ReadUncommitted, LastWrite: true}, pls)
	if err != nil {
		return nil, err
	}
	out := make(map[topicPartition]*PartitionWriters, len(leaders))
	for topic, ps := range ends {
		for _, p := range ps {
			out[topicPartition{topic, p.Partition}] = &PartitionWriters{Partition: p.Partition, HighWatermark: p.HighWatermark, LastStableOffset: p.Latest}
		}
	}
	for topic, ps := range maxes {
		for _, p := range ps {
			if w := out[topicPartition{topic, p.Partition}]; w != nil {
				w.MaxTimestamp, w.LogStartOffset = p.MaxTimestamp, p.Earliest
			}
		}
	}
	producers, err := pr.describeProducers(ctx, leaders)
	if err != nil {
		return nil, err
	}
	for tp, w := range out {
		w.Producers = producers[tp]
	}
	return out, nil
}

// describeProducers sends DescribeProducers to every leader at once, each for all its partitions.
func (pr *producerReads) describeProducers(ctx context.Context, leaders map[topicPartition]leader) (map[topicPartition][]ActiveProducer, error) {
	byLeader := map[leader][]topicPartition{}
	for tp, l := range leaders {
		byLeader[l] = append(byLeader[l], tp)
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
		out  = map[topicPartition][]ActiveProducer{}
	)
	for l, tps := range byLeader {
		wg.Go(func() {
			got, err := pr.describeProducersOn(ctx, l, tps)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			for tp, ps := range got {
				out[tp] = ps
			}
		})
	}
	wg.Wait()
	return out, firstError(errs)
}

// describeProducersServed fails where a leader of leaders does not serve DescribeProducers.
func (pr *producerReads) describeProducersServed(ctx context.Context, leaders map[topicPartition]leader) error {
	checked := map[leader]bool{}
	for _, l := range leaders {
		if checked[l] {
			continue
		}
		checked[l] = true
		conn, err := pr.cluster.brokers.Get(ctx, l.address)
		if err != nil {
			return pr.cluster.requestError(DescribeProducersOp, l.address, int(l.id), err)
		}
		if _, served := conn.Version(kmsg.DescribeProducers); !served {
			return kip664Unsupported(DescribeProducersOp, "DescribeProducers", 61, l)
		}
	}
	return nil
}

// describeProducersOn asks one leader for the producers of its partitions tps.
func (pr *producerReads) describeProducersOn(ctx context.Context, l leader, tps []topicPartition) (map[topicPartition][]ActiveProducer, error) {
	op := fmt.Sprintf("%s for %s", DescribeProducersOp, describePartitions(tps))
	conn, err := pr.cluster.brokers.Get(ctx, l.address)
	if err != nil {
		return nil, pr.cluster.requestError(op, l.address, int(l.id), err)
	}
	if _, served := conn.Version(kmsg.DescribeProducers); !served {
		return nil, kip664Unsupported(op, "DescribeProducers", 61, l)
	}
	m, err := conn.RoundTrip(ctx, describeProducersRequest(tps))
	if err != nil {
		return nil, pr.cluster.requestError(op, l.address, int(l.id), err)
	}
	res, err := answerAs[*kmsg.DescribeProducersResponse](op, m)
	if err != nil {
		return nil, err
	}
	out := make(map[topicPartition][]ActiveProducer, len(tps))
	for _, t := range res.Topics {
		for _, p := range t.Partitions {
			tp := topicPartition{t.Topic, int(p.Partition)}
			if p.ErrorCode != 0 {
				return nil, &BrokerError{Op: DescribeProducersOp, Topic: t.Topic, Partition: tp.partition,
					Broker: describeBroker(l.address, int(l.id)), Code: ErrorCode(p.ErrorCode)}
			}
			out[tp] = activeProducers(p.ActiveProducers)
		}
	}
	for _, tp := range tps {
		if _, ok := out[tp]; !ok {
			return nil, fmt.Errorf("%s: %s: no answer for topic %q partition %d", op, describeBroker(l.address, int(l.id)), tp.topic, tp.partition)
		}
	}
	return out, nil
}

func describeProducersRequest(tps []topicPartition) *kmsg.DescribeProducersRequest {
	req := kmsg.NewPtrDescribeProducersRequest()
	byTopic := map[string]int{}
	for _, tp := range tps {
		i, ok := byTopic[tp.topic]
		if !ok {
			i = len(req.Topics)
			byTopic[tp.topic] = i
			req.Topics = append(req.Topics, kmsg.DescribeProducersRequestTopic{Topic: tp.topic})
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, int32(tp.partition))
	}
	return req
}

// activeProducers is a partition's producers, sorted, -1 as nil.
func activeProducers(ps []kmsg.DescribeProducersResponseTopicPartitionActiveProducer) []ActiveProducer {
	out := make([]ActiveProducer, len(ps))
	for i, p := range ps {
		out[i] = ActiveProducer{ProducerID: p.ProducerID, ProducerEpoch: p.ProducerEpoch, LastSequence: p.LastSequence,
			CoordinatorEpoch: p.CoordinatorEpoch, LastTimestamp: nonNegative(p.LastTimestamp),
			CurrentTxnStartOffset: nonNegative(p.CurrentTxnStartOffset)}
	}
	slices.SortFunc(out, func(a, b ActiveProducer) int {
		return cmp.Or(cmp.Compare(a.ProducerID, b.ProducerID), cmp.Compare(a.ProducerEpoch, b.ProducerEpoch))
	})
	return out
}

func nonNegative(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

// kip664Unsupported is the error for a broker that does not serve one of KIP-664's APIs.
func kip664Unsupported(op, api string, key int, b leader) error {
	return &UnsupportedError{What: fmt.Sprintf("%s: the %s API (API key %d, KIP-664) on %s", op, api, key,
		describeBroker(b.address, int(b.id))), Since: "3.0"}
}

// assembleWriters sorts the partitions into topics, and counts each topic's producers and
// transactions.
func assembleWriters(partitions map[topicPartition]*PartitionWriters, txns []OpenTransaction) TopicProducers {
	byTopic := map[string]*TopicWriters{}
	for tp, w := range partitions {
		t := byTopic[tp.topic]
		if t == nil {
			t = &TopicWriters{Name: tp.topic}
			byTopic[tp.topic] = t
		}
		t.Partitions = append(t.Partitions, *w)
	}
	out := TopicProducers{Transactions: txns}
	for _, name := range slices.Sorted(maps.Keys(byTopic)) {
		t := byTopic[name]
		slices.SortFunc(t.Partitions, func(a, b PartitionWriters) int { return cmp.Compare(a.Partition, b.Partition) })
		ids := map[int64]bool{}
		for _, p := range t.Partitions {
			for _, pr := range p.Producers {
				ids[pr.ProducerID] = true
			}
		}
		t.ActiveProducers = len(ids)
		t.OpenTransactions, t.HangingTransactions = countTransactions(txns, name)
		out.Topics = append(out.Topics, *t)
	}
	return out
}

// countTransactions counts the transactions open on a partition of topic, and those hanging there.
func countTransactions(txns []OpenTransaction, topic string) (open, hanging int) {
	for _, tx := range txns {
		onTopic, hangsHere := false, false
		for _, p := range tx.Partitions {
			if p.Topic == topic {
				onTopic = true
				hangsHere = hangsHere || p.Hanging
			}
		}
		if onTopic {
			open++
		}
		if hangsHere {
			hanging++
		}
	}
	return open, hanging
}

// txnKey is one transaction open on partitions: a producer id and epoch.
type txnKey struct {
	id    int64
	epoch int32
}

// listedTxn is what the broker that lists a producer id's transactional id (its coordinator)
// says: ListTransactions.
type listedTxn struct {
	transactionalID string
	coordinator     leader
}

// describedTxn is a coordinator's DescribeTransactions answer for one transactional id.
type describedTxn = kmsg.DescribeTransactionsResponseTransactionState

// openTransactions is every transaction open on the partitions, judged against what the
// coordinators say, hanging ones confirmed (confirmHanging); nil, without a request, when none
// is open.
func (pr *producerReads) openTransactions(ctx context.Context, partitions map[topicPartition]*PartitionWriters,
	leaders map[topicPartition]leader,
) ([]OpenTransaction, error) {
	open := openOn(partitions)
	if len(open) == 0 {
		return nil, nil
	}
	ids := make([]int64, 0, len(open))
	for k := range open {
		ids = append(ids, k.id)
	}
	slices.Sort(ids)
	listed, err := pr.listTransactions(ctx, slices.Compact(ids))
	if err != nil {
		return nil, err
	}
	described, err := pr.describeTransactions(ctx, listed)
	if err != nil {
		return nil, err
	}
	txns := judgeTransactions(open, listed, described)
	if err := pr.confirmHanging(ctx, txns, leaders); err != nil {
		return nil, err
	}
	for i := range txns {
		txns[i].Hanging, txns[i].Why = hangingSummary(txns[i].Partitions)
	}
	return txns, nil
}

// openOn is the partitions where each producer id and epoch has a transaction open
// (CurrentTxnStartOffset), sorted.
func openOn(partitions map[topicPartition]*PartitionWriters) map[txnKey][]OpenPartition {
	out := map[txnKey][]OpenPartition{}
	for tp, w := range partitions {
		for _, p := range w.Producers {
			if p.CurrentTxnStartOffset != nil {
				k := txnKey{p.ProducerID, p.ProducerEpoch}
				out[k] = append(out[k], OpenPartition{Topic: tp.topic, Partition: tp.partition, StartOffset: *p.CurrentTxnStartOffset})
			}
		}
	}
	for _, ps := range out {
		slices.SortFunc(ps, func(a, b OpenPartition) int {
			return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
		})
	}
	return out
}

// listTransactions asks every broker at once for the transactions of producer ids it
// coordinates. A broker lists only the transactional ids the principal may DESCRIBE. Where two
// brokers list one producer id (a coordinator moving), the lower broker id is kept.
func (pr *producerReads) listTransactions(ctx context.Context, ids []int64) (map[int64]listedTxn, error) {
	brokers := pr.cluster.layout.knownBrokers()
	answers := make([][]kmsg.ListTransactionsResponseTransactionState, len(brokers))
	errs := make([]error, len(brokers))
	var wg sync.WaitGroup
	for i, b := range brokers {
		wg.Go(func() { answers[i], errs[i] = pr.listTransactionsOn(ctx, b, ids) })
	}
	wg.Wait()
	if err := firstError(slices.DeleteFunc(errs, func(err error) bool { return err == nil })); err != nil {
		return nil, err
	}
	out := map[int64]listedTxn{}
	for i, states := range answers {
		for _, s := range states {
			if _, seen := out[s.ProducerID]; !seen && slices.Contains(ids, s.ProducerID) {
				out[s.ProducerID] = listedTxn{transactionalID: s.TransactionalID, coordinator: brokers[i]}
			}
		}
	}
	return out, nil
}

// listTransactionsOn asks one broker for the transactions of producer ids it coordinates.
func (pr *producerReads) listTransactionsOn(ctx context.Context, b leader, ids []int64) ([]kmsg.ListTransactionsResponseTransactionState, error) {
	const op = "ListTransactions"
	conn, err := pr.cluster.brokers.Get(ctx, b.address)
	if err != nil {
		return nil, pr.cluster.requestError(op, b.address, int(b.id), err)
	}
	if _, served := conn.Version(kmsg.ListTransactions); !served {
		return nil, kip664Unsupported(op, "ListTransactions", 66, b)
	}
	req := kmsg.NewPtrListTransactionsRequest() // DurationFilterMillis -1 (v1): no filter
	req.ProducerIDFilters = ids
	m, err := conn.RoundTrip(ctx, req)
	if err != nil {
		return nil, pr.cluster.requestError(op, b.address, int(b.id), err)
	}
	res, err := answerAs[*kmsg.ListTransactionsResponse](op, m)
	if err != nil {
		return nil, err
	}
	if res.ErrorCode != 0 {
		return nil, &brokerCodeError{&BrokerError{Op: op, Partition: -1, Code: ErrorCode(res.ErrorCode),
			Broker: describeBroker(b.address, int(b.id))}}
	}
	return res.TransactionStates, nil
}

// describeTransactions asks each coordinator at once to describe the transactional ids it
// listed. An id the coordinator no longer knows (TRANSACTIONAL_ID_NOT_FOUND: expired since) is
// left out; any other error fails the read (NOT_COORDINATOR and loading are retried).
func (pr *producerReads) describeTransactions(ctx context.Context, listed map[int64]listedTxn) (map[string]describedTxn, error) {
	byCoordinator := map[leader][]string{}
	for _, l := range listed {
		byCoordinator[l.coordinator] = append(byCoordinator[l.coordinator], l.transactionalID)
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
		out  = map[string]describedTxn{}
	)
	for b, tids := range byCoordinator {
		slices.Sort(tids)
		wg.Go(func() {
			got, err := pr.describeTransactionsOn(ctx, b, slices.Compact(tids))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			maps.Copy(out, got)
		})
	}
	wg.Wait()
	return out, firstError(errs)
}

// describeTransactionsOn asks one coordinator to describe transactional ids.
func (pr *producerReads) describeTransactionsOn(ctx context.Context, b leader, tids []string) (map[string]describedTxn, error) {
	op := fmt.Sprintf("DescribeTransactions for %d transactional id%s", len(tids), plural(len(tids)))
	conn, err := pr.cluster.brokers.Get(ctx, b.address)
	if err != nil {
		return nil, pr.cluster.requestError(op, b.address, int(b.id), err)
	}
	if _, served := conn.Version(kmsg.DescribeTransactions); !served {
		return nil, kip664Unsupported(op, "DescribeTransactions", 65, b)
	}
	req := kmsg.NewPtrDescribeTransactionsRequest()
	req.TransactionalIDs = tids
	m, err := conn.RoundTrip(ctx, req)
	if err != nil {
		return nil, pr.cluster.requestError(op, b.address, int(b.id), err)
	}
	res, err := answerAs[*kmsg.DescribeTransactionsResponse](op, m)
	if err != nil {
		return nil, err
	}
	out := make(map[string]describedTxn, len(tids))
	for _, s := range res.TransactionStates {
		switch kafka.Error(s.ErrorCode) {
		case 0:
			out[s.TransactionalID] = s
		case kafka.TransactionalIDNotFound:
		default:
			return nil, &brokerCodeError{&BrokerError{Op: fmt.Sprintf("DescribeTransactions for transactional id %q", s.TransactionalID),
				Partition: -1, Code: ErrorCode(s.ErrorCode), Broker: describeBroker(b.address, int(b.id))}}
		}
	}
	return out, nil
}

// judgeTransactions is one OpenTransaction per producer id and epoch, with the coordinator's
// view and, per partition, why it may hang (hangingReason), sorted by transactional id,
// producer id and epoch.
func judgeTransactions(open map[txnKey][]OpenPartition, listed map[int64]listedTxn, described map[string]describedTxn) []OpenTransaction {
	out := make([]OpenTransaction, 0, len(open))
	for k, ps := range open {
		tx := OpenTransaction{ProducerID: k.id, ProducerEpoch: k.epoch, Partitions: slices.Clone(ps)}
		l, isListed := listed[k.id]
		var d *describedTxn
		if isListed {
			tx.TransactionalID = l.transactionalID
			if got, ok := described[l.transactionalID]; ok {
				d = &got
				tx.State, tx.TimeoutMs = d.State, ptrInt64(int64(d.TimeoutMillis))
				if openState(d.State) {
					tx.StartTime = nonNegative(d.StartTimestamp)
				}
			}
		}
		for i := range tx.Partitions {
			p := &tx.Partitions[i]
			p.why = hangingReason(k, *p, l, isListed, d)
			p.Hanging = p.why != ""
		}
		out = append(out, tx)
	}
	slices.SortFunc(out, func(a, b OpenTransaction) int {
		return cmp.Or(strings.Compare(a.TransactionalID, b.TransactionalID), cmp.Compare(a.ProducerID, b.ProducerID),
			cmp.Compare(a.ProducerEpoch, b.ProducerEpoch))
	})
	return out
}

func ptrInt64(v int64) *int64 { return &v }

// openState says whether a coordinator's state is a transaction still open (Kafka's
// TransactionMetadata.hasPendingTransaction): Ongoing, or PrepareCommit and PrepareAbort while
// the coordinator writes its markers.
func openState(state string) bool {
	switch state {
	case "Ongoing", "PrepareCommit", "PrepareAbort":
		return true
	}
	return false
}

// hangingReason says why the transaction k open on p hangs, by KIP-664's rule as
// kafka-transactions.sh find-hanging applies it; "" when it does not. It hangs where its
// coordinator does not hold it with the partition, so that no marker of the coordinator will end
// it there:
//   - no coordinator lists the producer id: hanging, or its transactional id hidden from the
//     principal (ListTransactions leaves out the ids it may not DESCRIBE); counted as hanging
//     either way;
//   - the coordinator no longer knows the transactional id (TRANSACTIONAL_ID_NOT_FOUND);
//   - the coordinator's transaction is another producer id's;
//   - it does not include the partition, or is another epoch, except a later one in PrepareCommit
//     or PrepareAbort: the coordinator bumps the epoch when it aborts a timed-out or fenced
//     transaction, and at the end of every transaction under transaction version 2 (KIP-890),
//     and its markers at that epoch end the partition's transaction.
//
// A transaction its coordinator holds is never hanging, however old: past its timeout the
// coordinator aborts it itself (transaction.abort.timed.out.transaction.cleanup.interval.ms, 10 s
// by default). No clock enters the rule. find-hanging only considers producers silent for longer
// than --max-transaction-timeout (15 minutes by default) by its host's clock, so that a
// transaction that ended while it asked is not named; here every reason is a difference between
// the partition and the coordinator that such a transaction also shows, and confirmHanging's
// second read of the partition takes it out, whatever the Terraform host's clock says.
func hangingReason(k txnKey, p OpenPartition, l listedTxn, listed bool, d *describedTxn) string {
	switch {
	case !listed:
		return fmt.Sprintf("no transaction coordinator lists producer id %d: the transaction hangs, or its "+
			"transactional id is hidden from the provider's principal (listing it needs DESCRIBE on the "+
			"TransactionalId)", k.id)
	case d == nil:
		return fmt.Sprintf("the coordinator of transactional id %q no longer knows it (TRANSACTIONAL_ID_NOT_FOUND)",
			l.transactionalID)
	case d.ProducerID != k.id:
		return fmt.Sprintf("the coordinator has moved transactional id %q on to producer id %d (epoch %d, state %s)",
			l.transactionalID, d.ProducerID, d.ProducerEpoch, d.State)
	case !includes(d, p.Topic, p.Partition) || !sameTransaction(d, k.epoch):
		return fmt.Sprintf("the coordinator's transaction of transactional id %q (producer id %d, epoch %d, state %s) "+
			"does not hold the transaction open on the partition (epoch %d)", l.transactionalID, d.ProducerID,
			d.ProducerEpoch, d.State, k.epoch)
	}
	return ""
}

// sameTransaction says whether the coordinator's transaction d, which includes the partition,
// ends the partition's transaction of epoch: the same epoch, or a later one whose markers the
// coordinator is writing.
func sameTransaction(d *describedTxn, epoch int32) bool {
	e := int32(d.ProducerEpoch)
	return e == epoch || (e > epoch && (d.State == "PrepareCommit" || d.State == "PrepareAbort"))
}

// includes says whether the coordinator's transaction d has topic's partition.
func includes(d *describedTxn, topic string, partition int) bool {
	for _, t := range d.Topics {
		if t.Topic == topic && slices.Contains(t.Partitions, int32(partition)) {
			return true
		}
	}
	return false
}

// confirmHanging asks the leaders again about the partitions where a transaction seemed to
// hang. The partitions were read before the coordinators, and are read again after them: a
// transaction still open there from the same offset was open all along, while its coordinator did
// not hold it, so it hangs. One that is no longer open ended between the two reads (the
// coordinator had already moved on when asked), and does not.
func (pr *producerReads) confirmHanging(ctx context.Context, txns []OpenTransaction, leaders map[topicPartition]leader) error {
	again := map[topicPartition]leader{}
	for _, tx := range txns {
		for _, p := range tx.Partitions {
			if p.Hanging {
				tp := topicPartition{p.Topic, p.Partition}
				again[tp] = leaders[tp]
			}
		}
	}
	if len(again) == 0 {
		return nil
	}
	current, err := pr.describeProducers(ctx, again)
	if err != nil {
		return err
	}
	for i := range txns {
		for j := range txns[i].Partitions {
			p := &txns[i].Partitions[j]
			if p.Hanging && !stillOpen(current[topicPartition{p.Topic, p.Partition}], txns[i].ProducerID, txns[i].ProducerEpoch, p.StartOffset) {
				p.why, p.Hanging = "", false
			}
		}
	}
	return nil
}

// stillOpen says whether producer id and epoch still has its transaction open from start.
func stillOpen(producers []ActiveProducer, id int64, epoch int32, start int64) bool {
	for _, p := range producers {
		if p.ProducerID == id && p.ProducerEpoch == epoch && p.CurrentTxnStartOffset != nil && *p.CurrentTxnStartOffset == start {
			return true
		}
	}
	return false
}

// hangingSummary is whether a transaction hangs on any of its partitions, and why: each reason
// once, with the partitions it holds for, in partition order.
func hangingSummary(ps []OpenPartition) (bool, string) {
	var (
		reasons []string
		where   = map[string][]string{}
	)
	for _, p := range ps {
		if p.why == "" {
			continue
		}
		if _, seen := where[p.why]; !seen {
			reasons = append(reasons, p.why)
		}
		where[p.why] = append(where[p.why], fmt.Sprintf("%s/%d", p.Topic, p.Partition))
	}
	lines := make([]string, len(reasons))
	for i, r := range reasons {
		lines[i] = fmt.Sprintf("%s: %s", strings.Join(where[r], ", "), r)
	}
	return len(reasons) > 0, strings.Join(lines, "; ")
}
