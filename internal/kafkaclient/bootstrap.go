package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/apiversions"
)

// raceDelay is how long a bootstrap server may take to answer before the next one is tried as
// well (RFC 8305's connection attempt delay, for servers rather than IP addresses): a silent or
// slow server costs this, not a share of the read's timeout.
const raceDelay = 500 * time.Millisecond

// seedAddr returns the bootstrap server that metadata is asked from, choosing one first when
// none is chosen: with one bootstrap server, that one; with several, the first to answer
// ApiVersions in a race (raceBootstrap). The choice lasts for the life of the Client, until a
// metadata request to it fails (dropSeed).
func (c *Client) seedAddr(ctx context.Context, dials *dialLog) (net.Addr, error) {
	if len(c.cfg.BootstrapServers) == 1 {
		return kafka.TCP(c.cfg.BootstrapServers[0]), nil
	}
	if s := c.contacts.currentSeed(); s != "" {
		return kafka.TCP(s), nil
	}
	s, err := c.raceBootstrap(ctx, dials)
	if err != nil {
		return nil, err
	}
	c.contacts.setSeed(s)
	return kafka.TCP(s), nil
}

// raceBootstrap connects to the bootstrap servers in a random order (spreading the load, as
// kafka-go and Kafka's Java client do), starting the next one raceDelay after the previous or as
// soon as it fails, and returns the first that answers ApiVersions. When every one fails, the
// error joins their errors (each address's failure is also in dials).
func (c *Client) raceBootstrap(ctx context.Context, dials *dialLog) (string, error) {
	servers := slices.Clone(c.cfg.BootstrapServers)
	rand.Shuffle(len(servers), func(i, j int) { servers[i], servers[j] = servers[j], servers[i] })
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the probes still under way

	type result struct {
		address string
		err     error
	}
	results := make(chan result, len(servers))
	next, pending := 0, 0
	startNext := func() {
		address := servers[next]
		next++
		pending++
		go func() { results <- result{address, c.probe(ctx, dials, address)} }()
	}
	timer := time.NewTimer(raceDelay)
	defer timer.Stop()
	startNext()
	var errs []error
	for pending > 0 {
		select {
		case r := <-results:
			pending--
			if r.err == nil {
				return r.address, nil
			}
			errs = append(errs, r.err)
			if next < len(servers) {
				startNext()
				timer.Reset(raceDelay)
			}
		case <-timer.C:
			if next < len(servers) {
				startNext()
				timer.Reset(raceDelay)
			}
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return "", errors.Join(errs...)
}

// probe connects to address as the Transport would (TCP, TLS, the checks of kafkaConn) and asks
// ApiVersions. The connection is closed afterwards: kafka-go dials the winner itself.
func (c *Client) probe(ctx context.Context, dials *dialLog, address string) error {
	conn, err := newSecureDialer(dials, c.cfg).dial(ctx, "tcp", address)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() }) // a lost race ends at once
	defer stop()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	pc := protocol.NewConn(conn, c.cfg.ClientID)
	pc.SetVersions(map[protocol.ApiKey]int16{protocol.ApiVersions: 0})
	m, err := pc.RoundTrip(&apiversions.Request{})
	if err != nil {
		return fmt.Errorf("%s: ApiVersions: %w", address, err)
	}
	if res, ok := m.(*apiversions.Response); ok && res.ErrorCode != 0 {
		return fmt.Errorf("%s: ApiVersions: %w", address, kafka.Error(res.ErrorCode))
	}
	return nil
}
