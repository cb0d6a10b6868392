package io.ttlstreams.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Runs the ttl-streams benchmarks ({@link BenchCommand}) side by side and writes a table, CSV, JSON and PNG plots.
 *
 * <pre>
 *   ./ttl-streams bench [--quick] [--out DIR] [--sizes 10000,100000,1000000]
 * </pre>
 *
 * The last line of the output is {@code throughput_ratio=<x> punctuation_speedup=<y> lag_p99_ms=<z>}, where the
 * throughput ratio is the one measured on the embedded KRaft broker.
 */
final class BenchMain {

    private static final int[] DUES = {0, 100, 1000};
    private static final long[] LAG_INTERVALS = {50, 100, 250};
    private static final int LAG_RATE = 10_000;
    /** 10% of one core at a 100 ms interval. */
    private static final double BUDGET_MS = 10.0;

    private static final int QUICK_BROKER_EVENTS = 50_000;
    private static final int FULL_BROKER_EVENTS = 1_000_000;
    private static final int E2E_RATE = 1_000;
    private static final int E2E_SECONDS = 20;
    private static final long E2E_LEAD_MS = 5_000;
    private static final double E2E_TARGET_P99_MS = 2_000;

    private final boolean quick;
    private final Path out;
    private final int[] sizes;
    private final PrintStream stdout = System.out;
    private final PrintStream log = System.err;
    private ThroughputBench throughput; // TopologyTestDriver; full mode only
    private BrokerBench broker;
    private EndToEndLagBench e2eLag; // full mode only

    BenchMain(boolean quick, Path out, int[] sizes) {
        this.quick = quick;
        this.out = out;
        this.sizes = sizes;
    }

