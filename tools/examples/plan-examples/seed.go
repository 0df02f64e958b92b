// Command seed arranges, with franz-go, what the documented examples (examples/data-sources,
// examples/functions, examples/gating) read, so that tools/examples/plan-examples.sh can plan each
// of them against a real broker: their topics with a few records, and consumer groups
// billing-service and orders-service caught up (committed at the end of every partition), so that
// every gate passes. Topics that exist are left as they are; commits are made again.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// topics: each topic the examples name, its partition count and the records per partition.
var topics = []struct {
	name       string
	partitions int32
	records    int
}{
	{"payments", 2, 3},
	{"orders", 12, 2},
	{"invoices", 3, 4},
	{"audit", 1, 0},
	{"orders.eu", 2, 1},
	{"orders.us", 2, 0},
	{"legacy.a", 1, 0},
	{"legacy.b", 1, 0},
	{"shipments", 2, 3}, // first-rollout: its group shipping-service does not exist
}

// groups: each group the examples read and the topic it has caught up on.
var groups = map[string]string{"billing-service": "invoices", "orders-service": "orders"}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(os.Getenv("KAFKA_BOOTSTRAP_SERVERS"), ",")...),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		// A new topic's leader may not be elected yet: retry until the context ends.
		kgo.UnknownTopicRetries(-1))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for _, tp := range topics {
		if err := createAndFill(ctx, cl, adm, tp.name, tp.partitions, tp.records); err != nil {
			return err
		}
	}
	for group, topic := range groups {
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err != nil {
			return fmt.Errorf("end offsets of %s: %w", topic, err)
		}
		if err := adm.CommitAllOffsets(ctx, group, ends.Offsets()); err != nil {
			return fmt.Errorf("commit %s at the end of %s: %w", group, topic, err)
		}
	}
	fmt.Fprintf(os.Stderr, "seed: %d topics; groups %v caught up\n", len(topics), groups)
	return nil
}

func createAndFill(ctx context.Context, cl *kgo.Client, adm *kadm.Client, topic string, partitions int32, records int) error {
	res, err := adm.CreateTopic(ctx, partitions, 1, nil, topic)
	if err == nil {
		err = res.Err
	}
	if errors.Is(err, kerr.TopicAlreadyExists) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create topic %q: %w", topic, err)
	}
	var rs []*kgo.Record
	for p := range partitions {
		for i := range records {
			rs = append(rs, &kgo.Record{Topic: topic, Partition: p, Key: fmt.Appendf(nil, "key-%d", i), Value: []byte("example")})
		}
	}
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		return fmt.Errorf("produce to %s: %w", topic, err)
	}
	return nil
}
