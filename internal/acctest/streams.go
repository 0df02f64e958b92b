package acctest

import (
	"bufio"
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaharness"
)

// Streams groups (KIP-1071) for the tests: a real Kafka Streams application
// (tools/kafka/StreamsReader.java, built by kafkaharness.StreamsApp) as the group's member, and
// Kafka's own kafka-streams-groups.sh (StreamsGroupCommand, from the broker's jars) as the oracle
// for what the group owns and has committed.

// RequireStreamsGroups skips the test unless every broker serves streams groups, as Kafka 4.4 does
// by default: StreamsGroupHeartbeat (API key 88) in its ApiVersions answer, the feature
// streams.version finalized at 1 or above there, and "streams" in group.coordinator.rebalance.protocols.
func (k *Kafka) RequireStreamsGroups() {
	k.t.Helper()
	for _, v := range k.apiVersions() {
		if _, ok := v.KeyMaxVersion(kmsg.StreamsGroupHeartbeat.Int16()); !ok {
			k.t.Skipf("KIP-1071: broker %d (%s) does not serve streams groups: StreamsGroupHeartbeat (API key 88) is "+
				"absent from its ApiVersions answer (Kafka 4.4 serves them by default)", v.NodeID, v.VersionGuess())
		}
		enabled := slices.ContainsFunc(v.Raw().FinalizedFeatures, func(f kmsg.ApiVersionsResponseFinalizedFeature) bool {
			return f.Name == "streams.version" && f.MaxVersionLevel >= 1
		})
		if !enabled {
			k.t.Skipf("KIP-1071: broker %d (%s) does not run streams groups: the feature streams.version is not "+
				"finalized at 1 or above in its ApiVersions answer", v.NodeID, v.VersionGuess())
		}
		if protocols := k.brokerConfig(v.NodeID, rebalanceProtocols); protocols != nil &&
			!slices.Contains(strings.Split(*protocols, ","), "streams") {
			k.t.Skipf("KIP-1071: broker %d (%s) does not serve streams groups: %s is %q, without \"streams\"",
				v.NodeID, v.VersionGuess(), rebalanceProtocols, *protocols)
		}
	}
}

