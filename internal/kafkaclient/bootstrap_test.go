package kafkaclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// One bad bootstrap server beside a good one: kafka-go shuffles the list and would use the bad
// one on about half of the connects. Every read must succeed, whichever comes first.
func TestBadBootstrapServerIsSkipped(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 2)
	for _, tc := range []struct{ name, bad string }{
		{name: "silent", bad: acctest.SilentListener(t)},
		{name: "closes", bad: acctest.RespondingListener(t, nil)},
		{name: "HTTP", bad: acctest.RespondingListener(t, acctest.HTTPResponse)},
		{name: "refused", bad: acctest.ClosedPort(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 6; i++ {
				cl, err := New(Config{BootstrapServers: []string{tc.bad, c.ListenAddrs()[0]}, Timeout: 4 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				got, err := cl.PartitionOffsets(context.Background(), "t", 0)
				cl.Close()
				if err != nil || got.Latest != 2 {
					t.Fatalf("read %d: got %+v, %v; want 0/2 from the good server", i, got, err)
				}
			}
		})
	}
}

func TestAllBootstrapServersBad(t *testing.T) {
	silent, refused := acctest.SilentListener(t), acctest.ClosedPort(t)
	cl, err := New(Config{BootstrapServers: []string{silent, refused}, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	start := time.Now()
	_, err = cl.PartitionOffsets(context.Background(), "t", 0)
	var un *UnreachableError
	if !errors.As(err, &un) || !strings.Contains(err.Error(), silent+": accepted the TCP connection but never answered") ||
		!strings.Contains(err.Error(), refused+": connection refused") {
		t.Fatalf("got %v; want UnreachableError naming both servers and what each did", err)
	}
	if elapsed := time.Since(start); elapsed > 4*time.Second {
		t.Fatalf("took %s, want within the 2s timeout + 2s", elapsed)
	}
}
