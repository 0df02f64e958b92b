package acctest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// LiveConsumer starts, after a delay, a real group consumer (franz-go, classic protocol) of
// topic that resumes at the group's commits and commits after every record it reads, one every
// pause, until every partition's commit has reached upTo[partition]; then it stays in the group,
// committing nothing more, until the test ends. done waits for it and says how it ended. It runs
// in a goroutine of its own, so that a data source can wait for it meanwhile.
func (k *Kafka) LiveConsumer(group, topic string, upTo map[int32]int64, after, pause time.Duration) (done func() error) {
	k.t.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(BootstrapServers(k.t)...),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
	)
	if err != nil {
		k.t.Fatal(err)
	}
	c, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() { ended <- commitUpTo(c, cl, upTo, after, pause) }()
	k.t.Cleanup(func() {
		cancel()
		if err := <-ended; err != nil && !errors.Is(err, context.Canceled) {
			k.t.Logf("live consumer of group %s: %v", group, err)
		}
		cl.Close()
	})
	return func() error {
		err := <-ended
		ended <- err // for the cleanup
		return err
	}
}

// commitUpTo is LiveConsumer's loop; the client joins the group at the first poll.
func commitUpTo(c context.Context, cl *kgo.Client, upTo map[int32]int64, after, pause time.Duration) error {
	select {
	case <-time.After(after):
	case <-c.Done():
		return c.Err()
	}
	remaining := len(upTo)
	for remaining > 0 {
		poll, cancel := context.WithTimeout(c, 30*time.Second)
		fetches := cl.PollFetches(poll)
		cancel()
		if err := fetches.Err0(); err != nil {
			return fmt.Errorf("consume: %w", err)
		}
		for _, r := range fetches.Records() {
			stop, ok := upTo[r.Partition]
			if !ok || r.Offset >= stop {
				continue
			}
			time.Sleep(pause)
			if err := cl.CommitRecords(c, r); err != nil {
				return fmt.Errorf("commit offset %d of partition %d: %w", r.Offset+1, r.Partition, err)
			}
			if r.Offset+1 == stop {
				remaining--
			}
		}
	}
	return nil
}
