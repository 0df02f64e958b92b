package kafkaharness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Options for Start; the zero value is the command's defaults (a single node)
// but for Pom.
type Options struct {
	Version        string        // Kafka release; DefaultVersion if empty
	Cache          string        // jar cache; CacheDir() if empty
	Pom            string        // tools/kafka/pom.xml, for a download
	Heap           []string      // JVM heap options of a broker; -Xmx256m -Xms64m if nil
	ControllerHeap []string      // of the controller of a cluster; -Xmx128m -Xms32m if nil
	StartTimeout   time.Duration // per attempt; 90 s if zero
	NoACLs         bool          // no authorizer (KAFKA_ACLS=0)
	Extra          string        // server.properties lines appended verbatim, on every node
	KeepDir        bool          // Stop leaves the work dir (config, log) behind
	// Brokers is 1 (or 0) for the single combined node with every listener,
	// N (2..9) for a controller (ControllerID) and brokers 1..N, PLAINTEXT only.
	Brokers int
	// StateDir, if set, records the cluster there (see Attach) so that other
	// processes can act on its nodes; a cluster is already running there is an error.
	StateDir string
	// Detached nodes get sessions of their own and outlive this process (the
	// command's start); otherwise they die with it.
	Detached bool
	// Tiered is tiered storage (KIP-405) on the single node, the remote tier in
	// RemoteDir (KAFKA_TIERED=1); a cluster of brokers refuses it.
	Tiered bool
	// ZooKeeper runs the single node in ZooKeeper mode (Kafka 3.x only) beside
	// a standalone ZooKeeper server (KAFKA_ZOOKEEPER=1), with the same
	// listeners, users and authorizer rules as in KRaft mode.
	ZooKeeper  bool
	rsmClasses string // FileRemoteStorage's class dir, set by Start when Tiered
}

// attempts of a start: a port can be taken between FreePorts and the bind,
// and a JVM was seen gone about a second after its launch, with nothing in its
// log and no hs_err file (CI, 2026-12-02; cause not found): both are started
// again, in a fresh dir on fresh ports. Any other failure is final at once.
// (A JVM "gone" was since seen alive later: waitNode now looks exitedLooks
// times, and its error says what /proc showed.)
const attempts = 3

// Bootstrap is every broker's PLAINTEXT address, comma-separated
// (KAFKA_BOOTSTRAP_SERVERS).
func (c *Cluster) Bootstrap() string {
	var out []string
	for _, id := range c.Brokers {
		out = append(out, c.Nodes[id].Addr())
	}
	return strings.Join(out, ",")
}

// The single node's other listeners; empty in a cluster.

// SSLBootstrap is the TLS address (KAFKA_SSL_BOOTSTRAP_SERVERS).
func (c *Cluster) SSLBootstrap() string { return addr(c.Ports.SSL) }

// MTLSBootstrap is the mutual-TLS address (KAFKA_MTLS_BOOTSTRAP_SERVERS).
func (c *Cluster) MTLSBootstrap() string { return addr(c.Ports.MTLS) }

// SASLBootstrap is the SASL_PLAINTEXT address (KAFKA_SASL_PLAINTEXT_BOOTSTRAP_SERVERS).
func (c *Cluster) SASLBootstrap() string { return addr(c.Ports.SASL) }

// SASLSSLBootstrap is the SASL_SSL address (KAFKA_SASL_SSL_BOOTSTRAP_SERVERS).
func (c *Cluster) SASLSSLBootstrap() string { return addr(c.Ports.SASLSSL) }

func addr(port int) string {
	if port == 0 {
		return ""
	}
	return "127.0.0.1:" + strconv.Itoa(port)
}

// Start downloads the jars if needed, writes a fresh work dir, formats it and
// starts the nodes, returning once the cluster says it is ready. On error
// nothing is left running.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	o = o.withDefaults()
	if err := o.check(); err != nil {
		return nil, err
	}
	libs, err := Jars(ctx, o)
	if err != nil {
		return nil, err
	}
	unlock, err := claimStateDir(o.StateDir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if o.Tiered {
		if o.rsmClasses, err = compileRSM(ctx, o, libs); err != nil {
			return nil, err
		}
	}
	for try := 1; ; try++ {
		c, err := startOnce(ctx, o, libs)
		again := errors.Is(err, errPortTaken) || errors.Is(err, errExited)
		if err == nil || !again || try == attempts {
			return c, err
		}
	}
}

