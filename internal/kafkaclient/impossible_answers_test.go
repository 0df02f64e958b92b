package kafkaclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// Answers Apache Kafka never gives, which some Kafka-compatible services did (Tansu 0.6.0 on its
// memory engine), are refused with an error that says so, at once.

// A lookup by time answered with a real offset and timestamp -1 (Kafka answers offset -1 where no
// record is that late, and a found record's own timestamp otherwise).
func TestTimestampLookupWithoutTimestampIsRefused(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 3)
	c.ControlKey(kmsg.ListOffsets.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req, _ := r.(*kmsg.ListOffsetsRequest)
		if req.Topics[0].Partitions[0].Timestamp < 0 {
			return nil, nil, false // earliest, latest: kfake's own answer
		}
		res := kmsg.NewPtrListOffsetsResponse()
		res.Version = req.Version
		res.Topics = []kmsg.ListOffsetsResponseTopic{{Topic: "t", Partitions: []kmsg.ListOffsetsResponseTopicPartition{
			{Partition: 0, Offset: 0, Timestamp: -1, LeaderEpoch: -1}}}}
		return res, nil, true
	})
	cl := newClient(t, c, 30*time.Second)
	after := time.Now().Add(time.Hour).UnixMilli()
	start := time.Now()
	_, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", TimestampMs: &after})
	var ie *ImpossibleAnswerError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `ListOffsets (by timestamp) for topic "t" partition 0: broker 0`) ||
		!strings.Contains(err.Error(), "answered offset 0 with timestamp -1 to a lookup by time") ||
		!strings.Contains(err.Error(), "which Apache Kafka never does") {
		t.Fatalf("got %v; want an ImpossibleAnswerError naming the lookup and the answer", err)
	}
	if took := time.Since(start); took > refusalBound {
		t.Errorf("took %s; want at once: the broker answers so every time", took)
	}
}

// A high watermark that counts batches, not records: after one batch of 5 records, ListOffsets and
// Fetch answer 1. Group "done" committed at 1 reads caught up; group "behind", committed at 0,
// makes the read fetch from 0, where the broker returns records up to 4 with its high watermark of
// 1: the read fails, and no group reads caught up.
func TestHighWatermarkBelowFetchedRecordsIsRefused(t *testing.T) {
	c := newCluster(t, withOffsetsTopic(), kfake.SeedTopics(1, "t"))
	acctest.FakeProduceBatch(t, c, "t", 0, "none", stamped(1, 2, 3, 4, 5)...)
	acctest.FakeCommit(t, c, "done", "t", 0, 1)
	acctest.FakeCommit(t, c, "behind", "t", 0, 0)
	fetchReq := kmsg.NewPtrFetchRequest()
	fetchReq.ReplicaID, fetchReq.MaxBytes = -1, 1<<20
	fetchReq.Topics = []kmsg.FetchRequestTopic{{Topic: "t", Partitions: []kmsg.FetchRequestTopicPartition{
		{Partition: 0, FetchOffset: 0, PartitionMaxBytes: 1 << 20, CurrentLeaderEpoch: -1, LogStartOffset: -1}}}}
	names := kversion.Stable() // Fetch by topic name, as the provider asks it
	names.SetMaxKeyVersion(kmsg.Fetch.Int16(), 11)
	admin, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.MaxVersions(names))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	fetched, err := fetchReq.RequestWith(context.Background(), admin)
	if err != nil || len(fetched.Topics) != 1 || len(fetched.Topics[0].Partitions) != 1 {
		t.Fatalf("Fetch: %+v, %v", fetched, err)
	}
	fetched.Topics[0].Partitions[0].HighWatermark, fetched.Topics[0].Partitions[0].LastStableOffset = 1, 1
	c.ControlKey(kmsg.Fetch.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		answer := *fetched
		answer.Version = r.GetVersion()
		return &answer, nil, true
	})
	acctest.AnswerListOffsets(c, -1, func(rp kmsg.ListOffsetsRequestTopicPartition) (int16, int64) {
		return 0, max(0, rp.Timestamp+2) // earliest (-2) 0, latest (-1) 1: the batches
	})
	cl := newClient(t, c, 30*time.Second)

	if got, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "done", Topics: []string{"t"}}); err != nil || !got.CaughtUp {
		t.Fatalf("without a Fetch, nothing contradicts the lie: got %+v, %v", got.Verdict, err)
	}
	_, err = cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{Topics: []string{"t"}, FetchTimestamps: true})
	var ie *ImpossibleAnswerError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `for topic "t" partition 0: broker 0`) ||
		!strings.Contains(err.Error(), "answered records up to offset 4 with a high watermark of 1") {
		t.Fatalf("got %v; want an ImpossibleAnswerError naming the records and the high watermark", err)
	}
}
