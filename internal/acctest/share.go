package acctest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Share groups (KIP-932) for the tests, driven and read by Kafka's own tools from the broker's
// jars (KAFKA_LIBS): kafka-console-share-consumer and kafka-share-groups.sh, so that neither the
// arrangement nor the expected values come from the provider's code.

// RequireShareGroups skips the test unless every broker serves share groups: DescribeShareGroupOffsets
// (API key 90, Kafka 4.0+) in its ApiVersions answer.
func (k *Kafka) RequireShareGroups() {
	k.t.Helper()
	if reason := k.shareGroupsMissing(); reason != "" {
		k.t.Skip(reason)
	}
}

// SupportsShareGroups reports whether every broker serves share groups, as RequireShareGroups
// decides (and logs why not), for tests that do something else where they do not.
func (k *Kafka) SupportsShareGroups() bool {
	k.t.Helper()
	reason := k.shareGroupsMissing()
	if reason != "" {
		k.t.Log(reason)
	}
	return reason == ""
}

func (k *Kafka) shareGroupsMissing() string {
	k.t.Helper()
	if v, ok := k.lacking(kmsg.DescribeShareGroupOffsets); ok {
		return fmt.Sprintf("KIP-932: broker %d (%s) does not serve share groups: DescribeShareGroupOffsets (API key 90) is "+
			"absent from its ApiVersions answer (share groups need Kafka 4.0+, on by default from 4.4)", v.NodeID, v.VersionGuess())
	}
	return ""
}

// javaCmd is one of Kafka's tools (class) from the broker's jars, on the test broker.
func (k *Kafka) javaCmd(ctx context.Context, class string, args ...string) *exec.Cmd {
	k.t.Helper()
	return k.javaWith(ctx, "", class, args...)
}

// javaWith is javaCmd with more class path (classPath, "" for none) after the broker's jars.
func (k *Kafka) javaWith(ctx context.Context, classPath, class string, args ...string) *exec.Cmd {
	k.t.Helper()
	cp := filepath.Join(kafkaLibs(k.t), "*")
	if classPath != "" {
		cp += string(os.PathListSeparator) + classPath
	}
	return exec.CommandContext(ctx, "java", append([]string{"-Xmx128m", "-XX:TieredStopAtLevel=1",
		"-cp", cp, class, "--bootstrap-server", strings.Join(BootstrapServers(k.t), ",")}, args...)...)
}

// kafkaLibs is the broker's jars (KAFKA_LIBS); the test is skipped without them.
func kafkaLibs(t testing.TB) string {
	t.Helper()
	libs := os.Getenv("KAFKA_LIBS")
	if libs == "" {
		t.Skip("KAFKA_LIBS is not set: run under tools/kafka.sh run (make testacc), which exports the broker's jars")
	}
	return libs
}

// javaTool runs one of Kafka's tools to its end (2 minutes at most) and returns its output.
func (k *Kafka) javaTool(class string, args ...string) string {
	k.t.Helper()
	out, err := k.runJavaTool(class, args...)
	if err != nil {
		k.t.Fatal(err)
	}
	return out
}