// check refuses, before anything is downloaded or started, what cannot run.
func (o Options) check() error {
	if o.Brokers < 1 || o.Brokers > 9 {
		return fmt.Errorf("brokers must be 1 to 9, not %d", o.Brokers)
	}
	if o.ZooKeeper {
		if err := zooKeeperMode(o); err != nil {
			return err
		}
	}
	if o.Tiered && o.Brokers > 1 {
		return errors.New("tiered storage runs on the single node only, not with brokers > 1")
	}
	if o.Tiered && !atLeast(o.Version, 3, 6) {
		return fmt.Errorf("tiered storage needs Kafka 3.6 or later (KIP-405 early access; the remote storage "+
			"manager API FileRemoteStorage implements, with KIP-917), not %s", o.Version)
	}
	return nil
}

var errPortTaken = errors.New("a port was taken between choosing and binding it")

func (o Options) withDefaults() Options {
	if o.Version == "" {
		o.Version = DefaultVersion
	}
	if o.Cache == "" {
		o.Cache = CacheDir()
	}
	if o.Heap == nil {
		o.Heap = []string{"-Xmx256m", "-Xms64m"}
	}
	if o.ControllerHeap == nil {
		o.ControllerHeap = []string{"-Xmx128m", "-Xms32m"}
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 90 * time.Second
	}
	if o.Brokers == 0 {
		o.Brokers = 1
	}
	return o
}

// startOnce is one attempt with a fresh dir and fresh ports.
func startOnce(ctx context.Context, o Options, libs string) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "kafka-broker.")
	if err != nil {
		return nil, err
	}
	prep := prepareSingle
	if o.Brokers > 1 {
		prep = prepareCluster
	}
	c, err := prep(ctx, o, libs, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	err = c.launchAll(ctx)
	if err == nil && o.Tiered {
		err = c.waitTiered(ctx)
	}
	if err == nil && o.ZooKeeper {
		wait, cancel := context.WithTimeout(ctx, c.Timeout)
		err = c.afterZooKeeperStart(wait)
		cancel()
		if err == nil {
			err = c.save() // with the cluster id now known
		}
	}
	if err == nil {
		return c, nil
	}
	var taken bool
	var tails []string
	for _, id := range c.ids() {
		n := c.Nodes[id]
		taken = taken || (!n.Running() && n.portTaken(0))
		tails = append(tails, fmt.Sprintf("last lines of %s:\n%s", n.LogPath(), logTail(n.LogPath(), 40)))
	}
	c.KeepDir = false
	_ = c.stopAll()
	if taken {
		return nil, errPortTaken
	}
	return nil, fmt.Errorf("kafka %s in %s: %w; %s", o.Version, dir, err, strings.Join(tails, "\n"))
}

// prepareSingle chooses ports and writes and formats the single node's
// config, with all five listeners, in dir.
func prepareSingle(ctx context.Context, o Options, libs, dir string) (*Cluster, error) {
	p, err := FreePorts(6)
	if err != nil {
		return nil, err
	}
	ports := Ports{Plaintext: p[0], Controller: p[1], SSL: p[2], MTLS: p[3], SASL: p[4], SASLSSL: p[5]}
	if o.ZooKeeper {
		ports.Controller, ports.ZooKeeper = 0, p[1]
	}
	cred := newCredentials()
	tls, err := makeCerts(dir)
	if err != nil {
		return nil, err
	}
	props := singleNodeProperties(serverConfig{dir: dir, ports: ports, tls: tls, sasl: cred, acls: !o.NoACLs,
		extra: tieredProperties(dir, o.rsmClasses) + o.Extra})
	if err := os.WriteFile(filepath.Join(dir, "server.properties"), []byte(props), 0o644); err != nil {
		return nil, err
	}
	logOpt, err := writeLogConfig(dir, o.Version)
	if err != nil {
		return nil, err
	}
	id := "" // ZooKeeper mode: the broker registers in ZooKeeper, which names the cluster
	if !o.ZooKeeper {
		id = clusterID()
		if err := formatStorage(ctx, libs, logOpt, dir, id, scramCred(o.Version, cred)); err != nil {
			return nil, err
		}
	}
	c := newCluster(o, libs, dir, id)
	c.Ports, c.TLS, c.SASL = ports, tls, cred
	if o.ZooKeeper {
		if err := c.prepareZooKeeper(logOpt, ports.ZooKeeper); err != nil {
			return nil, err
		}
	}
	c.add(&Node{ID: 1, Role: RoleCombined, Dir: dir, Port: ports.Plaintext, Args: launchArgs(c.java, o.Heap, logOpt, libs, dir)})
	return c, nil
}

// logTail is the last n lines of the file at path, for an error message.
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
