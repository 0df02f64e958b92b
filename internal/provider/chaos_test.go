package provider

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// Chaos tests: terraform plans of many data sources while brokers of a real cluster restart, crash
// or hang. A restart or crash shorter than the read's timeout costs time, never an error or a wrong
// number. They run in make testacc's chaos legs only (KAFKA_CHAOS=1; TestChaosCluster_* on
// KAFKA_BROKERS=3, TestChaosSingleNode_* on one broker).
//
// Values are checked against literals that the oracle (kadm) confirms before and after the chaos,
// not during it: kadm's own reads wait for the same failovers. Each data source read is timed at
// the provider server and logged (acctest.ReadLog); only hang bounds are asserted.

// chaosFactories serves the provider in-process, records every data source read in reads, and
// calls before (when set) ahead of the n-th read of the test (n from 1) in that read's goroutine:
// a hook that takes a broker away in the middle of a plan, after the plan's first reads answered.
func chaosFactories(reads *acctest.ReadLog, before func(n int)) map[string]func() (tfprotov6.ProviderServer, error) {
	var n atomic.Int64
	return map[string]func() (tfprotov6.ProviderServer, error){
		"kafka": func() (tfprotov6.ProviderServer, error) {
			srv, err := providerserver.NewProtocol6WithError(New("test")())()
			if err != nil {
				return nil, err
			}
			return &timedServer{ProviderServer: srv, reads: reads, before: before, n: &n}, nil
		},
	}
}

// timedServer is the provider server with ReadDataSource timed.
type timedServer struct {
	tfprotov6.ProviderServer
	reads  *acctest.ReadLog
	before func(n int)
	n      *atomic.Int64

	once  sync.Once
	types map[string]tftypes.Type // data source configurations, by type name
}

func (s *timedServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	if s.before != nil {
		s.before(int(s.n.Add(1)))
	}
	began := s.reads.Since()
	resp, err := s.ProviderServer.ReadDataSource(ctx, req)
	failed := err
	if err == nil {
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				failed = fmt.Errorf("%s: %s", d.Summary, d.Detail)
				break
			}
		}
	}
	s.reads.Record(s.describe(ctx, req), began, failed)
	return resp, err
}

// describe names the read for the log: the data source and its partition or group.
func (s *timedServer) describe(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) string {
	s.once.Do(func() {
		s.types = map[string]tftypes.Type{}
		if schemas, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err == nil {
			for name, schema := range schemas.DataSourceSchemas {
				s.types[name] = schema.ValueType()
			}
		}
	})
	name := req.TypeName
	typ, ok := s.types[req.TypeName]
	if !ok || req.Config == nil {
		return name
	}
	v, err := req.Config.Unmarshal(typ)
	var attrs map[string]tftypes.Value
	if err != nil || v.As(&attrs) != nil {
		return name
	}
	var partition big.Float
	if p, ok := attrs["partition"]; ok && p.As(&partition) == nil {
		return name + " partition " + partition.String()
	}
	return name
}

// midPlan is a chaosFactories hook: once armed, it runs action at the k-th read, in that read's
// goroutine, and holds every later read until action returned. So the plan's first k-1 reads
// answered (its provider process has met the cluster), and its other reads all meet the cluster
// as action left it.
type midPlan struct {
	k      int64
	action func()
	gate   chan struct{}
	armed  atomic.Bool
	count  atomic.Int64
}

func newMidPlan(k int64, action func()) *midPlan {
	return &midPlan{k: k, action: action, gate: make(chan struct{})}
}

// arm starts counting reads (from the next one).
func (m *midPlan) arm() { m.armed.Store(true) }

func (m *midPlan) hook(int) {
	if !m.armed.Load() {
		return
	}
	switch n := m.count.Add(1); {
	case n == m.k:
		m.action()
		close(m.gate)
	case n > m.k:
		<-m.gate
	}
}

func chaosProviderBlock(servers []string, timeout string) string {
	return fmt.Sprintf("provider \"kafka\" {\n  bootstrap_servers = [\"%s\"]\n  timeout           = %q\n}\n",
		strings.Join(servers, `", "`), timeout)
}

// chaosOffsetsConfig reads the seeded topic (acctest.SeedTopic) with one kafka_topic_offsets and
// copies times 6 kafka_partition_offsets, one per partition: 1 + 6*copies reads per plan, with
// the default timeout of 30 s.
func chaosOffsetsConfig(servers []string, topic string, copies int) string {
	return chaosProviderBlock(servers, "30s") + fmt.Sprintf(`
data "kafka_topic_offsets" "all" {
  topic = %[1]q
}

data "kafka_partition_offsets" "p" {
  count     = %[2]d
  topic     = %[1]q
  partition = count.index %% 6
}
`, topic, 6*copies)
}

