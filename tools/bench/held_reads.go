package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The reads that ask what a cluster of many topics holds (internal/kafkaclient/holdings.go): N
// kafka_consumer_group_offsets without topics on a cluster of T topics × P partitions (-held,
// -held-reads), each of its own group, beside the same data sources with the group's topic named
// (the column this-topics: this provider, another configuration) and the kadm provider's (kadm's
// Lag of the group); and -held-groups kafka_consumer_groups over every group of the same cluster,
// beside the kadm provider's (kadmref.GroupsLag).

// heldGroups are the groups of a -held cluster: group gNNN has a commit (offset 0) on partition
// 0 of topic tNNNNN.
const heldGroups = 100

var (
	heldF       = flag.String("held", "", "TOPICSxPARTITIONS of the clusters of many topics, comma-separated, e.g. 5000x20,20000x5 (empty: no such case)")
	heldReadsF  = flag.String("held-reads", "1,10,100", "kafka_consumer_group_offsets without topics per plan on each -held cluster, comma-separated")
	heldGroupsF = flag.String("held-groups", "10", "kafka_consumer_groups data sources per plan on each -held cluster (0: no such case)")
)

// heldScenarios are the cases of the -held clusters.
func heldScenarios() []scenario {
	if *heldF == "" {
		return nil
	}
	var out []scenario
	for _, size := range strings.Split(*heldF, ",") {
		topics, partitions := parseSize("-held", size)
		seed := []kfake.Opt{kfake.SeedTopics(int32(partitions), topicNames(topics)...)}
		for _, nS := range strings.Split(*heldReadsF, ",") {
			n, err := strconv.Atoi(nS)
			if err != nil || n < 0 {
				log.Fatalf("-held-reads: %q", nS)
			}
			if n == 0 {
				continue
			}
			group := fmt.Sprintf("data \"kafka_consumer_group_offsets\" \"g\" {\n  count    = %d\n  group_id = format(\"g%%03d\", count.index %% %d)\n", n, heldGroups)
			out = append(out, scenario{
				name:   fmt.Sprintf("%d kafka_consumer_group_offsets without topics on %d topics × %d partitions", n, topics, partitions),
				config: group + "}\n", seed: seed, prepare: commitHeldGroups, commands: []string{"plan"}, logs: []string{"off"},
				variants: []variant{{name: "this-topics", config: group + fmt.Sprintf("  topics   = [format(\"t%%05d\", count.index %% %d)]\n}\n", heldGroups)}},
			})
		}
		if n, err := strconv.Atoi(*heldGroupsF); err != nil {
			log.Fatalf("-held-groups: %v", err)
		} else if n > 0 {
			out = append(out, scenario{
				name:   fmt.Sprintf("%d kafka_consumer_groups on %d topics × %d partitions, %d groups", n, topics, partitions, heldGroups),
				config: fmt.Sprintf("data \"kafka_consumer_groups\" \"all\" {\n  count = %d\n}\n", n),
				seed:   seed, prepare: commitHeldGroups, commands: []string{"plan"}, logs: []string{"off"},
			})
		}
	}
	return out
}

// parseSize reads TOPICSxPARTITIONS.
func parseSize(flagName, size string) (topics, partitions int) {
	if _, err := fmt.Sscanf(size, "%dx%d", &topics, &partitions); err != nil || topics <= 0 || partitions <= 0 {
		log.Fatalf("%s %q: want TOPICSxPARTITIONS, e.g. 1000x100", flagName, size)
	}
	return topics, partitions
}

// topicNames are the topics of a cluster of n: t00000, t00001, ...
func topicNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("t%05d", i)
	}
	return names
}

// commitHeldGroups commits, for each of the heldGroups groups, offset 0 on partition 0 of its topic.
func commitHeldGroups(c *kfake.Cluster) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()[0]))
	must(err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for i := range heldGroups {
		var os kadm.Offsets
		os.Add(kadm.Offset{Topic: fmt.Sprintf("t%05d", i), Partition: 0, At: 0, LeaderEpoch: -1})
		must(adm.CommitAllOffsets(context.Background(), fmt.Sprintf("g%03d", i), os))
	}
}
