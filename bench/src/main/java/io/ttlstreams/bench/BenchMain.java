package io.ttlstreams.bench;

import io.ttlstreams.bench.BenchCommand.BenchOptions;
import io.ttlstreams.config.SchedulerOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs the ttl-streams benchmarks ({@link BenchCommand}) one after the other and hands their results to {@link
 * BenchReport}, which writes tables, CSV, JSON and PNG plots.
 *
 * <p>The last line of the output is {@code cpu_ratio=<x> full_scan_cpu_ratio=<f> noop_cpu_ratio=<y> bytes_per_event=<z>
 * mass_drain_s=<s> punctuation_speedup=<p>}: median stream-thread CPU per event of ttl-streams over the
 * pass-through's on inserts, over the full scan's on inserts and over the pass-through's on no-op updates, bytes the broker stored per scheduled event, seconds from the due time to the last delete
 * command of the mass expiry with the default settings, and the punctuation speedup over a full scan.
 */
final class BenchMain {

    static final int[] DUES = {0, 100, 1000};

    static final long[] LAG_INTERVALS = {50, 100, 250};
    static final int LAG_RATE = 10_000;

    static final int E2E_RATE = 1_000;
    static final int E2E_SECONDS = 20;
    static final long E2E_LEAD_MS = 5_000;

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
        new BenchReport(options, started, env, punctuation, lag, broker, massExpiry, e2eLag).printAndWrite();
    }

    /** The defaults, each configuration given, then the throttle check. */
    private List<MassExpiryBench.Case> drainCases() {
        List<MassExpiryBench.Case> cases = new ArrayList<>();
        cases.add(MassExpiryBench.Case.of(Map.of(), options.drainDocuments()));
        for (Map<String, String> settings : options.drainConfigs()) {
            cases.add(MassExpiryBench.Case.of(settings, options.drainDocuments()));
        }
        String perSecond = java.math.BigDecimal.valueOf(options.throttle())
                .stripTrailingZeros()
                .toPlainString();
        cases.add(new MassExpiryBench.Case(
                "throttle " + perSecond + "/s", Map.of(SchedulerOptions.MAX_DELETES_PER_SECOND_CONFIG, perSecond), (int)
                        Math.ceil(options.throttle() * THROTTLE_SECONDS_OF_WORK)));
        return cases;
    }
}
