package kafkaclient

import (
	"cmp"
	"context"
	"math"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// layout is what the cluster view knows of the cluster's layout: the brokers, and per topic its
// partitions and their leaders, from Metadata requests that name that one topic (never the whole
// cluster) and never allow auto-creation. An answer is kept until a read finds it stale (a
// moved leader, an unknown partition, a lost connection): the retry then asks for metadata
// requested after that moment. Reads that need the same topic at the same time share one
// Metadata request.
type layout struct {
	mu      sync.Mutex
	brokers map[int32]string     // broker id -> "host:port", from the latest answer
	named   map[string]time.Time // "host:port" -> when the latest request whose answer named it was sent
	topics  map[string]*topicMetadata
	calls   map[string]*metadataCall // per topic, the request under way
	seed    string                   // the bootstrap server metadata is asked from (bootstrap.go), "" until chosen
}

// topicMetadata is one topic as one Metadata answer gave it.
type topicMetadata struct {
	code       kafka.Error // the topic's error code: UNKNOWN_TOPIC_OR_PARTITION when it does not exist
	partitions map[int32]partitionMetadata
	requested  time.Time // when the request behind the answer was sent
}

// missing: the answer says the topic does not exist.
func (md *topicMetadata) missing() bool { return md.code == kafka.UnknownTopicOrPartition }

type partitionMetadata struct {
	leader int32 // -1: none
	code   kafka.Error
}

// leader is a partition leader: its broker id and address.
type leader struct {
	id      int32
	address string
}

type metadataCall struct {
	started   time.Time
	done      chan struct{}
	md        *topicMetadata
	err       error
	observers *sharedObservers // the Observers of the reads that wait for it; nil when the first had none
}

func newLayout() *layout {
	return &layout{
		brokers: map[int32]string{}, named: map[string]time.Time{},
		topics: map[string]*topicMetadata{}, calls: map[string]*metadataCall{},
	}
}

// noteNamed records that the answer to a request sent at sent gives a broker address.
func (v *layout) noteNamed(address string, sent time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.noteNamedLocked(address, sent)
}

func (v *layout) noteNamedLocked(address string, sent time.Time) {
	if v.named[address].Before(sent) {
		v.named[address] = sent
	}
}

// namedSince says whether an answer to a request sent at or after t gives address as a broker's:
// whether the address is what the cluster says now rather than a cached layout's.
func (v *layout) namedSince(address string, t time.Time) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	named, ok := v.named[address]
	return ok && !named.Before(t)
}

// knownBrokers is every broker of the latest metadata, sorted by id.
func (v *layout) knownBrokers() []leader {
	v.mu.Lock()
	brokers := make([]leader, 0, len(v.brokers))
	for id, address := range v.brokers {
		brokers = append(brokers, leader{id: id, address: address})
	}
	v.mu.Unlock()
	slices.SortFunc(brokers, func(a, b leader) int { return cmp.Compare(a.id, b.id) })
	return brokers
}

// brokerAddress is the address of broker id, "" when the latest metadata does not list it.
func (v *layout) brokerAddress(id int32) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.brokers[id]
}

// brokerID is the node id the latest metadata gives address, -1 when it lists no broker there
// (a bootstrap server before the first answer). A loop over the few brokers: only logs ask.
func (v *layout) brokerID(address string) int32 {
	v.mu.Lock()
	defer v.mu.Unlock()
	for id, a := range v.brokers {
		if a == address {
			return id
		}
	}
	return -1
}

