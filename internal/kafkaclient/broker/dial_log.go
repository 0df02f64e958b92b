package broker

import (
	"context"
	"errors"
	"net"
	"sort"
	"sync"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// DialLog wraps a dialer and remembers, per address, how far the latest connection got. A silent
// broker ends as a bare deadline and a refused one as a bare dial error; this record is what lets
// an error say which address failed and how.
type DialLog struct {
	dial0       func(ctx context.Context, network, address string) (net.Conn, error)
	checkFrames bool

	mu    sync.Mutex
	addrs map[string]*addrRecord // how far the latest connection to each address got
	kafka map[string]bool        // the addresses that answered ApiVersions like Kafka in this process
}

type addrRecord struct {
	dialErr   error  // the last failed dial, nil once a dial succeeded
	connected bool   // a TCP connection was established
	answered  bool   // the peer sent the start of a plausible Kafka response
	notKafka  string // what the peer sent instead of a Kafka response, if it did
	readErr   error  // how a connection that never answered ended (EOF, reset), if it did
	silent    bool   // a read timed out before the peer sent anything
	security  string // a TLS failure that explains the address (dialer.go), if any
}

// NewDialLog wraps dial. With checkFrames (plaintext connections, where the first bytes read are
// Kafka's), a first response that cannot be Kafka's fails the connection at once.
func NewDialLog(dial func(ctx context.Context, network, address string) (net.Conn, error), checkFrames bool) *DialLog {
	return &DialLog{dial0: dial, addrs: map[string]*addrRecord{}, kafka: map[string]bool{}, checkFrames: checkFrames}
}

func (d *DialLog) record(address string, update func(r *addrRecord)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.addrs[address]
	if !ok {
		r = &addrRecord{}
		d.addrs[address] = r
	}
	update(r)
}

func (d *DialLog) dial(ctx context.Context, network, address string) (net.Conn, error) {
	// The record describes the latest connection to the address: the Client keeps one log for
	// its whole life, and an address that answered an hour ago may be refusing now.
	conn, err := d.dial0(ctx, network, address)
	if err != nil {
		d.record(address, func(r *addrRecord) { *r = addrRecord{dialErr: err} })
		return nil, err
	}
	d.record(address, func(r *addrRecord) { *r = addrRecord{connected: true} })
	return &loggedConn{Conn: conn, log: d, address: address, checkFrame: d.checkFrames}, nil
}

// markNotKafka records that address answered with something that is not Kafka, even when its
// first bytes looked plausible.
func (d *DialLog) markNotKafka(address, what string) {
	d.record(address, func(r *addrRecord) { r.answered, r.notKafka = false, what })
}

// loggedConn notes how far the connection got: the first response's size prefix, or an end of
// connection before any answer.
type loggedConn struct {
	net.Conn
	log        *DialLog
	address    string
	checkFrame bool
	answered   bool
	head       []byte // the first bytes read, until the size prefix is complete
}

func (c *loggedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	switch {
	case n > 0 && !c.answered:
		c.head = append(c.head, p[:min(n, 8-len(c.head))]...)
		if c.checkFrame && len(c.head) < 4 {
			break // not enough yet to judge the size prefix
		}
		if what := wire.NotKafka(c.head); c.checkFrame && what != "" {
			c.log.record(c.address, func(r *addrRecord) { r.notKafka = what })
			_ = c.Close()
			return 0, &notKafkaError{Address: c.address, What: what}
		}
		c.answered = true
		c.log.record(c.address, func(r *addrRecord) { r.answered, r.readErr, r.notKafka = true, nil, "" })
	case err != nil && !c.answered && IsTimeout(err):
		c.log.record(c.address, func(r *addrRecord) { r.silent = !r.answered })
	case err != nil && !c.answered && !errors.Is(err, net.ErrClosed):
		c.log.record(c.address, func(r *addrRecord) {
			if !r.answered {
				r.readErr = err
			}
		})
	}
	return n, err
}

// noteKafka records that address answered ApiVersions like a Kafka broker. The first such answer
// ends first contact, which decides how a failed connection reads: before any address has
// answered, a refused connection is most likely a typo in bootstrap_servers, and fails the read
// at once; once the cluster has answered, the same refusal is a broker restarting, crashing or
// handing over its leaderships (rolling upgrades, lost hosts), retried until the read's timeout.
func (d *DialLog) noteKafka(address string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.kafka[address] = true
}

// Reached reports whether any address has answered like Kafka in this process: past first contact.
func (d *DialLog) Reached() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.kafka) > 0
}

// acquaintance says what the process knows of address; id is the broker id the cluster's
// metadata gives it, -1 for a bootstrap server.
func (d *DialLog) acquaintance(address string, id int) acquaintance {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.acquaintanceLocked(address, id)
}

func (d *DialLog) acquaintanceLocked(address string, id int) acquaintance {
	switch {
	case d.kafka[address]:
		return answered
	case id >= 0:
		return named
	}
	return stranger
}

// Problems describes, one phrase per address, every address that failed, sorted by address.
func (d *DialLog) Problems() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for addr, r := range d.addrs {
		if p := r.problem(d.acquaintanceLocked(addr, -1)); p != "" {
			out = append(out, addr+": "+p)
		}
	}
	sort.Strings(out)
	return out
}
