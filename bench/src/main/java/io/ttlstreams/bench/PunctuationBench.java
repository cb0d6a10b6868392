package io.ttlstreams.bench;

import io.ttlstreams.config.SchedulerOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.state.ScheduleStores;
import io.ttlstreams.topology.TtlTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Figure 1 and 4: the cost of one punctuation against the size of the schedule, for ttl-streams' real
 * {@code ExpirySchedulerProcessor} and for the full-scan baseline, both in a TopologyTestDriver over RocksDB;
 * then the state each leaves on disk and the heap at the largest size.
 *
 * <p>Each store is pre-filled with N entries due far in the future, straight through
 * {@code driver.getKeyValueStore(...)}. One measurement adds D entries due before the next punctuation, then
 * times {@code advanceWallClockTime(interval)}, which fires exactly that punctuation (and the driver's commit
 * and output capture, the same for both approaches). The schedule is back to N afterwards.
 *
 * <p>The full scan is measured up to {@link #FULL_SCAN_MAX_N} only: its cost is linear in N (a punctuation at 1M
 * takes a quarter of a second), so larger sizes would only spend minutes confirming it.
 */
final class PunctuationBench {

    static final long INTERVAL_MS = 100;
    /** Approach names as they appear in the results. */
    static final String TTL_STREAMS = "ttl-streams";

    static final String FULL_SCAN = "full-scan";
    /** ttl-streams with expiry events and a notice an hour before each deadline (EventCostBench state-restore). */
    static final String TTL_STREAMS_NOTICES = "ttl-streams-notices";
    /** The largest N the full scan is measured at. */
    static final int FULL_SCAN_MAX_N = 1_000_000;

    /** One (approach, N, D) measurement. */
    record Row(String approach, int n, int due, int warmups, double[] samplesMs, boolean complete) {
        double medianMs() {
            return Stats.median(samplesMs);
        }
    }

    /** State and heap of one approach at one N. */
    record StateRow(String approach, int n, long prefillMs, long rawBytes, long compactedBytes, long heapUsedBytes) {}

    final List<Row> rows = new ArrayList<>();
    final List<StateRow> stateRows = new ArrayList<>();

    private final int[] sizes;
    private final int[] dues;
    private final int warmups;
    private final int reps;
    private final Consumer<String> log;
    private final boolean notices;

    PunctuationBench(int[] sizes, int[] dues, int warmups, int reps, Consumer<String> log) {
        this(sizes, dues, warmups, reps, log, false);
    }

    /**
     * @param notices whether {@link #TTL_STREAMS_NOTICES} runs too, after ttl-streams at each size (EventCostBench
     *     state-restore: its state beside ttl-streams' own)
     */
    PunctuationBench(int[] sizes, int[] dues, int warmups, int reps, Consumer<String> log, boolean notices) {
        this.sizes = sizes;
        this.dues = dues;
        this.warmups = warmups;
        this.reps = reps;
        this.log = log;
        this.notices = notices;
    }

    /** The sizes the full scan is measured at. */
    int[] fullScanSizes() {
        return Arrays.stream(sizes).filter(n -> n <= FULL_SCAN_MAX_N).toArray();
    }

    void run() {
        // A discarded round first, so that the first measured N does not pay for class loading and JIT.
        measure(new TtlStreamsSubject(false), sizes[0], false);
        measure(new FullScanSubject(), sizes[0], false);
        rows.clear();
        stateRows.clear();
        int[] fullScan = fullScanSizes();
        for (int n : sizes) {
            measure(new TtlStreamsSubject(false), n, n == sizes[sizes.length - 1]);
            log.accept("ttl-streams done at N=" + n);
            if (notices) {
                measure(new TtlStreamsSubject(true), n, n == sizes[sizes.length - 1]);
                log.accept(TTL_STREAMS_NOTICES + " done at N=" + n);
            }
            if (n <= FULL_SCAN_MAX_N) {
                measure(new FullScanSubject(), n, n == fullScan[fullScan.length - 1]);
                log.accept("full-scan done at N=" + n);
            }
        }
    }

