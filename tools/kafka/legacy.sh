#!/usr/bin/env bash
# Run a real single-node Apache Kafka broker (KRaft, combined broker+controller)
# on loopback, for tests and demos, or with KAFKA_BROKERS=N a cluster of N
# brokers for the chaos tests. No Docker here: the broker jars come from
# Maven Central (tools/kafka/pom.xml) and run on the local java.
#
# Usage:
#   tools/kafka.sh download          fetch the jars into the cache only
#   tools/kafka.sh start             start a broker; prints its bootstrap address
#   tools/kafka.sh stop              stop it and delete its files (no-op if none)
#   tools/kafka.sh run -- CMD ARGS   start, run CMD with KAFKA_BOOTSTRAP_SERVERS
#                                    and the variables below set, always stop;
#                                    exits with CMD's status. If
#                                    KAFKA_BOOTSTRAP_SERVERS is already set, just
#                                    runs CMD against that (no TLS/SASL variables).
#                                    CMD also gets KAFKA_BROKER_LOG (the broker's
#                                    log) and KAFKA_LIBS (its jars, for Kafka's
#                                    Java tools).
#   tools/kafka.sh bootstrap         print the running broker's bootstrap address
#   tools/kafka.sh env               print the variables below as export lines
#   tools/kafka.sh log               print the path of the running broker's log
#   tools/kafka.sh status            exit 0 if a broker is running
#   tools/kafka.sh streams-app       fetch Kafka Streams of this version and
#                                    compile tools/kafka/StreamsReader.java
#                                    (group.protocol=streams: 4.4.0, not 3.9.1),
#                                    once; print the class path the app needs
#                                    besides the broker's jars
#   tools/kafka.sh broker VERB ID    act on one node of the running cluster,
#                                    keeping its data, config and port (ID 1
#                                    in single-node mode; 1..N, or the
#                                    controller 100, with KAFKA_BROKERS=N):
#        stop     SIGTERM (Kafka's controlled shutdown), wait until it exited
#        kill     SIGKILL, wait until it is gone (a crash: no handover)
#        pause    SIGSTOP (alive, silent: a hung host)
#        resume   SIGCONT
#        start    launch it again, wait until it serves ("Kafka Server
#                 started": a restarted broker is registered and unfenced)
#        restart  stop, then start
#
# Environment:
#   KAFKA_VERSION        Kafka release from Maven Central (default 4.4.0;
#                        3.x releases from 3.3 on work too, e.g. 3.9.1)
#   KAFKA_CACHE_DIR      jar cache (default ~/.cache/terraform-provider-kafka)
#   KAFKA_STATE_DIR      where the running broker is recorded (default
#                        /tmp/terraform-provider-kafka-broker; "run" uses a
#                        private one unless this is set, so that runs in
#                        parallel do not meet, and exports it to CMD)
#   KAFKA_HEAP_OPTS      JVM heap (default "-Xmx256m -Xms64m": enough for
#                        hundreds of partitions; raise it for heavy loads)
#   KAFKA_START_TIMEOUT  seconds to wait for the broker (default 90)
#   KAFKA_ACLS           1 (default): enable the KRaft ACL authorizer, with the
#                        PLAINTEXT user (User:ANONYMOUS) as super user, so ACL
#                        APIs work without restricting anything; 0: no authorizer
#   KAFKA_EXTRA_PROPERTIES  extra server.properties lines appended verbatim
#   KAFKA_TIERED         1: tiered storage (KIP-405) on the single node, the
#                        remote tier a directory of its work dir
#                        (tools/kafka/FileRemoteStorage.java, compiled with
#                        javac once per version), Kafka's topic-based
#                        metadata manager, 1 s task and retention intervals.
#                        Topics opt in with remote.storage.enable=true.
#   KAFKA_KEEP_WORKDIR   1: "stop" keeps the broker's temp dir (config, log)
#   KAFKA_BROKERS        1 (default): the single combined node below. N (2..9):
#                        a KRaft cluster on loopback of one controller (node id
#                        100) and N brokers (node ids 1..N), PLAINTEXT only (no
#                        TLS/SASL listeners, no KAFKA_TEST_* variables), for the
#                        chaos tests. Internal topics and default.replication.factor
#                        get min(3,N) replicas; min.insync.replicas is 2 from 3
#                        brokers on (1 below), as in production, so that a record
#                        acknowledged with acks=all is on two brokers and one
#                        broker killed never loses it. Each broker gets
#                        KAFKA_HEAP_OPTS, the controller KAFKA_CONTROLLER_HEAP_OPTS
#                        (default "-Xmx128m -Xms32m"). broker.session.timeout.ms
#                        stays at Kafka's 9 s. KAFKA_EXTRA_PROPERTIES goes to every
#                        node. Besides KAFKA_BOOTSTRAP_SERVERS (every broker),
#                        "env" and "run" give KAFKA_BROKER_IDS ("1 2 3"),
#                        KAFKA_BROKER_<id>_ADDR per broker and
#                        KAFKA_CONTROLLER_ADDR; KAFKA_BROKER_LOG lists every
#                        node's log, ':'-separated. In single-node mode
#                        KAFKA_BROKER_IDS=1 and KAFKA_BROKER_1_ADDR are set too.
#
# Listeners: the one broker serves PLAINTEXT (KAFKA_BOOTSTRAP_SERVERS, no
# authentication, as always) and, for the TLS/SASL tests, on more loopback ports:
#   SSL             TLS, no client certificate asked    KAFKA_SSL_BOOTSTRAP_SERVERS
#   MTLS (SSL)      TLS, ssl.client.auth=required        KAFKA_MTLS_BOOTSTRAP_SERVERS
#   SASL_PLAINTEXT  SASL without TLS                     KAFKA_SASL_PLAINTEXT_BOOTSTRAP_SERVERS
#   SASL_SSL        SASL over TLS                        KAFKA_SASL_SSL_BOOTSTRAP_SERVERS
# Both SASL listeners enable PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER
# (Kafka's unsecured-JWS validator: any token with alg "none" and a "sub"
# claim; the tests serve the token endpoint themselves).
# Exported to CMD by "run" (and printed by "env"); the TEST_ names keep them
# away from the provider's own KAFKA_SASL_* / KAFKA_CA_CERT fallbacks:
#   KAFKA_TEST_CA_FILE           PEM of the test CA (signed the broker's and
#                                the client's certificate; made at start time)
#   KAFKA_TEST_CLIENT_CERT_FILE  PEM client certificate, CN=tfacc-client
#   KAFKA_TEST_CLIENT_KEY_FILE   PEM (PKCS#8) key of that certificate
#   KAFKA_TEST_SASL_USERNAME     user for PLAIN, SCRAM-SHA-256, SCRAM-SHA-512
#   KAFKA_TEST_SASL_PASSWORD     its password (random per start)
#   KAFKA_TEST_OAUTH_PRINCIPAL   the "sub" an OAUTHBEARER token needs to be a
#                                super user (any sub authenticates)
# Super users (KAFKA_ACLS=1): User:ANONYMOUS (PLAINTEXT, SSL), the SASL user,
# User:CN=tfacc-client (MTLS) and the OAuth principal.
# Needs openssl: certificates are generated into the broker's temp dir at
# start, no key is committed. SCRAM users are created when formatting.
#
# stdout carries only results (the bootstrap address, the log path); progress
# goes to stderr, so `addr=$(tools/kafka.sh start)` works.

