package acctest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// Helpers for the tests of tiered storage (KIP-405), on the broker tools/kafka.sh starts with
// KAFKA_TIERED=1 (make testtiered).

// RequireTieredStorage skips the test unless the broker has tiered storage enabled
// (remote.log.storage.system.enable, asked through kadm).
func (k *Kafka) RequireTieredStorage() {
	k.t.Helper()
	brokers, err := k.Admin.ListBrokers(ctx(k.t))
	var res kadm.ResourceConfigs
	if err == nil {
		res, err = k.Admin.DescribeBrokerConfigs(ctx(k.t), brokers.NodeIDs()...)
	}
	if err == nil {
		for _, r := range res {
			for _, c := range r.Configs {
				if c.Key == "remote.log.storage.system.enable" && c.MaybeValue() == "true" {
					return
				}
			}
		}
	}
	k.t.Skipf("the broker has no tiered storage (remote.log.storage.system.enable; %v): run make testtiered, "+
		"or tools/kafka.sh with KAFKA_TIERED=1", err)
}

// WaitForTiering waits until the broker has copied every segment before localStart to remote
// storage and deleted it locally: ListOffsets (franz-go) answers localStart for -4 (earliest
// local) and localStart-1 for -5 (latest tiered).
func (k *Kafka) WaitForTiering(topic string, partition int32, localStart int64, limit time.Duration) {
	k.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		local, _ := k.ListOffset(topic, partition, -4, 0)
		tiered, _ := k.ListOffset(topic, partition, -5, 0)
		if local == localStart && tiered == localStart-1 {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("tiered storage: %s/%d has earliest local %d and latest tiered %d after %s, not %d and %d",
				topic, partition, local, tiered, limit, localStart, localStart-1)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ToolOffset is what kafka-get-offsets.sh printed for one partition.
type ToolOffset struct {
	Offset      *int64 // nil: it printed no line for the partition (the broker answered -1)
	Unsupported bool   // it reported UnsupportedVersionException: the broker is too old for the time
}

// GetOffsetShell asks Kafka's own kafka-get-offsets.sh (GetOffsetShell, from the jars tools/kafka.sh
// exports as KAFKA_LIBS) for topic/partition at --time at (-1 to -6, or milliseconds).
func GetOffsetShell(t testing.TB, topic string, partition int32, at int64) ToolOffset {
	t.Helper()
	libs, class := kafkaLibs(t), ToolClass(t, "GetOffsetShell")
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(c, "java", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", filepath.Join(libs, "*"),
		class, "--bootstrap-server", strings.Join(BootstrapServers(t), ","),
		"--topic", topic, "--partitions", strconv.Itoa(int(partition)), "--time", strconv.FormatInt(at, 10)).CombinedOutput()
	if err != nil {
		t.Fatalf("kafka-get-offsets --time %d: %v\n%s", at, err, out)
	}
	switch {
	case bytes.Contains(out, []byte("UnsupportedVersionException")):
		return ToolOffset{Unsupported: true}
	case bytes.Contains(out, []byte("due to error")): // "Skip getting offsets for topic-partition ... due to error: ..."
		t.Fatalf("kafka-get-offsets --time %d:\n%s", at, out)
	}
	prefix := fmt.Sprintf("%s:%d:", topic, partition)
	for s := bufio.NewScanner(bytes.NewReader(out)); s.Scan(); {
		if v, ok := strings.CutPrefix(s.Text(), prefix); ok {
			o, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("kafka-get-offsets --time %d printed %q", at, s.Text())
			}
			return ToolOffset{Offset: &o}
		}
	}
	return ToolOffset{} // it prints no line for a partition whose answer is -1
}
