package kafkaharness

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// startSingle starts a single node for the test and stops it when the test ends.
func startSingle(t *testing.T) *Cluster {
	t.Helper()
	return startCluster(t, Options{})
}

// startCluster starts a cluster for the test (KAFKA_VERSION picks the
// release, as for the command) and stops it when the test ends.
func startCluster(t *testing.T, o Options) *Cluster {
	t.Helper()
	base := accOptions(t)
	o.Pom, o.Version = base.Pom, base.Version
	return startWith(t, o)
}

// accOptions are a real-Kafka test's options: KAFKA_VERSION and the pom. It
// needs java and the jars (or mvn), so it runs only with TF_ACC set, like the
// acceptance tests, and never beside a suite's broker (KAFKA_BOOTSTRAP_SERVERS
// set, as in make testacc's legs), so that its JVMs do not compete with
// theirs: make testharness runs it on its own.
func accOptions(t *testing.T) Options {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("starts real Kafka JVMs; set TF_ACC=1 (make testharness)")
	}
	if os.Getenv("KAFKA_BOOTSTRAP_SERVERS") != "" {
		t.Skip("starts Kafka JVMs of its own: not beside the suite's broker (make testharness runs it alone)")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	pom, err := FindPom(wd)
	if err != nil {
		t.Fatal(err)
	}
	return Options{Version: os.Getenv("KAFKA_VERSION"), Pom: pom}
}

// startWith starts a cluster with o and stops it when the test ends.
func startWith(t *testing.T, o Options) *Cluster {
	t.Helper()
	c, err := Start(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stopping the cluster: %v", err)
		}
	})
	return c
}

// partitionCount is how many partitions the cluster lists for topic.
func partitionCount(ctx context.Context, t *testing.T, adm *kadm.Client, topic string) int {
	t.Helper()
	return len(listedTopic(ctx, t, adm, topic).Partitions)
}

// listedTopic is topic as the cluster lists it once every partition has a
// leader: a broker learns of a topic created a moment ago from the controller
// a little later (KRaft metadata propagates asynchronously), and until then
// lists it as unknown or leaderless. Bounded by ctx.
func listedTopic(ctx context.Context, t *testing.T, adm *kadm.Client, topic string) kadm.TopicDetail {
	t.Helper()
	for {
		td, err := adm.ListTopics(ctx, topic)
		if err == nil && td[topic].Err == nil && len(td[topic].Partitions) > 0 && allLed(td[topic]) {
			return td[topic]
		}
		select {
		case <-ctx.Done():
			t.Fatalf("topic %s not listed with leaders: %v (last answer: %v, %+v)", topic, ctx.Err(), err, td[topic])
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func allLed(td kadm.TopicDetail) bool {
	for _, p := range td.Partitions {
		if p.Leader < 0 || p.Err != nil {
			return false
		}
	}
	return true
}

// admin is a kadm client on the PLAINTEXT address bootstrap.
func admin(t *testing.T, bootstrap string) *kadm.Client {
	t.Helper()
	return adminWith(t, kgo.SeedBrokers(bootstrap))
}

// tlsAdmin is a kadm client on addr that trusts only the node's test CA and,
// when withCert, presents the test client certificate.
func tlsAdmin(t *testing.T, s *Cluster, addr string, withCert bool) *kadm.Client {
	t.Helper()
	return adminWith(t, kgo.SeedBrokers(addr), kgo.DialTLSConfig(tlsConfig(t, s, withCert)))
}

// tlsConfig trusts only the node's test CA; withCert adds the client certificate.
func tlsConfig(t *testing.T, s *Cluster, withCert bool) *tls.Config {
	t.Helper()
	caPEM, err := os.ReadFile(s.TLS.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("no certificate in " + s.TLS.CA)
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if withCert {
		cert, err := tls.LoadX509KeyPair(s.TLS.ClientCert, s.TLS.ClientKey)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg
}

// adminWith is a kadm client with opts that does not retry, so a refused
// login fails the request rather than being tried until the context ends.
func adminWith(t *testing.T, opts ...kgo.Opt) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(append(opts, kgo.RequestRetries(0))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// scratchCache is o with a cache of the test's own that shares the real
// cache's jars (a symlink, downloaded first if needed), so that what is built
// into the cache (FileRemoteStorage, the streams app) is built by the test.
func scratchCache(t *testing.T, o Options) Options {
	t.Helper()
	o = o.withDefaults()
	libs, err := Jars(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	o.Cache = t.TempDir()
	if err := os.Mkdir(filepath.Join(o.Cache, "kafka-"+o.Version), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(libs, LibsDir(o.Cache, o.Version)); err != nil {
		t.Fatal(err)
	}
	return o
}
