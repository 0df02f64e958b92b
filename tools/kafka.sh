#!/usr/bin/env bash
# A real Apache Kafka on loopback for tests and demos: the commands of tools/kafkaharness (Go;
# internal/kafkaharness does the work), under their old name so that README commands and make
# targets keep working. The command's doc lists them and the environment they read:
#   go doc ./tools/kafkaharness
#   tools/kafka.sh download | start | stop | run -- CMD ARGS | bootstrap | env | log | status
#   tools/kafka.sh broker stop|kill|pause|resume|start|restart ID
#
# The binary is built into bin/ of this checkout and exec'd, not `go run`: go run does not pass
# SIGTERM on to the program, so `run` could not stop CMD and the cluster in order, and it would
# hold a build lock while CMD runs. go build finds an up-to-date binary in a fraction of a second.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# TODO(issue 20): until the tiered storage and streams app port (branch wip-20tiered) is merged,
# those two go to the old script.
if [[ ${1:-} == streams-app || ${KAFKA_TIERED:-} == 1 ]]; then
  exec "$repo/tools/kafka/legacy.sh" "$@"
fi

bin=$repo/bin/kafkaharness
(cd "$repo" && go build -o "$bin" ./tools/kafkaharness) >&2
exec "$bin" "$@"