// chaosOffsetsChecks are the exact values of chaosOffsetsConfig's data sources.
func chaosOffsetsChecks(want []acctest.Span, copies int) []statecheck.StateCheck {
	var (
		checks  []statecheck.StateCheck
		entries []knownvalue.Check
		total   int64
	)
	for p, w := range want {
		entries = append(entries, knownvalue.ObjectExact(withoutTieredOffsets(map[string]knownvalue.Check{
			"partition":        knownvalue.Int64Exact(int64(p)),
			"earliest_offset":  knownvalue.Int64Exact(w.Earliest),
			"latest_offset":    knownvalue.Int64Exact(w.Latest),
			"timestamp_offset": knownvalue.Null(),
		})))
		total += w.Latest - w.Earliest
	}
	checks = append(checks,
		statecheck.ExpectKnownValue("data.kafka_topic_offsets.all", tfjsonpath.New("partitions"), knownvalue.ListExact(entries)),
		statecheck.ExpectKnownValue("data.kafka_topic_offsets.all", tfjsonpath.New("message_count"), knownvalue.Int64Exact(total)),
	)
	for i := range 6 * copies {
		w, addr := want[i%6], fmt.Sprintf("data.kafka_partition_offsets.p[%d]", i)
		checks = append(checks,
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("earliest_offset"), knownvalue.Int64Exact(w.Earliest)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("latest_offset"), knownvalue.Int64Exact(w.Latest)),
		)
	}
	return checks
}

// whileChaos is step repeated (plans in a loop) until done is closed, then once more after it.
func whileChaos(t *testing.T, done <-chan struct{}, step resource.TestStep) []resource.TestStep {
	const most = 40 // bounds the loop if the chaos script hangs; its own commands are bounded
	ended := func() (bool, error) {
		select {
		case <-done:
			return true, nil
		default:
			return false, nil
		}
	}
	var steps []resource.TestStep
	for range most {
		s := step
		s.SkipFunc = ended
		steps = append(steps, s)
	}
	after := step
	after.PreConfig = func() {
		select {
		case <-done:
		case <-time.After(5 * time.Minute):
			t.Fatal("the chaos script did not end within 5 minutes")
		}
	}
	return append(steps, after)
}

// reportReads logs the test's reads when it ends, failed or not.
func reportReads(t *testing.T, c *acctest.Cluster) *acctest.ReadLog {
	reads := acctest.NewReadLog(c)
	t.Cleanup(func() { reads.Report(t) })
	return reads
}

// A rolling restart, as for an upgrade, while plans of 25 data sources run in a loop: each broker
// in turn shut down gracefully and started again, the next once every replica is in sync.
func TestChaosCluster_rollingRestartPlans(t *testing.T) {
	c := acctest.ChaosCluster(t, 3, 9)
	topic, want := c.SeedTopic()
	reads := reportReads(t, c)
	done := make(chan struct{})
	c.Go(func() error {
		defer close(done)
		time.Sleep(3 * time.Second)
		return c.RollingRestart()
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: chaosFactories(reads, nil),
		Steps: whileChaos(t, done, resource.TestStep{
			Config:            chaosOffsetsConfig(c.Bootstrap(), topic, 4),
			ConfigStateChecks: chaosOffsetsChecks(want, 4),
		}),
	})
	c.Wait()
	c.CheckOffsets(topic, want)
}

// The leader of two partitions is killed (SIGKILL) and started again 2 s later, while plans of 25
// data sources run in a loop until the cluster is whole. Until the controller fences it
// (broker.session.timeout.ms, 9 s) or it registers again, metadata names it as their leader and
// connections to it are refused. midPlan: the kill comes at the 3rd read of a plan, after the
// plan's first reads answered, and the plan's later reads start after it; otherwise just before a
// plan starts (a new provider process that has not met the cluster yet).
func TestChaosCluster_brokerKilledMidPlan(t *testing.T) {
	testBrokerKilled(t, true)
}

func TestChaosCluster_brokerKilledBeforePlan(t *testing.T) {
	testBrokerKilled(t, false)
}

