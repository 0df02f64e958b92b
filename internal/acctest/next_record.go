package acctest

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The oracle for a group's time lag: the record a consumer that resumes at the group's commit is
// given first, read by franz-go's consumer, not by our code.

// Record is a record as a consumer is given it.
type Record struct {
	Offset        int64
	Timestamp     time.Time // CreateTime, or the broker's time on a LogAppendTime topic
	LogAppendTime bool
}

// nextRecordPoll bounds the oracle's wait for a record: when it gets none, the consumer has
// nothing to read (caught up). Long enough for a first Fetch on a busy machine.
const nextRecordPoll = 5 * time.Second

// NextRecord is the first record a consumer (franz-go, outside any group) is given when it starts
// reading topic/partition at offset from under isolation (0 read_uncommitted, 1
// read_committed): it skips control records and, under read_committed, aborted transactions; an
// offset before the log start resumes at the log start (auto.offset.reset=earliest). nil when
// it is given none within nextRecordPoll: caught up.
func (k *Kafka) NextRecord(topic string, partition int32, from int64, isolation int8) *Record {
	k.t.Helper()
	level := kgo.ReadUncommitted()
	if isolation == 1 {
		level = kgo.ReadCommitted()
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(BootstrapServers(k.t)...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(from)}}),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(level),
		kgo.FetchMaxWait(250*time.Millisecond),
	)
	if err != nil {
		k.t.Fatal(err)
	}
	defer cl.Close()
	c, cancel := context.WithTimeout(context.Background(), nextRecordPoll)
	defer cancel()
	fetches := cl.PollRecords(c, 1)
	for _, e := range fetches.Errors() {
		if !errors.Is(e.Err, context.DeadlineExceeded) {
			k.t.Fatalf("oracle: read %s/%d from %d: %v", topic, partition, from, e.Err)
		}
	}
	records := fetches.Records()
	if len(records) == 0 {
		return nil
	}
	r := records[0]
	return &Record{Offset: r.Offset, Timestamp: r.Timestamp, LogAppendTime: r.Attrs.TimestampType() == 1}
}
