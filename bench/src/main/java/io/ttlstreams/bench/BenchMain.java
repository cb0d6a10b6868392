package io.ttlstreams.bench;

import io.ttlstreams.bench.BenchCommand.BenchOptions;
import io.ttlstreams.bench.BrokerBench.Variant;
import io.ttlstreams.bench.BrokerBench.Workload;
import io.ttlstreams.config.SchedulerOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Runs the ttl-streams benchmarks ({@link BenchCommand}) and writes tables, CSV, JSON and PNG plots.
 *
 * <p>The last line of the output is {@code cpu_ratio=<x> noop_cpu_ratio=<y> bytes_per_event=<z> mass_drain_s=<s>
 * punctuation_speedup=<p>}: median stream-thread CPU per event of ttl-streams over the pass-through's on inserts and
 * on no-op updates, bytes the broker stored per scheduled event, seconds from the due time to the last delete
 * command of the mass expiry with the default settings, and the punctuation speedup over a full scan.
 */
final class BenchMain {

    private static final int[] DUES = {0, 100, 1000};
    /** The benchmarks' configuration with ttl-streams' defaults, whose values the results name. */
    private static final TtlStreamsConfig DEFAULTS = BenchSupport.config(Map.of());

    private static final long[] LAG_INTERVALS = {50, 100, 250};
    private static final int LAG_RATE = 10_000;
    /** 10% of one core at a 100 ms interval. */
    private static final double BUDGET_MS = 10.0;

    private static final int E2E_RATE = 1_000;
    private static final int E2E_SECONDS = 20;
    private static final long E2E_LEAD_MS = 5_000;

    /** The targets of issue 13 (benchmarks, not timed tests). */
    private static final double TARGET_CPU_RATIO = 1.5;

    private static final double TARGET_NOOP_CPU_RATIO = 1.1;
    private static final double TARGET_BYTES_PER_EVENT = 120;
    private static final double TARGET_DRAIN_S = 3;
    private static final double TARGET_RESTORE_RUNNING_MS = 5_000;
    private static final double TARGET_E2E_P99_MS = 2_000;
    /** Documents in the throttle check per allowed delete per second: enough for several windows. */
    private static final int THROTTLE_SECONDS_OF_WORK = 5;

    private final BenchOptions options;
    private final PrintStream stdout = System.out;
    private final PrintStream log = System.err;
    private final long started = System.nanoTime();

    BenchMain(BenchOptions options) {
        this.options = options;
    }