func testBrokerKilled(t *testing.T, midPlan bool) {
	c := acctest.ChaosCluster(t, 3, 9)
	topic, want := c.SeedTopic()
	victim := c.Leaders(topic)[0]
	t.Logf("broker %d leads partitions %v", victim, c.LedBy(topic, victim))
	reads := reportReads(t, c)
	done := make(chan struct{})
	kill := func() {
		if err := c.Kill(victim); err != nil {
			t.Error(err)
		}
		c.Go(func() error {
			defer close(done)
			time.Sleep(2 * time.Second)
			if err := c.Start(victim); err != nil {
				return err
			}
			return c.AwaitHealthy()
		})
	}
	var hook func(int)
	step := resource.TestStep{
		Config:            chaosOffsetsConfig(c.Bootstrap(), topic, 4),
		ConfigStateChecks: chaosOffsetsChecks(want, 4),
	}
	steps := []resource.TestStep{step} // a plan before: everything in place
	first := step
	if midPlan {
		mid := newMidPlan(3, kill)
		hook, first.PreConfig = mid.hook, mid.arm // the 3rd read of this step's first plan
	} else {
		first.PreConfig = kill
	}
	steps = append(steps, first)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: chaosFactories(reads, hook),
		Steps:                    append(steps, whileChaos(t, done, step)...),
	})
	c.Wait()
	c.CheckOffsets(topic, want)
}

// A broker paused (SIGSTOP) for 6.5 s: longer than the read's timeout of 5 s, shorter than its
// session (9 s from its last heartbeat, so it stays the leader). It is paused just before the read
// of a partition it leads, which ends with "Kafka read timed out" within the timeout (+1 s: a hang
// check). After it resumes, the next plan is exact.
func TestChaosCluster_brokerPausedPastTimeout(t *testing.T) {
	c := acctest.ChaosCluster(t, 3, 9)
	topic, want := c.SeedTopic()
	victim := c.Leaders(topic)[0]
	reads := reportReads(t, c)
	config := chaosProviderBlock(c.Bootstrap(), "5s") + fmt.Sprintf(`
data "kafka_partition_offsets" "p0" {
  topic     = %q
  partition = 0
}
`, topic)
	exact := []statecheck.StateCheck{
		statecheck.ExpectKnownValue("data.kafka_partition_offsets.p0", tfjsonpath.New("earliest_offset"), knownvalue.Int64Exact(want[0].Earliest)),
		statecheck.ExpectKnownValue("data.kafka_partition_offsets.p0", tfjsonpath.New("latest_offset"), knownvalue.Int64Exact(want[0].Latest)),
	}
	resumed := make(chan struct{})
	var pausedAt time.Duration
	pause := newMidPlan(1, func() {
		t.Logf("pausing broker %d, leader of partition 0, for 6.5s", victim)
		if err := c.Pause(victim); err != nil {
			t.Error(err)
		}
		pausedAt = c.Since()
		c.Go(func() error {
			defer close(resumed)
			time.Sleep(6500 * time.Millisecond)
			return c.Resume(victim)
		})
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: chaosFactories(reads, pause.hook),
		Steps: []resource.TestStep{
			{Config: config, ConfigStateChecks: exact},
			{PreConfig: pause.arm, Config: config, ExpectError: errorLike("Kafka read timed out")},
			{PreConfig: func() { <-resumed }, Config: config, ConfigStateChecks: exact},
		},
	})
	for _, r := range reads.Reads() {
		if r.At >= pausedAt && r.Err != nil && r.Took > 6*time.Second {
			t.Errorf("read with a timeout of 5s took %s: %s", r.Took, r)
		}
		// A broker of the cluster that went silent is named as such, not as a wrong address.
		if r.Err != nil && (!strings.Contains(r.String(), "paused, overloaded or partitioned broker") ||
			strings.Contains(r.String(), "is this a Kafka listener")) {
			t.Errorf("the paused broker's error does not say it stopped answering: %s", r)
		}
	}
	c.Wait()
	c.CheckOffsets(topic, want)
}

// The first bootstrap server accepts TCP connections and never answers; the three good brokers
// follow it. Every plan is answered in well under a share of the 30 s timeout (bounded at 5 s: a
// hang check; a healthy cluster answers in about a second).
func TestChaosCluster_silentFirstBootstrapServer(t *testing.T) {
	c := acctest.ChaosCluster(t, 3, 9)
	topic, want := c.SeedTopic()
	reads := reportReads(t, c)
	servers := append([]string{acctest.SilentListener(t)}, c.Bootstrap()...)
	step := resource.TestStep{
		Config:            chaosOffsetsConfig(servers, topic, 1),
		ConfigStateChecks: chaosOffsetsChecks(want, 1),
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: chaosFactories(reads, nil),
		Steps:                    []resource.TestStep{step, step},
	})
	for _, r := range reads.Reads() {
		if r.Took > 5*time.Second {
			t.Errorf("read took %s with a silent first bootstrap server: %s", r.Took, r)
		}
	}
}

