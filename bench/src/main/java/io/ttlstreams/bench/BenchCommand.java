package io.ttlstreams.bench;

import io.ttlstreams.app.CommandExtension;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ttl-streams bench}: the benchmarks of module {@code bench}, added to the command line by the launcher. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        subcommands = ChaosCommand.class,
        description = {
            "Run the benchmarks: punctuation cost, expiry lag, CPU per event on the embedded broker against a"
                    + " pass-through, state size and restore, mass expiry and throttle.",
            "Prints tables and writes CSV, JSON and PNG plots; the last line sums up the key figures."
        })
public final class BenchCommand implements CommandExtension {

    /**
     * The mass-expiry configuration compared with the defaults in full mode when none is given: the punctuation
     * budgets the defaults were before issue 13, so that a run shows what the larger defaults bought.
     */
    static final String DEFAULT_DRAIN_CONFIG = "ttl.punctuate.max.entries=10000,ttl.punctuate.max.duration.ms=50";

    @Spec
    private CommandSpec spec;

    @Option(names = "--quick", description = "A short run (under two minutes) at smaller sizes.")
    private boolean quick;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            defaultValue = "${sys:ttlstreams.home:-.}/bench/results",
            description = "Where results go (default: ${DEFAULT-VALUE}).")
    private Path out;

    @Option(
            names = "--sizes",
            paramLabel = "N",
            split = ",",
            description = "Schedule sizes of the punctuation benchmark (default: 10000,100000 with --quick,"
                    + " else 10000,100000,1000000,10000000; the full scan stops at 1000000).")
    private List<Integer> sizes;

    @Option(
            names = "--events",
            paramLabel = "N",
            description = "Change events per workload on the broker (default: 20000 with --quick, else 1000000).")
    private Integer events;

    @Option(
            names = "--rounds",
            paramLabel = "R",
            defaultValue = "3",
            description = "Rounds of the broker variants, each in a rotated order (default: ${DEFAULT-VALUE}).")
    private int rounds;

    @Option(
            names = "--drain-documents",
            paramLabel = "N",
            description = "Documents due within one second in the mass expiry (default: 20000 with --quick,"
                    + " else 200000).")
    private Integer drainDocuments;

    @Option(
            names = "--drain-config",
            paramLabel = "KEY=VALUE[,KEY=VALUE...]",
            description = "A configuration to run the mass expiry with, besides the defaults; repeatable"
                    + " (default: none with --quick, else " + DEFAULT_DRAIN_CONFIG + ").")
    private List<String> drainConfigs;

    @Option(
            names = "--throttle",
            paramLabel = "PER_SECOND",
            defaultValue = "1000",
            description = "ttl.max.deletes.per.second of the throttle check (default: ${DEFAULT-VALUE}).")
    private double throttle;

    @Override
    public Integer call() {
        System.setProperty("java.awt.headless", "true");
        BenchOptions options;
        try {
            options = options();
        } catch (IllegalArgumentException | ConfigException e) {
            System.err.println("ttl-streams bench: " + e.getMessage());
            return 2;
        }
        new BenchMain(options).run();
        return 0;
    }

    private BenchOptions options() {
        int[] schedules = sizes == null
                ? (quick ? new int[] {10_000, 100_000} : new int[] {10_000, 100_000, 1_000_000, 10_000_000})
                : sizes.stream().mapToInt(Integer::intValue).sorted().toArray();
        positive("--sizes", schedules.length == 0 ? 0 : schedules[0]);
        int brokerEvents = events != null ? events : quick ? 20_000 : 1_000_000;
        positive("--events", brokerEvents);
        positive("--rounds", rounds);
        int documents = drainDocuments != null ? drainDocuments : quick ? 20_000 : 200_000;
        positive("--drain-documents", documents);
        if (!(throttle > 0) || Double.isInfinite(throttle)) {
            throw new IllegalArgumentException("--throttle must be a number > 0, was " + throttle);
        }
        List<String> configs = drainConfigs != null ? drainConfigs : quick ? List.of() : List.of(DEFAULT_DRAIN_CONFIG);
        List<Map<String, String>> drainSettings = new ArrayList<>();
        for (String config : configs) {
            Map<String, String> settings = settings(config);
            BenchSupport.config(settings); // bad keys and values fail here, named
            drainSettings.add(settings);
        }
        return new BenchOptions(
                quick, out, schedules, brokerEvents, rounds, documents, drainSettings, throttle, commandLine());
    }

    /** How this run was asked for; the parse result holds the launcher's arguments from before "bench" too. */
    private String commandLine() {
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        List<String> own = args.subList(args.indexOf(spec.name()) + 1, args.size());
        return String.join(" ", "./ttl-streams", spec.name(), String.join(" ", own))
                .trim();
    }

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(option + " must be positive, was " + value);
        }
    }

    /** Parses {@code key=value[,key=value...]} into settings, in order. */
    static Map<String, String> settings(String text) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String entry : text.split(",")) {
            int equals = entry.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException("--drain-config takes key=value[,key=value...], got '" + text + "'");
            }
            settings.put(
                    entry.substring(0, equals).trim(),
                    entry.substring(equals + 1).trim());
        }
        return settings;
    }

    /**
     * What to run.
     *
     * @param sizes schedule sizes of the punctuation benchmark, ascending
     * @param events change events per broker workload
     * @param drainDocuments documents falling due in each mass-expiry case but the throttle check
     * @param drainConfigs mass-expiry configurations run besides the defaults
     * @param throttle ttl.max.deletes.per.second of the throttle check
     * @param command the command line, for the records
     */
    record BenchOptions(
            boolean quick,
            Path out,
            int[] sizes,
            int events,
            int rounds,
            int drainDocuments,
            List<Map<String, String>> drainConfigs,
            double throttle,
            String command) {}
}
