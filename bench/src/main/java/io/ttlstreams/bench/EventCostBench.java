package io.ttlstreams.bench;

import io.ttlstreams.config.TtlStreamsConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * Parts of the bench alone, for profiling and for comparing two builds run after one another (see "Per-event cost"
 * in bench/README.md): {@code cpu EVENTS ROUNDS [expiry-events]} runs figure 3 (stream-thread CPU and broker bytes per
 * event, both workloads, rotated rounds) with three variants, ttl-streams, the pass-through and the full-scan anchor
 * ({@link FullScanTopology}: one store, one put per event), and with {@code expiry-events} ttl-streams with expired
 * records and notices on as a fourth; it prints one line per run, the medians, and ttl-streams' CPU ratios to the
 * pass-through and to the full scan. {@code state-restore N} runs figure 4 at N entries (RocksDB bytes per document;
 * ttl-streams with notices on beside it) and figure 5 (restore of N scheduled documents after wiping the state).
 */
public final class EventCostBench {

    /** The anchors ttl-streams' CPU per event is divided by. */
    private static final List<BrokerBench.Variant> ANCHORS =
            List.of(BrokerBench.Variant.PASS_THROUGH, BrokerBench.Variant.FULL_SCAN);

    private EventCostBench() {}

    /** @param args {@code cpu EVENTS ROUNDS [expiry-events]} or {@code state-restore N} */
    public static void main(String[] args) throws Exception {
        if ((args.length == 3 || args.length == 4 && args[3].equals("expiry-events")) && args[0].equals("cpu")) {
            List<BrokerBench.Variant> variants = new ArrayList<>(BrokerBench.VARIANTS);
            if (args.length == 4) {
                variants.add(BrokerBench.Variant.TTL_STREAMS_EXPIRY_EVENTS);
            }
            cpu(Integer.parseInt(args[1]), Integer.parseInt(args[2]), variants);
        } else if (args.length == 2 && args[0].equals("state-restore")) {
            stateAndRestore(Integer.parseInt(args[1]));
        } else {
            System.err.println("Usage: EventCostBench cpu EVENTS ROUNDS [expiry-events] | state-restore N");
            System.exit(2);
        }
        System.exit(0);
    }

    private static void cpu(int events, int rounds, List<BrokerBench.Variant> variants) throws InterruptedException {
        try (BenchBroker kafka = BenchBroker.start()) {
            BrokerBench bench =
                    new BrokerBench(kafka, events, Math.min(20_000, events / 4), rounds, System.out::println, variants);
            bench.run();
            for (BrokerBench.Run run : bench.runs) {
                System.out.printf(
                        Locale.ROOT,
                        "RUN round=%d pos=%d %s %s events=%d stream_us=%.3f bytes=%.1f wall_s=%.2f by_topic=%s%n",
                        run.round(),
                        run.position(),
                        run.variant().label,
                        run.workload().label,
                        run.events(),
                        run.streamCpuMicrosPerEvent(),
                        run.bytesPerEvent(),
                        run.wallSeconds(),
                        run.bytesByTopic());
            }
            BrokerMedians medians = bench.medians();
            for (BrokerBench.Workload workload : BrokerBench.Workload.values()) {
                for (BrokerBench.Variant variant : variants) {
                    BrokerMedians.Summary summary = medians.summary(variant, workload);
                    System.out.printf(
                            Locale.ROOT,
                            "MEDIAN %s %s stream_us=%.3f min=%.3f max=%.3f bytes=%.1f%n",
                            variant.label,
                            workload.label,
                            summary.streamCpuMicros(),
                            summary.streamCpuMicrosMin(),
                            summary.streamCpuMicrosMax(),
                            summary.bytesPerEvent());
                }
                for (BrokerBench.Variant anchor : ANCHORS) {
                    System.out.printf(
                            Locale.ROOT,
                            "RATIO %s ttl-streams/%s=%.2f by_round=%s%n",
                            workload.label,
                            anchor.label,
                            medians.cpuRatio(anchor, workload),
                            Arrays.stream(medians.cpuRatioByRound(anchor, workload))
                                    .mapToObj(ratio -> String.format(Locale.ROOT, "%.2f", ratio))
                                    .collect(Collectors.joining(",")));
                }
            }
        }
    }

    private static void stateAndRestore(int n) throws InterruptedException {
        PunctuationBench state = new PunctuationBench(new int[] {n}, new int[] {0}, 0, 1, System.out::println, true);
        state.run();
        for (PunctuationBench.StateRow row : state.stateRows) {
            System.out.printf(
                    Locale.ROOT,
                    "STATE %s n=%d raw_b_per_doc=%.1f compacted_b_per_doc=%.1f%n",
                    row.approach(),
                    row.n(),
                    (double) row.rawBytes() / n,
                    (double) row.compactedBytes() / n);
        }
        try (BenchBroker kafka = BenchBroker.start()) {
            String topic = "restore.inserts";
            kafka.createTopics(topic);
            ChangeEventFactory factory = new ChangeEventFactory(BenchSupport.NAMESPACE);
            Instant inserted = Instant.now().minusSeconds(180);
            Instant expireAt = inserted.plus(Duration.ofDays(30));
            kafka.produce(
                    n,
                    i -> BrokerBench.event(
                            topic, factory, "insert", 1, i, inserted.plusMillis(i / 10), expireAt.plusMillis(i)));
            String app = "bench-restore";
            TtlStreamsConfig config = kafka.ttlConfig(app, topic, Map.of());
            Map<TopicPartition, Long> ends = kafka.endOffsets(topic);
            try (StreamsRun run = StreamsRun.start(BrokerBench.ttlStreams(config), app)) {
                run.awaitRunning(Duration.ofMinutes(2));
                run.await("all scheduled", () -> kafka.committedAll(app, ends), Duration.ofMinutes(20));
                run.finish();
            }
            RestoreBench.Row row = RestoreBench.measure(kafka, app, config, n, System.out::println);
            System.out.printf(
                    Locale.ROOT,
                    "RESTORE n=%d running_ms=%.0f restored_ms=%.0f counted_ms=%.0f records=%d%n",
                    n,
                    row.runningMs(),
                    row.restoredMs(),
                    row.countedMs(),
                    row.restoredRecords());
        }
    }
}
