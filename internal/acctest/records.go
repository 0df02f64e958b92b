package acctest

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Records with chosen timestamps in one record batch, and what the broker keeps of them: the shapes
// of the time-lag tests, where a record's timestamp is the batch's first timestamp plus the
// record's delta, inside a batch that may be compressed.

// Codecs are the record-batch compression codecs a producer may choose, by name.
var Codecs = map[string]kgo.CompressionCodec{
	"none":   kgo.NoCompression(),
	"gzip":   kgo.GzipCompression(),
	"snappy": kgo.SnappyCompression(),
	"lz4":    kgo.Lz4Compression(),
	"zstd":   kgo.ZstdCompression(),
}

// codecIDs are the same codecs as a batch's attributes write them (the low 3 bits).
var codecIDs = map[string]int16{"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}

// compressible is a record value that every codec shrinks (franz-go sends a batch uncompressed
// when compression would not make it smaller).
var compressible = []byte(strings.Repeat("a record value that compresses well; ", 30))

// ProduceBatch writes one record per timestamp to one partition, in order, as a single record
// batch compressed with codec (a key of Codecs): a producer of its own (franz-go) buffers them
// all and sends them with one flush. It returns the offset of the first.
func (k *Kafka) ProduceBatch(topic string, partition int32, codec string, ts ...time.Time) int64 {
	k.t.Helper()
	return produceBatch(k.t, BootstrapServers(k.t), topic, partition, codec, ts)
}

func produceBatch(t testing.TB, seeds []string, topic string, partition int32, codec string, ts []time.Time) int64 {
	t.Helper()
	c, ok := Codecs[codec]
	if !ok {
		t.Fatalf("unknown codec %q", codec)
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(seeds...),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(c),
		kgo.ManualFlushing(), // nothing leaves before Flush: one batch
	)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	results := make(chan kgo.ProduceResult, len(ts))
	for _, at := range ts {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: compressible, Timestamp: at}
		cl.Produce(ctx(t), r, func(r *kgo.Record, err error) { results <- kgo.ProduceResult{Record: r, Err: err} })
	}
	if err := cl.Flush(ctx(t)); err != nil {
		t.Fatalf("flush to %s/%d: %v", topic, partition, err)
	}
	first := int64(-1)
	for range ts {
		res := <-results
		if res.Err != nil {
			t.Fatalf("produce to %s/%d: %v", topic, partition, res.Err)
		}
		if first < 0 || res.Record.Offset < first {
			first = res.Record.Offset
		}
	}
	return first
}

// Batch is a record batch's header as the broker keeps it.
type Batch struct {
	FirstOffset, LastOffset      int64
	NumRecords                   int32
	Codec                        string // a key of Codecs
	LogAppendTime                bool
	Transactional, Control       bool
	FirstTimestamp, MaxTimestamp int64 // milliseconds since the epoch
}

// Batches is the oracle for how the records of one partition from offset from are batched: the
// headers of the batches a Fetch (franz-go, to the partition's leader) answers, up to 1 MiB.
func (k *Kafka) Batches(topic string, partition int32, from int64) []Batch {
	k.t.Helper()
	details, err := k.Admin.ListTopics(ctx(k.t), topic)
	if err == nil {
		err = details[topic].Err
	}
	if err != nil {
		k.t.Fatalf("describe topic %s: %v", topic, err)
	}
	leader := details[topic].Partitions[partition].Leader
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.SessionEpoch = -1, 0, 0, 1<<20, -1
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic, rt.TopicID = topic, details[topic].ID
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition, rp.CurrentLeaderEpoch, rp.FetchOffset, rp.LogStartOffset, rp.PartitionMaxBytes = partition, -1, from, -1, 1<<20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx(k.t), k.Kgo.Broker(int(leader)))
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err == nil && (len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1) {
		k.t.Fatalf("oracle Fetch %s/%d: an answer without the partition", topic, partition)
	}
	if err == nil {
		err = kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode)
	}
	if err != nil {
		k.t.Fatalf("oracle Fetch %s/%d from %d: %v", topic, partition, from, err)
	}
	return batchHeaders(k, resp.Topics[0].Partitions[0].RecordBatches)
}

// batchHeaders decodes the whole batches in data (a partial one at the end is left out).
func batchHeaders(k *Kafka, data []byte) []Batch {
	k.t.Helper()
	var out []Batch
	for len(data) >= 12 {
		size := 12 + int(binary.BigEndian.Uint32(data[8:12]))
		if size > len(data) {
			break
		}
		var b kmsg.RecordBatch
		if err := b.ReadFrom(data[:size]); err != nil {
			k.t.Fatalf("oracle: a record batch that franz-go cannot read: %v", err)
		}
		data = data[size:]
		codec := "unknown"
		for name, id := range codecIDs {
			if b.Attributes&0x07 == id {
				codec = name
			}
		}
		out = append(out, Batch{
			FirstOffset: b.FirstOffset, LastOffset: b.FirstOffset + int64(b.LastOffsetDelta), NumRecords: b.NumRecords,
			Codec: codec, LogAppendTime: b.Attributes&0x08 != 0, Transactional: b.Attributes&0x10 != 0,
			Control: b.Attributes&0x20 != 0, FirstTimestamp: b.FirstTimestamp, MaxTimestamp: b.MaxTimestamp,
		})
	}
	return out
}

// CreateLogAppendTimeTopic creates a topic whose records carry the broker's time of append
// (message.timestamp.type=LogAppendTime), not the producer's, and deletes it after the test.
func (k *Kafka) CreateLogAppendTimeTopic(name string, partitions int32) string {
	k.t.Helper()
	logAppendTime := "LogAppendTime"
	return k.CreateTopic(name, partitions, map[string]*string{"message.timestamp.type": &logAppendTime})
}
