package io.ttlstreams.bench;

import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.embedded.EmbeddedKafka;
import io.ttlstreams.event.ChangeEventParser;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.state.ScheduleStores;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Figures 3b and 5, on a real broker: the embedded KRaft broker ({@link EmbeddedKafka}) in this JVM, exactly-once
 * ({@code exactly_once_v2}, the ttl-streams default) and real serdes.
 *
 * <ol>
 *   <li>Scheduling throughput. N change events (inserts of new documents, canonical extended JSON as the MongoDB
 *       source connector writes them, expireAt 30 days out so nothing is deleted) are produced to
 *       {@code app.sessions} (2 partitions) before anything reads them. Then the production processor
 *       ({@link TtlStreamsApp}: topic provisioning, {@code TtlTopology}, the default Kafka Streams settings of
 *       ttl-streams) reads them from the beginning, and afterwards a pass-through topology (parse with the same
 *       {@link ChangeEventParser}, write the raw event out) does the same under the same settings. A run is
 *       timed from KafkaStreams RUNNING to the moment the group's committed offsets reach the end of both
 *       partitions, i.e. everything processed and committed in EOS transactions. Both are warmed up first on a
 *       separate small topic so that neither pays the JIT alone.</li>
 *   <li>State restore. The ttl-streams instance of (1), holding N scheduled documents, is closed, its state
 *       directory wiped, and it is started again: timed until RUNNING, until every store reported the end of its
 *       restoration from the changelog, and until an interactive query counted all N entries in the schedule
 *       and index stores.</li>
 * </ol>
 */
final class BrokerBench {

    static final String TTL_STREAMS = "ttl-streams";
    static final String PASS_THROUGH = "pass-through";
    static final int PARTITIONS = 2;
    private static final String WARMUP_TOPIC = "app.sessions.warmup";
    private static final String PASS_OUT = "bench.pass-through-out";
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(20);

    /** One topology's run. {@code seconds} runs from RUNNING to all committed; {@code totalSeconds} from start(). */
    record ThroughputRow(
            String topology, int events, int partitions, double seconds, double totalSeconds, long scheduled) {
        double eventsPerSecond() {
            return events / seconds;
        }
    }

    /** The restart after wiping the state directory. */
    record RestoreRow(
            int events,
            long scheduleEntries,
            long indexEntries,
            long restoredRecords,
            double runningMs,
            double restoredMs,
            double countedMs,
            Map<String, Long> restoredByStore) {}

    final List<ThroughputRow> rows = new ArrayList<>();
    RestoreRow restore;
    double produceSeconds;

    private final int events;
    private final int warmupEvents;
    private final boolean measureRestore;
    private final Consumer<String> log;

    BrokerBench(int events, int warmupEvents, boolean measureRestore, Consumer<String> log) {
        this.events = events;
        this.warmupEvents = warmupEvents;
        this.measureRestore = measureRestore;
        this.log = log;
    }

    double ratio() {
        return row(TTL_STREAMS).eventsPerSecond() / row(PASS_THROUGH).eventsPerSecond();
    }

    ThroughputRow row(String topology) {
        return rows.stream()
                .filter(r -> r.topology().equals(topology))
                .findFirst()
                .orElseThrow();
    }

    void run() throws InterruptedException {
        Path dir = BenchSupport.tempStateDir("ttl-bench-broker");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0);
                Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            String bootstrap = kafka.bootstrapServers();
            kafka.createTopics(PARTITIONS, BenchSupport.NAMESPACE, WARMUP_TOPIC, PASS_OUT);
            long started = System.nanoTime();
            produce(bootstrap, BenchSupport.NAMESPACE, events, 0);
            produceSeconds = (System.nanoTime() - started) / 1e9;
            produce(bootstrap, WARMUP_TOPIC, warmupEvents, 100_000_000L);
            log.accept(String.format(java.util.Locale.ROOT, "produced %d events in %.1f s", events, produceSeconds));

            // Warm-up: both topologies over the small topic, results dropped.
            runTtlStreams(admin, bootstrap, dir, WARMUP_TOPIC, "bench-warmup-ttl", warmupEvents, false);
            runPassThrough(admin, bootstrap, dir, WARMUP_TOPIC, "bench-warmup-pass", warmupEvents);
            log.accept("warm-up done");

