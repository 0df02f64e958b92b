// Package kafkaclient reads offsets from Apache Kafka through kafka-go's Client and Transport.
//
// It knows nothing about Terraform: plain Go values in, plain Go values and typed errors out
// (see errors.go). It only reads: it sends Metadata requests that never allow topic
// auto-creation, and ListOffsets requests; it never uses kafka-go's Conn/Dial* API, which can
// auto-create topics and loop until its context ends.
package kafkaclient

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
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
	SASL sasl.Mechanism
	// Dial replaces the TCP dialer; tests use it. Nil means net.Dialer.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// Client is one provider's connection to one cluster, safe for concurrent reads.
//
// kafka-go's Transport caches the cluster layout for the topics it was built for and refreshes it
// in a background goroutine. So that a read never asks for every topic in the cluster, Client
// keeps one Transport per set of topics, shared by the reads of that set that overlap in time and
// closed (with its goroutines and connections) when the last of them ends.
type Client struct {
	cfg Config

	contacts *contacts // what this process has seen of the cluster: first contact or not, the seed

	mu         sync.Mutex
	transports map[string]*topicTransport
}

type topicTransport struct {
	key       string // the sorted topic names, NUL-separated
	transport *kafka.Transport
	dials     *dialLog
	refs      int

	mu   sync.Mutex
	seed net.Addr // the bootstrap server of the current attempt (Client.seedAddr)
}

// addr is where requests without a broker of their own (Metadata, FindCoordinator) go.
func (tt *topicTransport) addr() net.Addr {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.seed
}

func (tt *topicTransport) setAddr(a net.Addr) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.seed = a
}

// client is a kafka-go Client on the current seed, for the requests it decodes for us.
func (tt *topicTransport) client() *kafka.Client {
	return &kafka.Client{Addr: tt.addr(), Transport: tt.transport}
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
	return &Client{cfg: cfg, contacts: newContacts(), transports: map[string]*topicTransport{}}, nil
}

// Timeout is the bound of one read.
func (c *Client) Timeout() time.Duration { return c.cfg.Timeout }

// acquire returns the transport whose metadata covers exactly topics (none: brokers only),
// creating it when no read of that set is under way. The caller must call release once done.
func (c *Client) acquire(topics ...string) *topicTransport {
	topics = slices.Clone(topics)
	slices.Sort(topics)
	topics = slices.Compact(topics)
	key := strings.Join(topics, "\x00") // NUL never occurs in a topic name
	// Ask only for these topics (a non-nil empty list asks for none): no full-cluster metadata.
	return c.acquireKey(key, append([]string{}, topics...))
}

// allTopicsKey names the transport whose metadata covers every topic; "*" never occurs in a
// topic name.
const allTopicsKey = "*"

// acquireAllTopics returns the transport whose Metadata requests carry a null topic list: every
// topic the principal may DESCRIBE, in one request, and never an auto-creation.
func (c *Client) acquireAllTopics() *topicTransport { return c.acquireKey(allTopicsKey, nil) }

// acquireKey returns the transport for key, whose metadata asks for metadataTopics (nil: all).
func (c *Client) acquireKey(key string, metadataTopics []string) *topicTransport {
	c.mu.Lock()
	defer c.mu.Unlock()
	if tt, ok := c.transports[key]; ok {
		tt.refs++
		return tt
	}
	dials := newDialLog(c.cfg.Dial, c.cfg.TLS == nil, c.contacts)
	transport := &kafka.Transport{
		// TCP through dials, then the TLS handshake (Transport.TLS stays nil) and a watch on the
		// SASL exchange, so that their failures name the broker and the cause (tls_dial.go).
		Dial:        newSecureDialer(dials, c.cfg).dial,
		DialTimeout: c.dialTimeout(), // covers TCP, TLS, ApiVersions and SASL; our context bounds it too
		ClientID:    c.cfg.ClientID,
		SASL:        c.cfg.SASL,
		// Metadata requests from the transport never allow auto-creation.
		MetadataTopics: metadataTopics,
	}
	tt := &topicTransport{key: key, transport: transport, dials: dials, refs: 1}
	c.transports[key] = tt
	return tt
}

// maxDialTimeout bounds one connect (TCP, TLS, ApiVersions, SASL) below the read's timeout, as
// Kafka's Java client does (socket.connection.setup.timeout.ms, 10 s): a broker that stopped
// answering must not hold the read until its end while its leaderships move elsewhere.
const maxDialTimeout = 10 * time.Second

// dialTimeout bounds one connect.
func (c *Client) dialTimeout() time.Duration {
	return min(c.cfg.Timeout, maxDialTimeout)
}

// release ends one read through tt; the last one stops the transport's goroutines.
func (c *Client) release(tt *topicTransport) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tt.refs--
	if tt.refs > 0 {
		return
	}
	if c.transports[tt.key] == tt {
		delete(c.transports, tt.key)
	}
	tt.transport.CloseIdleConnections()
}

// Close stops every transport still open. Reads still under way fail.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for topic, tt := range c.transports {
		tt.transport.CloseIdleConnections()
		delete(c.transports, topic)
	}
}