// topicMetadata returns the topic's metadata, requested at or after notBefore (zero: any cached
// answer will do). A request under way that started at or after notBefore is shared.
func (cv *clusterView) topicMetadata(ctx context.Context, topic string, notBefore time.Time) (*topicMetadata, error) {
	v := cv.layout
	v.mu.Lock()
	if md := v.topics[topic]; md != nil && !md.requested.Before(notBefore) {
		v.mu.Unlock()
		return md, nil
	}
	if call := v.calls[topic]; call != nil && !call.started.Before(notBefore) {
		v.mu.Unlock()
		if call.observers != nil { // nil: the first read had no Observer, the request goes unobserved
			call.observers.joined(ctx)
		}
		select {
		case <-call.done:
			return call.md, call.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	call := &metadataCall{started: time.Now(), done: make(chan struct{}), observers: (*sharedObservers)(nil).joined(ctx)}
	v.calls[topic] = call
	v.mu.Unlock()

	call.md, call.err = cv.requestMetadata(call.observers.context(ctx), topic, call.started)

	v.mu.Lock()
	if v.calls[topic] == call {
		delete(v.calls, topic)
	}
	if call.err == nil {
		if old := v.topics[topic]; old == nil || !old.requested.After(call.started) {
			v.topics[topic] = call.md
		}
	}
	v.mu.Unlock()
	close(call.done)
	return call.md, call.err
}

// cacheMetadata asks, in one Metadata request, for those of topics that are neither cached nor
// asked for already, and caches the answer: a read of many topics (a group's) then finds each in
// the cache instead of asking for it alone. A failure is left to the per-topic reads, which ask
// again and report it.
func (cv *clusterView) cacheMetadata(ctx context.Context, topics []string) {
	v := cv.layout
	var missing []string
	v.mu.Lock()
	for _, t := range topics {
		if v.topics[t] == nil && v.calls[t] == nil {
			missing = append(missing, t)
		}
	}
	v.mu.Unlock()
	if len(missing) < 2 {
		return // one topic: the read's own request is as cheap
	}
	started := time.Now()
	res, err := cv.askMetadata(ctx, missing)
	if err != nil {
		return
	}
	got := topicsOf(res, missing, started)
	v.mu.Lock()
	defer v.mu.Unlock()
	for t, md := range got {
		if old := v.topics[t]; old == nil || !old.requested.After(started) {
			v.topics[t] = md
		}
	}
}

// requestMetadata asks for one topic and returns what the answer says of it.
func (cv *clusterView) requestMetadata(ctx context.Context, topic string, started time.Time) (*topicMetadata, error) {
	res, err := cv.askMetadata(ctx, []string{topic})
	if err != nil {
		return nil, err
	}
	return topicsOf(res, []string{topic}, started)[topic], nil
}

// topicsOf is what a Metadata answer says of each of topics, requested at started: a topic the
// answer leaves out does not exist (UNKNOWN_TOPIC_OR_PARTITION).
func topicsOf(res *kmsg.MetadataResponse, topics []string, started time.Time) map[string]*topicMetadata {
	out := make(map[string]*topicMetadata, len(topics))
	for _, t := range topics {
		out[t] = &topicMetadata{code: kafka.UnknownTopicOrPartition, requested: started}
	}
	for _, t := range res.Topics {
		if md, ok := out[deref(t.Topic)]; ok {
			md.code, md.partitions = kafka.Error(t.ErrorCode), partitionsOf(t)
		}
	}
	return out
}

func partitionsOf(t kmsg.MetadataResponseTopic) map[int32]partitionMetadata {
	out := make(map[int32]partitionMetadata, len(t.Partitions))
	for _, p := range t.Partitions {
		out[p.Partition] = partitionMetadata{leader: p.Leader, code: kafka.Error(p.ErrorCode)}
	}
	return out
}

// askMetadata sends one Metadata request for topics (nil: every topic the principal may
// DESCRIBE) to the current seed (bootstrap.go), never allowing auto-creation, and records the
// brokers it lists, and when it named their addresses. A failure drops the seed, so that the next attempt races the bootstrap
// servers again.
func (cv *clusterView) askMetadata(ctx context.Context, topics []string) (*kmsg.MetadataResponse, error) {
	addr, err := cv.seedAddr(ctx)
	if err != nil {
		return nil, cv.seedError(err)
	}
	sent := time.Now()
	// Asking for every topic (kafka_topics_offsets, kafka_consumer_groups) also asks what the
	// principal may do on the cluster (Metadata v8-v10): whether ListGroups lists every group.
	req := &kmsg.MetadataRequest{AllowAutoTopicCreation: false, IncludeClusterAuthorizedOperations: topics == nil}
	if topics != nil { // nil Topics is every topic; an empty list, none
		req.Topics = make([]kmsg.MetadataRequestTopic, len(topics))
		for i := range topics {
			req.Topics[i].Topic = &topics[i]
		}
	}
	m, err := cv.brokers.RoundTrip(ctx, addr, req)
	if err != nil {
		cv.layout.dropSeed(addr)
		return nil, cv.requestError("Metadata", addr, -1, err)
	}
	res, err := answerAs[*kmsg.MetadataResponse]("Metadata from "+addr, m)
	if err != nil {
		return nil, err
	}
	brokers := make(map[int32]string, len(res.Brokers))
	for _, b := range res.Brokers {
		brokers[b.NodeID] = net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
	}
	cv.layout.mu.Lock()
	if len(brokers) > 0 {
		cv.layout.brokers = brokers
	}
	for _, address := range brokers {
		cv.layout.noteNamedLocked(address, sent)
	}
	cv.layout.mu.Unlock()
	return res, nil
}

// clusterMetadata is one Metadata answer about every topic (kafka_topics_offsets,
// kafka_consumer_groups, the reads without topics: holdings.go). Reads share it: it is never
// changed once built.
type clusterMetadata struct {
	brokers   []leader // sorted by id
	topics    []clusterTopic
	index     map[string]int // topics by name, built with the answer: a lookup costs the same on any cluster
	requested time.Time
	// clusterOps is the operations the principal may perform on the cluster, a bit per Kafka
	// AclOperation code; math.MinInt32 where the broker does not say (Metadata below v8).
	clusterOps int32
}

// aclDescribe is the bit of the DESCRIBE operation (AclOperation code 8) in an operations field.
const aclDescribe = 1 << 8

// listsEveryGroup: ListGroups lists every group for this principal. Without DESCRIBE on the
// cluster, Kafka lists only the groups the principal may DESCRIBE, and a reader of a topic can be
// missing from the answer: a list that says "nobody reads it" would be a guess, so it is an error.
// A broker that does not say is believed.
func (md *clusterMetadata) listsEveryGroup() error {
	if md.clusterOps == math.MinInt32 || md.clusterOps&aclDescribe != 0 {
		return nil
	}
	return ErrGroupsHidden
}

type clusterTopic struct {
	name       string
	internal   bool
	code       kafka.Error
	partitions map[int32]partitionMetadata
}

// find returns the topic named, nil when the answer does not list it.
func (md *clusterMetadata) find(name string) *clusterTopic {
	if i, ok := md.index[name]; ok {
		return &md.topics[i]
	}
	return nil
}

// existing returns the topic named where the answer gives it without an error code, nil otherwise.
func (md *clusterMetadata) existing(name string) *clusterTopic {
	if t := md.find(name); t != nil && t.code == 0 {
		return t
	}
	return nil
}

// hasPartition is false when t is nil or has no such partition.
func (t *clusterTopic) hasPartition(partition int32) bool {
	if t == nil {
		return false
	}
	_, ok := t.partitions[partition]
	return ok
}

// leaderOf is the leader of a partition, or the *BrokerError saying it has none.
func (md *clusterMetadata) leaderOf(t *clusterTopic, partition int32) (leader, error) {
	p := t.partitions[partition]
	if p.leader >= 0 {
		for _, b := range md.brokers {
			if b.id == p.leader {
				return b, nil
			}
		}
	}
	return leader{}, &BrokerError{Op: "Metadata", Topic: t.name, Partition: int(partition), Code: ErrorCode(noLeaderCode(p.code)), NoLeader: true}
}

// allMetadata asks for every topic: one request per call; the reads take it from the view of
// what the cluster holds that they share (holdings.go). The answer also refreshes the per-topic
// cache.
func (cv *clusterView) allMetadata(ctx context.Context) (*clusterMetadata, error) {
	started := time.Now()
	res, err := cv.askMetadata(ctx, nil)
	if err != nil {
		return nil, err
	}
	md := &clusterMetadata{requested: started, clusterOps: res.AuthorizedOperations,
		topics: make([]clusterTopic, 0, len(res.Topics)), index: make(map[string]int, len(res.Topics))}
	for _, b := range res.Brokers {
		md.brokers = append(md.brokers, leader{id: b.NodeID, address: net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))})
	}
	slices.SortFunc(md.brokers, func(a, b leader) int { return cmp.Compare(a.id, b.id) })
	cv.layout.mu.Lock()
	defer cv.layout.mu.Unlock()
	for _, t := range res.Topics {
		ct := clusterTopic{name: deref(t.Topic), internal: t.IsInternal, code: kafka.Error(t.ErrorCode), partitions: partitionsOf(t)}
		md.index[ct.name] = len(md.topics)
		md.topics = append(md.topics, ct)
		if old := cv.layout.topics[ct.name]; old == nil || old.requested.Before(started) {
			cv.layout.topics[ct.name] = &topicMetadata{code: ct.code, partitions: ct.partitions, requested: started}
		}
	}
	return md, nil
}

