package kafkaclient

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// Chaos tests: reads through Client repeated every 100 ms while brokers of a real
// cluster of three restart or crash. A restart or crash shorter than the read's timeout may cost
// time, never an error or a wrong number. They run in make testacc's chaos leg only
// (KAFKA_CHAOS=1 on a cluster of KAFKA_BROKERS=3); internal/provider/chaos_test.go has the plans.

const chaosTimeout = 30 * time.Second // the provider's default read timeout

// chaosTopic is acctest's SeedTopic (6 partitions on 3 brokers, leaders spread; partition p
// holds p+1 records, partition 5 starts at 3) with the offsets as this package returns them.
func chaosTopic(t *testing.T, c *acctest.Cluster) (string, []PartitionOffsets) {
	t.Helper()
	topic, spans := c.SeedTopic()
	want := make([]PartitionOffsets, len(spans))
	for p, s := range spans {
		want[p] = PartitionOffsets{Partition: p, Earliest: s.Earliest, Latest: s.Latest}
	}
	return topic, want
}

// checkOracle asks kadm again after the chaos: the values the reads were held to are still the
// broker's.
func checkOracle(t *testing.T, c *acctest.Cluster, topic string, want []PartitionOffsets) {
	t.Helper()
	spans := make([]acctest.Span, len(want))
	for i, w := range want {
		spans[i] = acctest.Span{Earliest: w.Earliest, Latest: w.Latest}
	}
	c.CheckOffsets(topic, spans)
}

func chaosClient(c *acctest.Cluster) (*Client, error) {
	return New(Config{BootstrapServers: c.Bootstrap(), ClientID: "tfacc-chaos", Timeout: chaosTimeout})
}

// readDuring reads until stop is closed, and once more after, with two readers side by side: one
// Client for the whole test (the reads of one long plan, after the cluster answered) and a new
// Client per read (a new plan each time, bootstrapping while a broker is gone). Each read is
// recorded in log; read returns an error for a failed read or a wrong value.
func readDuring(t *testing.T, c *acctest.Cluster, log *acctest.ReadLog, stop <-chan struct{}, read func(*Client) error) {
	shared, err := chaosClient(c)
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()
	var wg sync.WaitGroup
	for _, fresh := range []bool{false, true} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			who := "shared client"
			if fresh {
				who = "new client"
			}
			for last := false; !last; {
				select {
				case <-stop:
					last = true
				default:
				}
				began := log.Since()
				cl, err := shared, error(nil)
				if fresh {
					cl, err = chaosClient(c)
				}
				if err == nil {
					err = read(cl)
				}
				if fresh && cl != nil {
					cl.Close()
				}
				log.Record(who, began, err)
				select { // a short pause between reads, not a busy loop on 2 cores
				case <-stop:
				case <-time.After(100 * time.Millisecond):
				}
			}
		}()
	}
	wg.Wait()
}

func readTopic(topic string, want []PartitionOffsets) func(*Client) error {
	return func(cl *Client) error {
		got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: topic})
		if err != nil {
			return err
		}
		if diff := cmp.Diff(want, got); diff != "" {
			return fmt.Errorf("wrong offsets (-want +got):\n%s", diff)
		}
		return nil
	}
}

// expectEveryReadExact fails the test if any read failed or read a wrong value (Report logs which
// and how).
func expectEveryReadExact(t *testing.T, log *acctest.ReadLog) {
	t.Helper()
	log.Report(t)
	if failed, all := len(log.Failed()), len(log.Reads()); failed > 0 || all == 0 {
		t.Errorf("%d of %d reads failed or read a wrong value; each must be exact", failed, all)
	}
}

// A rolling restart, as for an upgrade: each broker in turn shut down gracefully (its leaderships
// handed over first) and started again, the next one only once every replica is back in sync.
func TestChaosCluster_rollingRestartReads(t *testing.T) {
	c := acctest.ChaosCluster(t, 3, 9)
	topic, want := chaosTopic(t, c)
	log := acctest.NewReadLog(c)
	stop := make(chan struct{})
	c.Go(func() error {
		defer close(stop)
		time.Sleep(time.Second)
		return c.RollingRestart()
	})
	readDuring(t, c, log, stop, readTopic(topic, want))
	c.Wait()
	expectEveryReadExact(t, log)
	checkOracle(t, c, topic, want)
}

// The leader of partitions is killed (SIGKILL) and started again 2 s later. Until the
// controller fences it (broker.session.timeout.ms, 9 s) or it registers again, metadata still
// names it as their leader and connections to it are refused.
func TestChaosCluster_killedLeaderReads(t *testing.T) {
	c := acctest.ChaosCluster(t, 3, 9)
	topic, want := chaosTopic(t, c)
	victim := c.Leaders(topic)[0]
	log, stop := acctest.NewReadLog(c), killAndRestart(t, c, topic, victim)
	readDuring(t, c, log, stop, readTopic(topic, want))
	c.Wait()
	expectEveryReadExact(t, log)
	checkOracle(t, c, topic, want)
}

