package kafkaharness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Ports are a single node's loopback ports.
type Ports struct {
	Plaintext  int // clients, no authentication; also the inter-broker listener
	Controller int // KRaft controller quorum; 0 in ZooKeeper mode
	ZooKeeper  int // ZooKeeper's client port in ZooKeeper mode, else 0
	SSL        int // TLS, no client certificate asked
	MTLS       int // TLS, ssl.client.auth=required (principal User:CN=tfacc-client)
	SASL       int // SASL_PLAINTEXT: SASL without TLS
	SASLSSL    int // SASL_SSL: SASL over TLS
}

// serverConfig is what a single combined node's server.properties needs.
type serverConfig struct {
	dir   string // work dir: data/ lives under it
	ports Ports
	tls   TLSFiles
	sasl  SASLCredentials
	acls  bool   // KRaft StandardAuthorizer with User:ANONYMOUS as super user
	extra string // lines appended verbatim (KAFKA_EXTRA_PROPERTIES)
}

// singleNodeProperties are the settings of the single node: KRaft (broker and
// controller in one JVM), or a ZooKeeper-mode broker when c.zooKeeper is set.
func singleNodeProperties(c serverConfig) string {
	client := fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,SSL://127.0.0.1:%d,MTLS://127.0.0.1:%d,"+
		"SASL_PLAINTEXT://127.0.0.1:%d,SASL_SSL://127.0.0.1:%d",
		c.ports.Plaintext, c.ports.SSL, c.ports.MTLS, c.ports.SASL, c.ports.SASLSSL)
	protocols := "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"
	var lines []string
	if c.ports.ZooKeeper != 0 {
		lines = []string{
			"# Written by internal/kafkaharness: single ZooKeeper-mode broker for tests.",
			"broker.id=1",
			fmt.Sprintf("zookeeper.connect=127.0.0.1:%d", c.ports.ZooKeeper),
			"listeners=" + client,
		}
	} else {
		lines = []string{
			"# Written by internal/kafkaharness: single-node KRaft broker for tests.",
			"process.roles=broker,controller",
			"node.id=1",
			// A static voter set works on every KRaft release (3.3 .. 4.x); the
			// dynamic quorum (--standalone) would need 3.9+.
			fmt.Sprintf("controller.quorum.voters=1@127.0.0.1:%d", c.ports.Controller),
			"controller.listener.names=CONTROLLER",
			fmt.Sprintf("listeners=%s,CONTROLLER://127.0.0.1:%d", client, c.ports.Controller),
		}
		protocols = "CONTROLLER:PLAINTEXT," + protocols
	}
	lines = append(lines,
		// Each advertised, so that kafka-go stays on the listener it bootstrapped from.
		"advertised.listeners="+client,
		"inter.broker.listener.name=PLAINTEXT",
		"listener.security.protocol.map="+protocols,
		// PEM key store and trust store (Kafka 2.7+), made by makeCerts.
		"ssl.keystore.type=PEM",
		"ssl.keystore.location="+c.tls.Keystore,
		"ssl.truststore.type=PEM",
		"ssl.truststore.location="+c.tls.CA,
		"ssl.client.auth=none",
		"listener.name.mtls.ssl.client.auth=required",
		"sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER",
	)
	lines = append(lines, saslJAAS(c.sasl)...)
	lines = append(lines, "num.network.threads=2", "num.io.threads=2")
	lines = append(lines, sharedProperties(c.dir, 1)...)
	if c.acls {
		lines = append(lines, authorizer(c.ports.ZooKeeper != 0,
			"User:ANONYMOUS;User:"+SASLUser+";User:CN="+ClientCN+";User:"+OAuthPrincipal)...)
	}
	return withExtra(lines, c.extra)
}

// clusterConfig is what a node of a cluster (KAFKA_BROKERS=N) needs.
type clusterConfig struct {
	dir            string
	id             int32
	role           string // RoleBroker or RoleController
	port           int    // PLAINTEXT (a broker)
	controllerPort int
	brokers        int
	acls           bool
	extra          string
}

// clusterNodeProperties are the settings of a node of a cluster: one
// controller (ControllerID) and brokers on PLAINTEXT only.
func clusterNodeProperties(c clusterConfig) string {
	lines := []string{
		fmt.Sprintf("# Written by internal/kafkaharness: node %d (%s) of a KRaft cluster of %d brokers for tests.", c.id, c.role, c.brokers),
		"process.roles=" + c.role,
		fmt.Sprintf("node.id=%d", c.id),
		fmt.Sprintf("controller.quorum.voters=%d@127.0.0.1:%d", ControllerID, c.controllerPort),
		"controller.listener.names=CONTROLLER",
		"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
	}
	if c.role == RoleController {
		lines = append(lines, fmt.Sprintf("listeners=CONTROLLER://127.0.0.1:%d", c.controllerPort),
			// It serves only the brokers' heartbeats and metadata fetches.
			"num.network.threads=1", "num.io.threads=1")
	} else {
		lines = append(lines, fmt.Sprintf("listeners=PLAINTEXT://127.0.0.1:%d", c.port),
			fmt.Sprintf("advertised.listeners=PLAINTEXT://127.0.0.1:%d", c.port),
			"inter.broker.listener.name=PLAINTEXT",
			"num.network.threads=2", "num.io.threads=2", "num.replica.fetchers=1")
	}
	lines = append(lines, sharedProperties(c.dir, c.brokers)...)
	if c.acls {
		lines = append(lines, authorizer(false, "User:ANONYMOUS")...)
	}
	return withExtra(lines, c.extra)
}