    void run() {
        try {
            runAll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    private void progress(String message) {
        log.println("[bench]   " + message + " at " + (System.nanoTime() - started) / 1_000_000_000L + " s");
    }

    private void runAll() throws InterruptedException {
        Environment env = Environment.current(options.quick());
        try {
            Files.createDirectories(options.out());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        stdout.printf(
                Locale.ROOT,
                "ttl-streams bench (%s mode): %d cores, max heap %d MB, %s, %s, load average %.2f at start%n",
                env.mode(),
                env.cores(),
                env.maxHeapMb(),
                env.os(),
                env.jvm(),
                env.loadAverageAtStart());
        stdout.printf(
                Locale.ROOT,
                "Kafka %s, ttl-streams %s, commit %s; command: %s%n",
                env.kafkaVersion(),
                env.ttlStreamsVersion(),
                env.commit(),
                options.command());
        stdout.println("Figures 1, 2, 4 from TopologyTestDriver with RocksDB stores; 3, 5, 7 (and 6 in full mode) on"
                + " the embedded KRaft broker. The machine is shared: CPU time is the figure, wall time is noise.");

        int warmups = 3;
        int reps = options.quick() ? 7 : 9;
        log.println(
                "[bench] 1/7 punctuation cost, N=" + Arrays.toString(options.sizes()) + " D=" + Arrays.toString(DUES));
        PunctuationBench punctuation = new PunctuationBench(options.sizes(), DUES, warmups, reps, this::progress);
        punctuation.run();

        int lagSeconds = options.quick() ? 2 : 10;
        log.println("[bench] 2/7 expiry lag (simulated) at " + LAG_RATE + "/s for " + lagSeconds + " s simulated");
        LagBench lag = new LagBench(LAG_INTERVALS, LAG_RATE, lagSeconds);
        lag.run();

        BrokerBench broker;
        MassExpiryBench massExpiry;
        try (BenchBroker kafka = BenchBroker.start()) {
            int warmupEvents = options.quick() ? 5_000 : 20_000;
            log.println("[bench] 3/7 CPU per event on the embedded KRaft broker, " + options.events() + " events per"
                    + " workload, " + options.rounds() + " rounds; 5/7 restore in the last round");
            broker = new BrokerBench(kafka, options.events(), warmupEvents, options.rounds(), this::progress);
            broker.run();
            log.println("[bench] 7/7 mass expiry and throttle on the embedded KRaft broker");
            massExpiry = new MassExpiryBench(kafka, drainCases(), this::progress);
            massExpiry.run();
        }

        EndToEndLagBench e2eLag = null;
        if (!options.quick()) {
            log.println("[bench] 6/7 end-to-end expiry lag through the embedded pipeline, " + E2E_RATE
                    + " deadlines/s for " + E2E_SECONDS + " s");
            e2eLag = new EndToEndLagBench(E2E_RATE, E2E_SECONDS, E2E_LEAD_MS, this::progress);
            e2eLag.run();
        }
        log.println("[bench] writing results to " + options.out());
        new Report(env, punctuation, lag, broker, massExpiry, e2eLag).printAndWrite();
    }

    /** The defaults, each configuration given, then the throttle check. */
    private List<MassExpiryBench.Case> drainCases() {
        List<MassExpiryBench.Case> cases = new ArrayList<>();
        cases.add(new MassExpiryBench.Case("defaults", Map.of(), options.drainDocuments()));
        for (Map<String, String> settings : options.drainConfigs()) {
            String name = settings.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(" "));
            cases.add(new MassExpiryBench.Case(name, settings, options.drainDocuments()));
        }
        String perSecond = java.math.BigDecimal.valueOf(options.throttle())
                .stripTrailingZeros()
                .toPlainString();
        cases.add(new MassExpiryBench.Case(
                "throttle " + perSecond + "/s", Map.of(SchedulerOptions.MAX_DELETES_PER_SECOND_CONFIG, perSecond), (int)
                        Math.ceil(options.throttle() * THROTTLE_SECONDS_OF_WORK)));
        return cases;
    }

    /** Turns the benches' results into tables, target checks, files and the key line. */
    private final class Report {
        private final Environment env;
        private final PunctuationBench punctuation;
        private final LagBench lag;
        private final BrokerBench broker;
        private final MassExpiryBench massExpiry;
        private final EndToEndLagBench e2eLag;
        private final Map<String, Object> summary = new LinkedHashMap<>();
        private final Map<String, Object> json = new LinkedHashMap<>();

        Report(
                Environment env,
                PunctuationBench punctuation,
                LagBench lag,
                BrokerBench broker,
                MassExpiryBench massExpiry,
                EndToEndLagBench e2eLag) {
            this.env = env;
            this.punctuation = punctuation;
            this.lag = lag;
            this.broker = broker;
            this.massExpiry = massExpiry;
            this.e2eLag = e2eLag;
        }

        void printAndWrite() {
            json.put("environment", env.asMap());
            json.put("settings", settings());
            json.put("summary", summary);
            double speedup = punctuation();
            lag();
            double[] cpu = broker();
            state();
            restore();
            e2eLag();
            double drain = massExpiry();

            double loadAtEnd = java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                    .getSystemLoadAverage();
            summary.put("load_average_at_end", loadAtEnd);
            writeFile("results.json", Json.write(json));
            plots();

            stdout.println();
            stdout.printf(
                    Locale.ROOT,
                    "Results: %s (CSV, JSON, PNG). Total time %.1f s; load average %.2f at the end.%n",
                    options.out().toAbsolutePath(),
                    (System.nanoTime() - started) / 1e9,
                    loadAtEnd);
            stdout.printf(
                    Locale.ROOT,
                    "Key line: CPU ratios at %d events per workload, %d rounds; mass_drain_s at N=%d%s%n",
                    broker.events(),
                    broker.rounds(),
                    options.drainDocuments(),
                    options.drainDocuments() == 200_000 ? "" : " (the issue's figure is at N=200000)");
            stdout.printf(
                    Locale.ROOT,
                    "cpu_ratio=%.2f noop_cpu_ratio=%.2f bytes_per_event=%.0f mass_drain_s=%.1f punctuation_speedup=%.1f%n",
                    cpu[0],
                    cpu[1],
                    cpu[2],
                    drain,
                    speedup);
        }

        private Map<String, Object> settings() {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("command", options.command());
            s.put(
                    "driver",
                    "TopologyTestDriver (no broker), persistent RocksDB stores, changelogging on, caching off,"
                            + " processing.guarantee from ttl-streams defaults (exactly_once_v2, simulated by the"
                            + " driver)");
            s.put("punctuation_interval_ms", PunctuationBench.INTERVAL_MS);
            s.put("punctuation_sizes", Arrays.stream(options.sizes()).boxed().toList());
            s.put(
                    "punctuation_full_scan_sizes",
                    Arrays.stream(punctuation.fullScanSizes()).boxed().toList());
            s.put("punctuation_dues", Arrays.stream(DUES).boxed().toList());
            s.put(
                    "punctuation_timed",
                    "driver.advanceWallClockTime(interval): the punctuation plus the driver's commit and output"
                            + " capture; defaults ttl.punctuate.max.entries=" + DEFAULTS.punctuateMaxEntries()
                            + ", ttl.punctuate.max.duration.ms="
                            + DEFAULTS.punctuateMaxDuration().toMillis());
            s.put("lag_rate_per_second", LAG_RATE);
            s.put("lag_intervals_ms", Arrays.stream(LAG_INTERVALS).boxed().toList());
            s.put("lag_settings", "ttl.punctuate.max.duration.ms=1000 (so machine noise cannot cut a run short)");
            s.put(
                    "broker",
                    "EmbeddedKafka (one KRaft node in this JVM), ttl-streams Kafka Streams defaults"
                            + " (exactly_once_v2, commit.interval.ms 100, one stream thread, max.task.idle.ms=-1),"
                            + " topics with " + BenchBroker.PARTITIONS + " partitions");
            s.put("broker_events_per_workload", broker.events());
            s.put("broker_rounds", broker.rounds());
            s.put(
                    "broker_order",
                    "variants rotated each round (round r runs " + BrokerBench.VARIANTS + " rotated by r-1); each"
                            + " variant runs inserts then noop-updates; a discarded warm-up unit of each first");
            s.put(
                    "broker_workloads",
                    "inserts: new documents, expireAt 30 days out, canonical extended JSON as the MongoDB source"
                            + " connector writes it; noop-updates: one update per inserted document changing a field"
                            + " no rule reads (ttl-streams reads them with the state of its inserts run)");
            s.put(
                    "broker_measured",
                    "RUNNING -> the group's committed offsets reach the end of the source: stream-thread CPU"
                            + " (ThreadMXBean), CPU of all the client's threads and of the JVM, process-total,"
                            + " growth of the log segments of the topics the run writes (changelogs included; not"
                            + " __consumer_offsets or __transaction_state), Streams producer record-retry-total and"
                            + " record-error-total, wall time");
            s.put(
                    "restore",
                    "the last round's ttl-streams instance after its inserts run: closed, state dir wiped,"
                            + " restarted; from start() to RUNNING, to the last onRestoreEnd, to an interactive query"
                            + " counting all entries");
            s.put(
                    "mass_expiry",
                    "per case a fresh ttl-streams instance; N inserts with deadlines spread over one second, a"
                            + " lead of 2 s + 0.1 ms per document ahead (doubled and run again, up to twice, when"
                            + " scheduling ran past the first deadline); drain = last command read by a"
                            + " read_committed consumer - last deadline; rate = N / (last command - first deadline)");
            s.put("mass_expiry_documents", options.drainDocuments());
            s.put("throttle_per_second", options.throttle());
            if (e2eLag != null) {
                s.put(
                        "e2e_lag",
                        "EmbeddedPipeline (MongoDB stand-in, source + sink connectors in embedded Connect, KRaft"
                                + " broker, processor defaults); inserts via the sync driver at " + E2E_RATE + "/s"
                                + " for " + E2E_SECONDS + " s, each due " + E2E_LEAD_MS + " ms after insert; lag ="
                                + " arrival of the delete on a change stream - deadline");
            }
            return s;
        }

        /** Figure 1; returns the speedup at D=100 and the largest N both approaches ran. */
        private double punctuation() {
            List<Map<String, Object>> rows = new ArrayList<>();
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
                rows.add(m);
            }
            section(
                    "1. Punctuation cost (ms per punctuation, interval " + PunctuationBench.INTERVAL_MS
                            + " ms; N future entries + D due; complete=false: the budget cut a run short)",
                    "punctuation",
                    rows,
                    List.of("approach", "n", "due", "median_ms", "min_ms", "max_ms", "reps", "complete"));
            int[] sizes = options.sizes();
            int[] scanSizes = punctuation.fullScanSizes();
            int common = scanSizes[scanSizes.length - 1];
            int largest = sizes[sizes.length - 1];
            double speedup =
                    median(PunctuationBench.FULL_SCAN, common, 100) / median(PunctuationBench.TTL_STREAMS, common, 100);
            stdout.printf(
                    Locale.ROOT,
                    "Speedup over the full scan at D=100, N=%d: %.1fx (target >= 100x at N=1M)%n",
                    common,
                    speedup);
            Map<String, Double> growth = new LinkedHashMap<>();
            for (int due : DUES) {
                double g = median(PunctuationBench.TTL_STREAMS, largest, due)
                        / median(PunctuationBench.TTL_STREAMS, sizes[0], due);
                growth.put("D=" + due, g);
                stdout.printf(
                        Locale.ROOT,
                        "ttl-streams cost growth N=%d -> N=%d at D=%d: %.2fx (%s the 2x target)%n",
                        sizes[0],
                        largest,
                        due,
                        g,
                        g <= 2 ? "within" : "OUTSIDE");
            }
            Map<String, String> within = new LinkedHashMap<>();
            within.put(PunctuationBench.TTL_STREAMS, largestWithinBudget(PunctuationBench.TTL_STREAMS, sizes));
            within.put(PunctuationBench.FULL_SCAN, largestWithinBudget(PunctuationBench.FULL_SCAN, scanSizes));
            within.forEach((approach, text) -> stdout.printf(
                    Locale.ROOT,
                    "Largest N with <= 10 ms per punctuation at D=100 (a 100 ms interval within 10%% of a core),"
                            + " %s: %s%n",
                    approach,
                    text));
            summary.put("punctuation_speedup_d100", speedup);
            summary.put("punctuation_speedup_n", common);
            summary.put("punctuation_largest_n", largest);
            summary.put("ttl_streams_cost_growth_smallest_to_largest_n", growth);
            summary.put("largest_n_within_10ms_d100", within);
            return speedup;
        }

        private String largestWithinBudget(String approach, int[] sizes) {
            int best = -1;
            for (int n : sizes) {
                if (median(approach, n, 100) <= BUDGET_MS) {
                    best = n;
                }
            }
            int largest = sizes[sizes.length - 1];
            double atLargest = median(approach, largest, 100);
            if (best == largest) {
                return ">= " + best + " (largest N measured; " + Table.text(atLargest) + " ms at N=" + best + ")";
            }
            long extrapolated = (long) (largest * BUDGET_MS / atLargest);
            return (best < 0 ? "< " + sizes[0] : String.valueOf(best)) + " measured; ~" + extrapolated
                    + " by linear extrapolation from N=" + largest;
        }

        private double median(String approach, int n, int due) {
            return punctuation.rows.stream()
                    .filter(r -> r.approach().equals(approach) && r.n() == n && r.due() == due)
                    .findFirst()
                    .orElseThrow()
                    .medianMs();
        }

        /** Figure 2. */
        private void lag() {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (LagBench.Row row : lag.rows) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("interval_ms", row.intervalMs());
                m.put("rate_per_second", row.ratePerSecond());
                m.put("emitted", row.emitted());
                m.put("p50_ms", row.p50Ms());
                m.put("p99_ms", row.p99Ms());
                m.put("max_ms", row.maxMs());
                rows.add(m);
            }
            section(
                    "2. Expiry lag, deadlines due at " + LAG_RATE + "/s, simulated wall clock advanced in interval"
                            + " steps (the punctuation granularity, not processing delay)",
                    "lag",
                    rows,
                    List.of("interval_ms", "emitted", "p50_ms", "p99_ms", "max_ms"));
            summary.put(
                    "lag_p99_ms_at_100ms",
                    lag.rows.stream()
                            .filter(r -> r.intervalMs() == 100)
                            .findFirst()
                            .map(LagBench.Row::p99Ms)
                            .orElse(Double.NaN));
        }

        /** Figure 4. */
        private void state() {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (PunctuationBench.StateRow row : punctuation.stateRows) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("approach", row.approach());
                m.put("n", row.n());
                m.put("prefill_ms", row.prefillMs());
                m.put("raw_bytes", row.rawBytes());
                m.put("compacted_bytes", row.compactedBytes());
                m.put("raw_bytes_per_doc", (double) row.rawBytes() / row.n());
                m.put("compacted_bytes_per_doc", (double) row.compactedBytes() / row.n());
                m.put("heap_used_mb", row.heapUsedBytes() < 0 ? null : row.heapUsedBytes() / 1048576.0);
                rows.add(m);
            }
            section(
                    "4. State size (RocksDB store directories; compacted = after a full compactRange) and heap (JVM"
                            + " heap after GC with the driver open at each approach's largest N; RocksDB is off-heap)",
                    "state",
                    rows,
                    List.of(
                            "approach",
                            "n",
                            "prefill_ms",
                            "raw_bytes_per_doc",
                            "compacted_bytes_per_doc",
                            "heap_used_mb"));
        }

