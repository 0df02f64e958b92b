package kafkaclient

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
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
	// Timeout bounds each read as a whole, unless the read's context carries its own (WithReadTimeout).
	Timeout time.Duration
	// TLS, when set, wraps every connection (the listener must be SSL or SASL_SSL).
	TLS *tls.Config
	// SASL, when set, authenticates every connection (SASL_PLAINTEXT or SASL_SSL listeners).
	SASL *SASL
	// Dial replaces the TCP dialer; tests use it. Nil means net.Dialer.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// Client is one provider's connection to one cluster, safe for concurrent reads: the front the
// provider calls. Each read goes to its room, and the rooms share the cluster view below them
// (see the package comment).
type Client struct {
	cluster *clusterView // connections, metadata, bootstrap, retries, request errors
	offsets *offsetReads // ListOffsets, coalesced per leader
	lags    *timeLags    // the next record after an offset, by Fetch
	groups  *groupReads  // groups' commits, members and lag
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
	cluster := newClusterView(cfg)
	offsets := newOffsetReads(cluster)
	lags := newTimeLags(cluster, offsets)
	return &Client{cluster: cluster, offsets: offsets, lags: lags, groups: &groupReads{cluster: cluster, offsets: offsets, lags: lags}}, nil
}

// Timeout is the bound of a read whose context carries none of its own (WithReadTimeout).
func (c *Client) Timeout() time.Duration { return c.cluster.cfg.Timeout }

// Close ends every connection and waits for the goroutines of the Client. Reads still under
// way, and later ones, fail at once with errClosed.
func (c *Client) Close() { c.cluster.close() }

// errClosed: the read began, or was still under way, after Close. It is the brokers layer's
// error (broker.ErrClosed), so errors.Is finds it whichever layer saw the Close first.
var errClosed = broker.ErrClosed
