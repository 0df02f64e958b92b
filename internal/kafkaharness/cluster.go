package kafkaharness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// ControllerID is the node id of a cluster's controller.
const ControllerID int32 = 100

// Cluster is a running KRaft cluster on loopback: the single combined node
// (id 1, every listener) or a controller and N brokers (PLAINTEXT only). Its
// nodes are acted on by id (Do); with a state dir the pids live in the state
// file, so that this process and others (Attach) act on the same nodes.
type Cluster struct {
	Nodes     map[int32]*Node `json:"nodes"`
	Brokers   []int32         `json:"brokers"` // ascending
	ClusterID string          `json:"cluster_id"`
	Version   string          `json:"version"`
	Libs      string          `json:"libs"`    // the jars (KAFKA_LIBS: Kafka's Java tools run on them)
	WorkDir   string          `json:"workdir"` // every node's dir is in it
	// The single node's other listeners; zero in a cluster.
	Ports Ports           `json:"ports"`
	TLS   TLSFiles        `json:"tls"`
	SASL  SASLCredentials `json:"sasl"`

	KeepDir  bool          `json:"keep_dir"`
	Timeout  time.Duration `json:"start_timeout"` // a start's bound
	Detached bool          `json:"-"`             // nodes launched outlive the launching process

	java     string
	stateDir string     // "" if not recorded
	mu       sync.Mutex // serialises verbs in this process; flock across processes
}

func newCluster(o Options, libs, dir, id string) *Cluster {
	java, err := exec.LookPath("java")
	if err != nil {
		java = "java" // launch says what is missing
	}
	return &Cluster{Nodes: map[int32]*Node{}, ClusterID: id, Version: o.Version, Libs: libs, WorkDir: dir,
		KeepDir: o.KeepDir, Timeout: o.StartTimeout, Detached: o.Detached,
		java: java, stateDir: o.StateDir}
}

// add records a node; brokers stay in id order.
func (c *Cluster) add(n *Node) {
	c.Nodes[n.ID] = n
	if n.IsBroker() {
		c.Brokers = append(c.Brokers, n.ID)
		slices.Sort(c.Brokers)
	}
}

// Node is node id, nil if there is none.
func (c *Cluster) Node(id int32) *Node { return c.Nodes[id] }

// ids lists the nodes, controller first (it starts first and stops last).
func (c *Cluster) ids() []int32 {
	var out []int32
	if _, ok := c.Nodes[ControllerID]; ok {
		out = append(out, ControllerID)
	}
	return append(out, c.Brokers...)
}

// Logs lists every node's log, controller first (KAFKA_BROKER_LOG, ':'-separated).
func (c *Cluster) Logs() []string {
	var out []string
	for _, id := range c.ids() {
		out = append(out, c.Nodes[id].LogPath())
	}
	return out
}

// prepareCluster chooses ports and writes and formats a controller and
// o.Brokers brokers, each in a dir of its own under dir, with one cluster id.
func prepareCluster(ctx context.Context, o Options, libs, dir string) (*Cluster, error) {
	ports, err := FreePorts(o.Brokers + 1)
	if err != nil {
		return nil, err
	}
	c := newCluster(o, libs, dir, clusterID())
	c.Ports.Controller = ports[0]
	cfg := clusterConfig{controllerPort: ports[0], brokers: o.Brokers, acls: !o.NoACLs, extra: o.Extra}
	logOpts := map[*Node]string{}
	n, logOpt, err := c.prepareNode(o, cfg, ControllerID, RoleController, "controller", o.ControllerHeap)
	if err != nil {
		return nil, err
	}
	logOpts[n] = logOpt
	for i := 1; i <= o.Brokers; i++ {
		cfg.port = ports[i]
		n, logOpt, err := c.prepareNode(o, cfg, int32(i), RoleBroker, fmt.Sprintf("broker-%d", i), o.Heap)
		if err != nil {
			return nil, err
		}
		logOpts[n] = logOpt
	}
	// Formatted in parallel: each is a short JVM run.
	errs := make([]error, 0, len(c.Nodes))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for n, logOpt := range logOpts {
		wg.Go(func() {
			err := formatStorage(ctx, libs, logOpt, n.Dir, c.ClusterID, nil)
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		})
	}
	wg.Wait()
	return c, errors.Join(errs...)
}

// prepareNode writes one cluster node's config and log config into a dir of
// its own, sub, and adds it; it returns the log option (the storage tool's too).
func (c *Cluster) prepareNode(o Options, cfg clusterConfig, id int32, role, sub string, heap []string) (*Node, string, error) {
	ndir := filepath.Join(c.WorkDir, sub)
	if err := os.Mkdir(ndir, 0o755); err != nil {
		return nil, "", err
	}
	cfg.dir, cfg.id, cfg.role = ndir, id, role
	if err := os.WriteFile(filepath.Join(ndir, "server.properties"), []byte(clusterNodeProperties(cfg)), 0o644); err != nil {
		return nil, "", err
	}
	logOpt, err := writeLogConfig(ndir, o.Version)
	if err != nil {
		return nil, "", err
	}
	port := cfg.port
	if role == RoleController {
		port = cfg.controllerPort
	}
	n := &Node{ID: id, Role: role, Dir: ndir, Port: port, Args: launchArgs(c.java, heap, logOpt, c.Libs, ndir)}
	c.add(n)
	return n, logOpt, nil
}