// StreamsReader starts a Kafka Streams application with application.id group (so the streams group
// group) reading topic, killed when the test ends, and returns a function that waits until the
// group is Stable (kadm), and, with commit, has committed every partition of topic up to its end
// (kadm), and kafka-streams-groups.sh says its one member's active tasks are every partition of
// topic. With commit it commits every 100 ms; without, every hour: never during a test. Apps
// started before their waits start at once (a JVM's start and a group's first assignment take
// seconds each).
func (k *Kafka) StreamsReader(group, topic string, commit bool) (wait func()) {
	k.t.Helper()
	interval := "3600000"
	if commit {
		interval = "100"
	}
	log := filepath.Join(k.t.TempDir(), "streams-app.log")
	out, err := os.Create(log)
	if err != nil {
		k.t.Fatal(err)
	}
	defer func() { _ = out.Close() }()
	cmd := k.javaWith(context.Background(), k.streamsApp(), "tfacc.StreamsReader",
		group, topic, interval, k.t.TempDir())
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		k.t.Fatalf("start the streams app: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	k.t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })

	return func() {
		k.t.Helper()
		k.awaitStreamsReader(group, topic, commit, exited, func() string {
			b, _ := os.ReadFile(log)
			return fmt.Sprintf("%v\n%s", cmd.ProcessState, b)
		})
	}
}

// awaitStreamsReader waits, 2 minutes at most, until StreamsReader's app reads as it returned it
// would; it fails the test at once if the app exited (exit: its status and output).
func (k *Kafka) awaitStreamsReader(group, topic string, commit bool, exited <-chan struct{}, exit func() string) {
	k.t.Helper()
	partitions := k.partitionsOf([]string{topic})[topic]
	deadline := time.Now().Add(2 * time.Minute)
	var last string // what the oracle said last, for the failure message
	for {
		// The tool, a JVM, runs only once the cheap checks through kadm pass.
		state := k.streamsGroupState(group)
		last = "state " + state
		if state == "Stable" && (!commit || k.committedToEnd(group, topic, partitions)) {
			g, err := k.streamsGroupNow(group)
			if err == nil && g.activeOn(partitions) {
				return
			}
			last = fmt.Sprintf("%+v (%v)", g, err)
		}
		select {
		case <-exited:
			k.t.Fatalf("the streams app of group %s exited: %s", group, exit())
		default:
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("streams group %s is not Stable with %s's partitions %v as active tasks (committed to their "+
				"ends: %t) after 2 minutes: %s", group, topic, partitions, commit, last)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// streamsGroupState is group's state as ListGroups (kadm) lists streams groups; "" if it is not listed.
func (k *Kafka) streamsGroupState(group string) string {
	k.t.Helper()
	listed, err := k.Admin.ListGroupsByType(ctx(k.t), []string{"streams"})
	if err != nil {
		k.t.Fatalf("list streams groups: %v", err)
	}
	return listed[group].State
}

// committedToEnd reports whether group has committed every partition of topic at its end offset
// (kadm: OffsetFetch, ListOffsets).
func (k *Kafka) committedToEnd(group, topic string, partitions []int32) bool {
	k.t.Helper()
	committed := k.GroupCommitted(group)[topic]
	for _, p := range partitions {
		at, ok := committed[p]
		if _, end := k.Offsets(topic, p); !ok || at != end {
			return false
		}
	}
	return true
}

// streamsApp builds the streams app (kafkaharness.StreamsApp, 5 minutes at most: it may fetch
// kafka-streams with Maven) for the broker's Kafka version, the one of KAFKA_LIBS
// (<cache>/kafka-<version>/libs), and returns its class path.
func (k *Kafka) streamsApp() string {
	k.t.Helper()
	libs := kafkaLibs(k.t)
	wd, err := os.Getwd()
	if err != nil {
		k.t.Fatal(err)
	}
	pom, err := kafkaharness.FindPom(wd)
	if err != nil {
		k.t.Fatal(err)
	}
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cp, err := kafkaharness.StreamsApp(c, kafkaharness.Options{
		Version: strings.TrimPrefix(filepath.Base(filepath.Dir(libs)), "kafka-"),
		Cache:   filepath.Dir(filepath.Dir(libs)),
		Pom:     pom,
	})
	if err != nil {
		k.t.Fatal(err)
	}
	return cp
}

// StreamsGroup is the oracle's view of a streams group: its state as ListGroups lists it (kadm),
// tasks and offsets as kafka-streams-groups.sh --describe prints them.
type StreamsGroup struct {
	State   string                   // Stable, Empty, NotReady, Assigning, Reconciling, Dead
	Active  []string                 // --members: each member's active tasks, "0:[0,1,2]" (subtopology:[partitions])
	Offsets map[string]StreamsOffset // --verbose (offsets): by "topic/partition"
}

// StreamsOffset is one partition of kafka-streams-groups.sh --describe --verbose; -1 where it prints "-".
type StreamsOffset struct {
	Current, LogEnd, Lag int64
}

// DescribeStreamsGroup is the oracle for a streams group: kadm's ListGroups, then
// kafka-streams-groups.sh --describe, its --members and (offsets) --verbose views.
func (k *Kafka) DescribeStreamsGroup(group string) StreamsGroup {
	k.t.Helper()
	g, err := k.streamsGroupNow(group)
	if err != nil {
		k.t.Fatal(err)
	}
	return g
}

const streamsGroupCommand = "org.apache.kafka.tools.streams.StreamsGroupCommand"

func (k *Kafka) streamsGroupNow(group string) (StreamsGroup, error) {
	k.t.Helper()
	g := StreamsGroup{State: k.streamsGroupState(group)}
	views := map[string][]string{"members": {"--members"}, "offsets": {"--verbose"}}
	out := map[string]string{}
	for view, args := range views {
		o, err := k.runJavaTool(streamsGroupCommand, append([]string{"--describe", "--group", group}, args...)...)
		if err != nil {
			return g, err
		}
		out[view] = o
	}
	g.Offsets = map[string]StreamsOffset{}
	for _, line := range strings.Split(out["members"], "\n") {
		if m := activeTasks.FindStringSubmatch(line); m != nil && strings.HasPrefix(line, group+" ") {
			g.Active = append(g.Active, m[1])
		}
	}
	for f := range rows(out["offsets"], group) {
		if len(f) != 7 { // GROUP TOPIC PARTITION CURRENT-OFFSET LEADER-EPOCH LOG-END-OFFSET OFFSET-LAG
			return g, fmt.Errorf("kafka-streams-groups.sh --describe --verbose: a row %q", f)
		}
		g.Offsets[f[1]+"/"+f[2]] = StreamsOffset{Current: dashed(f[3]), LogEnd: dashed(f[5]), Lag: dashed(f[6])}
	}
	return g, nil
}

// activeTasks is a member's active tasks in kafka-streams-groups.sh --describe --members
// ("ACTIVE: 0:[0,1,2]; "; not TARGET-ACTIVE, which --verbose adds).
var activeTasks = regexp.MustCompile(` ACTIVE: ([^;]*);`)

// rows yields the fields of out's lines that start with group (not the header, nor blank lines).
func rows(out, group string) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) > 0 && f[0] == group && !yield(f) {
				return
			}
		}
	}
}

// activeOn: one member, whose active tasks are partitions of one subtopology (StreamsReader's
// topology has one).
func (g StreamsGroup) activeOn(partitions []int32) bool {
	want := make([]string, len(partitions))
	for i, p := range partitions {
		want[i] = strconv.Itoa(int(p))
	}
	return len(g.Active) == 1 && strings.HasSuffix(g.Active[0], ":["+strings.Join(want, ",")+"]")
}
