package acctest

import (
	"context"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Groups that read a topic without committing on it: a member just deployed, auto-commit off,
// offsets kept outside Kafka. Arranged with franz-go's consumer, checked with kadm.

// AssignedConsumer joins group as a consumer of topics (Kafka 4's consumer protocol, KIP-848, when
// nextGen; else the classic one), waits until the group has given it every partition of topics,
// and stays a member, heartbeating, until the test ends. It never commits.
func (k *Kafka) AssignedConsumer(group string, nextGen bool, topics ...string) {
	k.t.Helper()
	assigned := make(chan struct{}, 1)
	opts := []kgo.Opt{
		kgo.SeedBrokers(BootstrapServers(k.t)...),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topics...),
		kgo.DisableAutoCommit(),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) {
			select {
			case assigned <- struct{}{}:
			default:
			}
		}),
	}
	if nextGen {
		opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		k.t.Fatal(err)
	}
	k.t.Cleanup(cl.Close)
	polled, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	go func() { // a member must poll to join; what it fetches is never committed
		for polled.Err() == nil {
			cl.PollFetches(polled)
		}
	}()
	select {
	case <-assigned:
	case <-polled.Done():
		k.t.Fatalf("group %s: no partition assigned after 60s", group)
	}
	want := k.partitionsOf(topics)
	deadline := time.Now().Add(30 * time.Second)
	for !equalAssignment(k.Assigned(group, nextGen), want) {
		if time.Now().After(deadline) {
			k.t.Fatalf("group %s owns %v, not %v, after 30s", group, k.Assigned(group, nextGen), want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Assigned is the oracle for what group's members own now, by topic, sorted: kadm's
// DescribeGroups (the classic protocol's member assignments) or DescribeConsumerGroups
// (ConsumerGroupDescribe, KIP-848).
func (k *Kafka) Assigned(group string, nextGen bool) map[string][]int32 {
	k.t.Helper()
	out := map[string][]int32{}
	if nextGen {
		res, err := k.Admin.DescribeConsumerGroups(ctx(k.t), group)
		if err != nil {
			k.t.Fatalf("describe consumer group %s: %v", group, err)
		}
		for _, m := range res[group].Members {
			for topic, ps := range m.Assignment {
				for p := range ps {
					out[topic] = append(out[topic], p)
				}
			}
		}
	} else {
		res, err := k.Admin.DescribeGroups(ctx(k.t), group)
		if err != nil {
			k.t.Fatalf("describe group %s: %v", group, err)
		}
		for _, m := range res[group].Members {
			if a, ok := m.Assigned.AsConsumer(); ok {
				for _, t := range a.Topics {
					out[t.Topic] = append(out[t.Topic], t.Partitions...)
				}
			}
		}
	}
	for _, ps := range out {
		slices.Sort(ps)
	}
	return out
}

// partitionsOf is every partition of topics, as kadm lists them.
func (k *Kafka) partitionsOf(topics []string) map[string][]int32 {
	k.t.Helper()
	details, err := k.Admin.ListTopics(ctx(k.t), topics...)
	if err != nil {
		k.t.Fatalf("list topics %v: %v", topics, err)
	}
	out := map[string][]int32{}
	for _, d := range details {
		out[d.Topic] = d.Partitions.Numbers()
		slices.Sort(out[d.Topic])
	}
	return out
}

func equalAssignment(a, b map[string][]int32) bool {
	if len(a) != len(b) {
		return false
	}
	for t, ps := range a {
		if !slices.Equal(ps, b[t]) {
			return false
		}
	}
	return true
}

// OwnedBy is the oracle for what group's members own now, by topic, sorted, asked with kadm's
// describe call of the group's kind as ListGroups names it: DescribeShareGroups for share groups,
// DescribeConsumerGroups for KIP-848 ones, DescribeGroups for the others (nothing for a group no
// broker lists).
func (k *Kafka) OwnedBy(group string) map[string][]int32 {
	k.t.Helper()
	listed, ok := k.ListedGroups()[group]
	switch {
	case !ok:
		return map[string][]int32{}
	case listed[2] == "share":
		res, err := k.Admin.DescribeShareGroups(ctx(k.t), group)
		if err != nil {
			k.t.Fatalf("describe share group %s: %v", group, err)
		}
		owned := map[string][]int32{}
		for _, m := range res[group].Members {
			for topic, ps := range m.Assignment {
				for p := range ps {
					owned[topic] = append(owned[topic], p)
				}
			}
		}
		for _, ps := range owned {
			slices.Sort(ps)
		}
		return owned
	}
	return k.Assigned(group, listed[2] == "consumer")
}

// Owns reports whether group's members own a partition of one of topics now (any topic when
// topics is empty), as OwnedBy says.
func (k *Kafka) Owns(group string, topics ...string) bool {
	k.t.Helper()
	for topic, ps := range k.OwnedBy(group) {
		if len(ps) > 0 && (len(topics) == 0 || slices.Contains(topics, topic)) {
			return true
		}
	}
	return false
}