set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pom="$script_dir/kafka/pom.xml"

version=${KAFKA_VERSION:-4.4.0}
cache_root=${KAFKA_CACHE_DIR:-${HOME:-/tmp}/.cache/terraform-provider-kafka}
libs="$cache_root/kafka-$version/libs"
state_dir=${KAFKA_STATE_DIR:-/tmp/terraform-provider-kafka-broker}
heap_opts=${KAFKA_HEAP_OPTS:--Xmx256m -Xms64m}
start_timeout=${KAFKA_START_TIMEOUT:-90}
brokers=${KAFKA_BROKERS:-1}
controller_heap_opts=${KAFKA_CONTROLLER_HEAP_OPTS:--Xmx128m -Xms32m}
controller_id=100

log() { printf 'kafka.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
  sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
  exit 2
}

# ---------------------------------------------------------------- download --

do_download() {
  # The marker is written last, so an interrupted download is redone.
  if [[ -f "$libs/.complete" ]]; then
    return 0
  fi
  command -v mvn >/dev/null || die "mvn not found (needed to fetch Kafka jars)"
  command -v java >/dev/null || die "java not found"

  # Kafka 3.x logs through reload4j, 4.x through log4j2: see the pom.
  local profile=log4j2
  [[ $version == 3.* ]] && profile='reload4j,!log4j2'

  # One download at a time per cache (a second one waits, then finds the
  # marker). fd 8 is released at the end of this function.
  mkdir -p "$(dirname "$libs")"
  if command -v flock >/dev/null; then
    exec 8>"$cache_root/.lock"
    flock -w 600 8 || die "cache $cache_root is locked"
    if [[ -f "$libs/.complete" ]]; then
      exec 8>&-
      return 0
    fi
  fi

  log "downloading Kafka $version jars into $libs (Maven Central)"
  local tmp="$libs.tmp.$$"
  rm -rf "$tmp"
  # mvn's output goes to stderr (stdout is for results only), minus the
  # colour codes Debian's Maven 3.8 prints even in batch mode.
  if ! mvn -q -B -f "$pom" -P "$profile" -Dkafka.version="$version" \
      dependency:copy-dependencies -DincludeScope=runtime \
      -DoutputDirectory="$tmp" 2>&1 | sed $'s/\e\\[[0-9;]*m//g' >&2; then
    rm -rf "$tmp"
    rmdir "$(dirname "$libs")" 2>/dev/null || true
    die "could not resolve org.apache.kafka:kafka_2.13:$version"
  fi
  rm -rf "$libs"
  mv "$tmp" "$libs"
  echo "$version" >"$libs/.complete"
  exec 8>&-
  log "downloaded $(find "$libs" -name '*.jar' | wc -l) jars ($(du -sh "$libs" | cut -f1))"
}

# ------------------------------------------------------------------ state --

# Serialises start/stop on one state dir (two starts racing would both find
# no broker). fd 9 is held until this script exits; the broker must not
# inherit it (nor fd 8, see do_download): see start_once.
locked=
lock_state() {
  [[ -n $locked ]] && return 0
  mkdir -p "$state_dir"
  if command -v flock >/dev/null; then
    exec 9>"$state_dir/.lock"
    flock -w 300 9 || die "state dir $state_dir is locked"
  fi
  locked=1
}

# Prints the recorded pid if that process is still our broker (in cluster
# mode: the controller, which lives as long as the cluster).
running_pid() {
  pid_from "$state_dir/pid"
}

# Prints the pid recorded in FILE if that process is still a kafka.Kafka JVM
# (a guard against pid reuse) and not a zombie.
pid_from() { # file
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q 'kafka\.Kafka ' || return 1
  alive "$pid" || return 1
  echo "$pid"
}

# A process that exited but was not reaped yet (a zombie: in a container the
# init process may never reap it) counts as gone.
alive() { # pid
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $state && $state != Z && $state != X ]]
}

