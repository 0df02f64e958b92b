// A Kafka Streams application that reads one topic as a streams group (KIP-1071,
// group.protocol=streams), for the tests of groups that read a topic. Its topology is stateless
// (a source and a foreach), so Kafka Streams never loads RocksDB and needs no internal topic:
// tools/kafka.sh streams-app fetches kafka-streams without rocksdbjni and compiles this file
// against it and the broker's jars.
//
// Usage: StreamsReader --bootstrap-server ADDRS GROUP TOPIC COMMIT_INTERVAL_MS STATE_DIR
// GROUP is the application.id, hence the group id. It runs until killed; it commits what it read
// every COMMIT_INTERVAL_MS (never, in a test, when that is an hour).
package tfacc;

import java.util.Properties;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

public final class StreamsReader {
    public static void main(String[] args) throws InterruptedException {
        if (args.length != 6 || !args[0].equals("--bootstrap-server")) {
            System.err.println("usage: StreamsReader --bootstrap-server ADDRS GROUP TOPIC COMMIT_INTERVAL_MS STATE_DIR");
            System.exit(2);
        }
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[1]);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, args[2]);
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.parseLong(args[4]));
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[5]);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);

        StreamsBuilder builder = new StreamsBuilder();
        builder.<byte[], byte[]>stream(args[3]).foreach((key, value) -> { });
        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        // A fatal error (logged by Kafka Streams) ends the process, so that the test sees it
        // exit instead of waiting for a group that never forms.
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.ERROR) {
                Runtime.getRuntime().halt(1);
            }
        });
        streams.start();
        Thread.currentThread().join();
    }
}
