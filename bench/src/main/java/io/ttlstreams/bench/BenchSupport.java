package io.ttlstreams.bench;

import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.OutputTopicOptions;
import io.ttlstreams.config.RuleConfig;
import io.ttlstreams.config.RulesOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.metrics.PrometheusMetrics;
import io.ttlstreams.processor.ScheduleEntries;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.rules.TtlRules;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.state.EntryState;
import io.ttlstreams.state.ExpirySchedule;
import io.ttlstreams.topology.TtlTopology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import javax.management.MBeanServerFactory;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/** What the benchmarks share: the rule set, document keys, state directories and their sizes. */
final class BenchSupport {

    /** The wall clock every driver starts at. */
    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    static final String NAMESPACE = "app.sessions";
    static final String RULE = "sessions";
    /** The notice period of the expiry-events variants of the broker and state figures: an hour. */
    static final int NOTICE_BEFORE_SECONDS = 3600;
    /** The date field the benchmarks' rule reads. */
    static final String FIELD = "expireAt";

    static final String APPLICATION_ID = "ttl-streams-bench";

    private BenchSupport() {}

    /** One field rule "sessions" on app.sessions, field expireAt, plus {@code extra} settings. */
    static TtlStreamsConfig config(Map<String, String> extra) {
        Map<String, String> props = new HashMap<>(Map.of(
                StreamsConfig.APPLICATION_ID_CONFIG,
                APPLICATION_ID,
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG,
                "unused:9092",
                RulesOptions.RULES_CONFIG,
                RULE,
                "ttl.rule.sessions.namespace",
                NAMESPACE,
                "ttl.rule.sessions.field",
                FIELD,
                // The processor's HTTP server: on a free loopback port, never in the way of anything else.
                OperationsOptions.HTTP_PORT_CONFIG,
                "0",
                OperationsOptions.HTTP_BIND_ADDRESS_CONFIG,
                "127.0.0.1"));
        props.putAll(extra);
        return new TtlStreamsConfig(props);
    }

    /**
     * Expiry events on: expired records to {@code topic}, and an EXPIRING notice {@code noticeBeforeSeconds} before
     * each deadline of the benchmarks' rule.
     */
    static Map<String, String> expiryEvents(String topic, int noticeBeforeSeconds) {
        return Map.of(
                OutputTopicOptions.EXPIRED_TOPIC_CONFIG,
                topic,
                ruleOption(RuleConfig.NOTICE_BEFORE_SECONDS_CONFIG),
                Integer.toString(noticeBeforeSeconds));
    }

    /** The full name of an option of the benchmarks' rule, e.g. {@code ttl.rule.sessions.expired.document}. */
    static String ruleOption(String option) {
        return "ttl.rule." + RULE + "." + option;
    }

    /** The benchmarks' rules: one field rule on {@value #NAMESPACE}'s expireAt, as {@link #config} sets them. */
    private static final TtlRules RULES = config(Map.of()).rules();

    /** The n-th document's _id: a deterministic ObjectId, the commonest MongoDB key. */
    static BsonValue id(long n) {
        return new BsonObjectId(new ObjectId(String.format("%024x", n)));
    }

    /** The document key JSON the connector writes as record key, e.g. {"_id": {"$oid": "..."}}. */
    static String keyJson(long n) {
        return CanonicalJson.of(new BsonDocument("_id", id(n)));
    }

    /** The n of a {@link #keyJson(long)}: the inverse, for reading delete commands back. */
    static long idOf(String keyJson) {
        return Long.parseLong(
                BsonDocument.parse(keyJson).getObjectId("_id").getValue().toHexString(), 16);
    }

    /**
     * Puts document {@code id}'s schedule entry and index entry straight into the stores, as the scheduler writes
     * them for an insert with expireAt = deadline (condition and clusterTime included, so sizes are realistic).
     */
    static void scheduleDirectly(
            KeyValueStore<Bytes, ScheduleEntry> schedule,
            KeyValueStore<Bytes, IndexEntry> index,
            KeyValueStore<Bytes, TaskRecord> task,
            long id,
            long deadlineMs) {
        scheduleDirectly(schedule, index, task, id, deadlineMs, 0);
    }

    /**
     * {@link #scheduleDirectly(KeyValueStore, KeyValueStore, KeyValueStore, long, long)}, and with {@code noticeBeforeMs} > 0 the
     * notice of that deadline as the scheduler puts it for a rule with {@code notice.before.seconds}: the same entry
     * on the notices timeline, due that long before the deadline (the caller keeps it ahead of the wall clock, as the
     * scheduler puts none for a deadline already closer).
     */
    static void scheduleDirectly(
            KeyValueStore<Bytes, ScheduleEntry> schedule,
            KeyValueStore<Bytes, IndexEntry> index,
            KeyValueStore<Bytes, TaskRecord> task,
            long id,
            long deadlineMs,
            long noticeBeforeMs) {
        long clusterTime = (START.getEpochSecond() << 32) | (id & 0xFFFF_FFFFL);
        Namespace namespace = Namespace.parse(NAMESPACE);
        BsonDocument key = new BsonDocument("_id", id(id));
        BsonDocument document = key.clone().append(FIELD, new BsonDateTime(deadlineMs));
        ExpiryDecision decision = RULES.evaluate(namespace, document, START);
        ScheduleEntry entry =
                ScheduleEntries.of(decision, RULES.rule(decision.rule()).orElseThrow());
        ExpirySchedule expirySchedule = new ExpirySchedule(schedule, index, task);
        Bytes ref = expirySchedule.namespaces().ref(namespace, key);
        long deadline = decision.deadline().toEpochMilli();
        expirySchedule.schedule(ref, null, EntryState.SCHEDULED, deadline, entry, clusterTime);
        if (noticeBeforeMs > 0) {
            expirySchedule.putNotice(ref, deadline - noticeBeforeMs, entry);
        }
    }

