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
// there then is killed (kafka.sh allows a single node 20 s, a cluster node 60 s).
const StopTimeout = 60 * time.Second

// Node is one Kafka JVM that this process started and owns: its child, so
// Wait reaps it and no pid can be reused behind our back (kafka.sh had to
// check /proc/PID/cmdline for that).
type Node struct {
	ID      int32
	Dir     string // server.properties, data/, broker.log
	Heap    []string
	libs    string
	logOpt  string
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the JVM has exited and was reaped
	exitErr error         // Wait's result, valid once exited is closed
}

// LogPath is the node's log (stdout and stderr of every launch, appended).
func (n *Node) LogPath() string { return filepath.Join(n.Dir, "broker.log") }

// launch starts the JVM on the node's config. The same call starts it again
// after Stop or Kill, keeping data, config and ports.
func (n *Node) launch() error {
	if n.Running() {
		return fmt.Errorf("node %d is already running (pid %d)", n.ID, n.cmd.Process.Pid)
	}
	logf, err := os.OpenFile(n.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child holds its own copy
	args := append(append([]string{}, n.Heap...),
		"-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:+ExplicitGCInvokesConcurrent",
		"-Djava.awt.headless=true", n.logOpt, "-cp", filepath.Join(n.libs, "*"),
		"kafka.Kafka", filepath.Join(n.Dir, "server.properties"))
	cmd := exec.Command("java", args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Its own process group: a terminal's Ctrl-C reaches us, and we stop
		// the node in order, rather than the JVM dying mid-test.
		Setpgid: true,
		// If this process dies without stopping it, the node goes too: no
		// broker is left running behind a crashed test. (Linux ties this to
		// the forking OS thread; Go keeps its threads unless a goroutine
		// exits while locked to one, which this package never does.)
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting node %d: %w", n.ID, err)
	}
	n.cmd, n.exited = cmd, make(chan struct{})
	go func(exited chan struct{}) {
		n.exitErr = cmd.Wait()
		close(exited)
	}(n.exited)
	return nil
}

// Running reports whether the JVM was launched and has not exited.
func (n *Node) Running() bool {
	if n.exited == nil {
		return false
	}
	select {
	case <-n.exited:
		return false
	default:
		return true
	}
}

// Pid is the JVM's process id, 0 if it never ran.
func (n *Node) Pid() int {
	if n.cmd == nil {
		return 0
	}
	return n.cmd.Process.Pid
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
	if n.waitExit(timeout) {
		return nil
	}
	_ = n.Kill()
	return fmt.Errorf("node %d (pid %d) did not stop within %s of SIGTERM; killed it", n.ID, n.Pid(), timeout)
}

// Kill is a crash: SIGKILL, no handover; it returns once the JVM is reaped.
func (n *Node) Kill() error {
	if !n.Running() {
		return fmt.Errorf("node %d is not running", n.ID)
	}
	if err := n.signal(syscall.SIGKILL); err != nil {
		return err
	}
	if !n.waitExit(10 * time.Second) {
		return fmt.Errorf("node %d (pid %d) still there 10s after SIGKILL", n.ID, n.Pid())
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
		if n.procState() == "T" || n.procState() == "t" {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("node %d (pid %d) not stopped 1s after SIGSTOP", n.ID, n.Pid())
}

// Resume undoes Pause (SIGCONT).
func (n *Node) Resume() error { return n.signal(syscall.SIGCONT) }

func (n *Node) signal(sig syscall.Signal) error {
	if !n.Running() {
		return fmt.Errorf("node %d is not running", n.ID)
	}
	if err := n.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("node %d: %s: %w", n.ID, sig, err)
	}
	return nil
}

// waitExit reports whether the JVM exited within d.
func (n *Node) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-n.exited:
		return true
	case <-t.C:
		return false
	}
}

// procState is the state letter of /proc/PID/stat ("" if unreadable).
func (n *Node) procState() string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n.Pid()))
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

// portTaken reports whether the node's log says a port was bound by someone
// else between FreePorts and the JVM's bind: worth a retry with new ports.
// (Diagnosis of a failed start only; readiness is asked of the cluster.)
func (n *Node) portTaken() bool {
	b, err := os.ReadFile(n.LogPath())
	return err == nil && strings.Contains(string(b), "Address already in use")
}