# N distinct free TCP ports on 127.0.0.1. The kernel picks them (bind to
# port 0); the tiny race until the broker binds is handled by a retry in
# do_start.
free_ports() { # N
  local n=$1
  if command -v python3 >/dev/null; then
    python3 - "$n" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
    return
  fi
  # Fallback: random high ports that refuse connections.
  local ports=() p
  while ((${#ports[@]} < n)); do
    p=$((20000 + RANDOM % 40000))
    [[ " ${ports[*]} " == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then ports+=("$p"); fi
  done
  echo "${ports[@]}"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

random_cluster_id() {
  # Kafka cluster ids are 16 random bytes, base64url without padding. One in
  # 64 would start with "-", which StorageTool's argument parser takes for an
  # option: Kafka's own Uuid.randomUuid draws again then, and so do we.
  if command -v python3 >/dev/null; then
    python3 -c 'import base64,uuid
while True:
    s = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    if not s.startswith("-"):
        print(s)
        break'
  else
    java -cp "$libs/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n1
  fi
}

# ------------------------------------------------------------------ start --

# Test user names; the password is random per start (make_credentials).
sasl_user=tfacc
oauth_principal=tfacc-oauth
client_cn=tfacc-client

# A CA, a broker certificate for localhost/127.0.0.1 and a client certificate
# (CN=tfacc-client), all EC P-256, valid 2 days, in $dir/tls. The broker reads
# PEM directly (ssl.keystore.type=PEM: key + chain in one file).
make_certs() { # dir
  local t=$1/tls
  command -v openssl >/dev/null || die "openssl not found (needed for the TLS listeners' certificates)"
  mkdir -p "$t"
  (
    cd "$t"
    set -e
    exec 2>"$t/openssl.log"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
      -subj "/CN=tfacc test CA" -keyout ca.key -out ca.pem \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
    local who
    for who in broker client; do
      local cn=localhost ext="subjectAltName=DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth,clientAuth"
      if [[ $who == client ]]; then
        cn=$client_cn ext="extendedKeyUsage=clientAuth"
      fi
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$cn" \
        -keyout "$who.key" -out "$who.csr"
      printf '%s\n' "$ext" >"$who.ext"
      openssl x509 -req -in "$who.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
        -extfile "$who.ext" -out "$who.pem"
    done
    cat broker.key broker.pem ca.pem >broker-keystore.pem
    rm -f ./*.csr ./*.ext ca.key ca.srl
  ) || { cat "$t/openssl.log" >&2; die "generating the test certificates failed"; }
}

make_credentials() { # dir
  local pw
  pw=$(openssl rand -hex 16)
  printf '%s\n' "$pw" >"$1/tls/sasl-password"
}

write_config() { # dir broker_port controller_port ssl_port mtls_port sasl_plaintext_port sasl_ssl_port
  local dir=$1 port=$2 cport=$3 sslp=$4 mtlsp=$5 saslp=$6 saslsp=$7 pw
  pw=$(cat "$dir/tls/sasl-password")
  {
    echo "# Written by tools/kafka.sh: single-node KRaft broker for tests."
    echo "process.roles=broker,controller"
    echo "node.id=1"
    # A static voter set works on every KRaft release (3.3 .. 4.x), so one
    # format command serves all; the dynamic quorum (--standalone with
    # controller.quorum.bootstrap.servers) would need 3.9+.
    echo "controller.quorum.voters=1@127.0.0.1:$cport"
    echo "controller.listener.names=CONTROLLER"
    # Each client listener is advertised, so that kafka-go (which connects to
    # the advertised address of the listener it bootstrapped from) stays on it.
    local client_listeners="PLAINTEXT://127.0.0.1:$port,SSL://127.0.0.1:$sslp,MTLS://127.0.0.1:$mtlsp"
    client_listeners+=",SASL_PLAINTEXT://127.0.0.1:$saslp,SASL_SSL://127.0.0.1:$saslsp"
    echo "listeners=$client_listeners,CONTROLLER://127.0.0.1:$cport"
    echo "advertised.listeners=$client_listeners"
    echo "inter.broker.listener.name=PLAINTEXT"
    echo "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"
    # TLS: PEM key store and trust store (Kafka 2.7+), made by make_certs.
    echo "ssl.keystore.type=PEM"
    echo "ssl.keystore.location=$dir/tls/broker-keystore.pem"
    echo "ssl.truststore.type=PEM"
    echo "ssl.truststore.location=$dir/tls/ca.pem"
    echo "ssl.client.auth=none"
    echo "listener.name.mtls.ssl.client.auth=required"
    # SASL: the same four mechanisms on both SASL listeners. PLAIN users come
    # from the JAAS options, SCRAM users from the metadata log (format
    # --add-scram), OAUTHBEARER tokens are checked by Kafka's default server
    # callback, the unsecured-JWS validator (alg "none"; it fetches nothing).
    echo "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER"
    local l
    for l in sasl_plaintext sasl_ssl; do
      echo "listener.name.$l.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$sasl_user=\"$pw\";"
      echo "listener.name.$l.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
      echo "listener.name.$l.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
      echo "listener.name.$l.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"broker\";"
    done
    echo "log.dirs=$dir/data"
    echo "auto.create.topics.enable=true"
    echo "num.partitions=1"
    echo "default.replication.factor=1"
    echo "min.insync.replicas=1"
    echo "offsets.topic.replication.factor=1"
    echo "offsets.topic.num.partitions=1"
    echo "transaction.state.log.replication.factor=1"
    echo "transaction.state.log.min.isr=1"
    echo "transaction.state.log.num.partitions=1"
    echo "share.coordinator.state.topic.replication.factor=1"
    echo "share.coordinator.state.topic.min.isr=1"
    echo "share.coordinator.state.topic.num.partitions=1"
    echo "group.initial.rebalance.delay.ms=0"
    # Small segments and fewer threads: tests write little, the box has 2 cores.
    echo "log.segment.bytes=16777216"
    echo "log.retention.check.interval.ms=60000"
    # The log cleaner allocates its dedupe buffer on the heap (128 MiB default).
    echo "log.cleaner.dedupe.buffer.size=16777216"
    echo "num.network.threads=2"
    echo "num.io.threads=2"
    echo "num.recovery.threads.per.data.dir=1"
    echo "background.threads=2"
    if [[ ${KAFKA_ACLS:-1} == 1 ]]; then
      # ACL APIs answer SECURITY_DISABLED without an authorizer. The only
      # principal on PLAINTEXT is User:ANONYMOUS; as super user it may do
      # everything, so ACLs can be created and listed but never deny.
      echo "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer"
      echo "super.users=User:ANONYMOUS;User:$sasl_user;User:CN=$client_cn;User:$oauth_principal"
    fi
    [[ ${KAFKA_TIERED:-} == 1 ]] && tiered_properties "$dir"
    if [[ -n ${KAFKA_EXTRA_PROPERTIES:-} ]]; then
      printf '%s\n' "$KAFKA_EXTRA_PROPERTIES"
    fi
  } >"$dir/server.properties"
  write_log_config "$dir"
}

# KAFKA_TIERED=1. The broker loads the storage manager from its own class path
# setting (rsm_classes); local segments are deleted once uploaded, at the
# retention check.
tiered_properties() { # dir
  echo "remote.log.storage.system.enable=true"
  echo "remote.log.storage.manager.class.name=tfacc.FileRemoteStorage"
  echo "remote.log.storage.manager.class.path=$rsm_classes"
  echo "rsm.config.dir=$1/remote"
  echo "remote.log.metadata.manager.listener.name=PLAINTEXT"
  echo "rlmm.config.remote.log.metadata.topic.replication.factor=1"
  echo "rlmm.config.remote.log.metadata.topic.num.partitions=1"
  echo "remote.log.manager.task.interval.ms=1000"
  echo "log.retention.check.interval.ms=1000"
}

# Compiles FileRemoteStorage against this version's jars into rsm_classes, once
# per version and source.
rsm_classes=
compile_rsm() {
  ((brokers == 1)) || die "KAFKA_TIERED=1 needs the single node (KAFKA_BROKERS=1)"
  local src="$script_dir/kafka/FileRemoteStorage.java" tmp
  rsm_classes="$cache_root/kafka-$version/rsm-$(sha256sum "$src" | cut -c1-12)"
  [[ -f $rsm_classes/tfacc/FileRemoteStorage.class ]] && return 0
  command -v javac >/dev/null || die "javac not found (KAFKA_TIERED=1 compiles $src)"
  tmp=$(mktemp -d "$rsm_classes.XXXXXX")
  javac -nowarn -cp "$libs/*" -d "$tmp" "$src" >&2 || die "compiling $src failed"
  mv -T "$tmp" "$rsm_classes" 2>/dev/null || rm -rf "$tmp" # a parallel start compiled it first
}

# The streams group tests' app: kafka-streams' own jar (its other dependencies
# are the broker's, but RocksDB, which a stateless topology never loads) and
# StreamsReader compiled against both, in one directory per version and source.
do_streams_app() {
  local src="$script_dir/kafka/StreamsReader.java" dir tmp
  dir="$cache_root/kafka-$version/streams-$(sha256sum "$src" | cut -c1-12)"
  if [[ ! -f $dir/tfacc/StreamsReader.class ]]; then
    do_download
    command -v javac >/dev/null || die "javac not found (streams-app compiles $src)"
    log "fetching kafka-streams $version and compiling $src into $dir"
    tmp=$(mktemp -d "$dir.XXXXXX")
    if ! mvn -q -B -f "$pom" dependency:copy -Dartifact="org.apache.kafka:kafka-streams:$version" \
        -DoutputDirectory="$tmp" 2>&1 | sed $'s/\e\\[[0-9;]*m//g' >&2 ||
      ! javac -nowarn -cp "$libs/*:$tmp/*" -d "$tmp" "$src" >&2; then
      rm -rf "$tmp"
      die "could not build $src on Kafka Streams $version"
    fi
    mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp" # a parallel call built it first
  fi
  echo "$dir:$dir/*"
}

# Everything at INFO to stdout, which launch_node sends to broker.log; the
# request logger stays at WARN as in Kafka's own config (it is very chatty).
write_log_config() { # dir
  local dir=$1
  if [[ $version == 3.* ]]; then
    cat >"$dir/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
EOF
  else
    cat >"$dir/log4j2.properties" <<'EOF'
status = warn
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.request.name = kafka.request.logger
logger.request.level = WARN
EOF
  fi
}

# JVM options shared by the storage tool and the broker.
jvm_opts() { # dir
  if [[ $version == 3.* ]]; then
    echo "-Dlog4j.configuration=file:$1/log4j.properties"
  else
    echo "-Dlog4j2.configurationFile=$1/log4j2.properties"
  fi
}

# One attempt: fresh dir, ports, format, launch, wait. Returns 0 when ready,
# 1 on failure, 3 when a port was taken in the meantime (worth a retry).
start_once() {
  local dir port cport sslp mtlsp saslp saslsp logf pid opts pw
  dir=$(mktemp -d "${TMPDIR:-/tmp}/kafka-broker.XXXXXX")
  read -r port cport sslp mtlsp saslp saslsp <<<"$(free_ports 6)"
  make_certs "$dir"
  make_credentials "$dir"
  pw=$(cat "$dir/tls/sasl-password")
  write_config "$dir" "$port" "$cport" "$sslp" "$mtlsp" "$saslp" "$saslsp"
  logf="$dir/broker.log"
  opts=$(jvm_opts "$dir")

  # KRaft needs formatted storage (meta.properties + bootstrap checkpoint).
  # Small heap, no JIT tiers beyond C1: it is a short-lived tool run.
  if ! java -Xmx128m -XX:TieredStopAtLevel=1 "$opts" -cp "$libs/*" \
      kafka.tools.StorageTool format -t "$(random_cluster_id)" \
      -c "$dir/server.properties" \
      --add-scram "SCRAM-SHA-256=[name=$sasl_user,password=$pw]" \
      --add-scram "SCRAM-SHA-512=[name=$sasl_user,password=$pw]" \
      >"$dir/format.log" 2>&1; then
    cat "$dir/format.log" >&2
    rm -rf "$dir"
    die "formatting the KRaft storage failed"
  fi

  mkdir -p "$state_dir"
  echo "$heap_opts" >"$dir/heap"
  launch_node "$dir" "$state_dir/pid"
  pid=$(cat "$state_dir/pid")
  echo "1 broker,controller $state_dir/pid $dir" >"$state_dir/nodes"
  echo "127.0.0.1:$port" >"$state_dir/bootstrap"
  echo "$dir" >"$state_dir/workdir"
  echo "$logf" >"$state_dir/log"
  echo "$version" >"$state_dir/version"
  {
    echo "export KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:$port"
    echo "export KAFKA_SSL_BOOTSTRAP_SERVERS=127.0.0.1:$sslp"
    echo "export KAFKA_MTLS_BOOTSTRAP_SERVERS=127.0.0.1:$mtlsp"
    echo "export KAFKA_SASL_PLAINTEXT_BOOTSTRAP_SERVERS=127.0.0.1:$saslp"
    echo "export KAFKA_SASL_SSL_BOOTSTRAP_SERVERS=127.0.0.1:$saslsp"
    echo "export KAFKA_TEST_CA_FILE=$dir/tls/ca.pem"
    echo "export KAFKA_TEST_CLIENT_CERT_FILE=$dir/tls/client.pem"
    echo "export KAFKA_TEST_CLIENT_KEY_FILE=$dir/tls/client.key"
    echo "export KAFKA_TEST_SASL_USERNAME=$sasl_user"
    echo "export KAFKA_TEST_SASL_PASSWORD=$pw"
    echo "export KAFKA_TEST_OAUTH_PRINCIPAL=$oauth_principal"
    echo "export KAFKA_BROKER_IDS=1"
    echo "export KAFKA_BROKER_1_ADDR=127.0.0.1:$port"
  } >"$state_dir/env"

  # Ready = the port accepts connections and Kafka logged that it finished
  # starting (both KafkaRaftServer in 3.x and 4.x log "Kafka Server started").
  local deadline=$((SECONDS + start_timeout))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      break
    fi
    if grep -q 'Kafka Server started' "$logf" && port_open "$port" && port_open "$saslsp"; then
      return 0
    fi
    sleep 0.2
  done

  local rc=1
  if kill -0 "$pid" 2>/dev/null; then
    log "broker not ready after ${start_timeout}s"
  elif grep -q 'Address already in use' "$logf"; then
    log "broker exited: port $port or $cport was taken meanwhile"
    rc=3
  else
    log "broker exited during startup"
  fi
  if ((rc != 3)); then
    log "last lines of $logf:"
    tail -n 40 "$logf" >&2 || true
  fi
  do_stop
  return "$rc"
}

# Launches the node whose config is DIR/server.properties, with the heap in
# DIR/heap, appending to DIR/broker.log, and records its pid in PIDFILE. The
# same command starts it again after a stop or a kill (do_broker).
launch_node() { # dir pidfile
  local dir=$1 heap opts
  heap=$(cat "$dir/heap")
  opts=$(jvm_opts "$dir")
  # setsid + all fds redirected: the broker outlives this script and holds no
  # pipe of the caller open (so `$(tools/kafka.sh start)` returns).
  # shellcheck disable=SC2086 # heap is a word list on purpose
  setsid java $heap -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true \
    "$opts" -cp "$libs/*" kafka.Kafka "$dir/server.properties" \
    </dev/null >>"$dir/broker.log" 2>&1 8>&- 9>&- &
  echo "$!" >"$2"
}

# ---------------------------------------------------------------- cluster --

# KAFKA_BROKERS=N > 1: one controller (node 100) and N brokers (1..N), each a
# JVM with its own dir under the work dir (server.properties, heap, data/,
# broker.log), all formatted with one cluster id.

write_cluster_config() { # dir node_id role port controller_port brokers
  local dir=$1 id=$2 role=$3 port=$4 cport=$5 n=$6
  # Internal topics replicated as in production where there are brokers
  # enough; min ISR 2 from 3 brokers on (see the header).
  local rf=$((n < 3 ? n : 3)) min_isr=$((n < 3 ? 1 : 2))
  {
    echo "# Written by tools/kafka.sh: node $id ($role) of a KRaft cluster of $n brokers for tests."
    echo "process.roles=$role"
    echo "node.id=$id"
    echo "controller.quorum.voters=$controller_id@127.0.0.1:$cport"
    echo "controller.listener.names=CONTROLLER"
    echo "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
    if [[ $role == controller ]]; then
      echo "listeners=CONTROLLER://127.0.0.1:$cport"
      # It serves only the brokers' heartbeats and metadata fetches.
      echo "num.network.threads=1"
      echo "num.io.threads=1"
    else
      echo "listeners=PLAINTEXT://127.0.0.1:$port"
      echo "advertised.listeners=PLAINTEXT://127.0.0.1:$port"
      echo "inter.broker.listener.name=PLAINTEXT"
      echo "num.network.threads=2"
      echo "num.io.threads=2"
      echo "num.replica.fetchers=1"
    fi
    echo "log.dirs=$dir/data"
    echo "auto.create.topics.enable=true"
    echo "num.partitions=1"
    echo "default.replication.factor=$rf"
    echo "min.insync.replicas=$min_isr"
    echo "offsets.topic.replication.factor=$rf"
    echo "offsets.topic.num.partitions=3"
    echo "transaction.state.log.replication.factor=$rf"
    echo "transaction.state.log.min.isr=$min_isr"
    echo "transaction.state.log.num.partitions=3"
    echo "share.coordinator.state.topic.replication.factor=$rf"
    echo "share.coordinator.state.topic.min.isr=$min_isr"
    echo "share.coordinator.state.topic.num.partitions=1"
    echo "group.initial.rebalance.delay.ms=0"
    # As in single-node mode: small segments, small cleaner buffer, few
    # threads (4 JVMs share 2 cores in CI).
    echo "log.segment.bytes=16777216"
    echo "log.retention.check.interval.ms=60000"
    echo "log.cleaner.dedupe.buffer.size=16777216"
    echo "num.recovery.threads.per.data.dir=1"
    echo "background.threads=2"
    if [[ ${KAFKA_ACLS:-1} == 1 ]]; then
      echo "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer"
      echo "super.users=User:ANONYMOUS"
    fi
    if [[ -n ${KAFKA_EXTRA_PROPERTIES:-} ]]; then
      printf '%s\n' "$KAFKA_EXTRA_PROPERTIES"
    fi
  } >"$dir/server.properties"
  write_log_config "$dir"
}

# One attempt at a cluster, as start_once: 0 ready, 1 failed, 3 port taken.
start_cluster_once() {
  local n=$brokers dir cport rest id ndir role pidfile rc=0 f
  local -a bports=() servers=() fpids=()
  dir=$(mktemp -d "${TMPDIR:-/tmp}/kafka-broker.XXXXXX")
  read -r cport rest <<<"$(free_ports $((n + 1)))"
  read -r -a bports <<<"$rest"
  mkdir -p "$state_dir"
  : >"$state_dir/nodes"
  mkdir "$dir/controller"
  write_cluster_config "$dir/controller" "$controller_id" controller 0 "$cport" "$n"
  echo "$controller_heap_opts" >"$dir/controller/heap"
  echo "$controller_id controller $state_dir/pid $dir/controller" >>"$state_dir/nodes"
  for ((id = 1; id <= n; id++)); do
    ndir=$dir/broker-$id
    mkdir "$ndir"
    write_cluster_config "$ndir" "$id" broker "${bports[id - 1]}" "$cport" "$n"
    echo "$heap_opts" >"$ndir/heap"
    echo "$id broker $state_dir/pid.$id $ndir" >>"$state_dir/nodes"
    servers+=("127.0.0.1:${bports[id - 1]}")
  done

  # Every node formatted with the same cluster id, in parallel.
  local cid
  cid=$(random_cluster_id)
  while read -r id role pidfile ndir; do
    java -Xmx128m -XX:TieredStopAtLevel=1 "$(jvm_opts "$ndir")" -cp "$libs/*" \
      kafka.tools.StorageTool format -t "$cid" -c "$ndir/server.properties" \
      </dev/null >"$ndir/format.log" 2>&1 &
    fpids+=("$!")
  done <"$state_dir/nodes"
  for f in "${fpids[@]}"; do
    wait "$f" || rc=1
  done
  if ((rc != 0)); then
    cat "$dir"/*/format.log >&2
    rm -rf "$dir"
    clear_state
    die "formatting the KRaft storage failed"
  fi

  (IFS=, && echo "${servers[*]}") >"$state_dir/bootstrap"
  echo "$dir" >"$state_dir/workdir"
  awk '{print $4 "/broker.log"}' "$state_dir/nodes" >"$state_dir/log"
  echo "$version" >"$state_dir/version"
  {
    echo "export KAFKA_BOOTSTRAP_SERVERS=$(cat "$state_dir/bootstrap")"
    echo "export KAFKA_BROKER_IDS=\"$(seq -s ' ' 1 "$n")\""
    for ((id = 1; id <= n; id++)); do
      echo "export KAFKA_BROKER_${id}_ADDR=${servers[id - 1]}"
    done
    echo "export KAFKA_CONTROLLER_ADDR=127.0.0.1:$cport"
  } >"$state_dir/env"

  # The controller first; brokers wait for it anyway.
  while read -r id role pidfile ndir; do
    launch_node "$ndir" "$pidfile"
  done <"$state_dir/nodes"
  while read -r id role pidfile ndir; do
    rc=0
    wait_ready "$ndir" "$pidfile" 0 || rc=$?
    ((rc == 0)) || break
  done <"$state_dir/nodes"
  if ((rc != 0)); then
    do_stop
  fi
  return "$rc"
}

# The line of node ID in the nodes file: "id role pidfile dir".
node_line() { # id
  [[ -f $state_dir/nodes ]] || return 1
  awk -v id="$1" '$1 == id { print; found = 1 } END { exit !found }' "$state_dir/nodes"
}

# The port of a node's first listener.
node_port() { # dir
  sed -n 's|^listeners=[A-Z_]*://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$1/server.properties"
}

# Waits until the node logged "Kafka Server started" after byte FROM of its
# log (a broker logs it once registered and unfenced) and its first listener
# accepts connections. 0 ready, 1 failed, 3 its port was taken.
wait_ready() { # dir pidfile from
  local dir=$1 from=$3 port pid deadline=$((SECONDS + start_timeout))
  port=$(node_port "$dir")
  pid=$(cat "$2")
  while ((SECONDS < deadline)); do
    alive "$pid" || break
    if grep -q 'Kafka Server started' <(tail -c +"$((from + 1))" "$dir/broker.log") && port_open "$port"; then
      return 0
    fi
    sleep 0.2
  done
  if alive "$pid"; then
    log "node in $dir not ready after ${start_timeout}s"
  elif grep -q 'Address already in use' <(tail -c +"$((from + 1))" "$dir/broker.log"); then
    log "node in $dir exited: port $port was taken meanwhile"
    return 3
  else
    log "node in $dir exited during startup; last lines of its log:"
    tail -n 40 "$dir/broker.log" >&2 || true
  fi
  return 1
}

# ----------------------------------------------------------------- broker --

# One node of the running cluster (or the single node, ID 1): see the header.
do_broker() {
  local verb=${1:-} id=${2:-} line role pidfile dir pid t0=$EPOCHREALTIME
  [[ $verb =~ ^(stop|kill|pause|resume|start|restart)$ && $id =~ ^[0-9]+$ ]] ||
    die "usage: $0 broker stop|kill|pause|resume|start|restart ID"
  lock_state
  line=$(node_line "$id") ||
    die "no node $id in $state_dir (nodes: $(awk '{printf "%s ", $1}' "$state_dir/nodes" 2>/dev/null))"
  read -r _ role pidfile dir <<<"$line"
  case $verb in
    stop | kill | pause | resume)
      pid=$(pid_from "$pidfile") || die "node $id is not running"
      ;;
    start)
      if pid=$(pid_from "$pidfile"); then
        die "node $id is already running (pid $pid)"
      fi
      ;;
  esac
  case $verb in
    stop) node_stop "$id" "$pid" ;;
    kill)
      kill -KILL "$pid"
      wait_gone "$pid" 10 || die "node $id (pid $pid) still there 10s after SIGKILL"
      ;;
    pause)
      kill -STOP "$pid"
      local i
      for ((i = 0; i < 50; i++)); do
        [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) == [Tt] ]] && break
        sleep 0.02
      done
      ;;
    resume) kill -CONT "$pid" ;;
    start) node_start "$id" "$pidfile" "$dir" ;;
    restart)
      if pid=$(pid_from "$pidfile"); then
        node_stop "$id" "$pid"
      fi
      node_start "$id" "$pidfile" "$dir"
      ;;
  esac
  log "node $id: $verb done in $(elapsed_since "$t0")s"
}

