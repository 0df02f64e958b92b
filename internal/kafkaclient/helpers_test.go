package kafkaclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

func newCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	return acctest.Fake(t, opts...)
}

func newClient(t *testing.T, c *kfake.Cluster, timeout time.Duration) *Client {
	t.Helper()
	cl, err := New(Config{BootstrapServers: c.ListenAddrs(), ClientID: "test", Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// produce writes n records to topic/partition through franz-go (not our code).
func produce(t *testing.T, c *kfake.Cluster, topic string, partition int32, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := 0; i < n; i++ {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte("v")}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// produceAt writes one record per timestamp to topic/partition, in order.
func produceAt(t *testing.T, c *kfake.Cluster, topic string, partition int32, ts ...time.Time) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, at := range ts {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte("v"), Timestamp: at}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// withOffsetsTopic seeds a topic named __consumer_offsets: kfake keeps group offsets without one,
// and group reads first check that it exists, as it does on every Kafka cluster that has a group.
func withOffsetsTopic() kfake.Opt { return kfake.SeedTopics(1, offsetsTopic) }

// openTransaction produces n records to one partition in a transaction it leaves open (franz-go),
// so that the partition's last stable offset stays below its high watermark.
func openTransaction(t *testing.T, c *kfake.Cluster, topic string, partition int32, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.TransactionalID("open-"+topic), kgo.TransactionTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte("txn")}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeDeleteRecords moves a kfake partition's log start offset to offset, through kadm.
func fakeDeleteRecords(t *testing.T, c *kfake.Cluster, topic string, partition int32, offset int64) {
	t.Helper()
	var o kadm.Offsets
	o.Add(kadm.Offset{Topic: topic, Partition: partition, At: offset, LeaderEpoch: -1})
	res, err := kadm.NewClient(acctest.FakeClient(t, c)).DeleteRecords(context.Background(), o)
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
}

func ptr(v int64) *int64 { return &v }

// show prints an optional offset the way Terraform would: null or the number.
func show(p *int64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func stamped(seconds ...int) []time.Time {
	out := make([]time.Time, len(seconds))
	for i, s := range seconds {
		out[i] = timeLagT0.Add(time.Duration(s) * time.Second)
	}
	return out
}

func countingClient(t *testing.T, c *kfake.Cluster) (*Client, *atomic.Int32) {
	t.Helper()
	var dials atomic.Int32
	cl, err := New(Config{
		BootstrapServers: c.ListenAddrs(), Timeout: 5 * time.Second,
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			dials.Add(1)
			return (&net.Dialer{}).DialContext(ctx, network, address)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl, &dials
}

func expectRequests(t *testing.T, counts func() map[int16]int, dials *atomic.Int32, want map[kmsg.Key]int) {
	t.Helper()
	got := counts()
	n := int(dials.Load())
	if got[int16(kmsg.ApiVersions)] != n {
		t.Errorf("ApiVersions: got %d, want one per connection (%d)", got[int16(kmsg.ApiVersions)], n)
	}
	delete(got, int16(kmsg.ApiVersions))
	wantRaw := map[int16]int{}
	for k, v := range want {
		wantRaw[int16(k)] = v
	}
	if diff := cmp.Diff(wantRaw, got); diff != "" {
		t.Errorf("requests by API key, ApiVersions aside (-want +got):\n%s", diff)
	}
	t.Logf("%d connections (ApiVersions each); %s", n, describeCounts(wantRaw))
}

func describeCounts(c map[int16]int) string {
	s := ""
	for _, k := range []kmsg.Key{kmsg.Metadata, kmsg.ListOffsets, kmsg.FindCoordinator, kmsg.DescribeGroups, kmsg.ListGroups, kmsg.OffsetFetch} {
		if n := c[int16(k)]; n > 0 {
			s += fmt.Sprintf("%s %d; ", k.Name(), n)
		}
	}
	return s
}

// readConcurrently reads partitions 0..n-1 of topic, each as kafka_partition_offsets does
// (earliest, max timestamp, latest), parallel at a time as Terraform's walk does (-parallelism,
// 10 by default): a read starts as soon as one ends.
func readConcurrently(t testing.TB, cl *Client, topic string, n, parallel int) {
	t.Helper()
	readPartitionsConcurrently(t, cl, topic, n, n, parallel)
}

// readPartitionsConcurrently makes n reads of partitions 0..partitions-1 in turn.
func readPartitionsConcurrently(t testing.TB, cl *Client, topic string, n, partitions, parallel int) {
	t.Helper()
	sem := make(chan struct{}, parallel)
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		p := i % partitions
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			res, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: topic, Partitions: []int{p}, MaxTimestamp: true})
			if err == nil && (len(res) != 1 || res[0].Partition != p) {
				err = fmt.Errorf("partition %d: got %+v", p, res)
			}
			errs <- err
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// describe prints a group read's partitions with every value the tests check.
func describe(ps []GroupPartitionOffsets) string {
	s := ""
	for _, p := range ps {
		committed, lag := "null", "null"
		if p.Committed != nil {
			committed, lag = fmt.Sprint(*p.Committed), fmt.Sprint(*p.Lag)
		}
		s += fmt.Sprintf("%s/%d committed=%s earliest=%d latest=%d lag=%s outOfRange=%v logEnd=%d; ",
			p.Topic, p.Partition, committed, p.Earliest, p.Latest, lag, p.OutOfRange, p.LogEnd)
	}
	return s
}

// groupsCluster: three brokers; topics a (3 partitions), b (2), c (1) with records; groups with
// admin commits (kfake lists them Empty, protocol type "").
func groupsCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c := newCluster(t, append([]kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(3, "a"), kfake.SeedTopics(2, "b"),
		kfake.SeedTopics(1, "c")}, opts...)...)
	produce(t, c, "a", 0, 4)
	produce(t, c, "a", 2, 1)
	produce(t, c, "b", 1, 7)
	produce(t, c, "c", 0, 2)
	acctest.FakeCommit(t, c, "app.one", "a", 0, 1)   // lag 3
	acctest.FakeCommit(t, c, "app.one", "a", 1, 0)   // lag 0 (empty partition)
	acctest.FakeCommit(t, c, "app.two", "b", 1, 10)  // lag -3: past the log end, not counted
	acctest.FakeCommit(t, c, "app.two", "a", 2, 0)   // lag 1
	acctest.FakeCommit(t, c, "other", "c", 0, 1)     // lag 1
	acctest.FakeCommit(t, c, "xapp.one", "a", 0, 4)  // lag 0
	acctest.FakeCommit(t, c, "app.three", "c", 0, 0) // lag 2
	acctest.FakeCommit(t, c, "app.three", "b", 0, 0) // lag 0
	return c
}

func showGroups(gs []GroupSummary) string {
	s := ""
	for _, g := range gs {
		lag := "null"
		if g.TotalLag != nil {
			lag = fmt.Sprint(*g.TotalLag)
		}
		s += fmt.Sprintf("[%s %s %q %v %s]", g.GroupID, g.State, g.ProtocolType, g.Topics, lag)
	}
	return s
}

// lingerCluster is a one-broker cluster whose topic "t" has 12 partitions, partition p holding
// p records.
func lingerCluster(t *testing.T) *kfake.Cluster {
	t.Helper()
	c := newCluster(t, kfake.SeedTopics(12, "t"))
	for p := int32(1); p < 12; p++ {
		produce(t, c, "t", p, int(p))
	}
	return c
}

// readP reads partition p of "t" as kafka_partition_offsets does and checks its exact offsets
// (p records from 0).
func readP(ctx context.Context, cl *Client, p int) (time.Duration, error) {
	start := time.Now()
	res, err := cl.Offsets(ctx, OffsetsRequest{Topic: "t", Partitions: []int{p}, MaxTimestamp: true})
	took := time.Since(start)
	if err != nil {
		return took, err
	}
	if len(res) != 1 || res[0].Partition != p || res[0].Earliest != 0 || res[0].Latest != int64(p) {
		return took, fmt.Errorf("partition %d: got %+v, want earliest 0, latest %d", p, res, p)
	}
	return took, nil
}

// wave reads partitions 0..n-1 at once: afterwards the leader's queue expects n reads.
func wave(t *testing.T, cl *Client, n int) {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = readP(context.Background(), cl, i)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// measuredRead reads one partition and says how long it took and how much it allocated: a peer
// that is not Kafka must cost neither the timeout nor a buffer sized from its bytes.
func measuredRead(cl *Client) (elapsed time.Duration, allocated uint64, err error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err = cl.PartitionOffsets(context.Background(), "t", 0)
	elapsed = time.Since(start)
	runtime.ReadMemStats(&after)
	return elapsed, after.TotalAlloc - before.TotalAlloc, err
}

// testPKI is a CA with a server certificate for 127.0.0.1/localhost and a client certificate,
// made in memory for each test.
type testPKI struct {
	caPEM                 string
	serverCert            tls.Certificate
	clientCert, clientKey string
	pool                  *x509.CertPool
}

func newTestPKI(t testing.TB) *testPKI {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "unit test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	issue := func(cn string, usage x509.ExtKeyUsage, ips []net.IP, dns []string) (string, string) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: ips, DNSNames: dns,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, _ := x509.MarshalPKCS8PrivateKey(key)
		return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
			string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
	}
	p := &testPKI{caPEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))}
	sc, sk := issue("localhost", x509.ExtKeyUsageServerAuth, []net.IP{net.ParseIP("127.0.0.1")}, []string{"localhost"})
	p.serverCert, err = tls.X509KeyPair([]byte(sc), []byte(sk))
	if err != nil {
		t.Fatal(err)
	}
	p.clientCert, p.clientKey = issue("unit-client", x509.ExtKeyUsageClientAuth, nil, nil)
	p.pool = x509.NewCertPool()
	p.pool.AddCert(ca)
	return p
}

// answer is the entry of partition tp in r's request k; nil if tp was not asked (collect finds
// them topic by topic instead).
func (r *round) answer(k lookupKey, tp topicPartition) *answer {
	return r.asks[k].topics[tp.topic].answer(int32(tp.partition))
}
