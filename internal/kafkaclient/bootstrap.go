package kafkaclient

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"time"
)

// raceDelay is how long a bootstrap server may take to answer before the next one is tried as
// well (RFC 8305's connection attempt delay, for servers rather than IP addresses): a silent or
// slow server costs this, not a share of the read's timeout.
const raceDelay = 500 * time.Millisecond

// seedAddr returns the bootstrap server that metadata is asked from, choosing one first when
// none is chosen: with one bootstrap server, that one; with several, the first to answer
// ApiVersions in a race (raceBootstrap). The choice lasts for the life of the Client, until a
// metadata request to it fails (dropSeed).
func (cv *clusterView) seedAddr(ctx context.Context) (string, error) {
	if len(cv.cfg.BootstrapServers) == 1 {
		return cv.cfg.BootstrapServers[0], nil
	}
	if s := cv.layout.currentSeed(); s != "" {
		return s, nil
	}
	s, err := cv.raceBootstrap(ctx)
	if err != nil {
		return "", err
	}
	cv.layout.setSeed(s)
	return s, nil
}

// raceBootstrap connects to the bootstrap servers in a random order (spreading the load, as
// kafka-go and Kafka's Java client do), starting the next one raceDelay after the previous or as
// soon as it fails, and returns the first whose connection completes (ApiVersions, and SASL when
// configured). That connection stays in the pool for the metadata requests that follow. When
// every one fails, the error joins their errors (each address's failure is also in dials).
func (cv *clusterView) raceBootstrap(ctx context.Context) (string, error) {
	servers := slices.Clone(cv.cfg.BootstrapServers)
	rand.Shuffle(len(servers), func(i, j int) { servers[i], servers[j] = servers[j], servers[i] })
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the probes still under way

	results := make(chan probeResult, len(servers))
	timer := time.NewTimer(raceDelay)
	defer timer.Stop()
	next, pending := 0, 0
	startNext := func() {
		if next < len(servers) {
			cv.probe(ctx, servers[next], results)
			next, pending = next+1, pending+1
			timer.Reset(raceDelay)
		}
	}
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
			startNext()
		case <-timer.C:
			startNext()
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return "", errors.Join(errs...)
}

// probeResult is how one bootstrap server's connect ended.
type probeResult struct {
	address string
	err     error
}

// probe connects to address in a goroutine of the Client and sends the outcome to results.
func (cv *clusterView) probe(ctx context.Context, address string, results chan<- probeResult) {
	started := cv.goShared(func() {
		_, err := cv.brokers.Get(ctx, address)
		results <- probeResult{address, err}
	})
	if !started {
		results <- probeResult{address, errClosed}
	}
}

// currentSeed is the bootstrap server to ask for metadata, "" when none is chosen.
func (v *layout) currentSeed() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.seed
}

func (v *layout) setSeed(address string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.seed = address
}

// dropSeed forgets the seed if it is still address, so that the next attempt races the
// bootstrap servers again.
func (v *layout) dropSeed(address string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.seed == address {
		v.seed = ""
	}
}
