// Package kafkaclient reads offsets from Apache Kafka with kafka-go's protocol types over its own
// connections: one per broker for the life of the Client, requests pipelined and coalesced.
//
// It knows nothing about Terraform: plain Go values in, plain Go values and typed errors out
// (see errors.go). It only reads: it sends Metadata requests that never allow topic
// auto-creation, ListOffsets requests and the group reads of groups.go; it never uses kafka-go's
// Conn/Dial* API, which can auto-create topics and loop until its context ends.
package kafkaclient

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"time"
)

// DefaultTimeout bounds one read (dial, metadata, retries and all) when Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Config says how to reach the cluster.
type Config struct {
	// BootstrapServers are "host:port" addresses; the first that answers gives the cluster layout.
	BootstrapServers []string
	// ClientID is sent with every request (Kafka's client.id).
	ClientID string
	// Timeout bounds each read as a whole.
	Timeout time.Duration
	// TLS, when set, wraps every connection (the listener must be SSL or SASL_SSL).
	TLS *tls.Config
	// SASL, when set, authenticates every connection (SASL_PLAINTEXT or SASL_SSL listeners).
	SASL *SASL
	// Dial replaces the TCP dialer; tests use it. Nil means net.Dialer.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// Client is one provider's connection to one cluster, safe for concurrent reads. It is built in
// layers, each knowing only the ones below it:
//
//   - wire: kafka-go's protocol types, and ours where kafka-go stops (listoffsets.go,
//     listgroups.go), with the checks of what a peer sends (frames.go);
//   - brokers: one long-lived, pipelined connection per broker (brokers.go, broker_conn.go,
//     broker_dial.go: TCP, TLS, ApiVersions, SASL; dial.go, tls_dial.go, sasl_conn.go: what a
//     failure means);
//   - cluster view: metadata cached per topic, refreshed when an answer says it is stale
//     (metadata.go), the bootstrap race (bootstrap.go), and the one retry policy (retry.go,
//     contacts.go);
//   - reads: offsets, coalesced into one ListOffsets request per leader and lookup
//     (offsets.go, coalesce.go), and consumer groups (groups.go).
type Client struct {
	cfg Config

	dials   *dialLog // how far the latest connection to each address got, and which answered
	brokers *brokers // the connections
	cluster *clusterView
	rounds  *roundQueues

	life   context.Context // ends with Close: bounds the work reads share
	cancel context.CancelFunc
	wg     sync.WaitGroup // goroutines that reads share (ListOffsets rounds, bootstrap probes)
}

// New checks cfg and returns a Client. It does not connect: the first read does.
func New(cfg Config) (*Client, error) {
	if len(cfg.BootstrapServers) == 0 {
		return nil, errors.New("no bootstrap servers configured")
	}
	for _, s := range cfg.BootstrapServers {
		if err := CheckBootstrapServer(s); err != nil {
			return nil, err
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Dial == nil {
		cfg.Dial = (&net.Dialer{}).DialContext
	}
	c := &Client{cfg: cfg, cluster: newClusterView(), rounds: newRoundQueues()}
	c.dials = newDialLog(cfg.Dial, cfg.TLS == nil)
	c.brokers = newBrokers(newSecureDialer(c.dials, cfg.TLS, cfg.SASL.mech(), cfg.ClientID), c.dialTimeout())
	c.life, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// Timeout is the bound of one read.
func (c *Client) Timeout() time.Duration { return c.cfg.Timeout }

// maxDialTimeout bounds one connect (TCP, TLS, ApiVersions, SASL) below the read's timeout, as
// Kafka's Java client does (socket.connection.setup.timeout.ms, 10 s): a broker that stopped
// answering must not hold the read until its end while its leaderships move elsewhere.
const maxDialTimeout = 10 * time.Second

// dialTimeout bounds one connect.
func (c *Client) dialTimeout() time.Duration {
	return min(c.cfg.Timeout, maxDialTimeout)
}

// Close ends every connection and waits for the goroutines of the Client. Reads still under
// way fail.
func (c *Client) Close() {
	c.cancel()
	c.brokers.close()
	c.wg.Wait()
}
