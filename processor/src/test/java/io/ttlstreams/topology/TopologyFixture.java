package io.ttlstreams.topology;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.event.SourceClock;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.metrics.PrometheusMetrics;
import io.ttlstreams.processor.ScheduleEntries;
import io.ttlstreams.processor.SchedulerSettings;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.readback.DocumentReadBack;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.schema.UnscheduledNote;
import io.ttlstreams.serde.AvroSerde;
import io.ttlstreams.state.EntryState;
import io.ttlstreams.state.ExpirySchedule;
import io.ttlstreams.state.NamespaceIds;
import io.ttlstreams.state.ScheduleQueries;
import io.ttlstreams.state.ScheduleStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;

/**
 * The ttl-streams topology in a {@link TopologyTestDriver}, with a controllable wall clock and a
 * punctuation clock that tests can slow down.
 */
final class TopologyFixture implements AutoCloseable {

    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    final TtlStreamsConfig config;
    final TopologyTestDriver driver;
    final TestOutputTopic<String, String> deletes;
    final TestOutputTopic<String, String> dlq;
    /** An MBean server of this fixture's own, where its meters' JMX side is. */
    final MBeanServer mbeans = MBeanServerFactory.newMBeanServer();
    /** The meters the topology records into, as {@code run} exports them. */
    final PrometheusMetrics metrics = new PrometheusMetrics(mbeans);
    /** Nanoseconds the punctuation clock advances on each read; 0 means it stands still, negative that it fails. */
    final AtomicLong nanosPerClockRead = new AtomicLong();
    /** What the scheduler is told of the sink connector: true while it writes, as a monitor would report. */
    final AtomicBoolean sinkWriting = new AtomicBoolean(true);
    /** MongoDB's clock against the processor's, as a health check would measure it: unmeasured until a test says. */
    final SourceClock sourceClock = new SourceClock();

    private final Map<String, String> settings;

    private final AtomicLong nanoClock = new AtomicLong();
    private final Path stateDir;

    TopologyFixture(Map<String, String> settings) {
        this(settings, Optional.empty());
    }

    /** A fixture whose scheduler reads unconfirmed deletes back through {@code readBack} (not started: tests read). */
    TopologyFixture(Map<String, String> settings, Optional<DocumentReadBack> readBack) {
        this(settings, readBack, newStateDir(), START);
    }

