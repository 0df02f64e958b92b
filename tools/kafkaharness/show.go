package main

import (
	"fmt"
	"strings"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaharness"
)

// shows are the commands that print what the state dir records of a running
// cluster: results on stdout, as kafka.sh did.
var shows = map[string]func(kafkaharness.Options) (int, error){
	"bootstrap": showing(func(c *kafkaharness.Cluster) { fmt.Println(c.Bootstrap()) }),
	"log":       showing(func(c *kafkaharness.Cluster) { fmt.Println(strings.Join(c.Logs(), "\n")) }),
	"env": showing(func(c *kafkaharness.Cluster) {
		for _, kv := range c.Env() {
			k, v, _ := strings.Cut(kv, "=")
			fmt.Printf("export %s=%s\n", k, shellQuote(v))
		}
	}),
	"status": status,
}

// running is the cluster of the state dir if a node of it runs.
func running(o kafkaharness.Options) (*kafkaharness.Cluster, error) {
	c, err := kafkaharness.Attach(o.StateDir)
	if err != nil {
		return nil, err
	}
	if !c.Running() {
		return nil, fmt.Errorf("%w (state dir %s)", kafkaharness.ErrNotRunning, o.StateDir)
	}
	return c, nil
}

func showing(show func(*kafkaharness.Cluster)) func(kafkaharness.Options) (int, error) {
	return func(o kafkaharness.Options) (int, error) {
		c, err := running(o)
		if err != nil {
			return 1, err
		}
		show(c)
		return 0, nil
	}
}

// status: exit 0 if the cluster runs, each node's state on stderr.
func status(o kafkaharness.Options) (int, error) {
	c, err := running(o)
	if err != nil {
		return 1, err
	}
	logf("running: %s, Kafka %s", c.Bootstrap(), c.Version)
	ids := append([]int32{}, c.Brokers...)
	if c.Node(kafkaharness.ControllerID) != nil {
		ids = append(ids, kafkaharness.ControllerID)
	}
	for _, id := range ids {
		n := c.Node(id)
		state := "stopped"
		switch {
		case n.Paused():
			state = fmt.Sprintf("paused, pid %d", n.Pid)
		case n.Running():
			state = fmt.Sprintf("running, pid %d", n.Pid)
		}
		logf("  node %d (%s, %s): %s", id, n.Role, n.Addr(), state)
	}
	return 0, nil
}

// shellQuote quotes v for an export line when it needs it.
func shellQuote(v string) string {
	if v != "" && strings.IndexFunc(v, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && !strings.ContainsRune("/:.,_-=+@%", r)
	}) < 0 {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}
