package kafkaharness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Tiered storage (KIP-405) on the single node (Options.Tiered,
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

// tieredProperties are a tiered node's lines ("" without
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

// remoteLogMetadataTopic is where Kafka's topic-based metadata manager keeps
// the remote segments' metadata.
const remoteLogMetadataTopic = "__remote_log_metadata"

// waitTiered asks the cluster, through kadm, until it lists the metadata
// manager's topic. The manager creates it from a thread of its own once the
// broker serves, and a broker stopped before that never stops by itself
// (TopicBasedRemoteLogMetadataManager.close joins that thread, which waits on
// a CreateTopics the stopping broker no longer answers: Stop kills it after
// StopTimeout): so a tiered node is ready only once the topic is there.
func (c *Cluster) waitTiered(ctx context.Context) error {
	wait, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()), kgo.RequestRetries(0))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	last := errors.New(remoteLogMetadataTopic + " not listed")
	for {
		// All topics, none named: naming one could create it (auto.create.topics.enable).
		topics, err := adm.ListTopicsWithInternal(wait)
		switch {
		case err != nil:
			last = err
		case topics.Has(remoteLogMetadataTopic) && topics[remoteLogMetadataTopic].Err == nil:
			return nil
		}
		if n := c.Nodes[1]; !n.Running() {
			return fmt.Errorf("node %d: %w", n.ID, errExited)
		}
		select {
		case <-wait.Done():
			return fmt.Errorf("tiered storage not ready: %w (last answer: %w)", wait.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
