package acctest

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// Helpers for franz-go's in-process kfake cluster, which the tests use for faults a real broker
// cannot be made to produce on demand.

// Fake starts a one-broker kfake cluster (opts may change that) and stops it with the test.
func Fake(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// AdvertisedHost makes the broker with node id node of a kfake cluster advertise host, with the
// port it listens on, in its Metadata and FindCoordinator answers while it listens on loopback:
// a broker behind Docker or a VPN whose advertised.listeners name a host that only its own
// network resolves. c.ListenAddrs() names that address too. kfake makes one listener per broker,
// in node order.
func AdvertisedHost(node int, host string) kfake.Opt {
	var made atomic.Int32
	return kfake.ListenFn(func(network, address string) (net.Listener, error) {
		ln, err := net.Listen(network, address)
		if err != nil || int(made.Add(1))-1 != node {
			return ln, err
		}
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		return advertised{Listener: ln, addr: advertisedAddr(net.JoinHostPort(host, port))}, nil
	})
}

// advertised is a listener that gives addr as its address.
type advertised struct {
	net.Listener
	addr advertisedAddr
}

func (l advertised) Addr() net.Addr { return l.addr }

// advertisedAddr is a host:port as a broker advertises it, which need not resolve.
type advertisedAddr string

func (advertisedAddr) Network() string  { return "tcp" }
func (a advertisedAddr) String() string { return string(a) }

// FakeClient is a franz-go client on c, closed with the test.
func FakeClient(t testing.TB, c *kfake.Cluster) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// FakeCommit commits offset at for group on topic/partition, as an admin.
func FakeCommit(t testing.TB, c *kfake.Cluster, group, topic string, partition int32, at int64) {
	t.Helper()
	var o kadm.Offsets
	o.Add(kadm.Offset{Topic: topic, Partition: partition, At: at, LeaderEpoch: -1})
	res, err := kadm.NewClient(FakeClient(t, c)).CommitOffsets(context.Background(), group, o)
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// FakeProduceBatch writes one record per timestamp to one partition of c as a single batch
// compressed with codec (a key of Codecs), as Kafka.ProduceBatch does on the real broker.
func FakeProduceBatch(t testing.TB, c *kfake.Cluster, topic string, partition int32, codec string, ts ...time.Time) int64 {
	t.Helper()
	return produceBatch(t, c.ListenAddrs(), topic, partition, codec, ts)
}

// CountRequestsByBroker counts the requests of one API key that each broker of c receives,
// without handling any. The returned func gives a copy of the counts so far, by node id.
func CountRequestsByBroker(c *kfake.Cluster, key int16) func() map[int32]int {
	var mu sync.Mutex
	counts := map[int32]int{}
	c.ControlKey(key, func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		counts[c.CurrentNode()]++
		mu.Unlock()
		return nil, nil, false
	})
	return func() map[int32]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(counts)
	}
}

// AnswerListOffsets answers the next n ListOffsets requests (n < 0: all) with answer's error code
// and offset for each partition asked, and returns how many requests it saw.
func AnswerListOffsets(c *kfake.Cluster, n int, answer func(rp kmsg.ListOffsetsRequestTopicPartition) (code int16, offset int64)) func() int {
	var mu sync.Mutex
	seen := 0
	c.ControlKey(int16(kmsg.ListOffsets), func(r kmsg.Request) (kmsg.Response, error, bool) {
		mu.Lock()
		defer mu.Unlock()
		seen++
		if n == 0 {
			c.DropControl()
			return nil, nil, false
		}
		n--
		c.KeepControl()
		req, _ := r.(*kmsg.ListOffsetsRequest)
		resp := kmsg.NewPtrListOffsetsResponse()
		resp.Version = req.Version
		for _, rt := range req.Topics {
			st := kmsg.NewListOffsetsResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewListOffsetsResponseTopicPartition()
				sp.Partition, sp.Timestamp = rp.Partition, -1
				sp.ErrorCode, sp.Offset = answer(rp)
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return seen
	}
}

// NeverAnswer holds the first request of key to c unanswered until the test ends (its cleanup,
// which runs before those of the cluster and clients made earlier), and every request after it:
// kfake's loop waits on its control function, so use it where the read cannot go on without that
// answer. Not SleepControl, which would let kfake answer the others meanwhile: released while
// requests queue behind it, it can leave kfake's loop waiting on a lock for good.
func NeverAnswer(t testing.TB, c *kfake.Cluster, key kmsg.Key) {
	release := make(chan struct{})
	c.ControlKey(int16(key), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		<-release
		return nil, nil, false
	})
	t.Cleanup(func() { close(release) })
}

// ErrorCode is an AnswerListOffsets answer: code for every partition.
func ErrorCode(code int16) func(kmsg.ListOffsetsRequestTopicPartition) (int16, int64) {
	return func(kmsg.ListOffsetsRequestTopicPartition) (int16, int64) { return code, -1 }
}

// CountRequests counts every request c receives, by API key, without handling any (the request
// goes on to kfake's own handler or to a ControlKey installed later). The returned func gives a
// copy of the counts so far.
func CountRequests(c *kfake.Cluster) func() map[int16]int {
	var mu sync.Mutex
	counts := map[int16]int{}
	c.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		counts[req.Key()]++
		mu.Unlock()
		return nil, nil, false
	})
	return func() map[int16]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(counts)
	}
}

