package kafkaclient

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
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

// Client is one provider's connection to one cluster, safe for concurrent reads. Its fields are
// the layers of the package (see the package comment), bottom-up.
type Client struct {
	cfg Config

	dials   *broker.DialLog // how far the latest connection to each address got, and which answered
	brokers *broker.Pool    // the connections
	cluster *clusterView
	rounds  *coalescer
	fetches *fetchBatches

	life    context.Context // ends with Close: bounds the work reads share
	cancel  context.CancelFunc
	closing sync.Mutex     // held while Close ends life and while a goroutine joins wg (goShared)
	wg      sync.WaitGroup // goroutines that reads share (ListOffsets rounds, bootstrap probes)
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
	c := &Client{cfg: cfg, cluster: newClusterView()}
	c.dials = broker.NewDialLog(cfg.Dial, cfg.TLS == nil)
	c.brokers = broker.NewPool(broker.NewDialer(c.dials, cfg.TLS, cfg.SASL.mech(), identityOf(cfg.SASL.mech()), cfg.ClientID), c.dialTimeout())
	c.life, c.cancel = context.WithCancel(context.Background())
	c.rounds = newCoalescer(c.life, c.goShared, c.brokers.Get, func(op string, l leader, err error) error {
		return c.requestError(op, l.address, int(l.id), err)
	})
	c.fetches = newFetchBatches(c.life, c.goShared, c.fetch)
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
// way, and later ones, fail at once with errClosed.
func (c *Client) Close() {
	c.closing.Lock()
	c.cancel()
	c.closing.Unlock()
	c.brokers.Close()
	c.wg.Wait()
}

// errClosed: the read began, or was still under way, after Close. It is the brokers layer's
// error (broker.ErrClosed), so errors.Is finds it whichever layer saw the Close first.
var errClosed = broker.ErrClosed

// goShared runs fn in a goroutine of the Client, which Close waits for. Once Close began it
// runs nothing and returns false: a WaitGroup must not gain a goroutine while Wait runs, and a
// goroutine started then would outlive Close.
func (c *Client) goShared(fn func()) bool {
	c.closing.Lock()
	defer c.closing.Unlock()
	if c.life.Err() != nil {
		return false
	}
	c.wg.Go(fn)
	return true
}
