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

// Options for StartSingle; the zero value is kafka.sh's defaults but for Pom.
type Options struct {
	Version      string        // Kafka release; DefaultVersion if empty
	Cache        string        // jar cache; CacheDir() if empty
	Pom          string        // tools/kafka/pom.xml, for a download
	Heap         []string      // JVM heap options; -Xmx256m -Xms64m if nil
	StartTimeout time.Duration // per attempt; 90 s if zero
	NoACLs       bool          // no authorizer (kafka.sh KAFKA_ACLS=0)
	Extra        string        // server.properties lines appended verbatim
	KeepDir      bool          // Stop leaves the work dir (config, log) behind
	Tiered       bool          // tiered storage, remote tier in RemoteDir (KAFKA_TIERED=1)
	rsmClasses   string        // FileRemoteStorage's class dir, set by StartSingle when Tiered
}

// attempts of a start: a port can be taken between FreePorts and the bind.
const attempts = 3

// Single is a running single-node KRaft cluster (node id 1, broker and
// controller in one JVM) on loopback.
type Single struct {
	Node      *Node
	Ports     Ports
	ClusterID string
	Version   string
	TLS       TLSFiles // for the SSL and MTLS listeners
	SASL      SASLCredentials
	Libs      string // the jars (KAFKA_LIBS: Kafka's Java tools run on them)
	keepDir   bool
	timeout   time.Duration // a start's bound (Options.StartTimeout)
}

// Bootstrap is the PLAINTEXT address (KAFKA_BOOTSTRAP_SERVERS).
func (s *Single) Bootstrap() string { return addr(s.Ports.Plaintext) }

// SSLBootstrap is the TLS address (KAFKA_SSL_BOOTSTRAP_SERVERS).
func (s *Single) SSLBootstrap() string { return addr(s.Ports.SSL) }

// MTLSBootstrap is the mutual-TLS address (KAFKA_MTLS_BOOTSTRAP_SERVERS).
func (s *Single) MTLSBootstrap() string { return addr(s.Ports.MTLS) }

// SASLBootstrap is the SASL_PLAINTEXT address (KAFKA_SASL_PLAINTEXT_BOOTSTRAP_SERVERS).
func (s *Single) SASLBootstrap() string { return addr(s.Ports.SASL) }

// SASLSSLBootstrap is the SASL_SSL address (KAFKA_SASL_SSL_BOOTSTRAP_SERVERS).
func (s *Single) SASLSSLBootstrap() string { return addr(s.Ports.SASLSSL) }

func addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// StartSingle downloads the jars if needed, writes a fresh work dir, formats
// it and starts the node, returning once the cluster says it is ready. On
// error nothing is left running.
func StartSingle(ctx context.Context, o Options) (*Single, error) {
	o = o.withDefaults()
	libs, err := Jars(ctx, o)
	if err != nil {
		return nil, err
	}
	if o.Tiered {
		if o.rsmClasses, err = compileRSM(ctx, o, libs); err != nil {
			return nil, err
		}
	}
	for try := 1; ; try++ {
		s, err := startOnce(ctx, o, libs)
		if err == nil || !errors.Is(err, errPortTaken) || try == attempts {
			return s, err
		}
	}
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
	if o.StartTimeout == 0 {
		o.StartTimeout = 90 * time.Second
	}
	return o
}

// startOnce is one attempt with a fresh dir and fresh ports.
func startOnce(ctx context.Context, o Options, libs string) (*Single, error) {
	dir, err := os.MkdirTemp("", "kafka-broker.")
	if err != nil {
		return nil, err
	}
	s, err := prepare(ctx, o, libs, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := s.Node.launch(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	err = s.waitReady(ctx)
	if err == nil && o.Tiered {
		err = s.waitTiered(ctx)
	}
	if err == nil {
		return s, nil
	}
	taken := errors.Is(err, errExited) && s.Node.portTaken()
	tail := logTail(s.Node.LogPath(), 40)
	s.keepDir = false
	_ = s.Stop()
	if taken {
		return nil, errPortTaken
	}
	return nil, fmt.Errorf("kafka %s in %s: %w; last lines of its log:\n%s", o.Version, dir, err, tail)
}

// prepare chooses ports and writes and formats the node's config in dir.
func prepare(ctx context.Context, o Options, libs, dir string) (*Single, error) {
	p, err := FreePorts(6)
	if err != nil {
		return nil, err
	}
	ports := Ports{Plaintext: p[0], Controller: p[1], SSL: p[2], MTLS: p[3], SASL: p[4], SASLSSL: p[5]}
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
	id := clusterID()
	if err := formatStorage(ctx, libs, logOpt, dir, id, cred); err != nil {
		return nil, err
	}
	node := &Node{ID: 1, Dir: dir, Heap: o.Heap, libs: libs, logOpt: logOpt}
	return &Single{Node: node, Ports: ports, ClusterID: id, Version: o.Version, TLS: tls, SASL: cred, Libs: libs, keepDir: o.KeepDir, timeout: o.StartTimeout}, nil
}

// StartAgain launches the node again after Node.Stop or Node.Kill, on its
// data, config and ports, and returns once the cluster says it is ready (a
// restarted broker is registered and unfenced).
func (s *Single) StartAgain(ctx context.Context) error {
	if err := s.Node.launch(); err != nil {
		return err
	}
	if err := s.waitReady(ctx); err != nil {
		return fmt.Errorf("node %d did not start again (log %s): %w", s.Node.ID, s.Node.LogPath(), err)
	}
	return nil
}

func (s *Single) waitReady(ctx context.Context) error {
	wait, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return waitReady(wait, s.Node, []string{s.Bootstrap()}, 1)
}

// Stop stops the node (see Node.Stop) and deletes its work dir unless
// Options.KeepDir.
func (s *Single) Stop() error {
	err := s.Node.Stop(StopTimeout)
	if !s.keepDir {
		err = errors.Join(err, os.RemoveAll(s.Node.Dir))
	}
	return err
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
