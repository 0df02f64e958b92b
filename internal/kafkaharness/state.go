package kafkaharness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The state dir (KAFKA_STATE_DIR) records a running cluster, so that another
// process can act on it: the command's stop, bootstrap, env, log, status and
// broker verbs, and a test's chaos (Attach). state.json holds the Cluster,
// each node with its pid, dir, port and launch command; .lock is flocked by
// whoever reads or changes it.
const stateFile = "state.json"

// DefaultStateDir is where the command's `start` records a cluster when
// KAFKA_STATE_DIR is unset.
const DefaultStateDir = "/tmp/terraform-provider-kafka-broker"

// ErrNotRunning says a state dir records no running cluster.
var ErrNotRunning = errors.New("no cluster is running")

// Attach loads the cluster recorded in dir, for acting on its nodes (Do) or
// stopping it from another process. Nodes it starts again are detached: they
// outlive this process, and their new pids are recorded, so that the owner's
// Stop stops them.
func Attach(dir string) (*Cluster, error) {
	if dir == "" {
		return nil, errors.New("no state dir given (KAFKA_STATE_DIR)")
	}
	unlock, err := lockFile(filepath.Join(dir, ".lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	c, err := load(dir)
	if err != nil {
		return nil, err
	}
	c.Detached = true
	return c, nil
}

// load reads the state file of dir.
func load(dir string) (*Cluster, error) {
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w (state dir %s)", ErrNotRunning, dir)
	}
	if err != nil {
		return nil, err
	}
	c := &Cluster{}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("state file %s: %w", filepath.Join(dir, stateFile), err)
	}
	c.stateDir = dir
	return c, nil
}

// Running reports whether any node runs.
func (c *Cluster) Running() bool {
	for _, n := range c.Nodes {
		if n.Running() {
			return true
		}
	}
	return false
}

// claimStateDir locks dir for a start; a cluster that died leaves its state
// and work dir behind, which are cleared, and a running one is an error.
func claimStateDir(dir string) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockFile(filepath.Join(dir, ".lock"))
	if err != nil {
		return nil, err
	}
	old, err := load(dir)
	switch {
	case errors.Is(err, ErrNotRunning):
		return unlock, nil
	case err != nil:
		unlock()
		return nil, err
	case old.Running():
		unlock()
		return nil, fmt.Errorf("a cluster is already running (%s, state dir %s); stop it first", old.Bootstrap(), dir)
	}
	if err := old.stopAll(); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// locked runs fn with the cluster to itself: in this process, and across
// processes when it has a state dir, whose pids are read first (another
// process may have restarted a node) and written after.
func (c *Cluster) locked(fn func() error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stateDir == "" {
		return fn()
	}
	unlock, err := lockFile(filepath.Join(c.stateDir, ".lock"))
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := load(c.stateDir)
	if err != nil {
		return err
	}
	for id, n := range cur.Nodes {
		if mine := c.Nodes[id]; mine != nil {
			mine.Pid = n.Pid
		}
	}
	return fn()
}

// save records the cluster in its state dir (none: nothing to do), by rename
// so that a reader never sees half a file.
func (c *Cluster) save() error {
	if c.stateDir == "" {
		return nil
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(c.stateDir, stateFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil { // it holds the SASL password
		return err
	}
	return os.Rename(tmp, filepath.Join(c.stateDir, stateFile))
}

func (c *Cluster) clearState() error {
	if c.stateDir == "" {
		return nil
	}
	err := os.Remove(filepath.Join(c.stateDir, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Env is the variables `run` gives its command and `env` prints (the
// tests' contract): KAFKA_BOOTSTRAP_SERVERS (every broker), KAFKA_BROKER_IDS,
// KAFKA_BROKER_<id>_ADDR, and the single node's TLS/SASL listeners and test
// identities or a cluster's KAFKA_CONTROLLER_ADDR (KAFKA_ZOOKEEPER_CONNECT in
// ZooKeeper mode); then KAFKA_BROKER_LOG
// (every node's log, ':'-separated), KAFKA_LIBS and KAFKA_STATE_DIR.
func (c *Cluster) Env() []string {
	var ids []string
	for _, id := range c.Brokers {
		ids = append(ids, fmt.Sprint(id))
	}
	env := []string{"KAFKA_BOOTSTRAP_SERVERS=" + c.Bootstrap()}
	if c.Ports.SSL != 0 {
		env = append(env,
			"KAFKA_SSL_BOOTSTRAP_SERVERS="+c.SSLBootstrap(),
			"KAFKA_MTLS_BOOTSTRAP_SERVERS="+c.MTLSBootstrap(),
			"KAFKA_SASL_PLAINTEXT_BOOTSTRAP_SERVERS="+c.SASLBootstrap(),
			"KAFKA_SASL_SSL_BOOTSTRAP_SERVERS="+c.SASLSSLBootstrap(),
			"KAFKA_TEST_CA_FILE="+c.TLS.CA,
			"KAFKA_TEST_CLIENT_CERT_FILE="+c.TLS.ClientCert,
			"KAFKA_TEST_CLIENT_KEY_FILE="+c.TLS.ClientKey,
			"KAFKA_TEST_SASL_USERNAME="+c.SASL.User,
			"KAFKA_TEST_SASL_PASSWORD="+c.SASL.Password,
			"KAFKA_TEST_OAUTH_PRINCIPAL="+OAuthPrincipal)
	}
	env = append(env, "KAFKA_BROKER_IDS="+strings.Join(ids, " "))
	for _, id := range c.Brokers {
		env = append(env, fmt.Sprintf("KAFKA_BROKER_%d_ADDR=%s", id, c.Nodes[id].Addr()))
	}
	if n := c.Nodes[ControllerID]; n != nil && n.Role == RoleZooKeeper {
		env = append(env, "KAFKA_ZOOKEEPER_CONNECT="+n.Addr())
	} else if n != nil {
		env = append(env, "KAFKA_CONTROLLER_ADDR="+n.Addr())
	}
	env = append(env, "KAFKA_BROKER_LOG="+strings.Join(c.Logs(), ":"), "KAFKA_LIBS="+c.Libs)
	if c.stateDir != "" {
		env = append(env, "KAFKA_STATE_DIR="+c.stateDir)
	}
	return env
}

// StateDir is where the cluster is recorded ("" if not).
func (c *Cluster) StateDir() string { return c.stateDir }
