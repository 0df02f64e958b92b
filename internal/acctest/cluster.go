package acctest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaharness"
)

// Cluster is the cluster that tools/kafka.sh run started, for chaos tests that stop, kill and
// pause its brokers (the harness's node verbs, on the cluster its state dir records) and check,
// with franz-go, that it is whole again. Every broker is running again, with full ISRs and
// preferred leaders, when the test ends.
type Cluster struct {
	*Kafka // the independent client (oracle) on every broker

	t       testing.TB
	harness *kafkaharness.Cluster // attached: brokers it restarts outlive the test process
	ids     []int32
	addrs   map[int32]string
	start   time.Time

	mu   sync.Mutex
	down map[int32]string // broker id -> "stopped" or "paused", by this test
	bg   sync.WaitGroup
}

// Time allowed for one node verb (a start waits until the broker is
// registered, which after a kill lasts until its old session expires: 9 s) and for the cluster to
// be whole again.
const (
	brokerCommandLimit = 2 * time.Minute
	healthyLimit       = 90 * time.Second
)

// ChaosCluster returns the cluster of tools/kafka.sh run, which must have from minBrokers to
// maxBrokers brokers. The test is skipped unless KAFKA_CHAOS=1: chaos tests disturb every other
// test that uses the cluster meanwhile, so `make testacc` runs them in legs of their own, each
// package's one at a time, on a cluster of its own (tools/test/chaos.sh). A cluster not started by
// tools/kafka.sh (KAFKA_BOOTSTRAP_SERVERS of your own) is never disturbed: the test is skipped.
func ChaosCluster(t testing.TB, minBrokers, maxBrokers int) *Cluster {
	t.Helper()
	if os.Getenv("KAFKA_CHAOS") != "1" {
		t.Skip("chaos test: stops, kills and pauses brokers; runs with KAFKA_CHAOS=1 on a cluster of tools/kafka.sh run " +
			"(make testacc runs it in a leg of its own)")
	}
	BootstrapServers(t) // skips without TF_ACC
	stateDir, ids := os.Getenv("KAFKA_STATE_DIR"), os.Getenv("KAFKA_BROKER_IDS")
	if stateDir == "" || ids == "" {
		t.Skip("chaos test: KAFKA_STATE_DIR or KAFKA_BROKER_IDS is not set, so this cluster was not started by " +
			"tools/kafka.sh run, and its brokers are not ours to stop")
	}
	harness, err := kafkaharness.Attach(stateDir)
	if err != nil {
		t.Fatalf("chaos test: the cluster of KAFKA_STATE_DIR: %v", err)
	}
	c := &Cluster{t: t, harness: harness, addrs: map[int32]string{}, down: map[int32]string{}, start: time.Now()}
	for _, f := range strings.Fields(ids) {
		id, err := strconv.ParseInt(f, 10, 32)
		addr := os.Getenv("KAFKA_BROKER_" + f + "_ADDR")
		if err != nil || addr == "" {
			t.Fatalf("KAFKA_BROKER_IDS=%q: broker %q has no KAFKA_BROKER_%s_ADDR", ids, f, f)
		}
		c.ids = append(c.ids, int32(id))
		c.addrs[int32(id)] = addr
	}
	if n := len(c.ids); n < minBrokers || n > maxBrokers {
		t.Skipf("chaos test for a cluster of %d to %d brokers; this one has %d (KAFKA_BROKERS sets it)", minBrokers, maxBrokers, n)
	}
	c.Kafka = Connect(t)
	// Registered first, so it runs last: after the test's own cleanups.
	t.Cleanup(c.restore)
	c.WaitHealthy()
	c.BalanceLeaders()
	return c
}

// IDs are the broker ids, ascending.
func (c *Cluster) IDs() []int32 { return slices.Clone(c.ids) }

// Addr is broker id's PLAINTEXT address.
func (c *Cluster) Addr(id int32) string { return c.addrs[id] }

// Bootstrap lists every broker's address, by id.
func (c *Cluster) Bootstrap() []string {
	out := make([]string, 0, len(c.ids))
	for _, id := range c.ids {
		out = append(out, c.addrs[id])
	}
	return out
}

// Since is the time since the cluster was handed to the test, for timelines in logs.
func (c *Cluster) Since() time.Duration { return time.Since(c.start).Round(10 * time.Millisecond) }

// Stop shuts broker id down gracefully (SIGTERM: controlled shutdown) and waits until it exited.
func (c *Cluster) Stop(id int32) error { return c.broker(kafkaharness.VerbStop, id, "stopped") }

// Kill crashes broker id (SIGKILL): it keeps its leaderships until the controller fences it.
func (c *Cluster) Kill(id int32) error { return c.broker(kafkaharness.VerbKill, id, "stopped") }

// Pause stops broker id with SIGSTOP: its connections stay open and nothing answers.
func (c *Cluster) Pause(id int32) error { return c.broker(kafkaharness.VerbPause, id, "paused") }