    private void measure(Subject subject, int n, boolean measureHeap) {
        long prefillStart = System.nanoTime();
        subject.prefill(n, log);
        long prefillMs = (System.nanoTime() - prefillStart) / 1_000_000;
        for (int due : dues) {
            double[] samples = new double[reps];
            boolean complete = true;
            for (int r = 0; r < warmups + reps; r++) {
                subject.scheduleDue(due);
                double ms = subject.punctuateTimed();
                int emitted = subject.readEmitted();
                while (emitted < due) {
                    // A punctuation may stop at its budget; the rest goes in later ones (not timed).
                    complete = false;
                    subject.punctuateTimed();
                    emitted += subject.readEmitted();
                }
                subject.drainChangelogs();
                if (r >= warmups) {
                    samples[r - warmups] = ms;
                }
            }
            rows.add(new Row(subject.name(), n, due, warmups, samples, complete));
        }
        long heap = measureHeap ? BenchSupport.heapUsedAfterGc() : -1;
        // The driver wipes its state directory on close, so the stores are checkpointed while open.
        Path snapshot = subject.snapshotStores();
        subject.driver.close();
        BenchSupport.deleteRecursively(subject.stateDir);
        long raw = BenchSupport.sizeOf(snapshot);
        try (var stores = java.nio.file.Files.list(snapshot)) {
            stores.forEach(BenchSupport::compact);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        long compacted = BenchSupport.sizeOf(snapshot);
        BenchSupport.deleteRecursively(snapshot);
        stateRows.add(new StateRow(subject.name(), n, prefillMs, raw, compacted, heap));
    }

    /** One approach in its own driver and state directory. */
    private abstract static class Subject {
        final Path stateDir;
        final TopologyTestDriver driver;
        final TestOutputTopic<String, String> output;
        long nowMs = BenchSupport.START.toEpochMilli();
        long nextId;

        Subject(Path stateDir, TopologyTestDriver driver, String outputTopic) {
            this.stateDir = stateDir;
            this.driver = driver;
            this.output = driver.createOutputTopic(outputTopic, new StringDeserializer(), new StringDeserializer());
        }

        abstract String name();

        abstract List<String> stores();

        abstract void put(long id, long deadlineMs);

        void prefill(int n, Consumer<String> log) {
            // Far future, spread over ~n * 10 ms, so that none falls due while measuring.
            long base = nowMs + Duration.ofDays(1).toMillis();
            long started = System.nanoTime();
            for (int i = 0; i < n; i++) {
                put(nextId++, base + i * 10L);
                if ((i + 1) % 50_000 == 0) {
                    capture();
                }
                if ((i + 1) % 1_000_000 == 0) {
                    log.accept(String.format(
                            Locale.ROOT,
                            "%s: %d of %d entries written in %.0f s",
                            name(),
                            i + 1,
                            n,
                            (System.nanoTime() - started) / 1e9));
                }
            }
            capture();
        }

        /** Lets the driver collect what the puts produced (changelog records), then drops it. */
        private void capture() {
            driver.advanceWallClockTime(Duration.ZERO);
            drainChangelogs();
        }

        /** Adds {@code due} entries falling due before the next punctuation. */
        void scheduleDue(int due) {
            for (int i = 0; i < due; i++) {
                put(nextId++, nowMs + 1 + (i % INTERVAL_MS));
            }
        }

        double punctuateTimed() {
            long start = System.nanoTime();
            driver.advanceWallClockTime(Duration.ofMillis(INTERVAL_MS));
            long elapsed = System.nanoTime() - start;
            nowMs += INTERVAL_MS;
            return elapsed / 1e6;
        }

        int readEmitted() {
            int count = 0;
            while (!output.isEmpty()) {
                output.readRecord();
                count++;
            }
            return count;
        }

        void drainChangelogs() {
            for (String store : stores()) {
                BenchSupport.drain(driver, BenchSupport.APPLICATION_ID + "-" + store + "-changelog");
            }
        }

        /** Checkpoints every store into a fresh directory (consistent copies of their RocksDB); returns it. */
        Path snapshotStores() {
            Path snapshot = BenchSupport.tempStateDir("ttl-bench-snapshot");
            for (String store : stores()) {
                BenchSupport.checkpoint(driver.getKeyValueStore(store), snapshot.resolve(store));
            }
            return snapshot;
        }
    }

    /**
     * The real ttl-streams topology with default settings (100 ms interval); with notices, expiry events on and an
     * EXPIRING notice {@value BenchSupport#NOTICE_BEFORE_SECONDS} s before each deadline, so that every document scheduled further
     * ahead than that has a notice entry beside its deadline entry, as the scheduler puts them.
     */
    private static final class TtlStreamsSubject extends Subject {
        private final KeyValueStore<Bytes, ScheduleEntry> schedule;
        private final KeyValueStore<Bytes, IndexEntry> index;
        private final KeyValueStore<Bytes, TaskRecord> task;
        private final long noticeBeforeMs;

        TtlStreamsSubject(boolean notices) {
            this(BenchSupport.tempStateDir("ttl-bench-ttl"), config(notices), notices);
        }

        private TtlStreamsSubject(Path dir, TtlStreamsConfig config, boolean notices) {
            super(
                    dir,
                    new TopologyTestDriver(
                            TtlTopology.build(config), BenchSupport.streamsProperties(config, dir), BenchSupport.START),
                    config.deleteTopic());
            this.schedule = driver.getKeyValueStore(ScheduleStores.SCHEDULE);
            this.index = driver.getKeyValueStore(ScheduleStores.INDEX);
            this.task = driver.getKeyValueStore(ScheduleStores.TASK);
            this.noticeBeforeMs = notices ? BenchSupport.NOTICE_BEFORE_SECONDS * 1000L : 0;
        }

        private static TtlStreamsConfig config(boolean notices) {
            Map<String, String> settings = new HashMap<>();
            settings.put(SchedulerOptions.PUNCTUATE_INTERVAL_MS_CONFIG, Long.toString(INTERVAL_MS));
            if (notices) {
                settings.putAll(BenchSupport.expiryEvents("ttl.bench.expired", BenchSupport.NOTICE_BEFORE_SECONDS));
            }
            return BenchSupport.config(settings);
        }

        @Override
        String name() {
            return noticeBeforeMs > 0 ? TTL_STREAMS_NOTICES : TTL_STREAMS;
        }

        @Override
        List<String> stores() {
            return List.of(ScheduleStores.SCHEDULE, ScheduleStores.INDEX, ScheduleStores.TASK);
        }

        @Override
        void put(long id, long deadlineMs) {
            // None for a deadline already closer than the notice period, as the scheduler does.
            boolean notice = deadlineMs - noticeBeforeMs > nowMs;
            BenchSupport.scheduleDirectly(schedule, index, task, id, deadlineMs, notice ? noticeBeforeMs : 0);
        }
    }

    /** The full-scan baseline. */
    private static final class FullScanSubject extends Subject {
        private final KeyValueStore<String, Long> store;

        FullScanSubject() {
            this(BenchSupport.tempStateDir("ttl-bench-scan"));
        }

        private FullScanSubject(Path dir) {
            super(
                    dir,
                    new TopologyTestDriver(
                            FullScanTopology.build(Duration.ofMillis(INTERVAL_MS)),
                            BenchSupport.streamsProperties(BenchSupport.config(Map.of()), dir),
                            BenchSupport.START),
                    FullScanTopology.OUTPUT);
            this.store = driver.getKeyValueStore(FullScanTopology.STORE);
        }

        @Override
        String name() {
            return FULL_SCAN;
        }

        @Override
        List<String> stores() {
            return List.of(FullScanTopology.STORE);
        }

        @Override
        void put(long id, long deadlineMs) {
            // The document's identity as a string: namespace, 0x00, document key JSON (ttl-streams' own index key
            // is a format version, the namespace, 0x00 and the key as BSON).
            store.put(BenchSupport.NAMESPACE + '\0' + BenchSupport.keyJson(id), deadlineMs);
        }
    }
}