    /** Streams properties with a fresh state directory. */
    /**
     * The meters every processor of a bench records into, as {@code run}'s do (Prometheus and JMX, the latter on an
     * MBean server of the benches' own); one set for the JVM, each task's meters leaving with it.
     */
    static final PrometheusMetrics METRICS = new PrometheusMetrics(MBeanServerFactory.newMBeanServer());

    /** The Kafka Streams settings of {@code config} with the benches' {@link #METRICS}. */
    static Properties streamsProperties(TtlStreamsConfig config) {
        Properties properties = TtlTopology.streamsProperties(config);
        properties.put(TtlMetrics.REGISTRY_CONFIG, METRICS.events());
        return properties;
    }

    /** The sum over the running tasks and rules of ttl-streams counter {@code counter}. */
    static double ttlTotal(String counter) {
        return ExpiryFigures.of(METRICS.registry()).total(counter);
    }

    static Properties streamsProperties(TtlStreamsConfig config, Path stateDir) {
        Properties properties = streamsProperties(config);
        properties.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        return properties;
    }

    static Path tempStateDir(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Total bytes of the regular files under {@code dir}. */
    static long sizeOf(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Opens a closed store's RocksDB directly and rewrites every column family fully, so that its size counts live
     * data only (no tombstones, no overwritten values, no overlapping runs). Uncompressed, as Kafka Streams stores
     * it: RocksDB's own default would compress the rewritten files, and report a size the store never has.
     */
    static void compact(Path rocksDbDir) {
        RocksDB.loadLibrary();
        try (Options options = new Options();
                ColumnFamilyOptions familyOptions =
                        new ColumnFamilyOptions().setCompressionType(CompressionType.NO_COMPRESSION);
                CompactRangeOptions everything = new CompactRangeOptions()
                        .setBottommostLevelCompaction(CompactRangeOptions.BottommostLevelCompaction.kForce)) {
            List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
            for (byte[] family : RocksDB.listColumnFamilies(options, rocksDbDir.toString())) {
                descriptors.add(new ColumnFamilyDescriptor(family, familyOptions));
            }
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            try (DBOptions dbOptions = new DBOptions();
                    RocksDB db = RocksDB.open(dbOptions, rocksDbDir.toString(), descriptors, handles)) {
                for (ColumnFamilyHandle handle : handles) {
                    db.compactRange(handle, null, null, everything);
                }
                handles.forEach(ColumnFamilyHandle::close);
            }
        } catch (RocksDBException e) {
            throw new IllegalStateException("Could not compact " + rocksDbDir, e);
        }
    }

    /**
     * Writes a consistent copy of an open store's RocksDB to {@code target} (which must not exist): a RocksDB
     * checkpoint, after flushing the memtables to SST files. Kafka Streams runs RocksDB without a write-ahead log and,
     * in 4.x, neither flush() nor commit() of the store forces a memtable flush, so without this a small store's data
     * would not be on disk at all; and copying the open directory file by file races with background compactions,
     * which delete files under the copy. The RocksDB handle is private: reflection, bench only.
     */
    static void checkpoint(StateStore store, Path target) {
        StateStore inner = store;
        while (inner instanceof WrappedStateStore<?, ?, ?> wrapped) {
            inner = wrapped.wrapped();
        }
        try {
            Field field = inner.getClass().getDeclaredField("db");
            field.setAccessible(true);
            RocksDB db = (RocksDB) field.get(inner);
            try (FlushOptions options = new FlushOptions().setWaitForFlush(true);
                    Checkpoint checkpoint = Checkpoint.create(db)) {
                db.flush(options);
                checkpoint.createCheckpoint(target.toString());
            }
        } catch (ReflectiveOperationException | RocksDBException e) {
            throw new IllegalStateException("Could not checkpoint store " + store.name(), e);
        }
    }

    /** Drops the records a driver captured on {@code topic} (changelogs grow the heap, not the state). */
    static void drain(TopologyTestDriver driver, String topic) {
        TestOutputTopic<byte[], byte[]> output =
                driver.createOutputTopic(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        while (!output.isEmpty()) {
            output.readRecord();
        }
    }

    /** Heap in use after repeated full GCs, in bytes. */
    static long heapUsedAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
        }
        return used;
    }
}
