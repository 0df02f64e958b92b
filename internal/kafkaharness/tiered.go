package kafkaharness

import (
	"context"
	"path/filepath"
	"strings"
)

// Tiered storage (KIP-405) on the single node (Options.Tiered, kafka.sh
// KAFKA_TIERED=1): the remote tier is a directory of the node's work dir,
// kept by tools/kafka/FileRemoteStorage.java (Kafka publishes its own
// LocalTieredStorage only in a test jar, which does not load on 4.x).

// RemoteDir is where a tiered node in work dir keeps its remote tier: one
// directory per copied segment, named by its remote segment id.
func RemoteDir(dir string) string { return filepath.Join(dir, "remote") }

// compileRSM compiles FileRemoteStorage against libs into the cache, once per
// version and source, and returns its class dir.
func compileRSM(ctx context.Context, o Options, libs string) (string, error) {
	src, err := sourceNextToPom(o, "FileRemoteStorage.java")
	if err != nil {
		return "", err
	}
	return javaBuild{src: src, prefix: "rsm"}.compile(ctx, o, libs)
}

// tieredProperties are kafka.sh tiered_properties' lines ("" without
// classes, a node without tiered storage). The broker loads the storage
// manager from its own class path setting, not the JVM's -cp; Kafka's
// topic-based metadata manager keeps segment metadata in a topic on
// PLAINTEXT; local segments already uploaded go at the 1 s retention check.
func tieredProperties(dir, classes string) string {
	if classes == "" {
		return ""
	}
	return strings.Join([]string{
		"remote.log.storage.system.enable=true",
		"remote.log.storage.manager.class.name=tfacc.FileRemoteStorage",
		"remote.log.storage.manager.class.path=" + classes,
		"rsm.config.dir=" + RemoteDir(dir),
		"remote.log.metadata.manager.listener.name=PLAINTEXT",
		"rlmm.config.remote.log.metadata.topic.replication.factor=1",
		"rlmm.config.remote.log.metadata.topic.num.partitions=1",
		"remote.log.manager.task.interval.ms=1000",
		"log.retention.check.interval.ms=1000",
	}, "\n") + "\n"
}
