package main

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// The seed works against a broker that closes the connection at ApiVersions above v3 (franz-go
// asks v5 by default): it asks v0, and topic "users" ends as the demo plans it.
func TestSeedAgainstBrokerWithoutLatestApiVersions(t *testing.T) {
	c := acctest.Fake(t)
	var dropped atomic.Int32
	acctest.CloseAt(c, kmsg.ApiVersions, func(req kmsg.Request) bool {
		if req.GetVersion() > 3 {
			dropped.Add(1)
			return true
		}
		return false
	})
	t.Setenv("KAFKA_BOOTSTRAP_SERVERS", strings.Join(c.ListenAddrs(), ","))
	if err := run(); err != nil {
		t.Fatal(err)
	}
	cl, err := seedClient(c.ListenAddrs()) // franz-go's default client would be dropped too
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	starts, err := adm.ListStartOffsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	ends, err := adm.ListEndOffsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range [][2]int64{{0, 5}, {0, 0}, {3, 8}} {
		s, _ := starts.Lookup(topic, int32(p))
		e, _ := ends.Lookup(topic, int32(p))
		if s.Offset != want[0] || e.Offset != want[1] {
			t.Errorf("partition %d: %d/%d, want %d/%d", p, s.Offset, e.Offset, want[0], want[1])
		}
	}
	if n := dropped.Load(); n != 0 {
		t.Errorf("the seed asked ApiVersions above v3 %d times", n)
	}
}