// runJavaTool is javaTool that returns the tool's failure, for a caller that waits for a state.
func (k *Kafka) runJavaTool(class string, args ...string) (string, error) {
	k.t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := k.javaCmd(c, class, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s%s", class, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// ShareConsume makes group a share group that starts at the earliest offset
// (share.auto.offset.reset=earliest, set with kafka-configs before its first member joins) and
// has Kafka's console share consumer acknowledge n records of topic, then leave.
func (k *Kafka) ShareConsume(group, topic string, n int) {
	k.t.Helper()
	k.javaTool(ToolClass(k.t, "ConfigCommand"), "--entity-type", "groups", "--entity-name", group,
		"--alter", "--add-config", "share.auto.offset.reset=earliest")
	k.javaTool("org.apache.kafka.tools.consumer.ConsoleShareConsumer", "--topic", topic, "--group", group,
		"--max-messages", strconv.Itoa(n))
}

// ShareMember starts Kafka's console share consumer as a live member of group on topic, stopped
// with the test, and waits until the group is Stable with a member.
func (k *Kafka) ShareMember(group, topic string) {
	k.t.Helper()
	cmd := k.javaCmd(context.Background(), "org.apache.kafka.tools.consumer.ConsoleShareConsumer",
		"--topic", topic, "--group", group)
	if err := cmd.Start(); err != nil {
		k.t.Fatalf("start kafka-console-share-consumer: %v", err)
	}
	k.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(90 * time.Second)
	for {
		res, err := k.Admin.DescribeShareGroups(ctx(k.t), group)
		if err == nil && res[group].Err == nil && res[group].GroupState == "Stable" && len(res[group].Members) > 0 {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("share group %s has no live member after 90s (%v)", group, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// ShareSubscribe makes group a share group that subscribed to topic, delivered nothing there and
// has no member now: share.auto.offset.reset=earliest (set with kafka-configs before its first
// member joins); Kafka's console share consumer joins while topic holds no record, stays until
// the group has share-partition state on every partition of topic (kadm's
// DescribeShareGroupOffsets lists them: the coordinator initialized them, with no start offset),
// and leaves (SIGTERM: the tool's shutdown hook closes the consumer, which leaves the group); then
// the group is Empty. Records produced after it returns wait for the group's next member, which
// reads them from the earliest.
func (k *Kafka) ShareSubscribe(group, topic string) {
	k.t.Helper()
	partitions := k.PartitionCount(topic)
	for p := range int32(partitions) {
		if earliest, latest := k.Offsets(topic, p); earliest != latest {
			k.t.Fatalf("ShareSubscribe: %s/%d holds offsets %d to %d; the member would deliver them", topic, p, earliest, latest-1)
		}
	}
	k.javaTool(ToolClass(k.t, "ConfigCommand"), "--entity-type", "groups", "--entity-name", group,
		"--alter", "--add-config", "share.auto.offset.reset=earliest")
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := k.javaCmd(c, "org.apache.kafka.tools.consumer.ConsoleShareConsumer", "--topic", topic, "--group", group)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		k.t.Fatalf("start kafka-console-share-consumer: %v", err)
	}
	k.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // a no-op once it has left
	k.waitShareOffsets(group, topic, partitions)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		k.t.Fatalf("stop kafka-console-share-consumer: %v", err)
	}
	if err := cmd.Wait(); c.Err() != nil {
		k.t.Fatalf("kafka-console-share-consumer did not stop: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "Processed a total of") && !strings.Contains(out.String(), "Processed a total of 0 messages") {
		k.t.Fatalf("kafka-console-share-consumer delivered records of %s:\n%s", topic, out.String())
	}
	k.waitShareGroup(group, "Empty, without members", func(g kadm.DescribedShareGroup) bool {
		return g.GroupState == "Empty" && len(g.Members) == 0
	})
}

// waitShareOffsets polls kadm's DescribeShareGroupOffsets until group has share-partition state on
// every partition of topic (the coordinator initializes it once a member subscribes, before the
// member's next heartbeat brings it the assignment), for 90 seconds at most.
func (k *Kafka) waitShareOffsets(group, topic string, partitions int) {
	k.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		res, err := k.Admin.DescribeShareGroupOffsets(ctx(k.t), group)
		if err == nil {
			err = res.Error()
		}
		if err == nil && len(res[group].Offsets[topic]) == partitions {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("share group %s has no share-partition state on every partition of %s after 90s: %+v (%v)",
				group, topic, res[group], err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitShareGroup polls kadm's description of share group until ok says yes, for 90 seconds at most.
func (k *Kafka) waitShareGroup(group, what string, ok func(kadm.DescribedShareGroup) bool) {
	k.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		res, err := k.Admin.DescribeShareGroups(ctx(k.t), group)
		if err == nil {
			err = res[group].Err
		}
		if err == nil && ok(res[group]) {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("share group %s is not %s after 90s: %+v (%v)", group, what, res[group], err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// SharePartition is one line of kafka-share-groups.sh --describe; -1 where it prints "-".
type SharePartition struct {
	StartOffset, Lag int64
}

// ShareGroupOffsets is the oracle for a share group's progress: kafka-share-groups.sh --describe
// (ShareGroupCommand), by "topic/partition".
func (k *Kafka) ShareGroupOffsets(group string) map[string]SharePartition {
	k.t.Helper()
	out := k.javaTool("org.apache.kafka.tools.consumer.group.ShareGroupCommand", "--describe", "--group", group)
	got := map[string]SharePartition{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 5 || f[0] != group {
			continue // the header, blank lines
		}
		got[f[1]+"/"+f[2]] = SharePartition{StartOffset: dashed(f[3]), Lag: dashed(f[4])}
	}
	if len(got) == 0 {
		k.t.Fatalf("kafka-share-groups.sh --describe --group %s printed no partition:\n%s", group, out)
	}
	return got
}

func dashed(s string) int64 {
	if s == "-" {
		return -1
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(fmt.Sprintf("a Kafka tool (kafka-share-groups.sh, kafka-streams-groups.sh) printed %q where a number belongs", s))
	}
	return n
}
