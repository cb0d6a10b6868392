package io.ttlstreams.bench;

import io.ttlstreams.bench.BrokerBench.Run;
import io.ttlstreams.bench.BrokerBench.Variant;
import io.ttlstreams.bench.BrokerBench.Workload;
import java.util.ArrayList;
import java.util.List;

/**
 * What the {@link BrokerBench} runs come to: medians over the rounds of each variant on each workload, and the
 * ratios of ttl-streams to the pass-through (and to any other anchor that ran).
 */
final class BrokerMedians {

    private final List<Run> runs;
    private final int rounds;

    BrokerMedians(List<Run> runs, int rounds) {
        this.runs = List.copyOf(runs);
        this.rounds = rounds;
    }

    /** Medians over the rounds of one variant on one workload. */
    record Summary(
            Variant variant,
            Workload workload,
            int runs,
            double streamCpuMicros,
            double streamCpuMicrosMin,
            double streamCpuMicrosMax,
            double clientCpuMicros,
            double processCpuMicros,
            double bytesPerEvent,
            double eventsPerSecond,
            long producerRetries,
            long producerErrors) {}

    Summary summary(Variant variant, Workload workload) {
        List<Run> of = runs.stream()
                .filter(r -> r.variant() == variant && r.workload() == workload)
                .toList();
        double[] cpu = of.stream().mapToDouble(Run::streamCpuMicrosPerEvent).toArray();
        return new Summary(
                variant,
                workload,
                of.size(),
                Stats.median(cpu),
                Stats.min(cpu),
                Stats.max(cpu),
                Stats.median(
                        of.stream().mapToDouble(Run::clientCpuMicrosPerEvent).toArray()),
                Stats.median(
                        of.stream().mapToDouble(Run::processCpuMicrosPerEvent).toArray()),
                Stats.median(of.stream().mapToDouble(Run::bytesPerEvent).toArray()),
                Stats.median(of.stream().mapToDouble(Run::eventsPerSecond).toArray()),
                of.stream().mapToLong(Run::producerRetries).sum(),
                of.stream().mapToLong(Run::producerErrors).sum());
    }

    /** Median stream-thread CPU per event of ttl-streams over the pass-through's, on one workload. */
    double cpuRatio(Workload workload) {
        return cpuRatio(Variant.PASS_THROUGH, workload);
    }

    /** Median stream-thread CPU per event of ttl-streams over {@code anchor}'s, on one workload. */
    double cpuRatio(Variant anchor, Workload workload) {
        return summary(Variant.TTL_STREAMS, workload).streamCpuMicros()
                / summary(anchor, workload).streamCpuMicros();
    }

    /** The ratio over the pass-through round by round (each round's two runs), to show how much it moves. */
    double[] cpuRatioByRound(Workload workload) {
        return cpuRatioByRound(Variant.PASS_THROUGH, workload);
    }

    /** The ratio over {@code anchor} round by round. */
    double[] cpuRatioByRound(Variant anchor, Workload workload) {
        double[] ratios = new double[rounds];
        for (int round = 1; round <= rounds; round++) {
            ratios[round - 1] = run(round, Variant.TTL_STREAMS, workload).streamCpuMicrosPerEvent()
                    / run(round, anchor, workload).streamCpuMicrosPerEvent();
        }
        return ratios;
    }

    /** The run of {@code variant} on {@code workload} in {@code round}. */
    Run run(int round, Variant variant, Workload workload) {
        return runs.stream()
                .filter(r -> r.round() == round && r.variant() == variant && r.workload() == workload)
                .findFirst()
                .orElseThrow();
    }

    /** Median wall-clock events/s of ttl-streams over the pass-through's: secondary, noisy on a shared machine. */
    double wallRatio(Workload workload) {
        return summary(Variant.TTL_STREAMS, workload).eventsPerSecond()
                / summary(Variant.PASS_THROUGH, workload).eventsPerSecond();
    }

    /** Every variant's summary on every workload, workloads first. */
    List<Summary> all() {
        List<Summary> medians = new ArrayList<>();
        for (Workload workload : Workload.values()) {
            for (Variant variant : BrokerBench.VARIANTS) {
                medians.add(summary(variant, workload));
            }
        }
        return medians;
    }
}
