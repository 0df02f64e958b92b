package kafkaharness

import (
	"context"
	"fmt"
	"path/filepath"
)

// StreamsApp builds the streams group tests' app for o.Version, once, and
// returns the class path it needs besides the broker's jars (LibsDir):
// kafka-streams' own jar, fetched with Maven (its other dependencies are the
// broker's, but RocksDB, which the app's stateless topology never loads), and
// tools/kafka/StreamsReader.java compiled against both (class
// tfacc.StreamsReader). It fails on Kafka 3.x:
// StreamsReader sets group.protocol=streams (KIP-1071), which Kafka Streams
// 3.x does not have, so the compiler names the missing GROUP_PROTOCOL_CONFIG.
func StreamsApp(ctx context.Context, o Options) (string, error) {
	o = o.withDefaults()
	src, err := sourceNextToPom(o, "StreamsReader.java")
	if err != nil {
		return "", err
	}
	libs, err := Jars(ctx, o)
	if err != nil {
		return "", err
	}
	coordinates := "org.apache.kafka:kafka-streams:" + o.Version
	build := javaBuild{src: src, prefix: "streams", fetch: func(ctx context.Context, dir string) error {
		return mavenArtifact(ctx, o.Pom, coordinates, dir)
	}}
	dir, err := build.compile(ctx, o, libs)
	if err != nil {
		return "", fmt.Errorf("could not build the streams app on Kafka Streams %s: %w", o.Version, err)
	}
	return dir + ":" + filepath.Join(dir, "*"), nil
}
