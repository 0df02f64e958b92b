// Command kafkaharness runs a real Apache Kafka on loopback for tests and
// demos, through internal/kafkaharness; tools/kafka.sh is a wrapper of it, so
// its commands and environment are kafka.sh's:
//
//	download          fetch the jars into the cache only; print their dir
//	start             start a cluster, detached (it outlives this command,
//	                  for make kafka-up); print its bootstrap address
//	stop              stop it and delete its files (no-op if none)
//	run -- CMD ARGS   start a cluster of its own, run CMD with the variables
//	                  of env set, always stop it; exit with CMD's status. If
//	                  KAFKA_BOOTSTRAP_SERVERS is already set, just run CMD.
//	bootstrap         print the running cluster's bootstrap address
//	env               print its variables as export lines
//	log               print its nodes' logs, one path a line
//	status            exit 0 if it runs (the nodes on stderr)
//	streams-app       build the streams group tests' Kafka Streams app once
//	                  (4.x); print its class path besides the broker's jars
//	broker VERB ID    stop|kill|pause|resume|start|restart node ID (1..N,
//	                  the controller 100), keeping its data, config and port
//
// Environment: KAFKA_VERSION (default 4.4.0), KAFKA_CACHE_DIR, KAFKA_STATE_DIR
// (default /tmp/terraform-provider-kafka-broker; run uses a private one
// unless it is set), KAFKA_BROKERS (1: the single node with its TLS and SASL
// listeners; 2..9: a controller and N brokers, PLAINTEXT only),
// KAFKA_HEAP_OPTS, KAFKA_CONTROLLER_HEAP_OPTS, KAFKA_START_TIMEOUT (seconds),
// KAFKA_ACLS=0, KAFKA_EXTRA_PROPERTIES, KAFKA_KEEP_WORKDIR=1, KAFKA_TIERED=1 (tiered
// storage on the single node), KAFKA_ZOOKEEPER=1 (the single node in ZooKeeper
// mode beside a ZooKeeper server, node 100; Kafka 3.x). stdout carries
// only results; progress goes to stderr.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaharness"
)

func main() {
	code, err := run(os.Args[1:])
	if err != nil {
		logf("error: %v", err)
	}
	os.Exit(code)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "kafkaharness: "+format+"\n", args...)
}

const usage = "usage: kafkaharness download | start | stop | run -- CMD [ARGS...] | bootstrap | env | log | " +
	"status | streams-app | broker stop|kill|pause|resume|start|restart ID"

func run(args []string) (int, error) {
	if len(args) == 0 {
		return 2, errors.New(usage)
	}
	o, err := options()
	if err != nil {
		return 2, err
	}
	if args[0] == "run" {
		return runCmd(o, args[1:])
	}
	// SIGINT/SIGTERM end the context: a start in progress stops what it began.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch {
	case args[0] == "download":
		libs, err := kafkaharness.Jars(ctx, o)
		if err == nil {
			fmt.Println(libs)
		}
		return exit(err)
	case args[0] == "start":
		return exit(start(ctx, o))
	case args[0] == "streams-app":
		cp, err := kafkaharness.StreamsApp(ctx, o)
		if err == nil {
			fmt.Println(cp)
		}
		return exit(err)
	case args[0] == "stop":
		return exit(stopCluster(o))
	case args[0] == "broker" && len(args) == 3:
		return exit(broker(ctx, o, args[1], args[2]))
	case len(args) == 1:
		if show, ok := shows[args[0]]; ok {
			return show(o)
		}
	}
	return 2, errors.New(usage)
}

func exit(err error) (int, error) {
	if err != nil {
		return 1, err
	}
	return 0, nil
}

// options are kafka.sh's environment variables.
func options() (kafkaharness.Options, error) {
	pom, err := findPom()
	if err != nil {
		return kafkaharness.Options{}, err
	}
	o := kafkaharness.Options{
		Version:        os.Getenv("KAFKA_VERSION"),
		Cache:          os.Getenv("KAFKA_CACHE_DIR"),
		Pom:            pom,
		Heap:           fields("KAFKA_HEAP_OPTS"),
		ControllerHeap: fields("KAFKA_CONTROLLER_HEAP_OPTS"),
		NoACLs:         os.Getenv("KAFKA_ACLS") == "0",
		Extra:          os.Getenv("KAFKA_EXTRA_PROPERTIES"),
		KeepDir:        os.Getenv("KAFKA_KEEP_WORKDIR") == "1",
		Tiered:         os.Getenv("KAFKA_TIERED") == "1",
		ZooKeeper:      os.Getenv("KAFKA_ZOOKEEPER") == "1",
		StateDir:       os.Getenv("KAFKA_STATE_DIR"),
	}
	if o.StateDir == "" {
		o.StateDir = kafkaharness.DefaultStateDir
	}
	if s := os.Getenv("KAFKA_START_TIMEOUT"); s != "" {
		secs, err := strconv.Atoi(s)
		if err != nil || secs <= 0 {
			return o, fmt.Errorf("KAFKA_START_TIMEOUT must be a number of seconds, not %q", s)
		}
		o.StartTimeout = time.Duration(secs) * time.Second
	}
	if s := os.Getenv("KAFKA_BROKERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 9 {
			return o, fmt.Errorf("KAFKA_BROKERS must be 1 to 9, not %q", s)
		}
		o.Brokers = n
	}
	return o, nil
}

// findPom finds tools/kafka/pom.xml from the binary (tools/kafka.sh builds it
// into the repository's bin/, and may be called from anywhere), else from the
// working directory (go run).
func findPom() (string, error) {
	if exe, err := os.Executable(); err == nil {
		if pom, err := kafkaharness.FindPom(filepath.Dir(exe)); err == nil {
			return pom, nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return kafkaharness.FindPom(wd)
}

// fields splits a variable of JVM options; nil (the default) if unset.
func fields(name string) []string {
	if v, ok := os.LookupEnv(name); ok && strings.TrimSpace(v) != "" {
		return strings.Fields(v)
	}
	return nil
}

func start(ctx context.Context, o kafkaharness.Options) error {
	o.Detached = true
	began := time.Now()
	c, err := kafkaharness.Start(ctx, o)
	if err != nil {
		return err
	}
	logf("Kafka %s ready in %s: %s, logs %s (state dir %s)", c.Version, since(began), c.Bootstrap(),
		strings.Join(c.Logs(), " "), o.StateDir)
	fmt.Println(c.Bootstrap())
	return nil
}

func stopCluster(o kafkaharness.Options) error {
	c, err := kafkaharness.Attach(o.StateDir)
	if errors.Is(err, kafkaharness.ErrNotRunning) {
		return nil
	}
	if err != nil {
		return err
	}
	c.KeepDir = c.KeepDir || o.KeepDir
	if c.KeepDir {
		logf("keeping %s", c.WorkDir)
	}
	return c.Stop()
}

func broker(ctx context.Context, o kafkaharness.Options, verb, id string) error {
	n, err := strconv.ParseInt(id, 10, 32)
	if err != nil {
		return fmt.Errorf("node id %q is not a number; %s", id, usage)
	}
	c, err := kafkaharness.Attach(o.StateDir)
	if err != nil {
		return err
	}
	began := time.Now()
	if err := c.Do(ctx, verb, int32(n)); err != nil {
		return err
	}
	logf("node %d: %s done in %s", n, verb, since(began))
	return nil
}

func since(t time.Time) time.Duration { return time.Since(t).Round(100 * time.Millisecond) }
