package kafkaharness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// errExited says the JVM exited before it was ready.
var errExited = errors.New("exited during startup")

// waitReady asks the cluster at bootstrap, through kadm, until its metadata
// lists want brokers (KRaft lists only registered, unfenced brokers) and a
// controller, or the node exits, or ctx ends. Each ask is bounded so a node
// that accepts connections but does not answer yet cannot stall the loop.
func waitReady(ctx context.Context, n *Node, bootstrap []string, want int) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...), kgo.DialTimeout(time.Second),
		kgo.RequestRetries(0))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	var last error
	for {
		ask, cancel := context.WithTimeout(ctx, 2*time.Second)
		m, err := adm.BrokerMetadata(ask)
		cancel()
		switch {
		case err != nil:
			last = err
		case len(m.Brokers) == want && m.Controller >= 0:
			return nil
		default:
			last = fmt.Errorf("metadata lists %d of %d brokers, controller %d", len(m.Brokers), want, m.Controller)
		}
		select {
		case <-n.exited:
			return errExited
		case <-ctx.Done():
			return fmt.Errorf("not ready: %w (last answer: %w)", ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
