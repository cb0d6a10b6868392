package io.ttlstreams.bench;

import io.ttlstreams.bench.BenchCommand.BenchOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Turns a bench run's results into tables, target checks, files, plots and the key line. */
final class BenchReport {

    /** The benchmarks' configuration with ttl-streams' defaults, whose values the results name. */
    private static final TtlStreamsConfig DEFAULTS = BenchSupport.config(Map.of());

    private final BenchOptions options;
    private final BenchResults results;
    private final long started;
    private final Environment env;
    private final PunctuationBench punctuation;
    private final LagBench lag;
    private final BrokerBench broker;
    private final MassExpiryBench massExpiry;
    private final EndToEndLagBench e2eLag;

    /** @param started when the run started, {@link System#nanoTime()} */
    BenchReport(
            BenchOptions options,
            long started,
            Environment env,
            PunctuationBench punctuation,
            LagBench lag,
            BrokerBench broker,
            MassExpiryBench massExpiry,
            EndToEndLagBench e2eLag) {
        this.options = options;
        this.results = new BenchResults(options.out(), env.asMap());
        this.started = started;
        this.env = env;
        this.punctuation = punctuation;
        this.lag = lag;
        this.broker = broker;
        this.massExpiry = massExpiry;
        this.e2eLag = e2eLag;
    }

    void printAndWrite() {
        results.json.put("environment", env.asMap());
        results.json.put("settings", settings());
        results.json.put("summary", results.summary);
        PunctuationFigures punctuationFigures = new PunctuationFigures(results, punctuation, options.sizes());
        LagFigures lagFigures = new LagFigures(results, lag, e2eLag);
        BrokerFigures brokerFigures = new BrokerFigures(results, broker, broker.medians());
        double speedup = punctuationFigures.cost();
        lagFigures.simulated();
        double[] cpu = brokerFigures.costPerEvent();
        punctuationFigures.state();
        brokerFigures.restore();
        lagFigures.endToEnd();
        double drain = new MassExpiryFigures(results, massExpiry).drain();

        double loadAtEnd = java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                .getSystemLoadAverage();
        results.summary.put("load_average_at_end", loadAtEnd);
        results.writeFile("results.json", Json.write(results.json));
        plots();

        results.stdout.println();
        results.stdout.printf(
                Locale.ROOT,
                "Results: %s (CSV, JSON, PNG). Total time %.1f s; load average %.2f at the end.%n",
                options.out().toAbsolutePath(),
                (System.nanoTime() - started) / 1e9,
                loadAtEnd);
        results.stdout.printf(
                Locale.ROOT,
                "Key line: CPU ratios at %d events per workload, %d rounds; mass_drain_s at N=%d%s%n",
                broker.events(),
                broker.rounds(),
                options.drainDocuments(),
                options.drainDocuments() == 200_000 ? "" : " (the issue's figure is at N=200000)");
        results.stdout.printf(
                Locale.ROOT,
                "cpu_ratio=%.2f full_scan_cpu_ratio=%.2f noop_cpu_ratio=%.2f bytes_per_event=%.0f mass_drain_s=%.1f"
                        + " punctuation_speedup=%.1f%n",
                cpu[0],
                cpu[3],
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
        s.put("punctuation_dues", Arrays.stream(BenchMain.DUES).boxed().toList());
        s.put(
                "punctuation_timed",
                "driver.advanceWallClockTime(interval): the punctuation plus the driver's commit and output"
                        + " capture; defaults ttl.punctuate.max.entries=" + DEFAULTS.punctuateMaxEntries()
                        + ", ttl.punctuate.max.duration.ms="
                        + DEFAULTS.punctuateMaxDuration().toMillis());
        s.put("lag_rate_per_second", BenchMain.LAG_RATE);
        s.put("lag_intervals_ms", Arrays.stream(BenchMain.LAG_INTERVALS).boxed().toList());
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
                            + " broker, processor defaults); inserts via the sync driver at " + BenchMain.E2E_RATE
                            + "/s"
                            + " for " + BenchMain.E2E_SECONDS + " s, each due " + BenchMain.E2E_LEAD_MS
                            + " ms after insert; lag ="
                            + " arrival of the delete on a change stream - deadline");
        }
        return s;
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
                broker.medians().all(), broker.rounds(), subtitle, options.out().resolve("cpu-per-event.png"));
        Plots.massExpiry(massExpiry.results, subtitle, options.out().resolve("mass-expiry.png"));
    }
}