        /** Figure 3; returns cpu_ratio, noop_cpu_ratio and ttl-streams' bytes per inserted event. */
        private double[] broker() {
            List<Map<String, Object>> runRows = new ArrayList<>();
            for (BrokerBench.Run run : broker.runs) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("round", run.round());
                m.put("position", run.position());
                m.put("variant", run.variant().label);
                m.put("workload", run.workload().label);
                m.put("events", run.events());
                m.put("stream_cpu_us_per_event", run.streamCpuMicrosPerEvent());
                m.put("client_cpu_us_per_event", run.clientCpuMicrosPerEvent());
                m.put("process_cpu_us_per_event", run.processCpuMicrosPerEvent());
                m.put("bytes_per_event", run.bytesPerEvent());
                m.put("wall_s", run.wallSeconds());
                m.put("events_per_second", run.eventsPerSecond());
                m.put("producer_retries", run.producerRetries());
                m.put("producer_errors", run.producerErrors());
                m.put("scheduled", run.scheduled() < 0 ? null : run.scheduled());
                m.put(
                        "bytes_by_topic",
                        run.bytesByTopic().entrySet().stream()
                                .map(e -> e.getKey() + "=" + e.getValue())
                                .collect(Collectors.joining(" ")));
                runRows.add(m);
            }
            section(
                    "3. Stream-thread CPU per change event on the embedded KRaft broker (exactly_once_v2, "
                            + BenchBroker.PARTITIONS + " partitions), every run (variants rotated each round)",
                    "broker-runs",
                    runRows,
                    List.of(
                            "round",
                            "position",
                            "variant",
                            "workload",
                            "events",
                            "stream_cpu_us_per_event",
                            "client_cpu_us_per_event",
                            "process_cpu_us_per_event",
                            "bytes_per_event",
                            "events_per_second",
                            "producer_retries"));
            List<BrokerBench.Summary> medians = medians();
            List<Map<String, Object>> medianRows = new ArrayList<>();
            for (BrokerBench.Summary median : medians) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("variant", median.variant().label);
                m.put("workload", median.workload().label);
                m.put("runs", median.runs());
                m.put("stream_cpu_us_per_event", median.streamCpuMicros());
                m.put("stream_cpu_us_min", median.streamCpuMicrosMin());
                m.put("stream_cpu_us_max", median.streamCpuMicrosMax());
                m.put("client_cpu_us_per_event", median.clientCpuMicros());
                m.put("process_cpu_us_per_event", median.processCpuMicros());
                m.put("bytes_per_event", median.bytesPerEvent());
                m.put("events_per_second", median.eventsPerSecond());
                m.put("producer_retries", median.producerRetries());
                m.put("producer_errors", median.producerErrors());
                medianRows.add(m);
            }
            stdout.println("   medians over the rounds (min and max of the stream-thread CPU beside them):");
            Table.print(
                    stdout,
                    medianRows,
                    List.of(
                            "variant",
                            "workload",
                            "runs",
                            "stream_cpu_us_per_event",
                            "stream_cpu_us_min",
                            "stream_cpu_us_max",
                            "client_cpu_us_per_event",
                            "process_cpu_us_per_event",
                            "bytes_per_event",
                            "events_per_second",
                            "producer_retries"));
            writeCsv("broker-medians.csv", medianRows);
            json.put("broker_medians", medianRows);

            double cpuRatio = broker.cpuRatio(Workload.INSERTS);
            double noopRatio = broker.cpuRatio(Workload.NOOP_UPDATES);
            double bytes = broker.summary(Variant.TTL_STREAMS, Workload.INSERTS).bytesPerEvent();
            stdout.printf(
                    Locale.ROOT,
                    "CPU ratio ttl-streams / pass-through, inserts: %.2f (rounds %s; target <= %.1f: %s)%n",
                    cpuRatio,
                    ratios(broker.cpuRatioByRound(Workload.INSERTS)),
                    TARGET_CPU_RATIO,
                    verdict(cpuRatio <= TARGET_CPU_RATIO));
            stdout.printf(
                    Locale.ROOT,
                    "CPU ratio ttl-streams / pass-through, no-op updates: %.2f (rounds %s; target <= %.1f: %s)%n",
                    noopRatio,
                    ratios(broker.cpuRatioByRound(Workload.NOOP_UPDATES)),
                    TARGET_NOOP_CPU_RATIO,
                    verdict(noopRatio <= TARGET_NOOP_CPU_RATIO));
            stdout.printf(
                    Locale.ROOT,
                    "Bytes stored by the broker per scheduled event (ttl-streams, inserts): %.0f (target <= %.0f: %s);"
                            + " by topic in the last round: %s%n",
                    bytes,
                    TARGET_BYTES_PER_EVENT,
                    verdict(bytes <= TARGET_BYTES_PER_EVENT),
                    lastRound(Variant.TTL_STREAMS, Workload.INSERTS).bytesByTopic());
            stdout.printf(
                    Locale.ROOT,
                    "Wall-clock rate ratio ttl-streams / pass-through (secondary; noise on a shared machine):"
                            + " inserts %.2f, no-op updates %.2f%n",
                    broker.wallRatio(Workload.INSERTS),
                    broker.wallRatio(Workload.NOOP_UPDATES));
            summary.put("cpu_ratio", cpuRatio);
            summary.put("cpu_ratio_by_round", broker.cpuRatioByRound(Workload.INSERTS));
            summary.put("noop_cpu_ratio", noopRatio);
            summary.put("noop_cpu_ratio_by_round", broker.cpuRatioByRound(Workload.NOOP_UPDATES));
            summary.put("bytes_per_scheduled_event", bytes);
            summary.put("wall_ratio_inserts", broker.wallRatio(Workload.INSERTS));
            summary.put("wall_ratio_noop_updates", broker.wallRatio(Workload.NOOP_UPDATES));
            return new double[] {cpuRatio, noopRatio, bytes};
        }

        private List<BrokerBench.Summary> medians() {
            List<BrokerBench.Summary> medians = new ArrayList<>();
            for (Workload workload : Workload.values()) {
                for (Variant variant : BrokerBench.VARIANTS) {
                    medians.add(broker.summary(variant, workload));
                }
            }
            return medians;
        }

        private BrokerBench.Run lastRound(Variant variant, Workload workload) {
            return broker.runs.stream()
                    .filter(r -> r.round() == broker.rounds() && r.variant() == variant && r.workload() == workload)
                    .findFirst()
                    .orElseThrow();
        }

        /** Figure 5. */
        private void restore() {
            BrokerBench.RestoreRow r = broker.restore;
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("n", r.events());
            row.put("schedule_entries", r.scheduleEntries());
            row.put("index_entries", r.indexEntries());
            row.put("restored_records", r.restoredRecords());
            row.put("to_running_ms", r.runningMs());
            row.put("to_restored_ms", r.restoredMs());
            row.put("to_counted_ms", r.countedMs());
            section(
                    "5. State restore on the embedded broker: N scheduled, instance closed, state dir wiped, restarted"
                            + " (from start(): RUNNING, the last store's onRestoreEnd, all N entries counted)",
                    "restore",
                    List.of(row),
                    List.copyOf(row.keySet()));
            stdout.printf(
                    Locale.ROOT,
                    "RUNNING after %.0f ms with %d entries (target <= %.0f ms with 1M: %s)%n",
                    r.runningMs(),
                    r.events(),
                    TARGET_RESTORE_RUNNING_MS,
                    r.events() < 1_000_000
                            ? "not checked below 1M"
                            : verdict(r.runningMs() <= TARGET_RESTORE_RUNNING_MS));
            summary.put("restore_n", r.events());
            summary.put("restore_to_running_ms", r.runningMs());
        }

        /** Figure 6 (full mode). */
        private void e2eLag() {
            if (e2eLag == null) {
                stdout.println();
                stdout.println("6. End-to-end expiry lag: full mode only (it starts the whole embedded stack)");
                dropFile("e2e-lag.csv");
                summary.put("e2e_lag_p99_ms", null);
                return;
            }
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
            section(
                    "6. End-to-end expiry lag through the embedded pipeline (MongoDB stand-in, connectors, broker,"
                            + " processor defaults); lag = delete seen on a change stream - deadline",
                    "e2e-lag",
                    List.of(m),
                    List.of(
                            "rate_per_second",
                            "seconds",
                            "inserted",
                            "early",
                            "missing",
                            "p50_ms",
                            "p99_ms",
                            "max_ms"));
            stdout.printf(
                    Locale.ROOT,
                    "p99 target <= %.0f ms: %s%n",
                    TARGET_E2E_P99_MS,
                    verdict(e2eLag.p(99) <= TARGET_E2E_P99_MS && e2eLag.missing == 0 && e2eLag.early == 0));
            summary.put("e2e_lag_p99_ms", e2eLag.p(99));
        }

        /** Figure 7; returns the drain time of the defaults case. */
        private double massExpiry() {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (MassExpiryBench.Result result : massExpiry.results) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("case", result.drain().name());
                m.put("documents", result.drain().documents());
                m.put("scheduled_before_due", result.scheduledBeforeDue());
                m.put("drain_s", result.drainSeconds());
                m.put("rate_per_second", result.ratePerSecond());
                m.put("received", result.received());
                m.put("early", result.early());
                m.put("missing", result.missing());
                m.put("duplicates", result.duplicates());
                m.put("max_in_1s", result.maxInOneSecond());
                m.put("punctuations", result.punctuations());
                m.put("max_per_punctuation", result.maxPerPunctuation());
                m.put(
                        "settings",
                        result.drain().settings().entrySet().stream()
                                .map(e -> e.getKey() + "=" + e.getValue())
                                .collect(Collectors.joining(" ")));
                rows.add(m);
            }
            section(
                    "7. Mass expiry on the embedded broker: N documents due within one second; drain_s = last command"
                            + " committed - last deadline; max_in_1s = most command timestamps in any 1 s window;"
                            + " punctuations = distinct (partition, timestamp) pairs that emitted",
                    "mass-expiry",
                    rows,
                    List.of(
                            "case",
                            "documents",
                            "scheduled_before_due",
                            "drain_s",
                            "rate_per_second",
                            "early",
                            "missing",
                            "duplicates",
                            "max_in_1s",
                            "punctuations",
                            "max_per_punctuation"));
            MassExpiryBench.Result defaults = massExpiry.results.get(0);
            stdout.printf(
                    Locale.ROOT,
                    "Defaults, %d due within 1 s: all committed %.1f s after the last deadline (target <= %.0f s at"
                            + " 200k: %s)%n",
                    defaults.drain().documents(),
                    defaults.drainSeconds(),
                    TARGET_DRAIN_S,
                    verdict(defaults.drainSeconds() <= TARGET_DRAIN_S && defaults.missing() == 0));
            for (MassExpiryBench.Result result : massExpiry.results) {
                double cap = result.drain().maxDeletesPerSecond();
                if (cap > 0) {
                    stdout.printf(
                            Locale.ROOT,
                            "Throttle %s/s with %d tasks: at most %d commands in a 1 s window (target: the cap holds"
                                    + " in every window: %s)%n",
                            Table.text(cap),
                            BenchBroker.PARTITIONS,
                            result.maxInOneSecond(),
                            verdict(result.maxInOneSecond() <= cap));
                    summary.put("throttle_per_second", cap);
                    summary.put("throttle_max_in_1s", result.maxInOneSecond());
                }
            }
            summary.put("mass_drain_n", defaults.drain().documents());
            summary.put("mass_drain_s", defaults.drainSeconds());
            summary.put("mass_drain_rate_per_second", defaults.ratePerSecond());
            return defaults.drainSeconds();
        }

        private void plots() {
            String subtitle = String.format(
                    Locale.ROOT,
                    "%s mode, %d cores (shared), %s, Kafka %s, ttl-streams %s (%s)",
                    env.mode(),
                    env.cores(),
                    env.jvm(),
                    env.kafkaVersion(),
                    env.ttlStreamsVersion(),
                    env.commit());
            Plots.punctuationCost(punctuation.rows, subtitle, options.out().resolve("punctuation-cost.png"));
            Plots.lag(lag.rows, subtitle, options.out().resolve("expiry-lag.png"));
            Plots.cpuPerEvent(
                    medians(), broker.rounds(), subtitle, options.out().resolve("cpu-per-event.png"));
            Plots.massExpiry(massExpiry.results, subtitle, options.out().resolve("mass-expiry.png"));
        }

        /** Prints a titled table of {@code columns}, writes every column to {@code <name>.csv} and the JSON. */
        private void section(String title, String name, List<Map<String, Object>> rows, List<String> columns) {
            stdout.println();
            stdout.println(title);
            Table.print(stdout, rows, columns);
            writeCsv(name + ".csv", rows);
            json.put(name.replace('-', '_'), rows);
        }

        private void writeCsv(String name, List<Map<String, Object>> rows) {
            writeFile(name, Table.csv(rows, env.asMap()));
        }
    }

    private static String verdict(boolean met) {
        return met ? "met" : "MISSED";
    }

    private static String ratios(double[] ratios) {
        return Arrays.stream(ratios).mapToObj(Table::text).collect(Collectors.joining(", "));
    }

    private void writeFile(String name, String content) {
        try {
            Files.writeString(options.out().resolve(name), content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Removes a file an earlier run of another mode left, so that a directory never mixes runs. */
    private void dropFile(String name) {
        try {
            Files.deleteIfExists(options.out().resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
