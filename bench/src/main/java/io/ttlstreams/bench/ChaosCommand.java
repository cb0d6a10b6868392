package io.ttlstreams.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ttl-streams bench chaos}: {@link ChaosBench} once per variant of the Kafka Streams settings, then the table of
 * each scenario's figures against the goals of issue 33, {@code scenarios.csv}, {@code documents-<variant>.csv} and
 * {@code lateness.png} in {@code --out}.
 */
@Command(
        name = "chaos",
        mixinStandardHelpOptions = true,
        description = {
            "Brokers die, instances roll, scale and crash under a steady workload: the embedded stack with several"
                    + " brokers, processor instances as JVMs of their own, every document's deadline, delete command,"
                    + " deletion and renewal recorded.",
            "Per scenario: documents deleted early, missed, renewed and deleted, commands per document, max and p99"
                    + " lateness of the deadlines inside the disturbance, time to normal lateness (<= 1 s) again."
        })
final class ChaosCommand implements Callable<Integer> {

    /** How long after a disturbance's last act its deadlines still count as inside it. */
    static final long SETTLE_MS = 20_000;

    /** The settings recommended for a rolling restart and a crash: ttl-streams' defaults. */
    static final Map<String, String> RECOMMENDED = Map.of("num.standby.replicas", "1");

    /**
     * Static membership as the StatefulSet sets it ({@code group.instance.id} per instance, which {@link ChaosBench}
     * gives each), with standbys, and a session timeout above an instance's restart (8-11 s alone, 20-28 s in the
     * last chaos run): an instance stopped with SIGTERM stays in the group, and back within the session timeout it
     * takes its own tasks again without a rebalance. Its tasks wait for it meanwhile, and a crashed instance's for
     * the whole session timeout.
     */
    static final Map<String, String> STATIC_MEMBERSHIP =
            Map.of("num.standby.replicas", "1", "session.timeout.ms", "45000");

    /**
     * The streams rebalance protocol (KIP-1071): the brokers' group coordinator assigns the tasks. The group's standbys
     * (1), session timeout (10 s) and heartbeat interval (500 ms) are the embedded broker's settings of streams groups,
     * the same as the processor's defaults under the classic protocol.
     */
    static final Map<String, String> STREAMS_PROTOCOL = Map.of("group.protocol", "streams");

    /**
     * The defaults before issue 46 measured a rolling restart: standbys and Kafka's 3 s heartbeat (now 500 ms), so that
     * one alternated run compares the two ({@code --variants heartbeat-3s,standbys,heartbeat-3s,standbys}).
     */
    static final Map<String, String> HEARTBEAT_3S =
            Map.of("num.standby.replicas", "1", "heartbeat.interval.ms", "3000");

    /**
     * The defaults before the takeover settings (issue 46): a 1 s heartbeat, the restore consumer's 500 ms long
     * polls and client telemetry on, so that one alternated run compares them with today's ({@code --variants
     * before-takeover,standbys,...}).
     */
    static final Map<String, String> BEFORE_TAKEOVER = Map.of(
            "num.standby.replicas",
            "1",
            "heartbeat.interval.ms",
            "1000",
            "restore.consumer.fetch.max.wait.ms",
            "500",
            "enable.metrics.push",
            "true");

    /**
     * Standbys with Kafka Streams' sticky task assignor (KIP-924) instead of the high-availability one: a restart's
     * timeline showed survivors handing healthy tasks to each other for balance, each handover idle until a follow-up
     * rebalance; the sticky assignor moves only the tasks that must move.
     */
    static final Map<String, String> STICKY_ASSIGNOR = Map.of(
            "num.standby.replicas",
            "1",
            "task.assignor.class",
            "org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor");

