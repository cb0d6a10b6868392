package io.ttlstreams.bench;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.topology.TtlTopology;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Figure 3 on the embedded broker: what scheduling costs per change event, against a pass-through topology; its last
 * round also times the restore of a wiped instance ({@link RestoreBench}, figure 5).
 *
 * <p>Both workloads are produced once and read by every run from the beginning: {@code inserts} (N new documents,
 * each one scheduled) and {@code noop-updates} (one update per document that changes a field no rule reads, so
 * deadline and delete filter stay as they were). Each round runs every {@link Variant} in a rotated order (AB, BA,
 * AB, ...), so drift in the machine's load does not always hit the same one; a variant runs both workloads back to
 * back, each with a fresh application id and state directory, except that ttl-streams reads the updates with the
 * state its inserts run left (the updates are no-ops only against the inserted documents). A discarded warm-up unit
 * of each variant on a small pair of topics goes first, so that no measured run pays the JIT alone.
 *
 * <p>Each run is measured from RUNNING until the group's committed offsets reach the end of the source topic
 * (everything processed and committed in EOS transactions): the stream thread's CPU time ({@link StreamsRun}), the
 * records it processed ({@code process-total}), the bytes the broker stored for it (growth of the log segments of
 * every topic it writes, changelogs included), its producer's retries and errors, and wall time. Summaries are
 * medians over the rounds.
 *
 * <p>Restore: in the last round, the ttl-streams instance that read the inserts is closed, its state directory
 * wiped, and it is started again: timed until RUNNING, until every store reported the end of its restoration, and
 * until an interactive query counted all N entries in the schedule and index stores. Its noop-updates run then
 * continues on the restored state.
 */
final class BrokerBench {

    /** What runs against what. */
    enum Variant {
        /** The production topology, {@link TtlTopology#build(TtlStreamsConfig, int)}, with the ttl-streams defaults. */
        TTL_STREAMS("ttl-streams"),
        /**
         * The production topology with expiry events on: {@code ttl.expired.topic} set and an EXPIRING notice an hour
         * before each deadline, so that every scheduled document has a notice entry too (EventCostBench only).
         */
        TTL_STREAMS_EXPIRY_EVENTS("ttl-streams-expiry-events"),
        /** {@link PassThroughTopology}: parse with the same parser, write the event out. */
        PASS_THROUGH("pass-through"),
        /**
         * {@link FullScanTopology} on the change events: parse with the same parser, one put per event into one store
         * of id to deadline, the simplest stateful design (EventCostBench only). Its punctuation, a scan of the whole
         * store whose cost figure 1 gives, is set to an interval no run reaches, so that the figure is per event.
         */
        FULL_SCAN("full-scan");

        final String label;

        Variant(String label) {
            this.label = label;
        }

        /** Whether this is the production topology, which counts what it scheduled. */
        boolean ttlStreams() {
            return this == TTL_STREAMS || this == TTL_STREAMS_EXPIRY_EVENTS;
        }
    }

    /** The produced change events a run reads. */
    enum Workload {
        INSERTS("inserts"),
        NOOP_UPDATES("noop-updates");

        final String label;

        Workload(String label) {
            this.label = label;
        }
    }

    /**
     * One measured run.
     *
     * @param position 1-based place of the variant in its round's order
     * @param events records the stream thread processed
     * @param cost CPU and wall time from RUNNING to all committed
     * @param bytesByTopic growth of each written topic, named {@code <app>...}
     * @param scheduled documents-scheduled-total, or -1 for the pass-through
     */
    record Run(
            int round,
            int position,
            Variant variant,
            Workload workload,
            long events,
            StreamsRun.Sample cost,
            Map<String, Long> bytesByTopic,
            long producerRetries,
            long producerErrors,
            long scheduled) {

        double streamCpuMicrosPerEvent() {
            return cost.streamThreadCpu() / 1e3 / events;
        }

        double clientCpuMicrosPerEvent() {
            return cost.clientCpu() / 1e3 / events;
        }

        double processCpuMicrosPerEvent() {
            return cost.processCpu() / 1e3 / events;
        }

        long bytesStored() {
            return bytesByTopic.values().stream().mapToLong(Long::longValue).sum();
        }

        double bytesPerEvent() {
            return (double) bytesStored() / events;
        }

        double wallSeconds() {
            return cost.wallNanos() / 1e9;
        }

        double eventsPerSecond() {
            return events / wallSeconds();
        }
    }

    static final List<Variant> VARIANTS = List.of(Variant.TTL_STREAMS, Variant.PASS_THROUGH, Variant.FULL_SCAN);

    private static final String INSERTS_TOPIC = "bench.inserts";
    private static final String UPDATES_TOPIC = "bench.noop-updates";
    private static final String WARMUP_INSERTS_TOPIC = "bench.warmup.inserts";
    private static final String WARMUP_UPDATES_TOPIC = "bench.warmup.noop-updates";
    private static final long WARMUP_FIRST_ID = 1_000_000_000L;
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(20);
    /** The full scan's punctuation interval: longer than any run, see {@link Variant#FULL_SCAN}. */
    private static final Duration FULL_SCAN_INTERVAL = Duration.ofDays(1);

