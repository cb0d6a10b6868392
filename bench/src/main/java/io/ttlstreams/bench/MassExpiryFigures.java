package io.ttlstreams.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Figure 7 of a bench run: how fast a mass expiry drains, and whether the throttle holds. */
record MassExpiryFigures(BenchResults results, MassExpiryBench massExpiry) {

    private static final double TARGET_DRAIN_S = 3;

    /** Figure 7; returns the drain time of the defaults case. */
    double drain() {
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
            m.put("stream_cpu_us_per_command", result.streamCpuMicrosPerCommand());
            m.put("commands_per_stream_cpu_s", result.commandsPerStreamCpuSecond());
            m.put("jvm_cpu_us_per_command", result.processCpuMicrosPerCommand());
            m.put(
                    "settings",
                    result.drain().settings().entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue())
                            .collect(Collectors.joining(" ")));
            rows.add(m);
        }
        results.section(
                "7. Mass expiry on the embedded broker: N documents due within one second; drain_s = last command"
                        + " committed - last deadline; max_in_1s = most command timestamps in any 1 s window;"
                        + " punctuations = distinct (partition, timestamp) pairs that emitted; CPU per command from all"
                        + " scheduled to all committed (stream threads; whole JVM, broker included)",
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
                        "max_per_punctuation",
                        "stream_cpu_us_per_command",
                        "jvm_cpu_us_per_command"));
        MassExpiryBench.Result defaults = massExpiry.results.get(0);
        results.stdout.printf(
                Locale.ROOT,
                "Defaults, %d due within 1 s: all committed %.1f s after the last deadline (target <= %.0f s at"
                        + " 200k: %s)%n",
                defaults.drain().documents(),
                defaults.drainSeconds(),
                TARGET_DRAIN_S,
                BenchResults.verdict(defaults.drainSeconds() <= TARGET_DRAIN_S && defaults.missing() == 0));
        for (MassExpiryBench.Result result : massExpiry.results) {
            double cap = result.drain().maxDeletesPerSecond();
            if (cap > 0) {
                results.stdout.printf(
                        Locale.ROOT,
                        "Throttle %s/s with %d tasks: at most %d commands in a 1 s window (target: the cap holds"
                                + " in every window: %s)%n",
                        Table.text(cap),
                        BenchBroker.PARTITIONS,
                        result.maxInOneSecond(),
                        BenchResults.verdict(result.maxInOneSecond() <= cap));
                results.summary.put("throttle_per_second", cap);
                results.summary.put("throttle_max_in_1s", result.maxInOneSecond());
            }
        }
        results.summary.put("mass_drain_n", defaults.drain().documents());
        results.summary.put("mass_drain_s", defaults.drainSeconds());
        results.summary.put("mass_drain_rate_per_second", defaults.ratePerSecond());
        results.summary.put("mass_drain_commands_per_stream_cpu_s", defaults.commandsPerStreamCpuSecond());
        return defaults.drainSeconds();
    }
}
