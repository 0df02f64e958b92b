package kafkaharness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// A cluster of three brokers (KAFKA_BROKERS=3) lists brokers 1, 2 and 3;
// topics get three replicas and min.insync.replicas is 2, as in production.
func TestClusterOfThreeBrokersReplicatesThrice(t *testing.T) {
	t.Parallel()
	c := startCluster(t, Options{Brokers: 3})
	adm := adminWith(t, kgo.SeedBrokers(strings.Split(c.Bootstrap(), ",")...))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	m, err := adm.BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Brokers.NodeIDs(); !slices.Equal(got, []int32{1, 2, 3}) {
		t.Errorf("brokers %v, want [1 2 3]", got)
	}
	if _, err := adm.CreateTopic(ctx, 1, -1, nil, "thrice"); err != nil {
		t.Fatal(err)
	}
	if got := len(listedTopic(ctx, t, adm, "thrice").Partitions[0].Replicas); got != 3 {
		t.Errorf("thrice/0 has %d replicas, want 3 (default.replication.factor)", got)
	}
	rc, err := adm.DescribeBrokerConfigs(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range rc[0].Configs {
		if cfg.Key == "min.insync.replicas" && cfg.MaybeValue() != "2" {
			t.Errorf("min.insync.replicas = %q, want 2", cfg.MaybeValue())
		}
	}
}

// Another process acts on a recorded cluster through Attach: a broker it
// kills and starts again runs in a session of its own (it outlives the
// attaching process), with its new pid recorded, so that the owner's Stop
// still stops it; the controller restarts too.
func TestAttachedVerbsAreTheOwners(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startCluster(t, Options{Brokers: 2, StateDir: dir})
	a, err := Attach(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	old := a.Node(2).Pid
	if err := a.Do(ctx, VerbKill, 2); err != nil {
		t.Fatal(err)
	}
	if err := a.Do(ctx, VerbStop, 2); err == nil {
		t.Error("stopping a killed node succeeded, want an error")
	}
	if err := a.Do(ctx, VerbStart, 2); err != nil {
		t.Fatal(err)
	}
	restarted := *a.Node(2)
	if restarted.Pid == old {
		t.Fatalf("broker 2 still has pid %d after kill and start", old)
	}
	if sid := sessionID(t, restarted.Pid); sid != restarted.Pid {
		t.Errorf("restarted broker 2 (pid %d) is in session %d, want a session of its own", restarted.Pid, sid)
	}
	if err := a.Do(ctx, VerbRestart, ControllerID); err != nil {
		t.Fatal(err)
	}

	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if restarted.Running() {
		t.Errorf("broker 2 (pid %d, started by the attached cluster) still runs after the owner's Stop", restarted.Pid)
	}
	if _, err := Attach(dir); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Attach after Stop: %v, want ErrNotRunning", err)
	}
}

// sessionID is field 6 of /proc/PID/stat.
func sessionID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	var ppid, pgrp, sid int
	var state string
	if _, err := fmt.Sscanf(s[strings.LastIndex(s, ") ")+2:], "%s %d %d %d", &state, &ppid, &pgrp, &sid); err != nil {
		t.Fatal(err)
	}
	return sid
}
