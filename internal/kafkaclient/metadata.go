package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/metadata"
)

// clusterView is what the Client knows of the cluster's layout: the brokers, and per topic its
// partitions and their leaders, from Metadata requests that name that one topic (never the whole
// cluster) and never allow auto-creation. An answer is kept until a read finds it stale (a
// moved leader, an unknown partition, a lost connection): the retry then asks for metadata
// requested after that moment. Reads that need the same topic at the same time share one
// Metadata request.
type clusterView struct {
	mu      sync.Mutex
	brokers map[int32]string // broker id -> "host:port", from the latest answer
	topics  map[string]*topicMetadata
	calls   map[string]*metadataCall // per topic, the request under way
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
	started time.Time
	done    chan struct{}
	md      *topicMetadata
	err     error
}

func newClusterView() *clusterView {
	return &clusterView{brokers: map[int32]string{}, topics: map[string]*topicMetadata{}, calls: map[string]*metadataCall{}}
}

// brokerAddress is the address of broker id, "" when the latest metadata does not list it.
func (v *clusterView) brokerAddress(id int32) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.brokers[id]
}

// topicMetadata returns the topic's metadata, requested at or after notBefore (zero: any cached
// answer will do). A request under way that started at or after notBefore is shared.
func (c *Client) topicMetadata(ctx context.Context, topic string, notBefore time.Time) (*topicMetadata, error) {
	v := c.cluster
	v.mu.Lock()
	if md := v.topics[topic]; md != nil && !md.requested.Before(notBefore) {
		v.mu.Unlock()
		return md, nil
	}
	if call := v.calls[topic]; call != nil && !call.started.Before(notBefore) {
		v.mu.Unlock()
		select {
		case <-call.done:
			return call.md, call.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	call := &metadataCall{started: time.Now(), done: make(chan struct{})}
	v.calls[topic] = call
	v.mu.Unlock()

	call.md, call.err = c.requestMetadata(ctx, topic, call.started)

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

// requestMetadata asks the current seed (bootstrap.go) for one topic. A failure drops the seed,
// so that the next attempt races the bootstrap servers again.
func (c *Client) requestMetadata(ctx context.Context, topic string, started time.Time) (*topicMetadata, error) {
	addr, err := c.seedAddr(ctx)
	if err != nil {
		return nil, &ConnectionError{Op: "connecting to a bootstrap server", Problem: c.bootstrapProblems(), Err: err}
	}
	m, err := c.roundTrip(ctx, addr, &metadata.Request{TopicNames: []string{topic}, AllowAutoTopicCreation: false})
	if err != nil {
		c.contacts.dropSeed(addr)
		return nil, c.dials.requestError("Metadata", addr, -1, err)
	}
	res, ok := m.(*metadata.Response)
	if !ok {
		return nil, fmt.Errorf("the Metadata answer of %s: unexpected type %T", addr, m)
	}
	md := &topicMetadata{code: kafka.UnknownTopicOrPartition, requested: started}
	for _, t := range res.Topics {
		if t.Name != topic {
			continue
		}
		md.code = kafka.Error(t.ErrorCode)
		md.partitions = make(map[int32]partitionMetadata, len(t.Partitions))
		for _, p := range t.Partitions {
			md.partitions[p.PartitionIndex] = partitionMetadata{leader: p.LeaderID, code: kafka.Error(p.ErrorCode)}
		}
	}
	brokers := make(map[int32]string, len(res.Brokers))
	for _, b := range res.Brokers {
		brokers[b.NodeID] = net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
	}
	c.cluster.mu.Lock()
	if len(brokers) > 0 {
		c.cluster.brokers = brokers
	}
	c.cluster.mu.Unlock()
	return md, nil
}

// roundTrip sends one request to address on its connection and waits for the answer.
func (c *Client) roundTrip(ctx context.Context, address string, msg protocol.Message) (protocol.Message, error) {
	conn, err := c.brokers.get(ctx, address)
	if err != nil {
		return nil, err
	}
	return conn.roundTrip(ctx, msg)
}

// leaders returns the leader of each requested partition of topic (every partition when
// partitions is nil), by partition, from metadata requested at or after notBefore. A "no" (no
// such topic or partition) is believed only from metadata requested at or after believe: a
// cached layout is asked again before it is reported.
func (c *Client) leaders(ctx context.Context, topic string, partitions []int, notBefore, believe time.Time) (map[int]leader, error) {
	md, err := c.topicMetadata(ctx, topic, notBefore)
	if err != nil {
		return nil, err
	}
	stale := md.requested.Before(believe)
	switch {
	case md.code == kafka.UnknownTopicOrPartition:
		if stale {
			return nil, errStaleMetadata
		}
		return nil, &TopicNotFoundError{Topic: topic}
	case md.code != 0:
		return nil, &BrokerError{Op: "Metadata", Topic: topic, Partition: -1, Code: md.code}
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
			address = c.cluster.brokerAddress(p.leader)
		}
		if address == "" {
			return nil, &BrokerError{Op: "Metadata", Topic: topic, Partition: id, Code: noLeaderCode(p.code), NoLeader: true}
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
var errStaleMetadata = errors.New("cached metadata lacks the topic or partition; asking again with fresh metadata")
