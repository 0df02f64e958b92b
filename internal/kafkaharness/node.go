package kafkaharness

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// StopTimeout bounds Kafka's controlled shutdown after SIGTERM; a node still
// there then is killed.
const StopTimeout = 60 * time.Second

// Roles of a node (Kafka's process.roles).
const (
	RoleCombined   = "broker,controller" // the single node
	RoleBroker     = "broker"
	RoleController = "controller"
)

// Node is one Kafka JVM, known by its pid, so that any process can act on it
// (a test restarting a broker of a cluster that the command started): the
// state file records it. A pid is trusted only while /proc says it runs
// kafka.Kafka on this node's server.properties (ZooKeeper's main class on its
// config), which guards against reuse.
type Node struct {
	ID   int32    `json:"id"`
	Role string   `json:"role"`
	Dir  string   `json:"dir"`  // server.properties, data/, broker.log
	Port int      `json:"port"` // PLAINTEXT for a broker, CONTROLLER for the controller
	Args []string `json:"args"` // the launch command: java, its options, kafka.Kafka, the config
	Pid  int      `json:"pid"`  // of the last launch; 0 if never launched
}

// IsBroker says whether the node serves clients (the single node does too).
func (n *Node) IsBroker() bool { return n.Role != RoleController && n.Role != RoleZooKeeper }

// Addr is the node's first listener on loopback.
func (n *Node) Addr() string { return addr(n.Port) }

// LogPath is the node's log (stdout and stderr of every launch, appended).
func (n *Node) LogPath() string { return filepath.Join(n.Dir, "broker.log") }

// mainAndConfig is the end of the node's command line, its main class and
// config file ("kafka.Kafka\x00<dir>/server.properties"), as /proc shows it;
// Args holds at least the two (notRunning checks).
func (n *Node) mainAndConfig() string {
	return n.Args[len(n.Args)-2] + "\x00" + n.Args[len(n.Args)-1]
}

// launchArgs is the java command line for a node: heap, GC and log options,
// class path, and its config.
func launchArgs(java string, heap []string, logOpt, libs, dir string) []string {
	return append(append([]string{java}, heap...),
		"-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:+ExplicitGCInvokesConcurrent",
		"-Djava.awt.headless=true", logOpt, "-cp", filepath.Join(libs, "*"),
		"kafka.Kafka", filepath.Join(dir, "server.properties"))
}

// launch starts the JVM on the node's config; the same call starts it again
// after a stop or a kill, keeping data, config and port. A detached node gets
// a session of its own and outlives this process (the command's start, a
// restart from a test); otherwise it is killed if this process dies
// (Pdeathsig), so that no broker outlives a crashed test.
func (n *Node) launch(detached bool) error {
	if n.Running() {
		return fmt.Errorf("node %d is already running (pid %d)", n.ID, n.Pid)
	}
	logf, err := os.OpenFile(n.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child holds its own copy
	cmd := exec.Command(n.Args[0], n.Args[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf // stdin: /dev/null
	if detached {
		// No pipe of the caller held open either: `addr=$(kafka.sh start)` returns.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		// Its own process group: a terminal's Ctrl-C reaches us and we stop
		// the node in order. Pdeathsig is tied to the forking OS thread; Go
		// keeps its threads unless a goroutine exits while locked to one,
		// which this package never does.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting node %d: %w", n.ID, err)
	}
	n.Pid = cmd.Process.Pid
	// No goroutine waits for it (a test's leak check would find one waiting
	// on a node that outlives the test): Running reads /proc and reaps it.
	return cmd.Process.Release()
}

// Running reports whether the recorded pid is this node's JVM, alive (a
// zombie, exited but not reaped, counts as gone).
func (n *Node) Running() bool { return n.notRunning() == "" }

// notRunning says why the recorded pid is not this node's live JVM, "" when
// it is: no pid, no process, a zombie, or another command line.
func (n *Node) notRunning() string {
	if n.Pid <= 0 || len(n.Args) < 2 {
		return "never launched"
	}
	switch s := procState(n.Pid); s {
	case "":
		return fmt.Sprintf("no process %d", n.Pid)
	case "Z", "X":
		// Exited; reap it if it is our child (ECHILD if not: init reaps it).
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(n.Pid, &ws, syscall.WNOHANG, nil)
		return fmt.Sprintf("process %d exited (state %s)", n.Pid, s)
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", n.Pid))
	switch {
	case err != nil:
		return fmt.Sprintf("process %d: %v", n.Pid, err)
	case !strings.Contains(string(cmdline), n.mainAndConfig()):
		return fmt.Sprintf("process %d runs %q", n.Pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return ""
}

// Paused reports whether the node is stopped by SIGSTOP.
func (n *Node) Paused() bool {
	s := procState(n.Pid)
	return n.Running() && (s == "T" || s == "t")
}

// Stop is Kafka's controlled shutdown (SIGTERM; SIGCONT too, in case it is
// paused), then SIGKILL if it is not gone within timeout, which is an error.
// A node that is not running is already stopped.
func (n *Node) Stop(timeout time.Duration) error {
	if !n.Running() {
		return nil
	}
	_ = n.signal(syscall.SIGTERM)
	_ = n.signal(syscall.SIGCONT)
	if n.waitGone(timeout) {
		return nil
	}
	_ = n.Kill()
	return fmt.Errorf("node %d (pid %d) did not stop within %s of SIGTERM; killed it", n.ID, n.Pid, timeout)
}

// Kill is a crash: SIGKILL, no handover; it returns once the JVM is gone.
func (n *Node) Kill() error {
	if err := n.signal(syscall.SIGKILL); err != nil {
		return err
	}
	if !n.waitGone(10 * time.Second) {
		return fmt.Errorf("node %d (pid %d) still there 10s after SIGKILL", n.ID, n.Pid)
	}
	return nil
}

// Pause is a hung host: SIGSTOP, alive but silent. It returns once the kernel
// shows the process stopped, so a test's next step meets a paused node.
func (n *Node) Pause() error {
	if err := n.signal(syscall.SIGSTOP); err != nil {
		return err
	}
	for range 50 {
		if n.Paused() {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("node %d (pid %d) not stopped 1s after SIGSTOP", n.ID, n.Pid)
}

// Resume undoes Pause (SIGCONT).
func (n *Node) Resume() error { return n.signal(syscall.SIGCONT) }

func (n *Node) signal(sig syscall.Signal) error {
	if !n.Running() {
		return fmt.Errorf("node %d is not running", n.ID)
	}
	if err := syscall.Kill(n.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("node %d: %s: %w", n.ID, sig, err)
	}
	return nil
}

// waitGone reports whether the JVM was gone within d.
func (n *Node) waitGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for n.Running() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

// procState is the state letter of /proc/PID/stat ("" if unreadable).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name in parentheses may hold spaces: the state follows ") ".
	s := string(b)
	if i := strings.LastIndex(s, ") "); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

// logSize is the length of the node's log, so that a failed start can be
// diagnosed from what this launch wrote.
func (n *Node) logSize() int64 {
	fi, err := os.Stat(n.LogPath())
	if err != nil {
		return 0
	}
	return fi.Size()
}

// portTaken reports whether the node's log says, after byte from, that a port
// was bound by someone else between FreePorts and the JVM's bind: worth a
// retry with new ports. (Diagnosis of a failed start only; readiness is
// asked of the cluster.)
func (n *Node) portTaken(from int64) bool {
	b, err := os.ReadFile(n.LogPath())
	return err == nil && int64(len(b)) >= from && strings.Contains(string(b[from:]), "Address already in use")
}
