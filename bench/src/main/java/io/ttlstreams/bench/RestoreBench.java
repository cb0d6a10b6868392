package io.ttlstreams.bench;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.state.ScheduleStores;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Figure 5: the restore of a wiped ttl-streams instance, timed from {@code start()} until RUNNING, until every store
 * reported the end of its restoration, and until an interactive query counted all documents' entries in the schedule
 * and index stores.
 */
final class RestoreBench {

    private RestoreBench() {}

    /** The restart after wiping the state directory; times from start(). */
    record Row(
            int events,
            long scheduleEntries,
            long indexEntries,
            long restoredRecords,
            double runningMs,
            double restoredMs,
            double countedMs) {}

    /** Wipes the closed instance's state directory, starts it again and times the restoration of its entries. */
    static Row measure(BenchBroker broker, String app, TtlStreamsConfig config, int events, Consumer<String> log)
            throws InterruptedException {
        Path stateDir = broker.stateDir(app);
        BenchSupport.deleteRecursively(stateDir);
        KafkaStreams streams = BrokerBench.ttlStreams(config);
        Map<String, Long> restoredByStore = new ConcurrentHashMap<>();
        AtomicLong lastRestoreEnd = new AtomicLong();
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(
                    TopicPartition partition, String store, long startingOffset, long endingOffset) {}

            @Override
            public void onBatchRestored(
                    TopicPartition partition, String store, long batchEndOffset, long numRestored) {}

            @Override
            public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
                restoredByStore.merge(store, totalRestored, Long::sum);
                lastRestoreEnd.set(System.nanoTime());
            }
        });
        long start = System.nanoTime();
        try (StreamsRun run = StreamsRun.start(streams, app)) {
            run.awaitRunning(Duration.ofMinutes(10));
            long running = run.runningAtNanos();
            long[] counts = new long[2];
            run.await(
                    "holding all " + events + " entries",
                    () -> {
                        counts[0] = countEntries(streams, ScheduleStores.SCHEDULE);
                        counts[1] = countEntries(streams, ScheduleStores.INDEX);
                        return counts[0] >= events && counts[1] >= events;
                    },
                    Duration.ofMinutes(10));
            long counted = System.nanoTime();
            long restoreEnd = lastRestoreEnd.get() == 0 ? running : lastRestoreEnd.get();
            Row row = new Row(
                    events,
                    counts[0],
                    counts[1],
                    restoredByStore.values().stream().mapToLong(Long::longValue).sum(),
                    (running - start) / 1e6,
                    (restoreEnd - start) / 1e6,
                    (counted - start) / 1e6);
            log.accept(String.format(
                    Locale.ROOT, "restore of %d entries: RUNNING after %.0f ms", events, row.runningMs()));
            return row;
        }
    }

    /**
     * Documents' entries in a store (the index holds nothing else), or -1 while it cannot be queried yet (restoring,
     * migrating).
     */
    private static long countEntries(KafkaStreams streams, String store) {
        try {
            ReadOnlyKeyValueStore<Bytes, Object> kv =
                    streams.store(StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.keyValueStore()));
            long n = 0;
            try (KeyValueIterator<Bytes, Object> all = kv.all()) {
                while (all.hasNext()) {
                    all.next();
                    n++;
                }
            }
            return n;
        } catch (InvalidStateStoreException e) {
            return -1;
        }
    }
}
