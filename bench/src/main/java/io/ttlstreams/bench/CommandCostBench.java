package io.ttlstreams.bench;

import io.ttlstreams.config.SchedulerOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.ScheduleStores;
import io.ttlstreams.topology.TtlTopology;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The punctuation's CPU per emitted delete command, without a broker: the real topology in a TopologyTestDriver over
 * RocksDB (changelogging on, caching off, as in production), N entries scheduled far ahead, then, punctuation after
 * punctuation, D entries due before the next one. It times the CPU of the thread running the punctuation (the driver
 * runs it on the calling thread: the schedule's scan, the commands' JSON and serialization, the moves to the
 * confirmations timeline and their changelog records), divided by the commands it emitted. The producer's network
 * side and the transaction commit are not in it ({@link DrainOnly} has them, with the broker's noise). {@code java
 * -cp 'bench/target/ttl-streams-bench.jar:bench/target/lib/*' io.ttlstreams.bench.CommandCostBench [N D WARMUP
 * MEASURED]}, defaults 10000 1000 60 40.
 */
public final class CommandCostBench {

    private static final long INTERVAL_MS = 100;

    private CommandCostBench() {}

    /** @param args schedule size N, due per punctuation D, warm-up and measured punctuations */
    public static void main(String[] args) {
        int size = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int due = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        int warmUp = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        int measured = args.length > 3 ? Integer.parseInt(args[3]) : 40;
        TtlStreamsConfig config =
                BenchSupport.config(Map.of(SchedulerOptions.PUNCTUATE_INTERVAL_MS_CONFIG, Long.toString(INTERVAL_MS)));
        Path dir = BenchSupport.tempStateDir("ttl-bench-commands");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[] microsPerCommand = new double[measured];
        try (TopologyTestDriver driver = new TopologyTestDriver(
                TtlTopology.build(config), BenchSupport.streamsProperties(config, dir), BenchSupport.START)) {
            KeyValueStore<Bytes, ScheduleEntry> schedule = driver.getKeyValueStore(ScheduleStores.SCHEDULE);
            KeyValueStore<Bytes, IndexEntry> index = driver.getKeyValueStore(ScheduleStores.INDEX);
            TestOutputTopic<String, String> commands =
                    driver.createOutputTopic(config.deleteTopic(), new StringDeserializer(), new StringDeserializer());
            long now = BenchSupport.START.toEpochMilli();
            long id = 0;
            long farAhead = now + Duration.ofDays(1).toMillis();
            for (int i = 0; i < size; i++) {
                BenchSupport.scheduleDirectly(schedule, index, id++, farAhead + i * 10L);
            }
            driver.advanceWallClockTime(Duration.ZERO);
            for (int round = 0; round < warmUp + measured; round++) {
                for (int i = 0; i < due; i++) {
                    BenchSupport.scheduleDirectly(schedule, index, id++, now + 1 + (i % INTERVAL_MS));
                }
                drainChangelogs(driver);
                commands.readRecordsToList();
                long cpu = threads.getCurrentThreadCpuTime();
                driver.advanceWallClockTime(Duration.ofMillis(INTERVAL_MS));
                cpu = threads.getCurrentThreadCpuTime() - cpu;
                now += INTERVAL_MS;
                int emitted = commands.readRecordsToList().size();
                if (emitted == 0) {
                    throw new IllegalStateException("Punctuation " + round + " emitted no command");
                }
                // A punctuation cut short by its time budget (a cold JIT, a busy machine) leaves the rest to the
                // next one: the cost per command it emitted is the figure either way.
                if (round >= warmUp) {
                    microsPerCommand[round - warmUp] = cpu / 1e3 / emitted;
                }
            }
        } finally {
            BenchSupport.deleteRecursively(dir);
        }
        double[] sorted = microsPerCommand.clone();
        Arrays.sort(sorted);
        double median = sorted[sorted.length / 2];
        System.out.printf(
                Locale.ROOT,
                "n=%d due=%d punctuations=%d cpu_us_per_command median=%.1f min=%.1f max=%.1f"
                        + " commands_per_cpu_s=%.0f load=%.2f%n",
                size,
                due,
                measured,
                median,
                sorted[0],
                sorted[sorted.length - 1],
                1e6 / median,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static void drainChangelogs(TopologyTestDriver driver) {
        for (String store : List.of(ScheduleStores.SCHEDULE, ScheduleStores.INDEX)) {
            BenchSupport.drain(driver, BenchSupport.APPLICATION_ID + "-" + store + "-changelog");
        }
    }
}
