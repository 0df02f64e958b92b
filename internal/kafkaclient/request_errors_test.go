package kafkaclient

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// The partition's leader is advertised at an address this client cannot reach (a wrong
// advertised.listeners): retried until the timeout, then reported with the hint.
func TestUnreachableLeaderNamesAdvertisedListeners(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(4, "t"))
	addrs := c.ListenAddrs()
	// Bootstrap through broker 0 only; refuse connections to broker 1, which leads some partitions.
	var mu sync.Mutex
	blocked := addrs[1]
	cl, err := New(Config{
		BootstrapServers: addrs[:1], Timeout: 2 * time.Second,
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			mu.Lock()
			defer mu.Unlock()
			if address == blocked {
				return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
			}
			return (&net.Dialer{}).DialContext(ctx, network, address)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var partition = -1
	for p := int32(0); p < 4; p++ {
		if c.LeaderFor("t", p) == 1 {
			partition = int(p)
		}
	}
	if partition < 0 { // kfake places partitions at random: give broker 1 one to lead
		if err := c.MoveTopicPartition("t", 0, 1); err != nil {
			t.Fatal(err)
		}
		partition = 0
	}
	_, err = cl.PartitionOffsets(context.Background(), "t", partition)
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "advertised.listeners") {
		t.Fatalf("got %v; want a TimeoutError pointing at advertised.listeners", err)
	}
}