// leaders returns the leader of each requested partition of topic (every partition when
// partitions is nil), by partition, from metadata requested at or after notBefore. A "no" (no
// such topic or partition) is believed only from metadata requested at or after believe: a
// cached layout is asked again before it is reported.
func (cv *clusterView) leaders(ctx context.Context, topic string, partitions []int, notBefore, believe time.Time) (map[int]leader, error) {
	md, err := cv.topicMetadata(ctx, topic, notBefore)
	if err != nil {
		return nil, err
	}
	stale := md.requested.Before(believe)
	switch {
	case md.code == kafka.UnknownTopicOrPartition:
		if stale {
			return nil, errStaleMetadata
		}
		return nil, &TopicNotFoundError{Topic: topic, Suggestions: suggest(topic, cv.layout.knownTopics())}
	case md.code != 0:
		return nil, &BrokerError{Op: "Metadata", Topic: topic, Partition: -1, Code: ErrorCode(md.code)}
	}
	if partitions == nil {
		for id := range md.partitions {
			partitions = append(partitions, int(id))
		}
	}
	out := make(map[int]leader, len(partitions))
	for _, id := range partitions {
		p, ok := md.partitions[int32(id)]
		if !ok {
			if stale {
				return nil, errStaleMetadata
			}
			return nil, &PartitionOutOfRangeError{Topic: topic, Partition: id, Partitions: len(md.partitions)}
		}
		address := ""
		if p.leader >= 0 {
			address = cv.layout.brokerAddress(p.leader)
		}
		if address == "" {
			return nil, &BrokerError{Op: "Metadata", Topic: topic, Partition: id, Code: ErrorCode(noLeaderCode(p.code)), NoLeader: true}
		}
		out[id] = leader{id: p.leader, address: address}
	}
	return out, nil
}

// noLeaderCode is the error Metadata gave a partition without a leader; LEADER_NOT_AVAILABLE when
// it gave none.
func noLeaderCode(code kafka.Error) kafka.Error {
	if code != 0 {
		return code
	}
	return kafka.LeaderNotAvailable
}

// errStaleMetadata asks withRetries for one more attempt on fresh metadata.
var errStaleMetadata error = askAgain("cached metadata lacks the topic or partition; asking again with fresh metadata")
