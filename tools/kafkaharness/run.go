package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaharness"
)

// runCmd is `run -- CMD ARGS`: a cluster of its own for CMD, stopped however
// this ends (CMD's exit, Ctrl-C, SIGTERM). Its exit status is CMD's.
func runCmd(o kafkaharness.Options, args []string) (code int, err error) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return 2, errors.New("usage: kafkaharness run -- CMD [ARGS...]")
	}
	if servers := os.Getenv("KAFKA_BOOTSTRAP_SERVERS"); servers != "" {
		logf("using KAFKA_BOOTSTRAP_SERVERS=%s", servers)
		path, err := exec.LookPath(args[0])
		if err != nil {
			return 127, err
		}
		return 1, syscall.Exec(path, args, os.Environ())
	}
	// A private state dir unless KAFKA_STATE_DIR names one, so that this run
	// meets neither a cluster of `start` nor a run in parallel.
	if os.Getenv("KAFKA_STATE_DIR") == "" {
		dir, err := os.MkdirTemp("", "kafka-run-state.")
		if err != nil {
			return 1, err
		}
		defer os.RemoveAll(dir)
		o.StateDir = dir
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-sigs: // during the start: it stops what it began
			cancel()
		case <-ctx.Done():
		}
	}()

	began := time.Now()
	c, err := kafkaharness.Start(ctx, o)
	if err != nil {
		return 1, err
	}
	defer func() {
		if serr := c.Stop(); serr != nil {
			err = errors.Join(err, serr)
			if code == 0 {
				code = 1
			}
		}
	}()
	logf("Kafka %s ready in %s at %s; running: %s", c.Version, since(began), c.Bootstrap(), strings.Join(args, " "))
	cancel() // the start is over: signals are CMD's business below
	return runChild(args, append(os.Environ(), c.Env()...), sigs)
}

// runChild runs CMD with env and returns its exit status. A signal to us is
// passed on as SIGTERM, and CMD gets 10 s to finish before SIGKILL, so that
// it ends before the cluster goes away.
func runChild(args, env []string, sigs <-chan os.Signal) (int, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, os.Stdout, os.Stderr, env
	if err := cmd.Start(); err != nil {
		return 127, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitStatus(err)
	case sig := <-sigs:
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			logf("CMD ended after %s: %v", sig, err)
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			logf("CMD killed 10s after %s: %v", sig, <-done)
		}
		code := 130 // SIGINT
		if sig == syscall.SIGTERM {
			code = 143
		}
		return code, fmt.Errorf("%s: stopped CMD", sig)
	}
}

// exitStatus is the exit status of a finished CMD.
func exitStatus(err error) (int, error) {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}
