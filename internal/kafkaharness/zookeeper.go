package kafkaharness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// RoleZooKeeper is the ZooKeeper server of a ZooKeeper-mode cluster
// (Options.ZooKeeper). It has the controller's id (ControllerID): it starts
// first and stops last, and `kafka.sh broker stop 100` acts on it.
const RoleZooKeeper = "zookeeper"

// zooKeeperMode checks that o can run in ZooKeeper mode: a single node of a
// 3.x release (Kafka 4.0 removed ZooKeeper mode, KIP-833), without tiered
// storage (its tests run in KRaft mode).
func zooKeeperMode(o Options) error {
	switch {
	case atLeast(o.Version, 4, 0):
		return fmt.Errorf("ZooKeeper mode needs a Kafka 3.x release; %s runs in KRaft mode only (KIP-833)", o.Version)
	case o.Brokers > 1:
		return errors.New("ZooKeeper mode runs the single node only, not brokers > 1")
	case o.Tiered:
		return errors.New("tiered storage runs in KRaft mode here, not with ZooKeeper")
	}
	return nil
}

// prepareZooKeeper writes a standalone ZooKeeper server's config in dir/zookeeper
// and adds it to c, on port. The AdminServer (Jetty, port 8080 by default) is
// off, so that clusters side by side do not collide; "srvr" is the one
// four-letter word, the readiness check's.
func (c *Cluster) prepareZooKeeper(logOpt string, port int) error {
	zdir := filepath.Join(c.WorkDir, "zookeeper")
	if err := os.Mkdir(zdir, 0o755); err != nil {
		return err
	}
	props := strings.Join([]string{
		"# Written by internal/kafkaharness: standalone ZooKeeper of a ZooKeeper-mode Kafka for tests.",
		"dataDir=" + filepath.Join(zdir, "data"),
		fmt.Sprintf("clientPort=%d", port),
		"clientPortAddress=127.0.0.1",
		"maxClientCnxns=0",
		"admin.enableServer=false",
		"4lw.commands.whitelist=srvr",
	}, "\n") + "\n"
	config := filepath.Join(zdir, "zookeeper.properties")
	if err := os.WriteFile(config, []byte(props), 0o644); err != nil {
		return err
	}
	args := []string{c.java, "-Xmx64m", "-Xms16m", "-XX:TieredStopAtLevel=1", logOpt,
		"-cp", filepath.Join(c.Libs, "*"), "org.apache.zookeeper.server.quorum.QuorumPeerMain", config}
	c.add(&Node{ID: ControllerID, Role: RoleZooKeeper, Dir: zdir, Port: port, Args: args})
	return nil
}

// zooKeeperServes asks the server at address "srvr": nil once it says it serves
// (standalone mode).
func zooKeeperServes(ctx context.Context, address string) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", address)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := conn.Write([]byte("srvr")); err != nil {
		return err
	}
	var answer strings.Builder
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		answer.WriteString(sc.Text() + "\n")
	}
	if !strings.Contains(answer.String(), "Mode: standalone") {
		return fmt.Errorf("ZooKeeper at %s answers srvr with %q", address, answer.String())
	}
	return nil
}

// afterZooKeeperStart learns the cluster id and gives the test user its SCRAM-SHA-256 and -512 credentials
// through the broker (AlterUserScramCredentials, KIP-554: ZooKeeper mode
// keeps them in ZooKeeper, where StorageTool's --add-scram cannot), and
// returns once a SCRAM-SHA-512 login on the SASL listener succeeds: the
// broker learns of them from a ZooKeeper notification, a moment later.
func (c *Cluster) afterZooKeeperStart(ctx context.Context) error {
	adm, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()), kgo.RequestRetries(3))
	if err != nil {
		return err
	}
	defer adm.Close()
	cred := c.SASL
	var upserts []kadm.UpsertSCRAM
	for _, m := range []kadm.ScramMechanism{kadm.ScramSha256, kadm.ScramSha512} {
		upserts = append(upserts, kadm.UpsertSCRAM{User: cred.User, Mechanism: m, Iterations: 4096, Password: cred.Password})
	}
	res, err := kadm.NewClient(adm).AlterUserSCRAMs(ctx, nil, upserts)
	if err != nil {
		return fmt.Errorf("adding the SCRAM users: %w", err)
	}
	if err := res.Error(); err != nil {
		return fmt.Errorf("adding the SCRAM users: %w", err)
	}
	if c.ClusterID, err = clusterIDOf(ctx, adm); err != nil {
		return err
	}
	for {
		err := scramLogin(ctx, c.SASLBootstrap(), cred)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the SCRAM user cannot log in: %w (last: %w)", ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// clusterIDOf is the id that ZooKeeper gave the cluster, from the broker's metadata.
func clusterIDOf(ctx context.Context, cl *kgo.Client) (string, error) {
	m, err := kadm.NewClient(cl).BrokerMetadata(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the cluster id: %w", err)
	}
	return m.Cluster, nil
}

// scramLogin logs in once over SCRAM-SHA-512 at address and asks for metadata.
func scramLogin(ctx context.Context, address string, cred SASLCredentials) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(address), kgo.RequestRetries(0),
		kgo.SASL(scram.Auth{User: cred.User, Pass: cred.Password}.AsSha512Mechanism()))
	if err != nil {
		return err
	}
	defer cl.Close()
	return cl.Ping(ctx)
}