// Resume wakes a paused broker (SIGCONT).
func (c *Cluster) Resume(id int32) error { return c.broker(kafkaharness.VerbResume, id, "") }

// Start launches broker id again with its data, config and port, and waits until it serves.
func (c *Cluster) Start(id int32) error { return c.broker(kafkaharness.VerbStart, id, "") }

// Restart is Stop then Start (each logged with its time).
func (c *Cluster) Restart(id int32) error {
	if err := c.Stop(id); err != nil {
		return err
	}
	return c.Start(id)
}

// RollingRestart restarts every broker in turn, as an operator's rolling upgrade does: the next
// one only when the cluster is healthy again (no under-replicated or leaderless partition).
func (c *Cluster) RollingRestart() error {
	for _, id := range c.IDs() {
		if err := c.Restart(id); err != nil {
			return err
		}
		if err := c.AwaitHealthy(); err != nil {
			return err
		}
	}
	return nil
}

// broker acts on broker id (kafka.sh's broker verb id), bounded, and records what it left behind.
// Safe from any goroutine: the harness serialises verbs on the cluster's state dir.
func (c *Cluster) broker(verb string, id int32, after string) error {
	ctx, cancel := context.WithTimeout(context.Background(), brokerCommandLimit)
	defer cancel()
	began := c.Since()
	err := c.harness.Do(ctx, verb, id)
	took := c.Since() - began
	if err != nil {
		return fmt.Errorf("broker %s %d (at %s, after %s): %w", verb, id, began, took, err)
	}
	c.mu.Lock()
	if after == "" {
		delete(c.down, id)
	} else {
		c.down[id] = after
	}
	c.mu.Unlock()
	c.t.Logf("chaos: t=%s broker %d: %s took %s", began, id, verb, took)
	return nil
}

// Go runs a chaos script in the background; the cluster's cleanup waits for it before it restores
// the brokers. Errors are the test's (t.Errorf).
func (c *Cluster) Go(script func() error) {
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		if err := script(); err != nil {
			c.t.Errorf("chaos: %v", err)
		}
	}()
}

// Wait waits for the scripts of Go.
func (c *Cluster) Wait() { c.bg.Wait() }

// restore brings every broker this test stopped or paused back, and waits until the cluster is
// whole, with preferred leaders, for the next test. It runs at the end of the test, and first
// thing in the Cluster's other cleanups.
func (c *Cluster) restore() {
	c.bg.Wait()
	c.mu.Lock()
	down := make(map[int32]string, len(c.down))
	for id, how := range c.down {
		down[id] = how
	}
	c.mu.Unlock()
	for id, how := range down {
		verb := c.Start
		if how == "paused" {
			verb = c.Resume
		}
		if err := verb(id); err != nil {
			c.t.Errorf("restore broker %d (%s): %v", id, how, err)
		}
	}
	c.WaitHealthy()
	c.BalanceLeaders()
}

// CreateTopic creates a topic of partitions partitions, each on min(3, brokers) brokers, deletes
// it after the test, and waits until every replica is in sync and each partition is led by its
// preferred replica (Kafka spreads those over the brokers).
func (c *Cluster) CreateTopic(name string, partitions int32) string {
	c.t.Helper()
	res, err := c.Admin.CreateTopic(ctx(c.t), partitions, int16(min(3, len(c.ids))), nil, name)
	if err == nil {
		err = res.Err
	}
	if err != nil {
		c.t.Fatalf("create topic %s: %v", name, err)
	}
	c.t.Cleanup(func() {
		// Cleanups run last-registered first: bring the brokers back before asking them anything
		// (a request to a paused broker waits out its timeouts).
		c.restore()
		delCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = c.Admin.DeleteTopics(delCtx, name)
	})
	c.waitForLeaders(name, partitions)
	c.WaitHealthy()
	c.BalanceLeaders()
	return name
}

// Span is one partition's log start offset and high watermark.
type Span struct{ Earliest, Latest int64 }

// SeedTopic creates a topic of 6 partitions with CreateTopic: partition p holds p+1 records, and
// partition 5 starts at offset 3 (DeleteRecords). It returns the topic and each partition's
// offsets, which the oracle (kadm) confirmed.
func (c *Cluster) SeedTopic() (string, []Span) {
	c.t.Helper()
	topic := c.CreateTopic(TopicName(c.t, ""), 6)
	var want []Span
	for p := range 6 {
		c.Produce(topic, int32(p), p+1)
		want = append(want, Span{Latest: int64(p) + 1})
	}
	c.DeleteRecordsBefore(topic, 5, 3)
	want[5].Earliest = 3
	c.CheckOffsets(topic, want)
	c.t.Logf("topic %s: leader by partition %v", topic, c.Leaders(topic))
	return topic, want
}