// A consumer group's coordinator is restarted gracefully in the middle of a plan of 4 reads of
// the group; plans go on in a loop until the cluster is whole. Every committed offset is exact.
func TestChaosCluster_coordinatorRestartMidPlan(t *testing.T) {
	c := acctest.ChaosCluster(t, 3, 9)
	topic, want := c.SeedTopic()
	group := "tfacc-group-" + topic
	commits := map[int32]int64{}
	var entries []knownvalue.Check
	var total int64
	for p, w := range want {
		commits[int32(p)] = int64(p) // commit p on partition p: lag latest - p
		entries = append(entries, groupEntry{topic: topic, partition: int64(p), committed: int64(p), latest: w.Latest}.check())
		total += w.Latest - int64(p)
	}
	c.CommitOffsets(group, map[string]map[int32]int64{topic: commits})
	c.WaitHealthy() // __consumer_offsets may be new: every replica in sync first
	c.BalanceLeaders()
	coordinator := c.Coordinator(group)
	t.Logf("broker %d coordinates group %s: restarting it at the 2nd read of the first plan", coordinator, group)
	checkCommits(t, c, group, topic, commits)

	const copies = 4
	config := chaosProviderBlock(c.Bootstrap(), "30s") + fmt.Sprintf(`
data "kafka_consumer_group_offsets" "g" {
  count    = %d
  group_id = %q
}
`, copies, group)
	var checks []statecheck.StateCheck
	for i := range copies {
		addr := fmt.Sprintf("data.kafka_consumer_group_offsets.g[%d]", i)
		checks = append(checks,
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions"), knownvalue.ListExact(entries)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), knownvalue.Int64Exact(total)),
		)
	}
	reads := reportReads(t, c)
	done := make(chan struct{})
	mid := newMidPlan(2, func() {
		c.Go(func() error { // in the background: the plan's reads go on while it shuts down
			defer close(done)
			if err := c.Restart(coordinator); err != nil {
				return err
			}
			return c.AwaitHealthy()
		})
	})
	mid.arm()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: chaosFactories(reads, mid.hook),
		Steps:                    whileChaos(t, done, resource.TestStep{Config: config, ConfigStateChecks: checks}),
	})
	c.Wait()
	checkCommits(t, c, group, topic, commits)
	t.Logf("group %s: coordinator now broker %d", group, c.Coordinator(group))
}

func checkCommits(t *testing.T, c *acctest.Cluster, group, topic string, commits map[int32]int64) {
	t.Helper()
	got := c.GroupCommitted(group)[topic]
	for p, at := range commits {
		if got[p] != at || len(got) != len(commits) {
			t.Fatalf("oracle (kadm) says group %s committed %v on %s; the test expects %v", group, got, topic, commits)
		}
	}
}

// The single broker is shut down gracefully in the middle of a plan of 25 data sources (after the
// plan's first 2 reads answered; the other 23 start once it is down) and is started again at once:
// down about 5 s, as long as the JVM takes. Every read of that plan, and of the plans that follow,
// is exact.
func TestChaosSingleNode_gracefulRestartMidPlan(t *testing.T) {
	c := acctest.ChaosCluster(t, 1, 1)
	topic, want := c.SeedTopic()
	id := c.IDs()[0]
	reads := reportReads(t, c)
	done := make(chan struct{})
	mid := newMidPlan(3, func() { // the plan's 3rd read and all later ones meet the broker gone
		if err := c.Stop(id); err != nil {
			t.Error(err)
		}
		stoppedAt := c.Since()
		c.Go(func() error {
			defer close(done)
			if err := c.Start(id); err != nil { // down as long as the JVM takes to start: about 5 s
				return err
			}
			t.Logf("broker %d was down for %s", id, c.Since()-stoppedAt)
			return c.AwaitHealthy()
		})
	})
	mid.arm()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: chaosFactories(reads, mid.hook),
		Steps: whileChaos(t, done, resource.TestStep{
			Config:            chaosOffsetsConfig(c.Bootstrap(), topic, 4),
			ConfigStateChecks: chaosOffsetsChecks(want, 4),
		}),
	})
	c.Wait()
	c.CheckOffsets(topic, want)
}
