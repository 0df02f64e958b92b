package kafkaclient

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// Peers that are not Kafka must give an error: no panic in kafka-go's decoder, no allocation
// sized from their bytes, no wait for the timeout.
func TestHostilePeers(t *testing.T) {
	// A well-formed ApiVersions v0 response of 14 bytes that claims 2^31-1 entries.
	bomb := make([]byte, 14)
	binary.BigEndian.PutUint32(bomb[0:], 10)          // size
	binary.BigEndian.PutUint32(bomb[4:], 1)           // correlation id
	binary.BigEndian.PutUint16(bomb[8:], 0)           // error code
	binary.BigEndian.PutUint32(bomb[10:], 0x7fffffff) // array count
	random := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(random)

	for _, tc := range []struct {
		name    string
		payload []byte
		want    string
	}{
		{"negative size", []byte{0xff, 0xff, 0xff, 0xff}, "not a Kafka response (first bytes ff ff ff ff)"},
		{"huge size", []byte{0x7f, 0xff, 0xff, 0xff}, "not a Kafka response (first bytes 7f ff ff ff)"},
		{"array bomb", bomb, "claims 2147483647 API versions in 0 bytes: not a Kafka broker"},
		{"random bytes", random, "not a Kafka response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := acctest.RespondingListener(t, tc.payload)
			cl, err := New(Config{BootstrapServers: []string{addr}, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			elapsed, allocated, err := measuredRead(cl)
			var un *UnreachableError
			if !errors.As(err, &un) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v; want UnreachableError containing %q", err, tc.want)
			}
			if elapsed > 2*time.Second {
				t.Errorf("took %s: a peer that is not Kafka should fail at once, not at the 5s timeout", elapsed)
			}
			if allocated > 64<<20 {
				t.Errorf("allocated %d MiB for one failed read", allocated>>20)
			}
		})
	}
}

// A broker that serves Metadata only below v4 could create the topic it is asked about: refused.
func TestBrokerTooOldForReadOnlyMetadata(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"), kfake.MaxVersions(kversion.V0_10_2()))
	cl := newClient(t, c, 3*time.Second)
	_, err := cl.PartitionOffsets(context.Background(), "t", 0)
	var ue *UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "Metadata v4 or later") {
		t.Fatalf("got %v; want UnsupportedError asking for Metadata v4", err)
	}
}

// measuredRead reads one partition and says how long it took and how much it allocated: a peer
// that is not Kafka must cost neither the timeout nor a buffer sized from its bytes.
func measuredRead(cl *Client) (elapsed time.Duration, allocated uint64, err error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err = cl.PartitionOffsets(context.Background(), "t", 0)
	elapsed = time.Since(start)
	runtime.ReadMemStats(&after)
	return elapsed, after.TotalAlloc - before.TotalAlloc, err
}
