package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"
)

// PartitionOffsets are a partition's bounds, read with ListOffsets (read_uncommitted).
type PartitionOffsets struct {
	// Earliest is the log start offset (ListOffsets timestamp -2): the first offset still in the
	// log. It moves with retention and DeleteRecords.
	Earliest int64
	// Latest is the high watermark (ListOffsets timestamp -1): the offset the next record gets.
	// An empty partition has Earliest == Latest.
	Latest int64
}

// Backoff between attempts: doubles from backoffMin up to backoffMax, always inside the timeout.
const (
	backoffMin = 50 * time.Millisecond
	backoffMax = time.Second
)

// PartitionOffsets reads the earliest and latest offsets of one partition, within the Client's
// timeout. Retriable broker errors are retried with fresh metadata; the others come back at
// once as *TopicNotFoundError, *PartitionOutOfRangeError, *UnreachableError, *BrokerError or
// *TimeoutError.
func (c *Client) PartitionOffsets(ctx context.Context, topic string, partition int) (PartitionOffsets, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	tt := c.acquire(topic)
	defer c.release(topic, tt)

	var out PartitionOffsets
	err := c.withRetries(ctx, tt, func(fresh bool) error {
		if err := c.checkPartition(ctx, tt, topic, partition, fresh); err != nil {
			return err
		}
		var err error
		// Earliest first: both only move forward, so latest read second is never below it.
		if out.Earliest, err = listOffset(ctx, tt, topic, partition, kafka.FirstOffset); err != nil {
			return err
		}
		out.Latest, err = listOffset(ctx, tt, topic, partition, kafka.LastOffset)
		return err
	})
	return out, err
}

// withRetries runs op until it succeeds, fails for good, or ctx ends. Every attempt after the
// first starts from fresh metadata (fresh == true): kafka-go routes by a cached layout, so a
// moved leader or a new topic reads as an error until the cache is dropped.
func (c *Client) withRetries(ctx context.Context, tt *topicTransport, op func(fresh bool) error) error {
	backoff := backoffMin
	for attempt := 0; ; attempt++ {
		fresh := attempt > 0
		if fresh {
			tt.transport.CloseIdleConnections()
		}
		err := op(fresh)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return c.timeoutError(tt, err)
		}
		if !isRetriable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return c.timeoutError(tt, err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, backoffMax)
	}
}

// timeoutError says why the timeout ran out: no broker answered, or the last attempt's error.
func (c *Client) timeoutError(tt *topicTransport, last error) error {
	var be *BrokerError
	if errors.As(last, &be) {
		timedOut := *be
		timedOut.TimedOut = true
		return &timedOut
	}
	if problems := tt.dials.problems(); len(problems) > 0 || !tt.dials.anyAnswered() {
		return &UnreachableError{
			Addresses: c.cfg.BootstrapServers, Problems: problems,
			TimedOut: true, Timeout: c.cfg.Timeout, Err: last,
		}
	}
	return &TimeoutError{Timeout: c.cfg.Timeout, Last: last}
}

// checkPartition asks the transport's metadata whether topic and partition exist. A "no" from a
// cached layout is retried once fresh before it is believed.
func (c *Client) checkPartition(ctx context.Context, tt *topicTransport, topic string, partition int, fresh bool) error {
	md, err := tt.client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
	if err != nil {
		return c.connectError(ctx, tt, err)
	}
	t := findTopic(md, topic)
	var code kafka.Error
	switch {
	case t == nil || errors.As(t.Error, &code) && code == kafka.UnknownTopicOrPartition:
		if !fresh {
			return errStaleMetadata
		}
		return &TopicNotFoundError{Topic: topic}
	case t.Error != nil:
		return topicError(t.Error, topic, partition)
	case partition < 0 || partition >= len(t.Partitions):
		if !fresh {
			return errStaleMetadata
		}
		return &PartitionOutOfRangeError{Topic: topic, Partition: partition, Partitions: len(t.Partitions)}
	}
	return nil
}

// errStaleMetadata asks withRetries for one more attempt on fresh metadata.
var errStaleMetadata = errors.New("cached metadata lacks the topic or partition; asking again with fresh metadata")

func findTopic(md *kafka.MetadataResponse, topic string) *kafka.Topic {
	for i := range md.Topics {
		if md.Topics[i].Name == topic {
			return &md.Topics[i]
		}
	}
	return nil
}

func topicError(err error, topic string, partition int) error {
	var code kafka.Error
	if errors.As(err, &code) {
		return &BrokerError{Op: "Metadata", Topic: topic, Partition: partition, Code: code}
	}
	return fmt.Errorf("metadata for topic %q: %w", topic, err)
}

// connectError turns kafka-go's error from the bootstrap connection into an *UnreachableError
// when no address gave a Kafka answer.
func (c *Client) connectError(ctx context.Context, tt *topicTransport, err error) error {
	if ctx.Err() != nil {
		return err // withRetries reports the timeout with what the dial log saw
	}
	if tt.dials.anyAnswered() {
		return err
	}
	return &UnreachableError{Addresses: c.cfg.BootstrapServers, Problems: tt.dials.problems(), Err: err}
}

// listOffset sends one ListOffsets request for one partition and one special timestamp.
// One timestamp per call keeps kafka-go's transport error intact: with several in one call, a
// sub-request lost in transport comes back as error code -1 with its cause dropped (and, for
// the earliest offset, a pre-filled 0).
func listOffset(ctx context.Context, tt *topicTransport, topic string, partition int, timestamp int64) (int64, error) {
	op := "ListOffsets (latest)"
	if timestamp == kafka.FirstOffset {
		op = "ListOffsets (earliest)"
	}
	res, err := tt.client.ListOffsets(ctx, &kafka.ListOffsetsRequest{
		Topics:         map[string][]kafka.OffsetRequest{topic: {{Partition: partition, Timestamp: timestamp}}},
		IsolationLevel: kafka.ReadUncommitted,
	})
	if err != nil {
		return 0, fmt.Errorf("%s for topic %q partition %d: %w", op, topic, partition, err)
	}
	for _, p := range res.Topics[topic] {
		if p.Partition != partition {
			continue
		}
		// An entry with an error carries placeholder offsets (-1, or kafka-go's 0): never use them.
		if p.Error != nil {
			var code kafka.Error
			if errors.As(p.Error, &code) {
				return 0, &BrokerError{Op: op, Topic: topic, Partition: partition, Code: code}
			}
			return 0, fmt.Errorf("%s for topic %q partition %d: %w", op, topic, partition, p.Error)
		}
		offset := p.LastOffset
		if timestamp == kafka.FirstOffset {
			offset = p.FirstOffset
		}
		if offset < 0 {
			return 0, fmt.Errorf("%s for topic %q partition %d: broker answered offset %d without an error",
				op, topic, partition, offset)
		}
		return offset, nil
	}
	return 0, fmt.Errorf("%s for topic %q partition %d: the broker's answer has no entry for the partition",
		op, topic, partition)
}
