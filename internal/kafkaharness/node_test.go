package kafkaharness

import (
	"context"
	"testing"
	"time"
)

// A crashed node (SIGKILL) started again serves the topics it had: the harness
// keeps its data, config and port across a kill, as chaos tests need.
func TestKillThenStartAgainKeepsTopics(t *testing.T) {
	t.Parallel()
	s := startSingle(t)
	adm := admin(t, s.Bootstrap())
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, "survives-kill"); err != nil {
		t.Fatal(err)
	}

	if err := s.Do(ctx, VerbKill, 1); err != nil {
		t.Fatal(err)
	}
	if s.Node(1).Running() {
		t.Fatal("node running after kill")
	}
	if err := s.Do(ctx, VerbStart, 1); err != nil {
		t.Fatal(err)
	}
	if got := partitionCount(ctx, t, adm, "survives-kill"); got != 2 {
		t.Errorf("survives-kill has %d partitions after the restart, want 2", got)
	}
}

// A paused node (SIGSTOP) is alive but answers nothing; resumed, it answers
// again. The 3 s bound is how long the test waits for an answer that must not
// come, not a speed being measured.
func TestPauseSilencesNodeUntilResume(t *testing.T) {
	t.Parallel()
	s := startSingle(t)
	if err := s.Do(t.Context(), VerbPause, 1); err != nil {
		t.Fatal(err)
	}
	paused, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	if _, err := admin(t, s.Bootstrap()).BrokerMetadata(paused); err == nil {
		t.Fatal("a paused node answered a metadata request")
	}
	if !s.Node(1).Running() {
		t.Fatal("paused node counted as exited")
	}

	if err := s.Do(t.Context(), VerbResume, 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel2 := context.WithTimeout(t.Context(), time.Minute)
	defer cancel2()
	m, err := admin(t, s.Bootstrap()).BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Brokers) != 1 {
		t.Errorf("resumed node lists %d brokers, want 1", len(m.Brokers))
	}
}