# SIGTERM: Kafka's controlled shutdown (a broker hands its leaderships over
# first). SIGCONT too, in case it was paused. A broker that does not finish
# within a minute is killed, and that is an error.
node_stop() { # id pid
  kill -TERM "$2"
  kill -CONT "$2" 2>/dev/null || true
  if ! wait_gone "$2" 60; then
    kill -KILL "$2" 2>/dev/null || true
    wait_gone "$2" 10 || true
    die "node $1 (pid $2) did not stop within 60s of SIGTERM; killed it"
  fi
}

node_start() { # id pidfile dir
  local from
  from=$(stat -c %s "$3/broker.log" 2>/dev/null || echo 0)
  launch_node "$3" "$2"
  wait_ready "$3" "$2" "$from" || die "node $1 did not start again (log $3/broker.log)"
}

wait_gone() { # pid seconds
  local i
  for ((i = 0; i < $2 * 20; i++)); do
    alive "$1" || return 0
    sleep 0.05
  done
  return 1
}

elapsed_since() { # $EPOCHREALTIME of the start
  awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

do_start() {
  local pid
  lock_state
  if pid=$(running_pid); then
    die "a broker is already running (pid $pid, $(cat "$state_dir/bootstrap")); run '$0 stop' first"
  fi
  do_stop # a broker that died leaves its state and temp dir behind
  do_download
  [[ $brokers =~ ^[1-9]$ ]] || die "KAFKA_BROKERS must be 1 to 9, not '$brokers'"
  [[ ${KAFKA_TIERED:-} == 1 ]] && compile_rsm

  local t0=$SECONDS attempt rc start=start_once
  if ((brokers > 1)); then
    log "starting Kafka $version: a controller and $brokers brokers"
    start=start_cluster_once
  else
    log "starting Kafka $version"
  fi
  for attempt in 1 2 3; do
    rc=0
    $start || rc=$?
    ((rc == 0)) && break
    ((rc == 3 && attempt < 3)) || die "could not start the broker"
    log "retrying with other ports"
  done
  if ((brokers > 1)); then
    log "Kafka $version cluster ready in $((SECONDS - t0))s: brokers $(cat "$state_dir/bootstrap"), logs in $(cat "$state_dir/workdir")"
  else
    log "Kafka $version ready in $((SECONDS - t0))s, pid $(cat "$state_dir/pid"), log $(cat "$state_dir/log")"
  fi
  cat "$state_dir/bootstrap"
}

# ------------------------------------------------------------------- stop --

clear_state() {
  rm -f "$state_dir"/{pid,bootstrap,workdir,log,version,env,nodes} "$state_dir"/pid.*
}

do_stop() {
  local pid dir
  [[ -d $state_dir ]] || return 0
  lock_state
  dir=$(cat "$state_dir/workdir" 2>/dev/null || true)
  if [[ -f $state_dir/nodes ]]; then
    stop_nodes
  elif pid=$(running_pid); then
    stop_pids "$pid"
  fi
  # Only delete dirs this script made (guards against a corrupted state file).
  if [[ -n $dir && -d $dir && $(basename "$dir") == kafka-broker.* ]]; then
    if [[ ${KAFKA_KEEP_WORKDIR:-0} == 1 ]]; then
      log "keeping $dir"
    else
      rm -rf "$dir"
    fi
  fi
  clear_state
}

# Brokers (and the single combined node) first, all at once, then the
# controller: a broker's controlled shutdown needs the controller.
stop_nodes() {
  local id role pidfile ndir pid
  local -a pids=() cpids=()
  while read -r id role pidfile ndir; do
    pid=$(pid_from "$pidfile") || continue
    if [[ $role == controller ]]; then cpids+=("$pid"); else pids+=("$pid"); fi
  done <"$state_dir/nodes"
  ((${#pids[@]} == 0)) || stop_pids "${pids[@]}"
  ((${#cpids[@]} == 0)) || stop_pids "${cpids[@]}"
}

# SIGTERM lets Kafka shut down cleanly (SIGCONT wakes a paused one to handle
# it); KILL only if it hangs.
stop_pids() { # pid...
  local p i
  log "stopping broker (pid $*)"
  for p; do
    kill -TERM "$p" 2>/dev/null || true
    kill -CONT "$p" 2>/dev/null || true
  done
  for ((i = 0; i < 100; i++)); do
    any_alive "$@" || return 0
    sleep 0.2
  done
  log "broker did not stop in 20s, killing it"
  for p; do
    kill -KILL "$p" 2>/dev/null || true
  done
  # Reap-free wait: it is not our child once this script restarted.
  for ((i = 0; i < 50; i++)); do
    any_alive "$@" || return 0
    sleep 0.1
  done
}

any_alive() { # pid...
  local p
  for p; do
    alive "$p" && return 0
  done
  return 1
}

# -------------------------------------------------------------------- run --

do_run() {
  [[ ${1:-} == -- ]] && shift
  (($# > 0)) || die "usage: $0 run -- CMD [ARGS...]"

  if [[ -n ${KAFKA_BOOTSTRAP_SERVERS:-} ]]; then
    log "using KAFKA_BOOTSTRAP_SERVERS=$KAFKA_BOOTSTRAP_SERVERS"
    exec "$@"
  fi

  # A private state dir, so that this run neither meets a broker of
  # "tools/kafka.sh start" nor a run in parallel. Exported, so that CMD can
  # call "tools/kafka.sh log" / "bootstrap".
  local private_state=
  if [[ -z ${KAFKA_STATE_DIR:-} ]]; then
    state_dir=$(mktemp -d "${TMPDIR:-/tmp}/kafka-run-state.XXXXXX")
    private_state=$state_dir
  fi
  export KAFKA_STATE_DIR=$state_dir

  # Stop the broker however we leave: CMD failing, Ctrl-C, kill.
  # shellcheck disable=SC2064 # expand private_state now
  trap "do_stop; [[ -z '$private_state' ]] || rm -rf '$private_state'" EXIT
  trap 'stop_child; exit 130' INT
  trap 'stop_child; exit 143' TERM

  local rc=0
  (do_start) >/dev/null # in a subshell, as before: the state lock (fd 9) is not held while CMD runs
  # KAFKA_BOOTSTRAP_SERVERS (PLAINTEXT) and the TLS/SASL variables (header).
  # shellcheck disable=SC1091
  source "$state_dir/env"
  KAFKA_BROKER_LOG=$(paste -sd: "$state_dir/log") # one path per node
  export KAFKA_BROKER_LOG
  # The broker's jars: tests run Kafka's own Java tools (kafka-console-producer) from them.
  KAFKA_LIBS=$libs
  export KAFKA_LIBS
  log "running: $*"
  # CMD runs in the background so that a signal to this script is handled
  # at once (bash defers traps until a foreground child exits). "<&0" keeps
  # our stdin, which bash would otherwise replace with /dev/null.
  "$@" <&0 &
  child=$!
  wait "$child" || rc=$?
  child=
  exit "$rc"
}

# On INT/TERM: pass TERM on to CMD (background jobs ignore SIGINT) and give
# it a moment to finish before the broker goes away.
child=
stop_child() {
  [[ -n $child ]] || return 0
  kill -TERM "$child" 2>/dev/null || return 0
  local i
  for ((i = 0; i < 50; i++)); do
    kill -0 "$child" 2>/dev/null || return 0
    sleep 0.2
  done
  kill -KILL "$child" 2>/dev/null || true
}

# ------------------------------------------------------------------- main --

cmd=${1:-}
[[ $# -gt 0 ]] && shift
case $cmd in
  download) do_download ;;
  start) do_start ;;
  stop) do_stop ;;
  run) do_run "$@" ;;
  broker) do_broker "$@" ;;
  streams-app) do_streams_app ;;
  bootstrap | log | env)
    running_pid >/dev/null || die "no broker is running (state dir $state_dir)"
    cat "$state_dir/$cmd"
    ;;
  status)
    if pid=$(running_pid); then
      log "running: pid $pid, $(cat "$state_dir/bootstrap"), Kafka $(cat "$state_dir/version")"
      if [[ $(wc -l <"$state_dir/nodes") -gt 1 ]]; then
        while read -r id role pidfile ndir; do
          if p=$(pid_from "$pidfile"); then
            [[ $(awk '{print $3}' "/proc/$p/stat") == [Tt] ]] && s=paused || s=running
            log "  node $id ($role, 127.0.0.1:$(node_port "$ndir")): $s, pid $p"
          else
            log "  node $id ($role, 127.0.0.1:$(node_port "$ndir")): stopped"
          fi
        done <"$state_dir/nodes"
      fi
    else
      log "not running"
      exit 1
    fi
    ;;
  *) usage ;;
esac