    private TopologyFixture(
            Map<String, String> settings, Optional<DocumentReadBack> readBack, Path stateDir, Instant wallClock) {
        Map<String, String> props = new HashMap<>(Map.of(
                StreamsConfig.APPLICATION_ID_CONFIG, "ttl-streams-test",
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092"));
        props.putAll(settings);
        this.settings = Map.copyOf(settings);
        this.config = new TtlStreamsConfig(props);
        this.stateDir = stateDir;
        this.elapsedMs = Duration.between(START, wallClock).toMillis();
        Properties streamsProps = TtlTopology.streamsProperties(config);
        streamsProps.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        streamsProps.put(TtlMetrics.REGISTRY_CONFIG, metrics.events());
        SchedulerSettings schedulerSettings =
                new SchedulerSettings(config, 1, this::readNanoClock, readBack, now -> sinkWriting.get());
        this.driver = new TopologyTestDriver(
                TtlTopology.build(config, schedulerSettings, sourceClock), streamsProps, wallClock);
        this.deletes = output(config.deleteTopic());
        this.dlq = output(config.dlqTopic());
    }

    /** The punctuation clock: it advances {@link #nanosPerClockRead} on each read, and fails while that is negative. */
    private long readNanoClock() {
        long step = nanosPerClockRead.get();
        if (step < 0) {
            throw new IllegalStateException("the punctuation clock failed, as the test asked");
        }
        return nanoClock.addAndGet(step);
    }

    private static Path newStateDir() {
        try {
            return Files.createTempDirectory("ttl-streams-ttd");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The records written to {@code store}'s changelog since the last call (or the last restart): read once. */
    List<TestRecord<byte[], byte[]>> changelog(String store) {
        return driver.createOutputTopic(
                        config.streamsProperties().getProperty(StreamsConfig.APPLICATION_ID_CONFIG) + "-" + store
                                + "-changelog",
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer())
                .readRecordsToList();
    }

    /**
     * This fixture restarted, as a task that moved or a process that started again on an empty disk: a new driver, with
     * the wall clock where this one's was, whose stores are restored from what this one wrote to their changelogs
     * (the driver itself neither keeps its state directory nor restores), and with {@code changedSettings} (key, value,
     * ...) replacing this one's. This one is closed; close the returned one.
     */
    TopologyFixture restarted(String... changedSettings) {
        String applicationId = config.streamsProperties().getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
        List<String> stores = List.of(
                ScheduleStores.SCHEDULE,
                ScheduleStores.INDEX,
                ScheduleStores.TASK,
                ScheduleStores.NAMESPACE_EPOCHS,
                ScheduleStores.RULE_VERSIONS,
                ScheduleStores.GUARD_STATE,
                ScheduleStores.UNSCHEDULED_NOTES);
        Map<String, List<TestRecord<byte[], byte[]>>> changelogs = new HashMap<>();
        for (String store : stores) {
            changelogs.put(store, changelog(store));
        }
        driver.close();
        metrics.close();
        TopologyFixture restarted = new TopologyFixture(
                with(settings, changedSettings), Optional.empty(), newStateDir(), START.plusMillis(elapsedMs));
        restore(
                restarted.scheduleStore(),
                changelogs.get(ScheduleStores.SCHEDULE),
                Bytes::wrap,
                ScheduleStores.SCHEDULE_VALUES);
        restore(restarted.indexStore(), changelogs.get(ScheduleStores.INDEX), Bytes::wrap, ScheduleStores.INDEX_VALUES);
        restore(restarted.taskStore(), changelogs.get(ScheduleStores.TASK), Bytes::wrap, ScheduleStores.TASK_VALUES);
        restore(
                restarted.driver.getKeyValueStore(ScheduleStores.NAMESPACE_EPOCHS),
                changelogs.get(ScheduleStores.NAMESPACE_EPOCHS),
                TopologyFixture::string,
                Serdes.Long());
        restore(
                restarted.driver.getKeyValueStore(ScheduleStores.RULE_VERSIONS),
                changelogs.get(ScheduleStores.RULE_VERSIONS),
                TopologyFixture::string,
                ScheduleStores.RULE_VERSION_VALUES);
        restore(
                restarted.driver.getKeyValueStore(ScheduleStores.GUARD_STATE),
                changelogs.get(ScheduleStores.GUARD_STATE),
                TopologyFixture::string,
                ScheduleStores.GUARD_STATE_VALUES);
        restore(
                restarted.notesStore(),
                changelogs.get(ScheduleStores.UNSCHEDULED_NOTES),
                bytes -> Serdes.Integer().deserializer().deserialize(null, bytes),
                ScheduleStores.UNSCHEDULED_NOTE_VALUES);
        try {
            Utils.delete(stateDir.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return restarted;
    }

    private static String string(byte[] bytes) {
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static <K, V> void restore(
            KeyValueStore<K, V> store,
            List<TestRecord<byte[], byte[]>> changelog,
            java.util.function.Function<byte[], K> keys,
            org.apache.kafka.common.serialization.Serde<V> values) {
        for (TestRecord<byte[], byte[]> record : changelog) {
            K key = keys.apply(record.key());
            if (record.value() == null) {
                store.delete(key);
            } else {
                store.put(key, values.deserializer().deserialize(null, record.value()));
            }
        }
    }

    /** A fixture with one field rule "sessions" on app.sessions, field expireAt, plus {@code extra} settings. */
    static TopologyFixture sessions(String... extra) {
        return new TopologyFixture(sessionsSettings(extra));
    }

    /** The settings of {@link #sessions}: {@link TestConfigs}' minimal configuration. */
    static Map<String, String> sessionsSettings(String... extra) {
        return TestConfigs.settings(extra);
    }

    /** The settings of a last-modified rule "events" on app.events, plus {@code extra} (its expiry, its field). */
    static Map<String, String> eventsSettings(String... extra) {
        return with(
                TestConfigs.settings(
                        "ttl.rules", "events",
                        "ttl.rule.sessions.namespace", null,
                        "ttl.rule.sessions.field", null,
                        "ttl.rule.events.namespace", "app.events",
                        "ttl.rule.events.mode", "last-modified"),
                extra);
    }

    /** A copy of {@code settings} with {@code keyValues} (key, value, key, value, ...) put over it; null removes. */
    static Map<String, String> with(Map<String, String> settings, String... keyValues) {
        Map<String, String> result = new HashMap<>(settings);
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] == null) {
                result.remove(keyValues[i]);
            } else {
                result.put(keyValues[i], keyValues[i + 1]);
            }
        }
        return result;
    }

    /**
     * An input topic whose records are timestamped {@link #START}, no later than the events' own times. The events'
     * times must lie within the plausible window around that ({@code ttl.event.time.max.future.skew.ms} after it at
     * most); events of later times need {@link #input(String, Instant)}.
     */
    TestInputTopic<String, String> input(String topic) {
        return input(topic, START);
    }

    /**
     * An input topic whose records are timestamped {@code recordTime}, as a connector publishing then would; the wall
     * clock must have reached about that time, as the record's time counts no later than the processor's clock.
     */
    TestInputTopic<String, String> input(String topic, Instant recordTime) {
        return driver.createInputTopic(
                topic, new StringSerializer(), new StringSerializer(), recordTime, Duration.ZERO);
    }

    TestOutputTopic<String, String> output(String topic) {
        return driver.createOutputTopic(topic, new StringDeserializer(), new StringDeserializer());
    }

    TestOutputTopic<String, ExpiryEvent> audit() {
        return driver.createOutputTopic(
                config.auditTopic().orElseThrow(),
                new StringDeserializer(),
                AvroSerde.of(ExpiryEvent.class).deserializer());
    }

    /** Moves the wall clock to {@code START + offset}, firing the punctuations in between. */
    void wallClockAt(Duration offset) {
        Instant now = START.plus(offset);
        long currentMs = START.toEpochMilli() + elapsedMs;
        long advance = now.toEpochMilli() - currentMs;
        if (advance > 0) {
            driver.advanceWallClockTime(Duration.ofMillis(advance));
            elapsedMs += advance;
        }
    }

    private long elapsedMs;

    List<TestRecord<String, String>> deletes() {
        return deletes.readRecordsToList();
    }

    /**
     * Schedules a document straight into the stores through the rules, as the scheduler would for the change event
     * of a document {@code {_id: id, expireAt: deadline}} (a field rule on expireAt with no offset).
     */
    void scheduleDirectly(String namespace, org.bson.BsonValue id, Instant deadline) {
        Namespace ns = Namespace.parse(namespace);
        BsonDocument document =
                new BsonDocument("_id", id).append("expireAt", new BsonDateTime(deadline.toEpochMilli()));
        ExpiryDecision decision = config.rules().evaluate(ns, document, START);
        ExpirySchedule schedule = new ExpirySchedule(scheduleStore(), indexStore(), taskStore());
        schedule.schedule(
                schedule.namespaces().ref(ns, new BsonDocument("_id", id)),
                null,
                EntryState.SCHEDULED,
                decision.deadline().toEpochMilli(),
                ScheduleEntries.of(
                        decision, config.rules().rule(decision.rule()).orElseThrow()),
                null);
    }

    /**
     * The document's entry as the schedule answers for it ({@code GET /v1/documents}): its state (scheduled,
     * awaiting-confirmation, ...) and attempts; empty when it has none.
     */
    Optional<ScheduleQueries.ScheduledDocument> scheduled(String namespace, org.bson.BsonValue id) {
        return ScheduleQueries.find(
                indexStore(),
                scheduleStore(),
                taskStore(),
                Namespace.parse(namespace),
                new BsonDocument("_id", id),
                rule -> java.util.OptionalLong.empty());
    }

    /** The sum over tasks of one of ttl-streams' counters, e.g. {@value TtlMetrics#EMITTED}. */
    double metric(String counter) {
        return ExpiryFigures.of(metrics.registry()).total(counter);
    }

    /** Records written so far to the schedule's, index's and task's changelogs: what the stores cost the broker. */
    int changelogRecords() {
        String applicationId = config.streamsProperties().getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
        for (String store : List.of(ScheduleStores.SCHEDULE, ScheduleStores.INDEX, ScheduleStores.TASK)) {
            changelogRecords += driver.createOutputTopic(
                            applicationId + "-" + store + "-changelog",
                            new ByteArrayDeserializer(),
                            new ByteArrayDeserializer())
                    .readRecordsToList()
                    .size();
        }
        return changelogRecords;
    }

    private int changelogRecords;

    KeyValueStore<Bytes, ScheduleEntry> scheduleStore() {
        return driver.getKeyValueStore(ScheduleStores.SCHEDULE);
    }

    KeyValueStore<Integer, UnscheduledNote> notesStore() {
        return driver.getKeyValueStore(ScheduleStores.UNSCHEDULED_NOTES);
    }

    KeyValueStore<Bytes, IndexEntry> indexStore() {
        return driver.getKeyValueStore(ScheduleStores.INDEX);
    }

    KeyValueStore<Bytes, TaskRecord> taskStore() {
        return driver.getKeyValueStore(ScheduleStores.TASK);
    }

    /** The reference of the document {@code {_id: id}} in the task's dictionary; empty when it has no namespace ids. */
    Optional<Bytes> ref(Namespace namespace, org.bson.BsonValue id) {
        return NamespaceIds.readOnly(taskStore()).find(namespace, new BsonDocument("_id", id));
    }

    /** How many documents' entries the index holds: every record of it. */
    int documentEntries() {
        int count = 0;
        try (KeyValueIterator<Bytes, IndexEntry> all = indexStore().all()) {
            while (all.hasNext()) {
                all.next();
                count++;
            }
        }
        return count;
    }

    /** Where the document {@code {_id: id}}'s entry is; null when it has none. */
    IndexEntry position(Namespace namespace, org.bson.BsonValue id) {
        return ref(namespace, id).map(indexStore()::get).orElse(null);
    }

    @Override
    public void close() {
        driver.close();
        metrics.close();
        try {
            Utils.delete(stateDir.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
