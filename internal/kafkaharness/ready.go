package kafkaharness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// errExited says the JVM exited before it was ready: exitedLooks looks in a
// row, 200 ms apart, found no JVM.
var errExited = errors.New("exited during startup")

const exitedLooks = 3

// waitNode asks node n itself, through franz-go, until it says it serves, or
// it exits, or ctx ends: a broker's metadata lists every broker of want
// (KRaft lists only registered, unfenced brokers) and a controller; the
// controller answers DescribeCluster on its listener naming itself the active
// controller (KIP-919, Kafka 3.7+). Each ask is bounded, so that a node that
// accepts connections but does not answer yet cannot stall the loop.
func (c *Cluster) waitNode(ctx context.Context, n *Node, want []int32) error {
	var last error
	gone := 0 // consecutive looks that found no JVM
	for {
		last = askNode(ctx, n, want, c.Version)
		if last == nil {
			return nil
		}
		// One look is not enough: a JVM found alive later was once seen gone
		// 280 ms after its launch (CI, 2026-12-03, a chaos restart).
		if why := n.notRunning(); why == "" {
			gone = 0
		} else if gone++; gone == exitedLooks {
			return fmt.Errorf("node %d: %w (%s)", n.ID, errExited, why)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("node %d not ready: %w (last answer: %w)", n.ID, ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// askNode asks n, a node of Kafka version, once, on a new connection bounded
// as a whole (kgo bounds a connection's ApiVersions handshake by its own
// overhead, not by ctx).
func askNode(ctx context.Context, n *Node, want []int32, version string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	switch {
	case n.Role == RoleZooKeeper:
		return zooKeeperServes(ctx, n.Addr())
	case n.Role == RoleController && !atLeast(version, 3, 7):
		// A controller answers clients from Kafka 3.7 on (KIP-919); before, its
		// listener open is all it says, and the brokers' metadata, which needs
		// an active controller, says the rest.
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", n.Addr())
		if err == nil {
			conn.Close()
		}
		return err
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(n.Addr()), kgo.DialTimeout(time.Second), kgo.RequestRetries(0),
		kgo.RequestTimeoutOverhead(time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	seed := cl.SeedBrokers()[0] // this node, not whichever broker kgo would pick
	if n.IsBroker() {
		return brokerServes(ctx, seed, want)
	}
	return controllerServes(ctx, seed, n.ID)
}

// brokerServes asks b for metadata (no topics): nil once it lists every id of
// want and a controller.
func brokerServes(ctx context.Context, b *kgo.Broker, want []int32) error {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	r, err := b.Request(ctx, req)
	if err != nil {
		return err
	}
	resp, ok := r.(*kmsg.MetadataResponse)
	if !ok {
		return fmt.Errorf("metadata answered with %T", r)
	}
	var listed []int32
	for _, br := range resp.Brokers {
		listed = append(listed, br.NodeID)
	}
	for _, id := range want {
		if !slices.Contains(listed, id) {
			return fmt.Errorf("metadata lists brokers %v, not %d; controller %d", listed, id, resp.ControllerID)
		}
	}
	if resp.ControllerID < 0 {
		return errors.New("metadata names no controller")
	}
	return nil
}

// controllerServes asks b, a controller's listener, which controller is active.
func controllerServes(ctx context.Context, b *kgo.Broker, id int32) error {
	req := kmsg.NewPtrDescribeClusterRequest()
	req.EndpointType = 2 // controllers
	r, err := b.Request(ctx, req)
	if err != nil {
		return err
	}
	resp, ok := r.(*kmsg.DescribeClusterResponse)
	if !ok {
		return fmt.Errorf("DescribeCluster answered with %T", r)
	}
	if resp.ControllerID != id {
		return fmt.Errorf("controller %d names %d the active controller (error code %d)", id, resp.ControllerID, resp.ErrorCode)
	}
	return nil
}