// launchAll launches every node, controller first, records them, and waits
// until the controller is active and each broker lists all brokers.
func (c *Cluster) launchAll(ctx context.Context) error {
	for _, id := range c.ids() {
		if err := c.Nodes[id].launch(c.Detached); err != nil {
			return err
		}
	}
	if err := c.save(); err != nil {
		return err
	}
	// Each node in its own bound: a cluster's JVMs start together on a shared machine.
	for _, id := range c.ids() {
		wait, cancel := context.WithTimeout(ctx, c.Timeout)
		err := c.waitNode(wait, c.Nodes[id], c.Brokers)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// Verbs of Do (the command's broker VERB ID).
const (
	VerbStop    = "stop"    // SIGTERM (controlled shutdown), wait until it exited
	VerbKill    = "kill"    // SIGKILL, wait until it is gone (a crash: no handover)
	VerbPause   = "pause"   // SIGSTOP (alive, silent: a hung host)
	VerbResume  = "resume"  // SIGCONT
	VerbStart   = "start"   // launch it again, wait until the cluster says it serves
	VerbRestart = "restart" // stop (if running), then start
)

// Do acts on node id, keeping its data, config and port. Verbs are
// serialised on the cluster, across processes too when it has a state dir.
func (c *Cluster) Do(ctx context.Context, verb string, id int32) error {
	act, ok := map[string]func(context.Context, *Node) error{
		VerbStop:    func(_ context.Context, n *Node) error { return n.stopRunning() },
		VerbKill:    func(_ context.Context, n *Node) error { return n.Kill() },
		VerbPause:   func(_ context.Context, n *Node) error { return n.Pause() },
		VerbResume:  func(_ context.Context, n *Node) error { return n.Resume() },
		VerbStart:   c.startNode,
		VerbRestart: c.restartNode,
	}[verb]
	if !ok {
		return fmt.Errorf("unknown verb %q: want stop, kill, pause, resume, start or restart", verb)
	}
	return c.locked(func() error {
		n := c.Nodes[id]
		if n == nil {
			return fmt.Errorf("no node %d (nodes: %v)", id, c.ids())
		}
		return act(ctx, n)
	})
}

// stopRunning is the stop verb: stopping a node that is not running is an error.
func (n *Node) stopRunning() error {
	if !n.Running() {
		return fmt.Errorf("node %d is not running", n.ID)
	}
	return n.Stop(StopTimeout)
}

// startNode launches n again and waits until the cluster says it serves: a
// broker lists itself in its metadata (registered and unfenced), the
// controller answers as the active controller.
func (c *Cluster) startNode(ctx context.Context, n *Node) error {
	from := n.logSize()
	if err := n.launch(c.Detached); err != nil {
		return err
	}
	if err := c.save(); err != nil {
		return err
	}
	wait, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	if err := c.waitNode(wait, n, []int32{n.ID}); err != nil {
		if n.portTaken(from) {
			err = fmt.Errorf("%w: its port %d was taken meanwhile", err, n.Port)
		}
		return fmt.Errorf("node %d did not start again (log %s): %w", n.ID, n.LogPath(), err)
	}
	return nil
}

func (c *Cluster) restartNode(ctx context.Context, n *Node) error {
	if err := n.Stop(StopTimeout); err != nil {
		return err
	}
	return c.startNode(ctx, n)
}

// Stop stops every node, brokers first and together, then the controller (a
// broker's controlled shutdown needs it), deletes the work dir unless
// KeepDir, and clears the state dir.
// A cluster already stopped (its state cleared) is no error.
func (c *Cluster) Stop() error {
	if err := c.locked(c.stopAll); !errors.Is(err, ErrNotRunning) {
		return err
	}
	return nil
}

// stopAll is Stop under the lock.
func (c *Cluster) stopAll() error {
	var errs []error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, id := range c.Brokers {
		wg.Go(func() {
			err := c.Nodes[id].Stop(StopTimeout)
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		})
	}
	wg.Wait()
	if n := c.Nodes[ControllerID]; n != nil {
		errs = append(errs, n.Stop(StopTimeout))
	}
	if !c.KeepDir && isWorkDir(c.WorkDir) {
		errs = append(errs, os.RemoveAll(c.WorkDir))
	}
	errs = append(errs, c.clearState())
	return errors.Join(errs...)
}

// isWorkDir guards RemoveAll against a corrupted state file: only dirs this
// package made (kafka-broker.*) are deleted.
func isWorkDir(dir string) bool {
	base := filepath.Base(dir)
	return len(base) > len("kafka-broker.") && base[:len("kafka-broker.")] == "kafka-broker."
}