    final List<Run> runs = new ArrayList<>();
    RestoreBench.Row restore;

    private final BenchBroker broker;
    private final int events;
    private final int warmupEvents;
    private final int rounds;
    private final Consumer<String> log;
    private final List<Variant> variants;

    /** Runs {@link #VARIANTS}. */
    BrokerBench(BenchBroker broker, int events, int warmupEvents, int rounds, Consumer<String> log) {
        this(broker, events, warmupEvents, rounds, log, VARIANTS);
    }

    /** Runs {@code variants}, rotated each round. */
    BrokerBench(
            BenchBroker broker,
            int events,
            int warmupEvents,
            int rounds,
            Consumer<String> log,
            List<Variant> variants) {
        this.variants = List.copyOf(variants);
        this.broker = broker;
        this.events = events;
        this.warmupEvents = warmupEvents;
        this.rounds = rounds;
        this.log = log;
    }

    int events() {
        return events;
    }

    int rounds() {
        return rounds;
    }

    /** The medians and ratios of the runs so far. */
    BrokerMedians medians() {
        return new BrokerMedians(runs, rounds);
    }

    /** {@code items} rotated left by {@code by}: round r of a harness runs {@code rotated(variants, r - 1)}. */
    static <T> List<T> rotated(List<T> items, int by) {
        List<T> order = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            order.add(items.get((i + by) % items.size()));
        }
        return order;
    }

    void run() throws InterruptedException {
        broker.createTopics(INSERTS_TOPIC, UPDATES_TOPIC, WARMUP_INSERTS_TOPIC, WARMUP_UPDATES_TOPIC);
        long started = System.nanoTime();
        produceWorkloads(INSERTS_TOPIC, UPDATES_TOPIC, events, 0);
        log.accept(String.format(
                Locale.ROOT, "produced 2 x %d events in %.1f s", events, (System.nanoTime() - started) / 1e9));
        produceWorkloads(WARMUP_INSERTS_TOPIC, WARMUP_UPDATES_TOPIC, warmupEvents, WARMUP_FIRST_ID);
        for (Variant variant : variants) {
            unit(
                    variant,
                    "bench-" + variant.label + "-warmup",
                    0,
                    0,
                    WARMUP_INSERTS_TOPIC,
                    WARMUP_UPDATES_TOPIC,
                    false);
        }
        log.accept("warm-up done");
        for (int round = 1; round <= rounds; round++) {
            List<Variant> order = rotated(variants, round - 1);
            for (int position = 1; position <= order.size(); position++) {
                Variant variant = order.get(position - 1);
                String app = String.format(Locale.ROOT, "bench-%s-round%02d", variant.label, round);
                boolean restoreHere = round == rounds && variant == Variant.TTL_STREAMS;
                for (Run run : unit(variant, app, round, position, INSERTS_TOPIC, UPDATES_TOPIC, restoreHere)) {
                    runs.add(run);
                    log.accept(String.format(
                            Locale.ROOT,
                            "round %d/%d %s %s: %.1f us stream-thread CPU/event, %.0f B/event, %.0f events/s",
                            round,
                            rounds,
                            variant.label,
                            run.workload().label,
                            run.streamCpuMicrosPerEvent(),
                            run.bytesPerEvent(),
                            run.eventsPerSecond()));
                }
            }
        }
    }

    /** One variant over both workloads; returns the two runs. */
    private List<Run> unit(
            Variant variant,
            String app,
            int round,
            int position,
            String insertsTopic,
            String updatesTopic,
            boolean measureRestore)
            throws InterruptedException {
        List<Run> unit = new ArrayList<>();
        switch (variant) {
            case TTL_STREAMS, TTL_STREAMS_EXPIRY_EVENTS -> {
                Map<String, String> settings = variant == Variant.TTL_STREAMS ? Map.of() : expiryEvents(app);
                TtlStreamsConfig inserts = broker.ttlConfig(app, insertsTopic, settings);
                unit.add(measure(round, position, variant, Workload.INSERTS, app, inserts, ttlStreams(inserts)));
                if (measureRestore) {
                    restore = RestoreBench.measure(broker, app, inserts, events, log);
                }
                TtlStreamsConfig updates = broker.ttlConfig(app, updatesTopic, settings);
                unit.add(measure(round, position, variant, Workload.NOOP_UPDATES, app, updates, ttlStreams(updates)));
            }
            case PASS_THROUGH -> {
                for (Workload workload : Workload.values()) {
                    String runApp = app + "-" + workload.label;
                    String topic = workload == Workload.INSERTS ? insertsTopic : updatesTopic;
                    TtlStreamsConfig config = broker.passThroughConfig(runApp, topic);
                    KafkaStreams streams = new KafkaStreams(
                            PassThroughTopology.build(config, BenchBroker.passThroughOutput(runApp)),
                            BenchSupport.streamsProperties(config));
                    unit.add(measure(round, position, variant, workload, runApp, config, streams));
                }
            }
            case FULL_SCAN -> {
                // Like ttl-streams, the updates run on the state the inserts left: each overwrites its document.
                for (Workload workload : Workload.values()) {
                    String topic = workload == Workload.INSERTS ? insertsTopic : updatesTopic;
                    TtlStreamsConfig config = broker.passThroughConfig(app, topic);
                    KafkaStreams streams = new KafkaStreams(
                            FullScanTopology.build(config, BenchBroker.passThroughOutput(app), FULL_SCAN_INTERVAL),
                            BenchSupport.streamsProperties(config));
                    unit.add(measure(round, position, variant, workload, app, config, streams));
                }
            }
        }
        return unit;
    }

    /** Expired records to an application's own topic, and a notice an hour before each deadline. */
    private Map<String, String> expiryEvents(String app) {
        String expired = app + ".expired";
        broker.createTopics(expired);
        return BenchSupport.expiryEvents(expired, BenchSupport.NOTICE_BEFORE_SECONDS);
    }

    static KafkaStreams ttlStreams(TtlStreamsConfig config) {
        return new KafkaStreams(
                TtlTopology.build(config, BenchBroker.PARTITIONS), BenchSupport.streamsProperties(config));
    }

    /**
     * N inserts of new documents due in 30 days, then an update of each a minute later that leaves expireAt as it
     * was; both in the recent past, so that the broker sees no timestamps from the future.
     */
    private void produceWorkloads(String insertsTopic, String updatesTopic, int count, long firstId) {
        ChangeEventFactory factory = new ChangeEventFactory(BenchSupport.NAMESPACE);
        Instant inserted = Instant.now().minusSeconds(180);
        Instant updated = inserted.plusSeconds(60);
        Instant expireAt = inserted.plus(Duration.ofDays(30));
        produce(insertsTopic, factory, "insert", 1, count, firstId, inserted, expireAt);
        produce(updatesTopic, factory, "update", 2, count, firstId, updated, expireAt);
    }

    /**
     * {@code count} change events of one operation on documents {@code firstId...}, the i-th written a tenth of
     * {@code i} milliseconds after {@code written} and due {@code i} milliseconds after {@code expireAt}.
     */
    private void produce(
            String topic,
            ChangeEventFactory factory,
            String operation,
            int version,
            int count,
            long firstId,
            Instant written,
            Instant expireAt) {
        broker.produce(
                count,
                i -> event(
                        topic,
                        factory,
                        operation,
                        version,
                        firstId + i,
                        written.plusMillis(i / 10),
                        expireAt.plusMillis(i)));
    }

    /** A change event keyed by document key, as the source connector writes it; same key, same partition. */
    static ProducerRecord<String, String> event(
            String topic,
            ChangeEventFactory factory,
            String operation,
            int version,
            long id,
            Instant wallTime,
            Instant expireAt) {
        return new ProducerRecord<>(
                topic,
                null,
                wallTime.toEpochMilli(),
                BenchSupport.keyJson(id),
                factory.write(operation, id, version, wallTime, expireAt));
    }

    /** Runs {@code streams} over its source topic from the beginning and measures it (see the class comment). */
    private Run measure(
            int round,
            int position,
            Variant variant,
            Workload workload,
            String app,
            TtlStreamsConfig config,
            KafkaStreams streams)
            throws InterruptedException {
        Map<TopicPartition, Long> ends = broker.endOffsets(config.sourceTopics().get(0));
        Map<String, Long> before = broker.logBytesByTopic();
        StreamsRun.Sample cost;
        long processed;
        long retries;
        long errors;
        long scheduled;
        try (StreamsRun run = StreamsRun.start(streams, app)) {
            run.awaitRunning(Duration.ofMinutes(2));
            run.await("done with " + config.sourceTopics(), () -> broker.committedAll(app, ends), RUN_TIMEOUT);
            cost = run.finish();
            processed = (long) run.metric("stream-thread-metrics", "process-total");
            retries = (long) run.metric("producer-metrics", "record-retry-total");
            errors = (long) run.metric("producer-metrics", "record-error-total");
            scheduled = variant.ttlStreams() ? (long) BenchSupport.ttlTotal(TtlMetrics.SCHEDULED) : -1;
        }
        Map<String, Long> written = new TreeMap<>();
        broker.logBytesByTopic().forEach((topic, size) -> {
            long grown = size - before.getOrDefault(topic, 0L);
            if (topic.startsWith(app) && grown != 0) {
                written.put("<app>" + topic.substring(app.length()), grown);
            }
        });
        return new Run(round, position, variant, workload, processed, cost, written, retries, errors, scheduled);
    }
}
