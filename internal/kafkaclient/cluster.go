package kafkaclient

import (
	"context"
	"sync"
	"time"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
)

// clusterView is what every read stands on: the connections (one per broker), the cluster's
// layout (brokers, topics, leaders: metadata.go), the snapshot of what the cluster holds that
// reads share (holdings.go), the bootstrap server metadata is asked from
// (bootstrap.go), the one retry policy (retry.go) and the errors of a request left without an
// answer (request_errors.go). It also holds the Client's life: the goroutines that reads share
// end with Close.
type clusterView struct {
	cfg      Config
	dials    *broker.DialLog // how far the latest connection to each address got, and which answered
	brokers  *broker.Pool    // the connections
	layout   *layout
	holdings *holdings

	life    context.Context // ends with Close: bounds the work reads share
	cancel  context.CancelFunc
	closing sync.Mutex     // held while close ends life and while a goroutine joins wg (goShared)
	wg      sync.WaitGroup // goroutines that reads share (ListOffsets rounds, Fetch batches, bootstrap probes)
}

func newClusterView(cfg Config) *clusterView {
	cv := &clusterView{cfg: cfg, layout: newLayout()}
	cv.holdings = newHoldings(cv)
	cv.dials = broker.NewDialLog(cfg.Dial, cfg.TLS == nil)
	cv.brokers = broker.NewPool(broker.NewDialer(cv.dials, cfg.TLS, cfg.SASL.mech(), identityOf(cfg.SASL.mech()), cfg.ClientID), cv.dialTimeout())
	cv.life, cv.cancel = context.WithCancel(context.Background())
	return cv
}

// maxDialTimeout bounds one connect (TCP, TLS, ApiVersions, SASL) below the read's timeout, as
// Kafka's Java client does (socket.connection.setup.timeout.ms, 10 s): a broker that stopped
// answering must not hold the read until its end while its leaderships move elsewhere.
const maxDialTimeout = 10 * time.Second

// dialTimeout bounds one connect.
func (cv *clusterView) dialTimeout() time.Duration {
	return min(cv.cfg.Timeout, maxDialTimeout)
}

// close ends every connection and waits for the shared goroutines.
func (cv *clusterView) close() {
	cv.closing.Lock()
	cv.cancel()
	cv.closing.Unlock()
	cv.brokers.Close()
	cv.wg.Wait()
}

// goShared runs fn in a goroutine of the Client, which close waits for. Once close began it
// runs nothing and returns false: a WaitGroup must not gain a goroutine while Wait runs, and a
// goroutine started then would outlive close.
func (cv *clusterView) goShared(fn func()) bool {
	cv.closing.Lock()
	defer cv.closing.Unlock()
	if cv.life.Err() != nil {
		return false
	}
	cv.wg.Go(fn)
	return true
}
