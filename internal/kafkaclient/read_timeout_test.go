package kafkaclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// A read whose context carries its own timeout (WithReadTimeout) is bounded by it, not by the
// Client's: against a broker that never answers its ListOffsets, a read of 1 s fails with a
// *TimeoutError that names 1 s as the read's own, long before the Client's minute.
func TestReadTimeoutBoundsTheRead(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 3)
	cl := newClient(t, c, time.Minute)
	acctest.NeverAnswer(t, c, kmsg.ListOffsets)

	start := time.Now()
	_, err := cl.PartitionOffsets(WithReadTimeout(context.Background(), time.Second), "t", 0)
	took := time.Since(start)
	t.Log(err)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Timeout != time.Second || !te.PerRead {
		t.Fatalf("got %T %+v; want a *TimeoutError of the read's own 1s", err, err)
	}
	if !strings.Contains(err.Error(), "within the timeout of 1s") || !strings.Contains(err.Error(), "ListOffsets") {
		t.Fatalf("error does not name the request and the 1s timeout: %v", err)
	}
	if took > 20*time.Second { // a hang check: the Client's own timeout is a minute
		t.Fatalf("took %s with a read timeout of 1s", took)
	}
}

// Without a timeout of its own, or with none (0), a read takes the Client's.
func TestReadTimeoutFallsBackToTheClients(t *testing.T) {
	cv := &clusterView{cfg: Config{Timeout: 30 * time.Second}}
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		want    time.Duration
		perRead bool
	}{
		{name: "none", ctx: context.Background(), want: 30 * time.Second},
		{name: "zero", ctx: WithReadTimeout(context.Background(), 0), want: 30 * time.Second},
		{name: "its own", ctx: WithReadTimeout(context.Background(), 5*time.Minute), want: 5 * time.Minute, perRead: true},
	} {
		if d, perRead := cv.readTimeout(tc.ctx); d != tc.want || perRead != tc.perRead {
			t.Errorf("%s: got %s (own: %v), want %s (own: %v)", tc.name, d, perRead, tc.want, tc.perRead)
		}
	}
}
