#!/usr/bin/env bash
# A real Apache Kafka on loopback for tests and demos: the commands of tools/kafkaharness (Go;
# internal/kafkaharness does the work), under their old name so that the documented commands and make
# targets keep working. The command's doc lists them and the environment they read:
#   go doc ./tools/kafkaharness
#   tools/kafka.sh download | start | stop | run -- CMD ARGS | bootstrap | env | log | status
#   tools/kafka.sh streams-app
#   tools/kafka.sh broker stop|kill|pause|resume|start|restart ID
#
# The binary is built into bin/ of this checkout and exec'd, not `go run`: go run does not pass
# SIGTERM on to the program, so `run` could not stop CMD and the cluster in order. go build finds an
# up-to-date binary in a fraction of a second.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

bin=$repo/bin/kafkaharness
(cd "$repo" && go build -o "$bin" ./tools/kafkaharness) >&2
exec "$bin" "$@"
