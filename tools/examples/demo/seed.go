// Command seed arranges topic "users" for `make demo` with franz-go: 3 partitions holding 5, 0 and
// 8 records, partition 2 trimmed by DeleteRecords before offset 3, so the plan shows an empty
// partition and an earliest offset above 0. When the topic already exists it is left as it is.
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
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

const topic = "users"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

func run() error {
	servers := strings.Split(os.Getenv("KAFKA_BOOTSTRAP_SERVERS"), ",")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := seedClient(servers)
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	res, err := adm.CreateTopic(ctx, 3, 1, nil, topic)
	if err == nil {
		err = res.Err
	}
	if errors.Is(err, kerr.TopicAlreadyExists) {
		fmt.Fprintf(os.Stderr, "seed: topic %q exists; leaving it as it is\n", topic)
		return nil
	}
	if err != nil {
		return fmt.Errorf("create topic %q: %w", topic, err)
	}

	for partition, n := range []int{5, 0, 8} {
		for i := 0; i < n; i++ {
			r := &kgo.Record{Topic: topic, Partition: int32(partition), Key: []byte(fmt.Sprintf("user-%d-%d", partition, i)), Value: []byte(`{"demo":true}`)}
			if err := produce(ctx, cl, r); err != nil {
				return err
			}
		}
	}
	var trim kadm.Offsets
	trim.Add(kadm.Offset{Topic: topic, Partition: 2, At: 3, LeaderEpoch: -1})
	deleted, err := adm.DeleteRecords(ctx, trim)
	if err == nil {
		err = deleted.Error()
	}
	if err != nil {
		return fmt.Errorf("delete records of %s/2 before offset 3: %w", topic, err)
	}
	fmt.Fprintf(os.Stderr, "seed: topic %q: partition 0 holds 5 records, 1 is empty, 2 holds 8 with the first 3 deleted\n", topic)
	return nil
}

// seedClient is the franz-go client the seed writes with. franz-go opens each connection with
// ApiVersions at its latest version (v5, KIP-1242), which a broker that serves only lower ones may
// answer by closing the connection (some Kafka-compatible services do): the seed asks v0, as the
// provider's own handshake does, which every broker answers with every version it serves.
func seedClient(servers []string) (*kgo.Client, error) {
	versions := kversion.Stable()
	versions.SetMaxKeyVersion(kmsg.ApiVersions.Int16(), 0)
	return kgo.NewClient(kgo.SeedBrokers(servers...), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MaxVersions(versions))
}

// produce retries while the new topic's leader is being elected.
func produce(ctx context.Context, cl *kgo.Client, r *kgo.Record) error {
	for {
		err := cl.ProduceSync(ctx, r).FirstErr()
		if err == nil || ctx.Err() != nil || !kerr.IsRetriable(err) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
