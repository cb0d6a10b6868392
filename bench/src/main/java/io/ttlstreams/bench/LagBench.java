package io.ttlstreams.bench;

import io.ttlstreams.config.SchedulerOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.state.ScheduleStores;
import io.ttlstreams.topology.TtlTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDocument;

/**
 * Figure 2: expiry lag = (delete command timestamp - deadline) with deadlines falling due at a steady rate,
 * for several punctuation intervals. The wall clock is simulated (advanced in interval steps), so this is the
 * lag the punctuation granularity causes, not processing delay on a real clock.
 */
final class LagBench {

    /** One interval's lag distribution. */
    record Row(long intervalMs, int ratePerSecond, int emitted, double p50Ms, double p99Ms, double maxMs) {}

    final List<Row> rows = new ArrayList<>();

    private final long[] intervals;
    private final int ratePerSecond;
    private final int seconds;

    LagBench(long[] intervals, int ratePerSecond, int seconds) {
        this.intervals = intervals;
        this.ratePerSecond = ratePerSecond;
        this.seconds = seconds;
    }

    void run() {
        for (long interval : intervals) {
            rows.add(measure(interval));
        }
    }

    private Row measure(long intervalMs) {
        // The time budget is pinned at 1 s, whatever the default, so that a slow shared machine cannot cut a
        // punctuation short: this figure is about granularity. The entry budget stays at its default.
        TtlStreamsConfig config = BenchSupport.config(Map.of(
                SchedulerOptions.PUNCTUATE_INTERVAL_MS_CONFIG,
                Long.toString(intervalMs),
                SchedulerOptions.PUNCTUATE_MAX_DURATION_MS_CONFIG,
                "1000"));
        Path dir = BenchSupport.tempStateDir("ttl-bench-lag");
        int total = ratePerSecond * seconds;
        double[] lags = new double[total];
        int emitted = 0;
        try (TopologyTestDriver driver = new TopologyTestDriver(
                TtlTopology.build(config), BenchSupport.streamsProperties(config, dir), BenchSupport.START)) {
            KeyValueStore<Bytes, ScheduleEntry> schedule = driver.getKeyValueStore(ScheduleStores.SCHEDULE);
            KeyValueStore<Bytes, IndexEntry> index = driver.getKeyValueStore(ScheduleStores.INDEX);
            KeyValueStore<Bytes, TaskRecord> task = driver.getKeyValueStore(ScheduleStores.TASK);
            long first = BenchSupport.START.toEpochMilli() + 1_000;
            long last = first;
            for (int i = 0; i < total; i++) {
                // Deadlines every 1/rate seconds, from one second after the start.
                last = first + (long) i * 1_000 / ratePerSecond;
                BenchSupport.scheduleDirectly(schedule, index, task, i, last);
            }
            TestOutputTopic<String, String> deletes =
                    driver.createOutputTopic(config.deleteTopic(), new StringDeserializer(), new StringDeserializer());
            long now = BenchSupport.START.toEpochMilli();
            while (now <= last + intervalMs && emitted < total) {
                driver.advanceWallClockTime(Duration.ofMillis(intervalMs));
                now += intervalMs;
                for (TestRecord<String, String> command : deletes.readRecordsToList()) {
                    long deadline = BsonDocument.parse(command.value())
                            .getDateTime("deadline")
                            .getValue();
                    lags[emitted++] = command.timestamp() - deadline;
                }
                BenchSupport.drain(driver, BenchSupport.APPLICATION_ID + "-schedule-changelog");
                BenchSupport.drain(driver, BenchSupport.APPLICATION_ID + "-index-changelog");
                BenchSupport.drain(driver, BenchSupport.APPLICATION_ID + "-task-changelog");
            }
        } finally {
            BenchSupport.deleteRecursively(dir);
        }
        double[] measured = java.util.Arrays.copyOf(lags, emitted);
        if (emitted == 0) {
            return new Row(intervalMs, ratePerSecond, 0, Double.NaN, Double.NaN, Double.NaN);
        }
        return new Row(
                intervalMs,
                ratePerSecond,
                emitted,
                Stats.percentile(measured, 50),
                Stats.percentile(measured, 99),
                Stats.max(measured));
    }
}