// sharedProperties are the settings of every node, single or in a cluster of
// brokers: internal topics and default.replication.factor get min(3, brokers)
// replicas, min.insync.replicas is 2 from 3 brokers on (1 below), as in
// production, so that a record acknowledged with acks=all is on two brokers
// and one broker killed never loses it.
func sharedProperties(dir string, brokers int) []string {
	rf, minISR, internalParts := min(3, brokers), 1, 1
	if brokers >= 3 {
		minISR = 2
	}
	if brokers > 1 {
		internalParts = 3
	}
	return []string{
		"log.dirs=" + filepath.Join(dir, "data"),
		"auto.create.topics.enable=true",
		"num.partitions=1",
		fmt.Sprintf("default.replication.factor=%d", rf),
		fmt.Sprintf("min.insync.replicas=%d", minISR),
		fmt.Sprintf("offsets.topic.replication.factor=%d", rf),
		fmt.Sprintf("offsets.topic.num.partitions=%d", internalParts),
		fmt.Sprintf("transaction.state.log.replication.factor=%d", rf),
		fmt.Sprintf("transaction.state.log.min.isr=%d", minISR),
		fmt.Sprintf("transaction.state.log.num.partitions=%d", internalParts),
		fmt.Sprintf("share.coordinator.state.topic.replication.factor=%d", rf),
		fmt.Sprintf("share.coordinator.state.topic.min.isr=%d", minISR),
		"share.coordinator.state.topic.num.partitions=1",
		"group.initial.rebalance.delay.ms=0",
		// Small segments and fewer threads: tests write little, the box has 2 cores.
		"log.segment.bytes=16777216",
		"log.retention.check.interval.ms=60000",
		// The log cleaner allocates its dedupe buffer on the heap (128 MiB default).
		"log.cleaner.dedupe.buffer.size=16777216",
		"num.recovery.threads.per.data.dir=1",
		"background.threads=2",
	}
}

// authorizer: ACL APIs answer SECURITY_DISABLED without one; with every test
// principal a super user, ACLs can be made but never deny (KAFKA_ACLS=0 turns it off).
// ZooKeeper mode has its own authorizer (ACLs in ZooKeeper), with the same rules.
func authorizer(zooKeeper bool, superUsers string) []string {
	class := "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
	if zooKeeper {
		class = "kafka.security.authorizer.AclAuthorizer"
	}
	return []string{"authorizer.class.name=" + class, "super.users=" + superUsers}
}

// withExtra appends KAFKA_EXTRA_PROPERTIES verbatim and joins the lines.
func withExtra(lines []string, extra string) string {
	if extra != "" {
		lines = append(lines, strings.TrimRight(extra, "\n"))
	}
	return strings.Join(lines, "\n") + "\n"
}

// saslJAAS configures the same four mechanisms on both SASL listeners. PLAIN
// users come from the JAAS options, SCRAM users from the metadata log (format
// --add-scram), OAUTHBEARER tokens are checked by Kafka's default server
// callback, the unsecured-JWS validator (alg "none"; it fetches nothing).
func saslJAAS(cred SASLCredentials) []string {
	var lines []string
	for _, l := range []string{"sasl_plaintext", "sasl_ssl"} {
		p := "listener.name." + l + "."
		lines = append(lines,
			p+"plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_"+
				cred.User+"=\""+cred.Password+"\";",
			p+"scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;",
			p+"scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;",
			p+"oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "+
				"unsecuredLoginStringClaim_sub=\"broker\";")
	}
	return lines
}

// Kafka 3.x logs through reload4j, 4.x through log4j2; both send everything
// at INFO to stdout (the node's broker.log) but the chatty request logger.
const (
	log4jProperties = `log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
`
	log4j2Properties = `status = warn
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.request.name = kafka.request.logger
logger.request.level = WARN
`
)

func legacyLogging(version string) bool { return strings.HasPrefix(version, "3.") }

// writeLogConfig writes the log config for version into dir and returns the
// JVM option that points to it (the storage tool and the broker share it).
func writeLogConfig(dir, version string) (string, error) {
	name, body, opt := "log4j2.properties", log4j2Properties, "-Dlog4j2.configurationFile="
	if legacyLogging(version) {
		name, body, opt = "log4j.properties", log4jProperties, "-Dlog4j.configuration=file:"
	}
	path := filepath.Join(dir, name)
	return opt + path, os.WriteFile(path, []byte(body), 0o644)
}