// A consumer group's coordinator restarts gracefully: the group's __consumer_offsets partition
// moves to another broker, which loads the group (COORDINATOR_LOAD_IN_PROGRESS meanwhile), and
// NOT_COORDINATOR or refused connections meet reads that still ask the old one.
func TestChaosCluster_coordinatorRestartGroupReads(t *testing.T) {
	c := acctest.ChaosCluster(t, 3, 9)
	topic, offsets := chaosTopic(t, c)
	group := "tfacc-group-" + topic
	commits := map[int32]int64{}
	var want []GroupPartitionOffsets
	for _, o := range offsets {
		committed, lag := int64(o.Partition), o.Latest-int64(o.Partition) // commit p on partition p
		commits[int32(o.Partition)] = committed
		want = append(want, GroupPartitionOffsets{Topic: topic, Partition: o.Partition, Committed: &committed, Latest: o.Latest, Lag: &lag})
	}
	c.CommitOffsets(group, map[string]map[int32]int64{topic: commits})
	c.WaitHealthy() // __consumer_offsets may be new: every replica in sync first
	c.BalanceLeaders()
	checkGroupOracle(t, c, group, topic, commits)
	coordinator := c.Coordinator(group)
	t.Logf("broker %d coordinates group %s: restarting it", coordinator, group)

	log := acctest.NewReadLog(c)
	stop := make(chan struct{})
	c.Go(func() error {
		defer close(stop)
		time.Sleep(time.Second)
		if err := c.Restart(coordinator); err != nil {
			return err
		}
		return c.AwaitHealthy()
	})
	readDuring(t, c, log, stop, func(cl *Client) error {
		got, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: group})
		if err != nil {
			return err
		}
		return sameGroupOffsets(got, want)
	})
	c.Wait()
	expectEveryReadExact(t, log)
	checkGroupOracle(t, c, group, topic, commits)
	t.Logf("group %s: coordinator now broker %d", group, c.Coordinator(group))
}

// A group's time lag (FetchTimestamps) while the leader of some of its partitions is killed
// (SIGKILL) and started again: the Fetch of the next record meets refused connections and
// NOT_LEADER_OR_FOLLOWER like every other read, and still answers each partition's record
// exactly, as franz-go's consumer reads it (acctest's NextRecord).
func TestChaosCluster_killedLeaderTimeLagReads(t *testing.T) {
	c := acctest.ChaosCluster(t, 3, 9)
	topic, offsets := chaosTopic(t, c)
	group := "tfacc-timelag-" + topic
	commits := map[int32]int64{}
	next := map[int]int64{} // partition -> timestamp (ms) of the record at its commit, from the oracle
	for _, o := range offsets {
		commits[int32(o.Partition)] = int64(o.Partition) // partition p holds p+1 records: one left to read
		r := c.NextRecord(topic, int32(o.Partition), int64(o.Partition), 0)
		if r == nil || r.Offset != int64(o.Partition) {
			t.Fatalf("oracle: partition %d's record at %d is %+v", o.Partition, o.Partition, r)
		}
		next[o.Partition] = r.Timestamp.UnixMilli()
	}
	c.CommitOffsets(group, map[string]map[int32]int64{topic: commits})
	c.WaitHealthy()
	victim := c.Leaders(topic)[0]
	log, stop := acctest.NewReadLog(c), killAndRestart(t, c, topic, victim)
	readDuring(t, c, log, stop, func(cl *Client) error {
		got, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: group, Topics: []string{topic}, FetchTimestamps: true})
		if err != nil {
			return err
		}
		for _, p := range got.Partitions {
			if p.Next == nil || p.Next.Offset != int64(p.Partition) || p.Next.TimestampMs != next[p.Partition] || p.LagMs == nil {
				return fmt.Errorf("partition %d: next record %+v, time lag %s; want offset %d stamped %d",
					p.Partition, p.Next, show(p.LagMs), p.Partition, next[p.Partition])
			}
		}
		return nil
	})
	c.Wait()
	expectEveryReadExact(t, log)
}

// killAndRestart kills broker victim (SIGKILL) a second from now and starts it again 2 s later,
// in the background; the returned channel closes once the cluster is whole again.
func killAndRestart(t *testing.T, c *acctest.Cluster, topic string, victim int32) <-chan struct{} {
	t.Logf("broker %d leads partitions %v: killing it", victim, c.LedBy(topic, victim))
	stop := make(chan struct{})
	c.Go(func() error {
		defer close(stop)
		time.Sleep(time.Second)
		if err := c.Kill(victim); err != nil {
			return err
		}
		time.Sleep(2 * time.Second)
		if err := c.Start(victim); err != nil {
			return err
		}
		return c.AwaitHealthy()
	})
	return stop
}

func checkGroupOracle(t *testing.T, c *acctest.Cluster, group, topic string, commits map[int32]int64) {
	t.Helper()
	got := c.GroupCommitted(group)[topic]
	if len(got) != len(commits) {
		t.Fatalf("oracle (kadm) says group %s committed %v on %s; the test expects %v", group, got, topic, commits)
	}
	for p, at := range commits {
		if got[p] != at {
			t.Fatalf("oracle (kadm) says group %s committed %v on %s; the test expects %v", group, got, topic, commits)
		}
	}
}

func sameGroupOffsets(got GroupOffsets, want []GroupPartitionOffsets) error {
	ok := len(got.Partitions) == len(want)
	for i := 0; ok && i < len(want); i++ {
		g, w := got.Partitions[i], want[i]
		ok = g.Topic == w.Topic && g.Partition == w.Partition && g.Latest == w.Latest &&
			g.Committed != nil && *g.Committed == *w.Committed && g.Lag != nil && *g.Lag == *w.Lag
	}
	if !ok {
		return fmt.Errorf("wrong group offsets %s, want %s", groupString(got.Partitions), groupString(want))
	}
	return nil
}

func groupString(ps []GroupPartitionOffsets) string {
	s := ""
	for _, p := range ps {
		c, l := "nil", "nil"
		if p.Committed != nil {
			c = fmt.Sprint(*p.Committed)
		}
		if p.Lag != nil {
			l = fmt.Sprint(*p.Lag)
		}
		s += fmt.Sprintf("[%s/%d committed %s latest %d lag %s]", p.Topic, p.Partition, c, p.Latest, l)
	}
	return s
}
