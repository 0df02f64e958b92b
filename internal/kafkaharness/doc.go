// Package kafkaharness runs a real Apache Kafka node for tests and demos, as
// Go: it fetches the broker jars with Maven (tools/kafka/pom.xml, the cache
// shared with tools/kafka.sh), writes the config, formats KRaft storage,
// starts the JVM as a child process and asks the cluster itself (franz-go
// kadm) whether it is ready, rather than grepping its log. It is stage 1 of
// replacing tools/kafka.sh (issue 20): the single node only, with all of its
// listeners (PLAINTEXT, SSL, MTLS, SASL_PLAINTEXT, SASL_SSL) and tiered
// storage, and the streams group tests' app (internal/acctest builds it with
// StreamsApp); the other tests and the make targets still use kafka.sh.
//
// A node is this process's child (Node): stopping it is SIGTERM then SIGKILL
// after a bound, and if this process dies the node is killed with it
// (Pdeathsig), so no broker outlives a crashed test. kafka.sh's detached
// broker, state dir and pid files have no counterpart; a command that must
// outlive its caller (make kafka-up) is still open.
//
// kafka.sh function → Go replacement:
//
//	do_download              Jars (+ mavenCopy, lockFile: same coordinates, cache, marker, flock)
//	free_ports, port_open    FreePorts (net.Listen on 127.0.0.1:0)
//	random_cluster_id        clusterID
//	make_certs               makeCerts (crypto/x509: CA, broker, client; EC P-256, 2 days)
//	make_credentials         newCredentials (random password; user names as constants)
//	write_config (1 node)    singleNodeProperties, saslJAAS (all five listeners; ACLs; extra lines)
//	write_log_config         writeLogConfig (returns the JVM option, replaces jvm_opts)
//	start_once (format part) formatStorage (with --add-scram for both SCRAM mechanisms)
//	launch_node              Node.launch (os/exec, own process group)
//	start_once (wait), wait_ready   waitReady (kadm BrokerMetadata: want brokers and a controller)
//	do_start (retry loop)    StartSingle (retries when a port was taken)
//	stop_pids, node_stop, wait_gone, alive   Node.Stop (SIGTERM+SIGCONT, SIGKILL after StopTimeout)
//	do_broker kill/pause/resume   Node.Kill, Node.Pause, Node.Resume
//	do_broker start, node_start   Single.StartAgain (restart = Node.Stop + StartAgain)
//	do_stop (single node)    Single.Stop (removes the work dir unless KeepDir)
//	do_run                   tools/kafkaharness "run -- CMD" (the same variables)
//	tiered_properties        tieredProperties (Options.Tiered, KAFKA_TIERED=1); waitTiered
//	                         (ready once __remote_log_metadata is listed: stopped earlier, the node hangs)
//	compile_rsm              compileRSM (javaBuild.compile: <cache>/kafka-V/rsm-<hash>, under the cache lock)
//	do_streams_app           StreamsApp (mavenArtifact + javaBuild.compile: streams-<hash>);
//	                         tools/kafkaharness "streams-app"
//
// Not ported yet: write_cluster_config and start_cluster_once
// (KAFKA_BROKERS=N: a controller and N brokers; readiness would ask for N
// brokers; kafka.sh refuses KAFKA_TIERED=1 there); the state dir
// (lock_state, running_pid, pid_from, clear_state: the
// start/stop/bootstrap/env/log/status commands across processes, which need a
// node that outlives the command); and most KAFKA_* environment parsing
// (KAFKA_HEAP_OPTS, KAFKA_START_TIMEOUT; the command reads a few others).
package kafkaharness
