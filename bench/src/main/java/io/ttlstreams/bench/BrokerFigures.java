package io.ttlstreams.bench;

import io.ttlstreams.bench.BrokerBench.Variant;
import io.ttlstreams.bench.BrokerBench.Workload;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Figures 3 and 5 of a bench run: CPU and bytes per change event against the pass-through, and the restore. */
record BrokerFigures(BenchResults results, BrokerBench broker, BrokerMedians medians) {

    /** The targets of issue 35 (benchmarks, not timed tests). */
    private static final double TARGET_BYTES_PER_EVENT = 100;

    private static final double TARGET_INSERTS_OVER_PASS_THROUGH = 1.6;
    private static final double TARGET_INSERTS_OVER_FULL_SCAN = 1.3;
    private static final double TARGET_NOOP_UPDATES_OVER_PASS_THROUGH = 1.1;
    private static final double TARGET_RESTORE_RUNNING_MS = 5_000;

    /**
     * Figure 3; returns cpu_ratio, noop_cpu_ratio, ttl-streams' bytes per inserted event and the inserts' CPU ratio
     * to the full scan.
     */
    double[] costPerEvent() {
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
        results.section(
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
        List<BrokerMedians.Summary> all = medians.all();
        List<Map<String, Object>> medianRows = new ArrayList<>();
        for (BrokerMedians.Summary median : all) {
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
        results.stdout.println("   medians over the rounds (min and max of the stream-thread CPU beside them):");
        Table.print(
                results.stdout,
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
        results.writeCsv("broker-medians.csv", medianRows);
        results.json.put("broker_medians", medianRows);

        double cpuRatio = cpuRatio(Workload.INSERTS, Variant.PASS_THROUGH, TARGET_INSERTS_OVER_PASS_THROUGH);
        double fullScanRatio = cpuRatio(Workload.INSERTS, Variant.FULL_SCAN, TARGET_INSERTS_OVER_FULL_SCAN);
        double noopRatio = cpuRatio(Workload.NOOP_UPDATES, Variant.PASS_THROUGH, TARGET_NOOP_UPDATES_OVER_PASS_THROUGH);
        double bytes = medians.summary(Variant.TTL_STREAMS, Workload.INSERTS).bytesPerEvent();
        results.stdout.printf(
                Locale.ROOT,
                "Bytes stored by the broker per scheduled event (ttl-streams, inserts): %.0f (target <= %.0f: %s);"
                        + " by topic in the last round: %s%n",
                bytes,
                TARGET_BYTES_PER_EVENT,
                BenchResults.verdict(bytes <= TARGET_BYTES_PER_EVENT),
                lastRound(Variant.TTL_STREAMS, Workload.INSERTS).bytesByTopic());
        results.stdout.printf(
                Locale.ROOT,
                "Wall-clock rate ratio ttl-streams / pass-through (secondary; noise on a shared machine):"
                        + " inserts %.2f, no-op updates %.2f%n",
                medians.wallRatio(Workload.INSERTS),
                medians.wallRatio(Workload.NOOP_UPDATES));
        results.summary.put("cpu_ratio", cpuRatio);
        results.summary.put("cpu_ratio_by_round", medians.cpuRatioByRound(Workload.INSERTS));
        results.summary.put("full_scan_cpu_ratio", fullScanRatio);
        results.summary.put(
                "full_scan_cpu_ratio_by_round", medians.cpuRatioByRound(Variant.FULL_SCAN, Workload.INSERTS));
        results.summary.put("noop_cpu_ratio", noopRatio);
        results.summary.put("noop_cpu_ratio_by_round", medians.cpuRatioByRound(Workload.NOOP_UPDATES));
        results.summary.put("bytes_per_scheduled_event", bytes);
        results.summary.put("wall_ratio_inserts", medians.wallRatio(Workload.INSERTS));
        results.summary.put("wall_ratio_noop_updates", medians.wallRatio(Workload.NOOP_UPDATES));
        return new double[] {cpuRatio, noopRatio, bytes, fullScanRatio};
    }

    /** Prints ttl-streams' CPU ratio to {@code anchor} on {@code workload} round by round, against its target. */
    private double cpuRatio(Workload workload, Variant anchor, double target) {
        double ratio = medians.cpuRatio(anchor, workload);
        results.stdout.printf(
                Locale.ROOT,
                "CPU ratio ttl-streams / %s, %s: %.2f (rounds %s; target <= %.1f: %s)%n",
                anchor.label,
                workload.label,
                ratio,
                BenchResults.ratios(medians.cpuRatioByRound(anchor, workload)),
                target,
                BenchResults.verdict(ratio <= target));
        return ratio;
    }

    private BrokerBench.Run lastRound(Variant variant, Workload workload) {
        return broker.runs.stream()
                .filter(r -> r.round() == broker.rounds() && r.variant() == variant && r.workload() == workload)
                .findFirst()
                .orElseThrow();
    }

    /** Figure 5. */
    void restore() {
        RestoreBench.Row r = broker.restore;
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("n", r.events());
        row.put("schedule_entries", r.scheduleEntries());
        row.put("index_entries", r.indexEntries());
        row.put("restored_records", r.restoredRecords());
        row.put("to_running_ms", r.runningMs());
        row.put("to_restored_ms", r.restoredMs());
        row.put("to_counted_ms", r.countedMs());
        results.section(
                "5. State restore on the embedded broker: N scheduled, instance closed, state dir wiped, restarted"
                        + " (from start(): RUNNING, the last store's onRestoreEnd, all N entries counted)",
                "restore",
                List.of(row),
                List.copyOf(row.keySet()));
        results.stdout.printf(
                Locale.ROOT,
                "RUNNING after %.0f ms with %d entries (target <= %.0f ms with 1M: %s)%n",
                r.runningMs(),
                r.events(),
                TARGET_RESTORE_RUNNING_MS,
                r.events() < 1_000_000
                        ? "not checked below 1M"
                        : BenchResults.verdict(r.runningMs() <= TARGET_RESTORE_RUNNING_MS));
        results.summary.put("restore_n", r.events());
        results.summary.put("restore_to_running_ms", r.runningMs());
    }
}
