package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/tools/benchref/kadmref"
)

// topicsScenario is kafka_topics_offsets over every topic of a cluster of TxP partitions.
func topicsScenario(size string) scenario {
	topics, partitions := parseSize("-topics", size)
	return scenario{name: fmt.Sprintf("kafka_topics_offsets over %d topics × %d partitions", topics, partitions),
		config:   "data \"kafka_topics_offsets\" \"all\" {}\n",
		seed:     []kfake.Opt{kfake.SeedTopics(int32(partitions), topicNames(topics)...)},
		commands: []string{"apply"}, logs: []string{"off"}, direct: "topics",
		// What fetch_last_write_time costs: one more ListOffsets lookup of every partition.
		variants: []variant{{name: "this-last-write", config: "data \"kafka_topics_offsets\" \"all\" {\n  fetch_last_write_time = true\n}\n"}}}
}

// groupsScenario is kafka_consumer_groups over n groups, each with one commit on a partition of
// a 100-partition topic.
func groupsScenario(n int) scenario {
	const partitions = 100
	return scenario{name: fmt.Sprintf("kafka_consumer_groups over %d groups with a commit each", n),
		config:   "data \"kafka_consumer_groups\" \"all\" {}\n",
		seed:     []kfake.Opt{kfake.SeedTopics(partitions, "commits")},
		prepare:  func(c *kfake.Cluster) { commitGroups(c.ListenAddrs()[0], n, partitions) },
		commands: []string{"apply"}, logs: []string{"off"}, direct: "groups"}
}

// commitGroups commits, for each of n groups, offset 0 of one partition of the topic commits.
func commitGroups(address string, n, partitions int) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(address))
	must(err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx := context.Background()
	ids := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	for range 16 {
		wg.Go(func() {
			for i := range ids {
				var os kadm.Offsets
				os.Add(kadm.Offset{Topic: "commits", Partition: int32(i % partitions), At: 0, LeaderEpoch: -1})
				if err := adm.CommitAllOffsets(ctx, fmt.Sprintf("g%05d", i), os); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		ids <- i
	}
	close(ids)
	wg.Wait()
	must(failed)
}

// runDirectMeasured runs kadm's own client (runDirect, in a process of its own) under the same
// /usr/bin/time as the providers.
func runDirectMeasured(work, read, address string) result {
	self, err := os.Executable()
	must(err)
	file := filepath.Join(work, "direct-time")
	_ = os.Remove(file)
	cmd := exec.Command("/usr/bin/time", "-o", file, "-f", "%M %U %S", self, "-direct", read, "-addr", address)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		log.Fatalf("kadm's own client, %s: %v\n%s", read, err, out)
	}
	res := timeFile(file)
	res.wall = wall
	return res
}

// runDirect is the big read named, by kadm without Terraform: the lower bound.
func runDirect(read, address string) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(address))
	must(err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx := context.Background()
	seen := 0
	switch read {
	case "topics":
		err = kadmref.TopicsOffsets(ctx, adm, func(string, int64, int64) { seen++ })
	case "groups":
		err = kadmref.GroupsLag(ctx, adm, func(kadm.ListedGroup, []string, int64) { seen++ })
	default:
		log.Fatalf("-direct: unknown read %q (topics, groups)", read)
	}
	must(err)
	if seen == 0 {
		log.Fatalf("-direct %s: nothing read", read)
	}
}
