#!/usr/bin/env bash
# Run a real single-node Apache Kafka broker (KRaft, combined broker+controller)
# on loopback, for tests and demos. No Docker here: the broker jars come from
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
#   KAFKA_KEEP_WORKDIR   1: "stop" keeps the broker's temp dir (config, log)
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

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pom="$script_dir/kafka/pom.xml"

version=${KAFKA_VERSION:-4.4.0}
cache_root=${KAFKA_CACHE_DIR:-${HOME:-/tmp}/.cache/terraform-provider-kafka}
libs="$cache_root/kafka-$version/libs"
state_dir=${KAFKA_STATE_DIR:-/tmp/terraform-provider-kafka-broker}
heap_opts=${KAFKA_HEAP_OPTS:--Xmx256m -Xms64m}
start_timeout=${KAFKA_START_TIMEOUT:-90}

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

# Prints the recorded pid if that process is still our broker.
running_pid() {
  local pid
  pid=$(cat "$state_dir/pid" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  # Guard against pid reuse: the process must be a kafka.Kafka JVM.
  tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q 'kafka\.Kafka ' || return 1
  echo "$pid"
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
    if [[ -n ${KAFKA_EXTRA_PROPERTIES:-} ]]; then
      printf '%s\n' "$KAFKA_EXTRA_PROPERTIES"
    fi
  } >"$dir/server.properties"

  # Everything at INFO to stdout, which start_once sends to broker.log; the
  # request logger stays at WARN as in Kafka's own config (it is very chatty).
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

  # setsid + all fds redirected: the broker outlives this script and holds no
  # pipe of the caller open (so `$(tools/kafka.sh start)` returns).
  # shellcheck disable=SC2086 # heap_opts is a word list on purpose
  setsid java $heap_opts -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true \
    "$opts" -cp "$libs/*" kafka.Kafka "$dir/server.properties" \
    </dev/null >"$logf" 2>&1 8>&- 9>&- &
  pid=$!

  mkdir -p "$state_dir"
  echo "$pid" >"$state_dir/pid"
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

do_start() {
  local pid
  lock_state
  if pid=$(running_pid); then
    die "a broker is already running (pid $pid, $(cat "$state_dir/bootstrap")); run '$0 stop' first"
  fi
  do_stop # a broker that died leaves its state and temp dir behind
  do_download

  log "starting Kafka $version"
  local t0=$SECONDS attempt rc
  for attempt in 1 2 3; do
    rc=0
    start_once || rc=$?
    ((rc == 0)) && break
    ((rc == 3 && attempt < 3)) || die "could not start the broker"
    log "retrying with other ports"
  done
  log "Kafka $version ready in $((SECONDS - t0))s, pid $(cat "$state_dir/pid"), log $(cat "$state_dir/log")"
  cat "$state_dir/bootstrap"
}

# ------------------------------------------------------------------- stop --

clear_state() {
  rm -f "$state_dir"/{pid,bootstrap,workdir,log,version,env}
}

do_stop() {
  local pid dir
  [[ -d $state_dir ]] || return 0
  lock_state
  dir=$(cat "$state_dir/workdir" 2>/dev/null || true)
  if pid=$(running_pid); then
    log "stopping broker (pid $pid)"
    # SIGTERM lets Kafka shut down cleanly; KILL only if it hangs.
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 100; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "broker did not stop in 20s, killing it"
      kill -KILL "$pid" 2>/dev/null || true
      # Reap-free wait: it is not our child once this script restarted.
      for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
    fi
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
  KAFKA_BROKER_LOG=$(cat "$state_dir/log")
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
  bootstrap | log | env)
    running_pid >/dev/null || die "no broker is running (state dir $state_dir)"
    cat "$state_dir/$cmd"
    ;;
  status)
    if pid=$(running_pid); then
      log "running: pid $pid, $(cat "$state_dir/bootstrap"), Kafka $(cat "$state_dir/version")"
    else
      log "not running"
      exit 1
    fi
    ;;
  *) usage ;;
esac