            rows.add(runTtlStreams(admin, bootstrap, dir, BenchSupport.NAMESPACE, "bench-ttl", events, measureRestore));
            log.accept(String.format(
                    java.util.Locale.ROOT,
                    "ttl-streams: %.0f events/s",
                    rows.get(rows.size() - 1).eventsPerSecond()));
            rows.add(runPassThrough(admin, bootstrap, dir, BenchSupport.NAMESPACE, "bench-pass", events));
            log.accept(String.format(
                    java.util.Locale.ROOT,
                    "pass-through: %.0f events/s",
                    rows.get(rows.size() - 1).eventsPerSecond()));
        } finally {
            BenchSupport.deleteRecursively(dir);
        }
    }

    /** N inserts of new documents, keyed by document key, expiring in 30 days. */
    private static void produce(String bootstrap, String topic, int count, long firstId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
        ChangeEventFactory factory = new ChangeEventFactory(BenchSupport.NAMESPACE);
        Instant now = Instant.now();
        Instant expireAt = now.plus(Duration.ofDays(30));
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                long id = firstId + i;
                Instant wallTime = now.plusMillis(i / 10);
                producer.send(new ProducerRecord<>(
                        topic,
                        null,
                        wallTime.toEpochMilli(),
                        BenchSupport.keyJson(id),
                        factory.write("insert", id, wallTime, expireAt.plusMillis(i))));
            }
            producer.flush();
        }
    }

    private static TtlStreamsConfig config(String bootstrap, Path stateDir, String topic, String applicationId) {
        return BenchSupport.config(Map.of(
                StreamsConfig.APPLICATION_ID_CONFIG, applicationId,
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                StreamsConfig.STATE_DIR_CONFIG, stateDir.toString(),
                TtlStreamsConfig.SOURCE_TOPICS_CONFIG, topic,
                TtlStreamsConfig.SOURCE_TOPIC_NAMESPACE_MAP_CONFIG, topic + "=" + BenchSupport.NAMESPACE));
    }

    private ThroughputRow runTtlStreams(
            Admin admin, String bootstrap, Path dir, String topic, String applicationId, int count, boolean thenRestore)
            throws InterruptedException {
        Path stateDir = dir.resolve("state-" + applicationId);
        TtlStreamsConfig config = config(bootstrap, stateDir, topic, applicationId);
        TtlStreamsApp app = new TtlStreamsApp(config);
        ThroughputRow row;
        try {
            row = timeRun(admin, app.streams(), applicationId, topic, count, TTL_STREAMS);
            row = new ThroughputRow(
                    row.topology(),
                    row.events(),
                    row.partitions(),
                    row.seconds(),
                    row.totalSeconds(),
                    scheduledTotal(app.streams()));
        } finally {
            app.close();
        }
        if (thenRestore) {
            restore = restore(config, count);
        }
        BenchSupport.deleteRecursively(stateDir);
        return row;
    }

    private ThroughputRow runPassThrough(
            Admin admin, String bootstrap, Path dir, String topic, String applicationId, int count)
            throws InterruptedException {
        Path stateDir = dir.resolve("state-" + applicationId);
        TtlStreamsConfig config = config(bootstrap, stateDir, topic, applicationId);
        // The same Kafka Streams properties as the processor's (EOS v2, default commit interval).
        KafkaStreams streams = new KafkaStreams(passThrough(config), config.streamsProperties());
        try {
            return timeRun(admin, streams, applicationId, topic, count, PASS_THROUGH);
        } finally {
            streams.close(Duration.ofSeconds(30));
            BenchSupport.deleteRecursively(stateDir);
        }
    }

    /** Starts {@code streams} and waits until the group committed the end offsets of every partition of topic. */
    private ThroughputRow timeRun(
            Admin admin, KafkaStreams streams, String applicationId, String topic, int count, String name)
            throws InterruptedException {
        Map<TopicPartition, Long> ends = endOffsets(admin, topic);
        long start = System.nanoTime();
        streams.start();
        long running = awaitRunning(streams, Duration.ofMinutes(2));
        long deadline = System.nanoTime() + RUN_TIMEOUT.toNanos();
        while (!committedAll(admin, applicationId, ends)) {
            if (System.nanoTime() > deadline || streams.state() == KafkaStreams.State.ERROR) {
                throw new IllegalStateException(
                        name + " did not commit all " + count + " events (state " + streams.state() + ")");
            }
            Thread.sleep(20);
        }
        long done = System.nanoTime();
        return new ThroughputRow(name, count, PARTITIONS, (done - running) / 1e9, (done - start) / 1e9, -1);
    }

    private static long awaitRunning(KafkaStreams streams, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (streams.state() != KafkaStreams.State.RUNNING) {
            if (System.nanoTime() > deadline || streams.state() == KafkaStreams.State.ERROR) {
                throw new IllegalStateException("Kafka Streams not RUNNING: " + streams.state());
            }
            Thread.sleep(5);
        }
        return System.nanoTime();
    }

    private static Map<TopicPartition, Long> endOffsets(Admin admin, String topic) throws InterruptedException {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        try {
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(request)
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> ends.put(tp, info.offset()));
            return ends;
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("Cannot list end offsets of " + topic, e);
        }
    }

    private static boolean committedAll(Admin admin, String group, Map<TopicPartition, Long> ends)
            throws InterruptedException {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
            for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
                OffsetAndMetadata offset = committed.get(end.getKey());
                if (offset == null || offset.offset() < end.getValue()) {
                    return false;
                }
            }
            return true;
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return false; // the group may not exist yet
        }
    }

    /** Sum of documents-scheduled-total over the tasks (group stream-ttl-metrics). */
    private static long scheduledTotal(KafkaStreams streams) {
        double total = 0;
        for (Map.Entry<MetricName, ? extends Metric> metric : streams.metrics().entrySet()) {
            if (metric.getKey().name().equals(TtlMetrics.SCHEDULED + "-total")
                    && metric.getKey().group().equals("stream-" + TtlMetrics.SCOPE + "-metrics")) {
                total += ((Number) metric.getValue().metricValue()).doubleValue();
            }
        }
        return (long) total;
    }

    /** Wipes the closed instance's state directory, starts it again and times the restoration. */
    private RestoreRow restore(TtlStreamsConfig config, int count) throws InterruptedException {
        Path stateDir = Path.of(config.streamsProperties().getProperty(StreamsConfig.STATE_DIR_CONFIG));
        BenchSupport.deleteRecursively(stateDir);
        TtlStreamsApp app = new TtlStreamsApp(config);
        Map<String, Long> restoredByStore = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.atomic.AtomicLong lastRestoreEnd = new java.util.concurrent.atomic.AtomicLong();
        app.streams().setGlobalStateRestoreListener(new StateRestoreListener() {
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
        try {
            long start = System.nanoTime();
            app.start();
            long running = awaitRunning(app.streams(), Duration.ofMinutes(10));
            long scheduleEntries = 0;
            long indexEntries = 0;
            long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
            while (scheduleEntries < count || indexEntries < count) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Restored stores hold " + scheduleEntries + "/" + indexEntries
                            + " entries, expected " + count);
                }
                try {
                    scheduleEntries = countEntries(app.streams(), ScheduleStores.SCHEDULE);
                    indexEntries = countEntries(app.streams(), ScheduleStores.INDEX);
                } catch (org.apache.kafka.streams.errors.InvalidStateStoreException e) {
                    Thread.sleep(20); // still restoring or migrating
                }
            }
            long counted = System.nanoTime();
            long restored =
                    restoredByStore.values().stream().mapToLong(Long::longValue).sum();
            long restoreEnd = lastRestoreEnd.get() == 0 ? running : lastRestoreEnd.get();
            return new RestoreRow(
                    count,
                    scheduleEntries,
                    indexEntries,
                    restored,
                    (running - start) / 1e6,
                    (restoreEnd - start) / 1e6,
                    (counted - start) / 1e6,
                    Map.copyOf(restoredByStore));
        } finally {
            app.close();
        }
    }

    private static long countEntries(KafkaStreams streams, String store) {
        ReadOnlyKeyValueStore<Object, Object> kv =
                streams.store(StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.keyValueStore()));
        long n = 0;
        try (KeyValueIterator<Object, Object> all = kv.all()) {
            while (all.hasNext()) {
                all.next();
                n++;
            }
        }
        return n;
    }

    /** Parse with the engine's parser, write the raw event out; the same shape as the TopologyTestDriver one. */
    private static Topology passThrough(TtlStreamsConfig config) {
        ChangeEventParser parser = new ChangeEventParser(config.topicNamespaceMapping());
        Topology topology = new Topology();
        topology.addSource(
                "source",
                new StringDeserializer(),
                new StringDeserializer(),
                config.sourceTopics().toArray(String[]::new));
        topology.addProcessor("parse", () -> new ThroughputBench.PassThrough(parser), "source");
        topology.addSink("sink", PASS_OUT, new StringSerializer(), new StringSerializer(), "parse");
        return topology;
    }
}