    void run() {
        try {
            runAll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    private void runAll() throws InterruptedException {
        long started = System.nanoTime();
        Environment env = Environment.current(quick);
        try {
            Files.createDirectories(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        stdout.printf(
                Locale.ROOT,
                "ttl-streams bench (%s mode): %d cores, max heap %d MB, %s, %s%n",
                env.mode(),
                env.cores(),
                env.maxHeapMb(),
                env.os(),
                env.jvm());
        stdout.printf(
                Locale.ROOT,
                "Kafka %s, ttl-streams %s. Figures 1, 2, 3b, 4 from TopologyTestDriver with "
                        + "RocksDB stores; 3a, 5 (and 6 in full mode) on the embedded KRaft broker. The machine is shared, so "
                        + "timings are noisy.%n",
                env.kafkaVersion(),
                env.ttlStreamsVersion());

        int warmups = 3;
        int reps = quick ? 7 : 9;
        int phases = quick ? 4 : 6;
        log.println("[bench] 1/" + phases + " punctuation cost, N=" + Arrays.toString(sizes) + " D="
                + Arrays.toString(DUES));
        PunctuationBench punctuation = new PunctuationBench(sizes, DUES, warmups, reps);
        punctuation.run(n -> log.println("[bench]   done N=" + n + " at " + secondsSince(started) + " s"));

        int lagSeconds = quick ? 2 : 10;
        log.println("[bench] 2/" + phases + " expiry lag (simulated) at " + LAG_RATE + "/s for " + lagSeconds
                + " s simulated");
        LagBench lag = new LagBench(LAG_INTERVALS, LAG_RATE, lagSeconds);
        lag.run();

        int brokerEvents = quick ? QUICK_BROKER_EVENTS : FULL_BROKER_EVENTS;
        int brokerWarmup = quick ? 5_000 : 20_000;
        log.println("[bench] 3/" + phases + " throughput and state restore on the embedded KRaft broker, "
                + brokerEvents + " events");
        broker = new BrokerBench(
                brokerEvents,
                brokerWarmup,
                true,
                m -> log.println("[bench]   " + m + " at " + secondsSince(started) + " s"));
        broker.run();

        int events = 200_000;
        int runs = 3;
        if (!quick) {
            log.println("[bench] 4/" + phases + " throughput in TopologyTestDriver, " + events + " events x " + runs
                    + " runs per topology");
            throughput = new ThroughputBench(events, 20_000, runs);
            throughput.run();
            log.println("[bench] 5/" + phases + " end-to-end expiry lag through the embedded pipeline, " + E2E_RATE
                    + " deadlines/s for " + E2E_SECONDS + " s");
            e2eLag = new EndToEndLagBench(
                    E2E_RATE,
                    E2E_SECONDS,
                    E2E_LEAD_MS,
                    m -> log.println("[bench]   " + m + " at " + secondsSince(started) + " s"));
            e2eLag.run();
        }
        log.println("[bench] " + phases + "/" + phases + " writing results to " + out);

        Map<String, Object> settings = settings(warmups, reps, lagSeconds, events, runs, brokerEvents, brokerWarmup);
        Summary summary = summarize(punctuation, lag);
        printTables(punctuation, lag, summary);
        write(env, settings, punctuation, lag, summary);
        stdout.printf(
                Locale.ROOT,
                "Results: %s (CSV, JSON, PNG). Total time %.1f s.%n",
                out.toAbsolutePath(),
                (System.nanoTime() - started) / 1e9);
        stdout.printf(
                Locale.ROOT,
                "throughput_ratio=%.2f punctuation_speedup=%.1f lag_p99_ms=%.1f%n",
                summary.throughputRatio,
                summary.speedup,
                summary.lagP99At100);
    }

    private static long secondsSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000_000L;
    }

    private Map<String, Object> settings(
            int warmups, int reps, int lagSeconds, int events, int runs, int brokerEvents, int brokerWarmup) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put(
                "driver",
                "TopologyTestDriver (no broker), persistent RocksDB stores, changelogging on, "
                        + "caching off, processing.guarantee from ttl-streams defaults (exactly_once_v2, simulated by the driver)");
        s.put("punctuation_interval_ms", PunctuationBench.INTERVAL_MS);
        s.put("punctuation_sizes", Arrays.stream(sizes).boxed().toList());
        s.put("punctuation_dues", Arrays.stream(DUES).boxed().toList());
        s.put("punctuation_warmups", warmups);
        s.put("punctuation_reps", reps);
        s.put(
                "punctuation_timed",
                "driver.advanceWallClockTime(interval): the punctuation plus the driver's "
                        + "commit and output capture");
        s.put("ttl_streams_settings", "defaults: ttl.punctuate.max.entries=10000, ttl.punctuate.max.duration.ms=50");
        s.put("lag_rate_per_second", LAG_RATE);
        s.put("lag_simulated_seconds", lagSeconds);
        s.put("lag_intervals_ms", Arrays.stream(LAG_INTERVALS).boxed().toList());
        s.put("lag_settings", "ttl.punctuate.max.duration.ms=1000 (raised so machine noise cannot cut a run short)");
        if (throughput != null) {
            s.put("throughput_events", events);
            s.put("throughput_runs", runs);
            s.put(
                    "throughput_workload",
                    "80% inserts of new documents, 20% updates rescheduling one; expireAt 1 h out");
        }
        s.put(
                "broker",
                "EmbeddedKafka (one KRaft node in this JVM), processing.guarantee=exactly_once_v2, "
                        + "commit.interval.ms default (100 under EOS), num.stream.threads=1, source topic with "
                        + BrokerBench.PARTITIONS + " partitions");
        s.put("broker_events", brokerEvents);
        s.put("broker_warmup_events", brokerWarmup);
        s.put(
                "broker_workload",
                "inserts of new documents (canonical extended JSON as the MongoDB source connector "
                        + "writes them), expireAt 30 days out, all produced before the topologies start");
        s.put("broker_timed", "KafkaStreams RUNNING -> the group's committed offsets reach the end of both partitions");
        s.put(
                "restore",
                "the ttl-streams instance of the broker run closed, its state dir wiped, restarted; timed "
                        + "from start() to RUNNING, to the last onRestoreEnd, and to an interactive query counting all entries");
        if (e2eLag != null) {
            s.put(
                    "e2e_lag",
                    "EmbeddedPipeline (MongoDB stand-in mongo-java-server, source + sink connectors in "
                            + "embedded Connect, KRaft broker, processor defaults); inserts via the sync driver at "
                            + E2E_RATE + "/s for " + E2E_SECONDS + " s, each due " + E2E_LEAD_MS + " ms after insert; "
                            + "lag = arrival of the delete on a change stream - deadline");
        }
        return s;
    }

    /** The headline numbers and target checks. */
    private static final class Summary {
        int largestN;
        double speedup;
        Map<Integer, Double> growthByDue = new LinkedHashMap<>();
        Map<String, String> maxNFor10ms = new LinkedHashMap<>();
        double throughputRatio;
        double throughputRatioTtd = Double.NaN;
        double lagP99At100;
    }

    private Summary summarize(PunctuationBench punctuation, LagBench lag) {
        Summary summary = new Summary();
        int smallest = sizes[0];
        summary.largestN = sizes[sizes.length - 1];
        summary.speedup = median(punctuation, PunctuationBench.FULL_SCAN, summary.largestN, 100)
                / median(punctuation, PunctuationBench.TTL_STREAMS, summary.largestN, 100);
        for (int due : DUES) {
            summary.growthByDue.put(
                    due,
                    median(punctuation, PunctuationBench.TTL_STREAMS, summary.largestN, due)
                            / median(punctuation, PunctuationBench.TTL_STREAMS, smallest, due));
        }
        for (String approach : List.of(PunctuationBench.TTL_STREAMS, PunctuationBench.FULL_SCAN)) {
            int best = -1;
            for (int n : sizes) {
                if (median(punctuation, approach, n, 100) <= BUDGET_MS) {
                    best = n;
                }
            }
            double atLargest = median(punctuation, approach, summary.largestN, 100);
            String text;
            if (best == summary.largestN) {
                text = ">= " + best + " (largest N measured; " + fmt(atLargest) + " ms at N=" + best + ")";
            } else {
                long extrapolated = (long) (summary.largestN * BUDGET_MS / atLargest);
                text = (best < 0 ? "< " + smallest : String.valueOf(best)) + " measured; ~" + extrapolated
                        + " by linear extrapolation from N=" + summary.largestN;
            }
            summary.maxNFor10ms.put(approach, text);
        }
        summary.throughputRatio = broker.ratio();
        if (throughput != null) {
            summary.throughputRatioTtd = throughput.ratio();
        }
        summary.lagP99At100 = lag.rows.stream()
                .filter(r -> r.intervalMs() == 100)
                .findFirst()
                .map(LagBench.Row::p99Ms)
                .orElse(Double.NaN);
        return summary;
    }

    private static double median(PunctuationBench bench, String approach, int n, int due) {
        return bench.rows.stream()
                .filter(r -> r.approach().equals(approach) && r.n() == n && r.due() == due)
                .findFirst()
                .orElseThrow()
                .medianMs();
    }

    private void printTables(PunctuationBench punctuation, LagBench lag, Summary s) {
        stdout.println();
        stdout.println("1. Punctuation cost (ms per punctuation, interval " + PunctuationBench.INTERVAL_MS
                + " ms; N future entries + D due)");
        stdout.printf(
                Locale.ROOT,
                "%-12s %9s %6s %10s %10s %10s %5s %s%n",
                "approach",
                "N",
                "D",
                "median",
                "min",
                "max",
                "reps",
                "");
        for (PunctuationBench.Row row : punctuation.rows) {
            stdout.printf(
                    Locale.ROOT,
                    "%-12s %9d %6d %10.3f %10.3f %10.3f %5d %s%n",
                    row.approach(),
                    row.n(),
                    row.due(),
                    row.medianMs(),
                    Stats.min(row.samplesMs()),
                    Stats.max(row.samplesMs()),
                    row.samplesMs().length,
                    row.complete() ? "" : "(budget hit: some due entries left for later runs)");
        }
        stdout.printf(
                Locale.ROOT,
                "Largest N reached: %d. Speedup vs full scan at D=100, N=%d: %.1fx (target >= 100x " + "at N=1M)%n",
                s.largestN,
                s.largestN,
                s.speedup);
        for (Map.Entry<Integer, Double> growth : s.growthByDue.entrySet()) {
            stdout.printf(
                    Locale.ROOT,
                    "ttl-streams cost growth N=%d -> N=%d at D=%d: %.2fx (%s the 2x target)%n",
                    sizes[0],
                    s.largestN,
                    growth.getKey(),
                    growth.getValue(),
                    growth.getValue() <= 2 ? "within" : "OUTSIDE");
        }
        for (Map.Entry<String, String> max : s.maxNFor10ms.entrySet()) {
            stdout.printf(
                    Locale.ROOT,
                    "Largest N with <= 10 ms per punctuation at D=100 (100 ms interval within 10%% "
                            + "of a core), %s: %s%n",
                    max.getKey(),
                    max.getValue());
        }

        stdout.println();
        stdout.println(
                "2. Expiry lag, deadlines due at " + LAG_RATE + "/s, simulated wall clock advanced in interval steps");
        stdout.println("   (measures the punctuation granularity, not wall-clock processing delay)");
        stdout.printf(Locale.ROOT, "%-12s %9s %9s %9s %9s%n", "interval_ms", "emitted", "p50_ms", "p99_ms", "max_ms");
        for (LagBench.Row row : lag.rows) {
            stdout.printf(
                    Locale.ROOT,
                    "%-12d %9d %9.1f %9.1f %9.1f%n",
                    row.intervalMs(),
                    row.emitted(),
                    row.p50Ms(),
                    row.p99Ms(),
                    row.maxMs());
        }

        stdout.println();
        stdout.println("3a. Scheduling throughput on the embedded KRaft broker (exactly_once_v2, real serdes, "
                + BrokerBench.PARTITIONS + " partitions, one run each after a warm-up)");
        stdout.printf(
                Locale.ROOT,
                "%-13s %9s %10s %10s %12s %10s%n",
                "topology",
                "events",
                "run_s",
                "start_s",
                "events/s",
                "scheduled");
        for (BrokerBench.ThroughputRow row : broker.rows) {
            stdout.printf(
                    Locale.ROOT,
                    "%-13s %9d %10.2f %10.2f %12.0f %10s%n",
                    row.topology(),
                    row.events(),
                    row.seconds(),
                    row.totalSeconds(),
                    row.eventsPerSecond(),
                    row.scheduled() < 0 ? "-" : Long.toString(row.scheduled()));
        }
        stdout.printf(
                Locale.ROOT,
                "Ratio ttl-streams / pass-through on the broker: %.2f (target >= 0.7: %s)%n",
                s.throughputRatio,
                s.throughputRatio >= 0.7 ? "met" : "MISSED");
        stdout.println("   run_s = RUNNING -> all offsets committed; start_s = start() -> all committed; produced "
                + "beforehand in " + String.format(Locale.ROOT, "%.1f s", broker.produceSeconds));
        if (throughput != null) {
            stdout.println();
            stdout.println("3b. Scheduling throughput in TopologyTestDriver (no broker, no real EOS transactions, a "
                    + "commit per record; 80/20 inserts/updates)");
            stdout.printf(Locale.ROOT, "%-13s %9s %5s %14s%n", "topology", "events", "runs", "events/s(med)");
            for (ThroughputBench.Row row : throughput.rows) {
                stdout.printf(
                        Locale.ROOT, "%-13s %9d %5d %14.0f%n", row.topology(), row.events(), row.runs(), row.median());
            }
            stdout.printf(
                    Locale.ROOT,
                    "Ratio ttl-streams / pass-through in TopologyTestDriver: %.2f%n",
                    s.throughputRatioTtd);
        }

        stdout.println();
        stdout.println("4. State size (RocksDB store directories after closing the driver; compacted = after a full "
                + "compactRange) and heap");
        stdout.printf(
                Locale.ROOT,
                "%-12s %9s %11s %13s %13s %11s %12s%n",
                "approach",
                "N",
                "prefill_ms",
                "raw_B/doc",
                "compact_B/doc",
                "compact_MB",
                "heap_MB");
        for (PunctuationBench.StateRow row : punctuation.stateRows) {
            stdout.printf(
                    Locale.ROOT,
                    "%-12s %9d %11d %13.1f %13.1f %11.1f %12s%n",
                    row.approach(),
                    row.n(),
                    row.prefillMs(),
                    (double) row.rawBytes() / row.n(),
                    (double) row.compactedBytes() / row.n(),
                    row.compactedBytes() / 1048576.0,
                    row.heapUsedBytes() < 0
                            ? "-"
                            : String.format(Locale.ROOT, "%.1f", row.heapUsedBytes() / 1048576.0));
        }
        stdout.println(
                "   heap = JVM heap used after GC with the driver open at the largest N (RocksDB itself is off-heap)");

        BrokerBench.RestoreRow r = broker.restore;
        stdout.println();
        stdout.println(
                "5. State restore on the embedded broker: N scheduled, instance closed, state dir wiped, restarted");
        stdout.printf(
                Locale.ROOT,
                "%9s %10s %10s %12s %12s %12s %12s%n",
                "N",
                "schedule",
                "index",
                "restored_rec",
                "running_ms",
                "restored_ms",
                "counted_ms");
        stdout.printf(
                Locale.ROOT,
                "%9d %10d %10d %12d %12.0f %12.0f %12.0f%n",
                r.events(),
                r.scheduleEntries(),
                r.indexEntries(),
                r.restoredRecords(),
                r.runningMs(),
                r.restoredMs(),
                r.countedMs());
        stdout.println("   from start(): running = state RUNNING, restored = last store's onRestoreEnd, counted = an "
                + "interactive query counted all N entries in both stores");

        if (e2eLag != null) {
            stdout.println();
            stdout.println("6. End-to-end expiry lag through the embedded pipeline (MongoDB stand-in, connectors, "
                    + "broker, processor defaults)");
            stdout.printf(
                    Locale.ROOT,
                    "%-9s %6s %8s %7s %7s %9s %9s %9s%n",
                    "rate/s",
                    "secs",
                    "inserted",
                    "early",
                    "missing",
                    "p50_ms",
                    "p99_ms",
                    "max_ms");
            stdout.printf(
                    Locale.ROOT,
                    "%-9d %6d %8d %7d %7d %9.0f %9.0f %9.0f%n",
                    e2eLag.rate,
                    e2eLag.seconds,
                    e2eLag.inserted,
                    e2eLag.early,
                    e2eLag.missing,
                    e2eLag.p(50),
                    e2eLag.p(99),
                    e2eLag.max());
            stdout.printf(
                    Locale.ROOT,
                    "   lag = delete seen on a change stream - deadline; p99 target <= %.0f ms: %s%n",
                    E2E_TARGET_P99_MS,
                    e2eLag.p(99) <= E2E_TARGET_P99_MS && e2eLag.missing == 0 ? "met" : "MISSED");
        } else {
            stdout.println();
            stdout.println(
                    "6. End-to-end expiry lag: full mode only (starting the embedded stack alone took 5-12 s here)");
        }
        stdout.println();
    }

    private void write(
            Environment env,
            Map<String, Object> settings,
            PunctuationBench punctuation,
            LagBench lag,
            Summary summary) {
        Map<String, Object> envColumns = env.asMap();
        List<Map<String, Object>> punctRows = new ArrayList<>();
        for (PunctuationBench.Row row : punctuation.rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("approach", row.approach());
            m.put("n", row.n());
            m.put("due", row.due());
            m.put("median_ms", row.medianMs());
            m.put("min_ms", Stats.min(row.samplesMs()));
            m.put("max_ms", Stats.max(row.samplesMs()));
            m.put("warmups", row.warmups());
            m.put("reps", row.samplesMs().length);
            m.put("complete", row.complete());
            m.put("interval_ms", PunctuationBench.INTERVAL_MS);
            punctRows.add(m);
        }
        List<Map<String, Object>> lagRows = new ArrayList<>();
        for (LagBench.Row row : lag.rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("interval_ms", row.intervalMs());
            m.put("rate_per_second", row.ratePerSecond());
            m.put("emitted", row.emitted());
            m.put("p50_ms", row.p50Ms());
            m.put("p99_ms", row.p99Ms());
            m.put("max_ms", row.maxMs());
            lagRows.add(m);
        }
        List<Map<String, Object>> tputRows = new ArrayList<>();
        for (ThroughputBench.Row row : throughput == null ? List.<ThroughputBench.Row>of() : throughput.rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("topology", row.topology());
            m.put("events", row.events());
            m.put("runs", row.runs());
            m.put("events_per_second_median", row.median());
            m.put("harness", "TopologyTestDriver");
            tputRows.add(m);
        }
        List<Map<String, Object>> stateRows = new ArrayList<>();
        for (PunctuationBench.StateRow row : punctuation.stateRows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("approach", row.approach());
            m.put("n", row.n());
            m.put("prefill_ms", row.prefillMs());
            m.put("raw_bytes", row.rawBytes());
            m.put("compacted_bytes", row.compactedBytes());
            m.put("raw_bytes_per_doc", (double) row.rawBytes() / row.n());
            m.put("compacted_bytes_per_doc", (double) row.compactedBytes() / row.n());
            m.put("heap_used_bytes", row.heapUsedBytes() < 0 ? null : row.heapUsedBytes());
            stateRows.add(m);
        }
        writeCsv("punctuation.csv", punctRows, envColumns);
        writeCsv("lag.csv", lagRows, envColumns);
        List<Map<String, Object>> brokerRows = new ArrayList<>();
        for (BrokerBench.ThroughputRow row : broker.rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("topology", row.topology());
            m.put("events", row.events());
            m.put("partitions", row.partitions());
            m.put("run_seconds", row.seconds());
            m.put("start_to_done_seconds", row.totalSeconds());
            m.put("events_per_second", row.eventsPerSecond());
            m.put("scheduled", row.scheduled() < 0 ? null : row.scheduled());
            m.put("harness", "embedded KRaft broker, exactly_once_v2");
            brokerRows.add(m);
        }
        BrokerBench.RestoreRow r = broker.restore;
        Map<String, Object> restoreRow = new LinkedHashMap<>();
        restoreRow.put("n", r.events());
        restoreRow.put("schedule_entries", r.scheduleEntries());
        restoreRow.put("index_entries", r.indexEntries());
        restoreRow.put("restored_records", r.restoredRecords());
        restoreRow.put("to_running_ms", r.runningMs());
        restoreRow.put("to_restored_ms", r.restoredMs());
        restoreRow.put("to_counted_ms", r.countedMs());
        List<Map<String, Object>> e2eRows = new ArrayList<>();
        if (e2eLag != null) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rate_per_second", e2eLag.rate);
            m.put("seconds", e2eLag.seconds);
            m.put("lead_ms", e2eLag.leadMs);
            m.put("inserted", e2eLag.inserted);
            m.put("early", e2eLag.early);
            m.put("missing", e2eLag.missing);
            m.put("p50_ms", e2eLag.p(50));
            m.put("p99_ms", e2eLag.p(99));
            m.put("max_ms", e2eLag.max());
            m.put("stack_start_seconds", e2eLag.stackStartSeconds);
            e2eRows.add(m);
        }
        writeOrDrop("throughput.csv", tputRows, envColumns);
        writeCsv("broker-throughput.csv", brokerRows, envColumns);
        writeCsv("restore.csv", List.of(restoreRow), envColumns);
        writeOrDrop("e2e-lag.csv", e2eRows, envColumns);
        writeCsv("state.csv", stateRows, envColumns);

        Map<String, Object> summaryMap = new LinkedHashMap<>();
        summaryMap.put("largest_n", summary.largestN);
        summaryMap.put("punctuation_speedup_d100_largest_n", summary.speedup);
        summaryMap.put(
                "ttl_streams_cost_growth_smallest_to_largest_n_by_due",
                summary.growthByDue.entrySet().stream()
                        .collect(Collectors.toMap(
                                e -> "D=" + e.getKey(), Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new)));
        summaryMap.put("largest_n_within_10ms_d100", summary.maxNFor10ms);
        summaryMap.put("throughput_ratio", summary.throughputRatio);
        summaryMap.put("throughput_ratio_harness", "embedded KRaft broker, exactly_once_v2");
        summaryMap.put("throughput_ratio_topology_test_driver", throughput == null ? null : summary.throughputRatioTtd);
        summaryMap.put("restore_to_running_ms", r.runningMs());
        summaryMap.put("restore_n", r.events());
        summaryMap.put("e2e_lag_p99_ms", e2eLag == null ? null : e2eLag.p(99));
        summaryMap.put("lag_p99_ms_at_100ms", summary.lagP99At100);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("environment", envColumns);
        json.put("settings", settings);
        json.put("summary", summaryMap);
        json.put("punctuation", punctRows);
        json.put("lag", lagRows);
        json.put("throughput", tputRows);
        json.put("broker_throughput", brokerRows);
        json.put("restore", restoreRow);
        json.put("e2e_lag", e2eRows);
        json.put("state", stateRows);
        writeFile("results.json", Json.write(json));

        String subtitle = String.format(
                Locale.ROOT,
                "%s mode, %d cores (shared), %s, Kafka %s, ttl-streams %s, "
                        + "TopologyTestDriver + RocksDB / embedded KRaft",
                env.mode(),
                env.cores(),
                env.jvm(),
                env.kafkaVersion(),
                env.ttlStreamsVersion());
        Plots.punctuationCost(punctuation.rows, subtitle, out.resolve("punctuation-cost.png"));
        Plots.lag(lag.rows, subtitle, out.resolve("expiry-lag.png"));
        Map<String, Double> bars = new LinkedHashMap<>();
        broker.rows.forEach(row -> bars.put(row.topology() + " (broker, EOS)", row.eventsPerSecond()));
        if (throughput != null) {
            throughput.rows.forEach(row -> bars.put(row.topology() + " (TTD)", row.median()));
        }
        Plots.throughput(bars, subtitle, out.resolve("throughput.png"));
    }

    private void writeCsv(String name, List<Map<String, Object>> rows, Map<String, Object> envColumns) {
        StringBuilder csv = new StringBuilder();
        List<String> header = new ArrayList<>(rows.get(0).keySet());
        header.addAll(envColumns.keySet());
        csv.append(String.join(",", header)).append('\n');
        for (Map<String, Object> row : rows) {
            List<String> cells = new ArrayList<>();
            row.values().forEach(v -> cells.add(csvCell(v)));
            envColumns.values().forEach(v -> cells.add(csvCell(v)));
            csv.append(String.join(",", cells)).append('\n');
        }
        writeFile(name, csv.toString());
    }

    /** Writes the CSV, or, when this mode has no such rows, removes a stale one from an earlier run. */
    private void writeOrDrop(String name, List<Map<String, Object>> rows, Map<String, Object> envColumns) {
        if (!rows.isEmpty()) {
            writeCsv(name, rows, envColumns);
            return;
        }
        try {
            Files.deleteIfExists(out.resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String csvCell(Object value) {
        if (value == null) {
            return "";
        }
        String text = value instanceof Double d ? fmt(d) : value.toString();
        return text.contains(",") || text.contains("\"") ? '"' + text.replace("\"", "\"\"") + '"' : text;
    }

    private static String fmt(double d) {
        return String.format(Locale.ROOT, "%.3f", d);
    }

    private void writeFile(String name, String content) {
        try {
            Files.writeString(out.resolve(name), content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
