// A RemoteStorageManager that keeps the "remote" tier in a local directory, for tests of tiered
// storage (KIP-405) on the broker tools/kafka.sh starts with KAFKA_TIERED=1. Kafka publishes its own
// (LocalTieredStorage) only in a test jar, for 3.9.1 at the latest, and that class does not load on
// Kafka 4.x; this one uses only the public storage API, the same in 3.9 and 4.x, and is compiled by
// kafka.sh against the broker's jars. Each segment is a directory named by its remote segment id.
package tfacc;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

public final class FileRemoteStorage implements RemoteStorageManager {
    private Path root;

    @Override
    public void configure(Map<String, ?> configs) {
        root = Paths.get(String.valueOf(configs.get("dir"))); // rsm.config.dir
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path dir(RemoteLogSegmentMetadata m) {
        return root.resolve(m.remoteLogSegmentId().id().toString());
    }

    @Override
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(RemoteLogSegmentMetadata m, LogSegmentData d)
            throws RemoteStorageException {
        Path dir = dir(m);
        try {
            Files.createDirectories(dir);
            Files.copy(d.logSegment(), dir.resolve("segment"));
            Files.copy(d.offsetIndex(), dir.resolve(name(IndexType.OFFSET)));
            Files.copy(d.timeIndex(), dir.resolve(name(IndexType.TIMESTAMP)));
            Files.copy(d.producerSnapshotIndex(), dir.resolve(name(IndexType.PRODUCER_SNAPSHOT)));
            if (d.transactionIndex().isPresent()) {
                Files.copy(d.transactionIndex().get(), dir.resolve(name(IndexType.TRANSACTION)));
            }
            ByteBuffer epochs = d.leaderEpochIndex().duplicate();
            byte[] b = new byte[epochs.remaining()];
            epochs.get(b);
            Files.write(dir.resolve(name(IndexType.LEADER_EPOCH)), b);
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
        return Optional.empty();
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int start) throws RemoteStorageException {
        return fetchLogSegment(m, start, Integer.MAX_VALUE - 1);
    }

    // end is inclusive.
    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int start, int end) throws RemoteStorageException {
        byte[] all = read(dir(m).resolve("segment"));
        int from = Math.min(start, all.length);
        return new ByteArrayInputStream(Arrays.copyOfRange(all, from, Math.max(from, Math.min(all.length, end + 1))));
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata m, IndexType type) throws RemoteStorageException {
        return new ByteArrayInputStream(read(dir(m).resolve(name(type))));
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata m) throws RemoteStorageException {
        Path dir = dir(m);
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
    }

    @Override
    public void close() {
    }

    private static String name(IndexType type) {
        return type.name().toLowerCase();
    }

    // A missing file is RemoteResourceNotFoundException: the broker expects it for a segment
    // without a transaction index.
    private static byte[] read(Path p) throws RemoteStorageException {
        if (!Files.exists(p)) {
            throw new RemoteResourceNotFoundException("no " + p);
        }
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
    }
}
