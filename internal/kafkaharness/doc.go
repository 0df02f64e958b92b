// Package kafkaharness runs a real Apache Kafka cluster for tests and demos,
// as Go: it fetches the broker jars with Maven (tools/kafka/pom.xml, the
// cache ~/.cache/terraform-provider-kafka), writes the configs, formats KRaft
// storage, starts the JVMs and asks the cluster itself (franz-go) whether it
// is ready, rather than grepping logs. tools/kafkaharness is its command
// (download, start, stop, run, bootstrap, env, log, status, broker VERB ID),
// which tools/kafka.sh wraps. The single node can run tiered storage
// (Options.Tiered, Kafka 3.6+) or, on Kafka 3.x, ZooKeeper mode beside a
// standalone ZooKeeper server (Options.ZooKeeper; the server is node 100);
// StreamsApp builds the streams group tests' app. Kafka 3.3 and later start.
//
// A Cluster is the single combined node (id 1, broker and controller, with
// PLAINTEXT, SSL, MTLS, SASL_PLAINTEXT and SASL_SSL listeners) or, with
// Options.Brokers = N, a controller (ControllerID, 100) and brokers 1..N on
// PLAINTEXT. Its nodes are acted on by id with Do (stop, kill, pause, resume,
// start, restart: kafka.sh's broker verbs). A Node is known by its pid, which
// /proc must show running kafka.Kafka on the node's config (a guard against
// pid reuse), so that any process can act on it.
//
// With Options.StateDir the cluster is recorded there (state.json, guarded
// by flock on .lock): Attach in another process (a chaos test under
// `kafka.sh run`) loads it, and every verb reloads the pids first and
// records a new one after, so that the owner's Stop stops a node that the
// test restarted. Nodes started by the owner die with it (Pdeathsig) unless
// Options.Detached (the command's start, for make kafka-up); nodes started
// again through Attach are always detached (own session), because the test
// process ends before the owner stops the cluster.
package kafkaharness