// CheckOffsets fails the test unless the oracle (kadm) agrees that topic's partitions have the
// offsets of want (by partition).
func (c *Cluster) CheckOffsets(topic string, want []Span) {
	c.t.Helper()
	for p, w := range want {
		if e, l := c.Offsets(topic, int32(p)); e != w.Earliest || l != w.Latest {
			c.t.Fatalf("oracle (kadm) says %s/%d has %d/%d; the test expects %d/%d", topic, p, e, l, w.Earliest, w.Latest)
		}
	}
}

// Leaders maps each partition of topic to its leader (-1: none), from fresh metadata.
func (c *Cluster) Leaders(topic string) map[int32]int32 {
	c.t.Helper()
	md, err := c.metadata([]string{topic})
	if err != nil {
		c.t.Fatalf("metadata of %s: %v", topic, err)
	}
	out := map[int32]int32{}
	for _, t := range md.Topics {
		if t.Topic != nil && *t.Topic == topic {
			for _, p := range t.Partitions {
				out[p.Partition] = p.Leader
			}
		}
	}
	if len(out) == 0 {
		c.t.Fatalf("metadata has no partitions of %s", topic)
	}
	return out
}

// LedBy lists the partitions of topic that broker id leads, ascending.
func (c *Cluster) LedBy(topic string, id int32) []int32 {
	var out []int32
	for p, leader := range c.Leaders(topic) {
		if leader == id {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Coordinator is the broker that coordinates group (FindCoordinator).
func (c *Cluster) Coordinator(group string) int32 {
	c.t.Helper()
	res := c.Admin.FindGroupCoordinators(ctx(c.t), group)
	if err := res.Error(); err != nil {
		c.t.Fatalf("find the coordinator of group %s: %v", group, err)
	}
	return res[group].NodeID
}

// WaitHealthy waits until every broker is registered and serving, and every partition of every
// topic (internal ones included) has a leader and all its replicas in sync.
func (c *Cluster) WaitHealthy() {
	c.t.Helper()
	if err := c.AwaitHealthy(); err != nil {
		c.t.Fatal(err)
	}
}

// AwaitHealthy is WaitHealthy for chaos scripts (Go): it returns what is still missing after the
// time allowed instead of ending the test.
func (c *Cluster) AwaitHealthy() error {
	began := time.Now()
	var why error
	for time.Since(began) < healthyLimit {
		if why = c.unhealthy(); why == nil {
			if waited := time.Since(began); waited > time.Second {
				c.t.Logf("chaos: t=%s cluster whole again after %s", c.Since(), waited.Round(10*time.Millisecond))
			}
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("cluster not whole %s after the test asked: %w", healthyLimit, why)
}

// unhealthy says what is still missing, or nil.
func (c *Cluster) unhealthy() error {
	md, err := c.metadata(nil)
	if err != nil {
		return err
	}
	var live []int32
	for _, b := range md.Brokers {
		live = append(live, b.NodeID)
	}
	slices.Sort(live)
	if !slices.Equal(live, c.ids) {
		return fmt.Errorf("metadata lists brokers %v, want %v", live, c.ids)
	}
	for _, t := range md.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return fmt.Errorf("topic %s: %w", *t.Topic, err)
		}
		for _, p := range t.Partitions {
			isr, replicas := slices.Sorted(slices.Values(p.ISR)), slices.Sorted(slices.Values(p.Replicas))
			if p.Leader < 0 || !slices.Equal(isr, replicas) {
				return fmt.Errorf("%s/%d: leader %d, ISR %v of replicas %v", *t.Topic, p.Partition, p.Leader, p.ISR, p.Replicas)
			}
		}
	}
	return nil
}

// BalanceLeaders moves every partition's leadership back to its preferred replica, as Kafka's
// auto.leader.rebalance.enable would within minutes, and waits until metadata shows it.
func (c *Cluster) BalanceLeaders() {
	c.t.Helper()
	began := time.Now()
	for {
		md, err := c.metadata(nil)
		if err == nil {
			var moved int
			for _, t := range md.Topics {
				for _, p := range t.Partitions {
					if len(p.Replicas) > 0 && p.Leader != p.Replicas[0] {
						moved++
					}
				}
			}
			if moved == 0 {
				return
			}
			reqCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, err = c.Admin.ElectLeaders(reqCtx, kadm.ElectPreferredReplica, nil)
			cancel()
			if err == nil {
				err = fmt.Errorf("%d partitions not on their preferred leader", moved)
			}
		}
		if time.Since(began) > healthyLimit {
			c.t.Fatalf("preferred leaders not back after %s: %v", healthyLimit, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// metadata asks a broker for fresh metadata (kadm's Metadata may answer from a cache) of topics,
// every topic when nil; one try, bounded, so that a paused broker costs a retry, not the test.
func (c *Cluster) metadata(topics []string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	reqCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := req.RequestWith(reqCtx, c.Kgo)
	if err != nil {
		return nil, err
	}
	if resp.Topics == nil && topics != nil {
		return nil, errors.New("metadata answered no topics")
	}
	return resp, nil
}