    /**
     * Standbys, and a returning instance warmed up before it gets its tasks back: with {@code acceptable.recovery.lag}
     * below what an instance falls behind in a restart (a few hundred changelog records per task here) and above a
     * standby's lag, the high-availability assignor leaves the survivors' tasks where they are, gives the returning
     * instance warm-up replicas, and moves them at the probing rebalance ({@code probing.rebalance.interval.ms}, its
     * minimum of one minute) once caught up: the move no longer waits for a stream thread busy opening its stores.
     */
    static final Map<String, String> WARM_UP = Map.of(
            "num.standby.replicas", "1", "acceptable.recovery.lag", "100", "probing.rebalance.interval.ms", "60000");

    /** Two standbys: with three instances every survivor holds every task's state, whichever the assignor picks. */
    static final Map<String, String> TWO_STANDBYS = Map.of("num.standby.replicas", "2");

    /** {@link #WARM_UP} with two standbys. */
    static final Map<String, String> WARM_UP_TWO_STANDBYS = Map.of(
            "num.standby.replicas", "2", "acceptable.recovery.lag", "100", "probing.rebalance.interval.ms", "60000");

    /** Without standby replicas: every takeover restores from the changelogs first. */
    static final Map<String, String> WITHOUT_STANDBYS = Map.of("num.standby.replicas", "0");

    @Option(names = "--rate", defaultValue = "500", description = "Inserts a second (default: ${DEFAULT-VALUE}).")
    private int rate;

    @Option(names = "--instances", defaultValue = "4", description = "Processor instances (default: ${DEFAULT-VALUE}).")
    private int instances;

    @Option(names = "--brokers", defaultValue = "3", description = "Kafka brokers (default: ${DEFAULT-VALUE}).")
    private int brokers;

    @Option(
            names = "--partitions",
            defaultValue = "12",
            description = "Source partitions, and so tasks (default: ${DEFAULT-VALUE}).")
    private int partitions;

    @Option(
            names = "--quiet-seconds",
            defaultValue = "30",
            description = "Steady load before, between and after the disturbances (default: ${DEFAULT-VALUE}).")
    private int quietSeconds;

    @Option(
            names = "--down-seconds",
            defaultValue = "30",
            description = "How long a stopped broker, controller or killed instance stays down (default:"
                    + " ${DEFAULT-VALUE}).")
    private int downSeconds;

    @Option(
            names = "--instance-heap",
            defaultValue = "256m",
            description = "-Xmx of each processor instance's JVM (default: ${DEFAULT-VALUE}).")
    private String instanceHeap;

    @Option(
            names = "--variants",
            defaultValue = "standbys,no-standbys,static-membership",
            split = ",",
            description =
                    "Settings to run with, in order: standbys (the defaults: num.standby.replicas=1, leave the"
                            + " group on close), no-standbys (num.standby.replicas=0), static-membership (standbys,"
                            + " group.instance.id per instance as the StatefulSet sets it, which stays in the group on close,"
                            + " and session.timeout.ms=45000, above an instance's restart) and streams (group.protocol=streams,"
                            + " the streams rebalance protocol, with the embedded broker's one standby, 10 s session and 500 ms"
                            + " heartbeat for streams groups, the processor's defaults) and heartbeat-3s (standbys with"
                            + " heartbeat.interval.ms=3000, the default before issue 46), before-takeover (standbys with"
                            + " the 1 s heartbeat, the restore consumer's 500 ms long polls and client telemetry, the defaults"
                            + " before the takeover settings) and sticky (standbys with Kafka Streams' sticky"
                            + " task assignor), warm-up (standbys, acceptable.recovery.lag=100 and"
                            + " probing.rebalance.interval.ms=60000: a returning instance warms up before it takes tasks back)"
                            + ", two-standbys (num.standby.replicas=2) and warm-up-two-standbys (both) (default: ${DEFAULT-VALUE}).")
    private List<String> variants;

    @Option(
            names = "--scenarios",
            defaultValue = "rolling-restart,scale,kill-one,kill-two,broker,controller,connect",
            split = ",",
            description = "The disturbances to run, in their fixed order: rolling-restart, scale (in, then out),"
                    + " kill-one, kill-two, broker, controller, connect (default: ${DEFAULT-VALUE}). With one broker,"
                    + " leave out broker and controller.")
    private List<String> scenarios;