// ListOffsetsEntries counts the ListOffsets requests c receives and their partition entries,
// without handling any: entries per request is how many reads shared a request. The returned
// func gives the counts so far.
func ListOffsetsEntries(c *kfake.Cluster) func() (requests, entries int) {
	var mu sync.Mutex
	var n, e int
	c.ControlKey(int16(kmsg.ListOffsets), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		n++
		if lo, ok := req.(*kmsg.ListOffsetsRequest); ok {
			for _, t := range lo.Topics {
				e += len(t.Partitions)
			}
		}
		return nil, nil, false
	})
	return func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		return n, e
	}
}

// FakeDescribeTransactions answers every DescribeTransactions request of c with kfake's own
// answer for transactional id txnID as of now (asked through franz-go), edited: a coordinator's
// view a test could not otherwise bring kfake to.
func FakeDescribeTransactions(t testing.TB, c *kfake.Cluster, txnID string, edit func(*kmsg.DescribeTransactionsResponseTransactionState)) {
	t.Helper()
	req := kmsg.NewPtrDescribeTransactionsRequest()
	req.TransactionalIDs = []string{txnID}
	res, err := req.RequestWith(context.Background(), FakeClient(t, c))
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.TransactionStates {
		edit(&res.TransactionStates[i])
	}
	c.ControlKey(int16(kmsg.DescribeTransactions), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return res, nil, true
	})
}

// WithoutAPIs makes a kfake cluster list versions (kversion.Stable() where nil) in ApiVersions
// without keys: a broker that does not serve them.
func WithoutAPIs(versions *kversion.Versions, keys ...kmsg.Key) kfake.Opt {
	if versions == nil {
		versions = kversion.Stable()
	}
	for _, k := range keys {
		versions.SetMaxKeyVersion(k.Int16(), -1)
	}
	return kfake.MaxVersions(versions)
}

// CloseAt makes c close the connection at every request of key that refuse says it refuses, as
// a service does that advertises a request and does not serve it (kfake closes the connection
// where a control function returns an error); the others go on to kfake's own handler. The
// returned func counts the requests closed.
func CloseAt(c *kfake.Cluster, key kmsg.Key, refuse func(kmsg.Request) bool) func() int {
	var closed atomic.Int32
	c.ControlKey(key.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !refuse(req) {
			return nil, nil, false
		}
		closed.Add(1)
		return nil, fmt.Errorf("refused %s v%d", key.Name(), req.GetVersion()), true
	})
	return func() int { return int(closed.Load()) }
}

// CloseAtListOffsets makes c close the connection at every ListOffsets request that asks one of
// timestamps (the provider asks one timestamp per request), and counts them.
func CloseAtListOffsets(c *kfake.Cluster, timestamps ...int64) func() int {
	return CloseAt(c, kmsg.ListOffsets, func(req kmsg.Request) bool {
		lo, ok := req.(*kmsg.ListOffsetsRequest)
		return ok && len(lo.Topics) > 0 && len(lo.Topics[0].Partitions) > 0 &&
			slices.Contains(timestamps, lo.Topics[0].Partitions[0].Timestamp)
	})
}

// FakeCompatibleService is a kfake cluster (opts may add to it) that answers as a
// Kafka-compatible service did that implements the protocol itself (Tansu 0.6.0): ListOffsets up
// to v9 advertised, and the connection closed at timestamps -3, -4 and -5; no DescribeLogDirs,
// DescribeProducers, ListTransactions or DescribeTransactions in ApiVersions. The returned func
// counts the ListOffsets requests closed.
func FakeCompatibleService(t testing.TB, opts ...kfake.Opt) (*kfake.Cluster, func() int) {
	t.Helper()
	versions := kversion.Stable()
	versions.SetMaxKeyVersion(kmsg.ListOffsets.Int16(), 9)
	c := Fake(t, append([]kfake.Opt{WithoutAPIs(versions, kmsg.DescribeLogDirs, kmsg.DescribeProducers,
		kmsg.ListTransactions, kmsg.DescribeTransactions)}, opts...)...)
	return c, CloseAtListOffsets(c, -3, -4, -5)
}
