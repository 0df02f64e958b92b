// Package kafkaharness runs a real Apache Kafka cluster for tests and demos,
// as Go: it fetches the broker jars with Maven (tools/kafka/pom.xml, the
// cache ~/.cache/terraform-provider-kafka), writes the configs, formats KRaft
// storage, starts the JVMs and asks the cluster itself (franz-go) whether it
// is ready, rather than grepping logs. tools/kafkaharness is its command
// (download, start, stop, run, bootstrap, env, log, status, broker VERB ID),
// which tools/kafka.sh wraps. The single node can run tiered storage
// (Options.Tiered); StreamsApp builds the streams group tests' app.
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
//
// What each function of the old tools/kafka.sh (bash, until this package) became:
//
//	do_download              Jars (+ mavenCopy, lockFile: same coordinates, cache, marker, flock)
//	free_ports, port_open    FreePorts (net.Listen on 127.0.0.1:0)
//	random_cluster_id        clusterID
//	make_certs               makeCerts (crypto/x509: CA, broker, client; EC P-256, 2 days)
//	make_credentials         newCredentials (random password; user names as constants)
//	write_config             singleNodeProperties, saslJAAS, sharedProperties, authorizer
//	write_cluster_config     clusterNodeProperties (+ sharedProperties: min(3,N) replicas, min ISR 2 from 3)
//	write_log_config, jvm_opts   writeLogConfig (returns the JVM option)
//	start_once, start_cluster_once   prepareSingle, prepareCluster, formatStorage, Cluster.launchAll
//	launch_node              Node.launch (os/exec; own session if detached, else Pdeathsig)
//	wait_ready               Cluster.waitNode (a broker's metadata lists it; the controller's DescribeCluster)
//	do_start (retry loop)    Start (retries when a port was taken)
//	lock_state, running_pid, pid_from, alive, clear_state   state.go (claimStateDir, locked, load, save), Node.Running
//	do_broker, node_stop, node_start, wait_gone   Cluster.Do, Node.Stop/Kill/Pause/Resume
//	do_stop, stop_nodes, stop_pids   Cluster.Stop (brokers together, then the controller)
//	do_run, stop_child, start/stop/bootstrap/env/log/status   tools/kafkaharness
//	tiered_properties        tieredProperties (Options.Tiered, KAFKA_TIERED=1); waitTiered
//	                         (ready once __remote_log_metadata is listed: stopped earlier, the node hangs)
//	compile_rsm              compileRSM (javaBuild.compile: <cache>/kafka-V/rsm-<hash>, under the cache lock)
//	do_streams_app           StreamsApp (mavenArtifact + javaBuild.compile: streams-<hash>);
//	                         tools/kafkaharness "streams-app"
package kafkaharness