    @Option(
            names = "--instance-log-config",
            paramLabel = "FILE",
            description = "A log4j2 configuration for the instances' JVMs, e.g."
                    + " bench/scripts/restart-timeline-log4j2.xml, which logs Kafka's rebalances for"
                    + " bench/scripts/restart_timeline.py; the instances' logs stay in the run's temporary directory"
                    + " (default: the production logging).")
    private Path instanceLogConfig;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            defaultValue = "${sys:ttlstreams.home:-.}/bench/results/chaos",
            description = "Where results go (default: ${DEFAULT-VALUE}).")
    private Path out;

    @Override
    public Integer call() throws Exception {
        System.setProperty("java.awt.headless", "true");
        PrintStream console = System.out;
        for (int value : new int[] {rate, instances, brokers, partitions, quietSeconds, downSeconds}) {
            if (value < 1) {
                System.err.println("ttl-streams bench chaos: every count and duration must be positive");
                return 2;
            }
        }
        if (quietSeconds * 1000L < SETTLE_MS) {
            System.err.println("ttl-streams bench chaos: --quiet-seconds must be at least " + SETTLE_MS / 1000
                    + ", the time a disturbance's deadlines are counted after it");
            return 2;
        }
        if (instances < 2) {
            System.err.println("ttl-streams bench chaos: --instances must be at least 2 (two are killed at once)");
            return 2;
        }
        for (String variant : variants) {
            if (streamsSettings(variant) == null) {
                System.err.println("ttl-streams bench chaos: --variants: unknown variant " + variant
                        + " (standbys, no-standbys, static-membership, streams, heartbeat-3s, before-takeover, sticky, warm-up,"
                        + " two-standbys, warm-up-two-standbys)");
                return 2;
            }
        }
        for (String scenario : scenarios) {
            if (!ChaosBench.SCENARIOS.contains(scenario)) {
                System.err.println("ttl-streams bench chaos: --scenarios: unknown scenario " + scenario + " "
                        + ChaosBench.SCENARIOS);
                return 2;
            }
        }
        if (instanceLogConfig != null && !Files.isReadable(instanceLogConfig)) {
            System.err.println("ttl-streams bench chaos: --instance-log-config: cannot read " + instanceLogConfig);
            return 2;
        }
        Files.createDirectories(out);
        String load = loadAverage();
        List<ChaosLedger.Figures> figures = new ArrayList<>();
        Map<String, double[][]> plotted = new LinkedHashMap<>();
        List<ChaosBench.Window> firstWindows = null;
        long firstStart = 0;
        List<String> memory = new ArrayList<>();
        Map<String, Integer> runs = new HashMap<>();
        for (String variant : variants) {
            Map<String, String> streams = streamsSettings(variant);
            // A variant named again (protocols alternated) is told from its earlier runs: streams, streams-2, ...
            int run = runs.merge(variant, 1, Integer::sum);
            String label = run == 1 ? variant : variant + "-" + run;
            Path runDir = Files.createTempDirectory("ttl-streams-chaos-");
            console.println("[" + label + "] instances' configurations, logs and state in " + runDir);
            ChaosBench bench = new ChaosBench(
                    label,
                    new ChaosBench.Settings(
                            rate,
                            instances,
                            brokers,
                            partitions,
                            quietSeconds * 1000L,
                            downSeconds * 1000L,
                            instanceHeap,
                            streams,
                            variant.equals("static-membership"),
                            Set.copyOf(scenarios),
                            instanceLogConfig),
                    runDir,
                    console::println);
            bench.run();
            for (ChaosBench.Window window : bench.windows) {
                figures.add(bench.ledger.figures(
                        label, window.scenario(), bench.runStart, window.start(), window.end() + SETTLE_MS));
            }
            figures.add(bench.ledger.figures(
                    label, "whole run", bench.runStart, bench.runStart, bench.ledger.lastDeadline() + 1));
            bench.ledger.writeCsv(out.resolve("documents-" + label + ".csv"), label, bench.runStart);
            plotted.put(label, bench.ledger.worstLatenessPerSecond(bench.runStart));
            if (firstWindows == null) {
                firstWindows = bench.windows;
                firstStart = bench.runStart;
            }
            bench.memory.forEach((jvm, rss) -> memory.add(label + ": " + jvm + " " + rss));
            console.printf(Locale.ROOT, "[%s] %d documents%n", label, bench.ledger.size());
            // After each variant, so that a run cut short keeps what it measured.
            report(console, figures, plotted, firstWindows, firstStart, memory, load);
        }
        boolean safe = figures.stream().allMatch(f -> f.early() == 0 && f.missed() == 0 && f.renewedDeleted() == 0);
        console.println("chaos: " + (safe ? "nothing early, missed or wrongly deleted" : "SAFETY GOAL MISSED"));
        return safe ? 0 : 1;
    }

    /** Prints the table and writes scenarios.csv and lateness.png for the variants run so far. */
    private void report(
            PrintStream console,
            List<ChaosLedger.Figures> figures,
            Map<String, double[][]> plotted,
            List<ChaosBench.Window> firstWindows,
            long firstStart,
            List<String> memory,
            String load)
            throws IOException {
        String environment = String.format(
                Locale.ROOT,
                "%d inserts/s, %d instances (-Xmx%s each), %d brokers + 3 controllers, %d partitions, %d cores;"
                        + " load average before %s, after %s",
                rate,
                instances,
                instanceHeap,
                brokers,
                partitions,
                Runtime.getRuntime().availableProcessors(),
                load,
                loadAverage());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (ChaosLedger.Figures f : figures) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("variant", f.variant());
            row.put("scenario", f.scenario());
            row.put("start_s", f.startMs() / 1000);
            row.put("end_s", f.endMs() / 1000);
            row.put("documents", f.documents());
            row.put("early", f.early());
            row.put("missed", f.missed());
            row.put("renewed_deleted", f.renewedDeleted());
            row.put("commands_per_doc", f.commandsPerDocument());
            row.put("max_lateness_ms", f.maxLatenessMs());
            row.put("p99_lateness_ms", f.p99LatenessMs());
            row.put("to_normal_ms", f.toNormalMs());
            rows.add(row);
        }
        Table.print(console, rows, new ArrayList<>(rows.get(0).keySet()));
        Files.writeString(
                out.resolve("scenarios.csv"),
                Table.csv(rows, Map.of("environment", environment)),
                StandardCharsets.UTF_8);
        Plots.chaos(plotted, firstWindows, firstStart, environment, out.resolve("lateness.png"));
        console.println("environment: " + environment);
        memory.forEach(line -> console.println("memory: " + line));
        console.println("JVM of the stack (brokers, controllers, Connect, stand-in, bench): -Xmx"
                + ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax() / (1024 * 1024) + "m");
    }

    /** The Kafka Streams settings of {@code variant}; null for an unknown one. */
    private static Map<String, String> streamsSettings(String variant) {
        return switch (variant) {
            case "standbys" -> RECOMMENDED;
            case "static-membership" -> STATIC_MEMBERSHIP;
            case "no-standbys" -> WITHOUT_STANDBYS;
            case "streams" -> STREAMS_PROTOCOL;
            case "heartbeat-3s" -> HEARTBEAT_3S;
            case "before-takeover" -> BEFORE_TAKEOVER;
            case "sticky" -> STICKY_ASSIGNOR;
            case "warm-up" -> WARM_UP;
            case "two-standbys" -> TWO_STANDBYS;
            case "warm-up-two-standbys" -> WARM_UP_TWO_STANDBYS;
            default -> null;
        };
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
