package io.ttlstreams.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.bench.BrokerBench.Run;
import io.ttlstreams.bench.BrokerBench.Variant;
import io.ttlstreams.bench.BrokerBench.Workload;
import io.ttlstreams.config.SchedulerOptions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The broker harnesses at a toy size, on one embedded broker: not their figures (timings prove nothing here) but
 * that they measure what they claim, so that a wrong figure cannot come from a broken harness.
 */
@Tag("integration")
class BrokerHarnessIT {

    private static final int EVENTS = 400;
    private static final int ROUNDS = 2;

    @Test
    void shouldMeasureEveryVariantOnTheSameEventsAndDrainEveryDueDocumentOnce() throws InterruptedException {
        try (BenchBroker broker = BenchBroker.start()) {
            BrokerBench harness = new BrokerBench(broker, EVENTS, 100, ROUNDS, message -> {});
            harness.run();
            MassExpiryBench drains = new MassExpiryBench(
                    broker,
                    List.of(
                            new MassExpiryBench.Case("defaults", Map.of(), 2_000),
                            new MassExpiryBench.Case(
                                    "throttle", Map.of(SchedulerOptions.MAX_DELETES_PER_SECOND_CONFIG, "500"), 1_500)),
                    message -> {});
            drains.run();

            assertThat(harness.runs).hasSize(ROUNDS * BrokerBench.VARIANTS.size() * Workload.values().length);
            for (Run run : harness.runs) {
                assertThat(run.events()).as("records processed by %s", run).isEqualTo(EVENTS);
                assertThat(run.cost().streamThreadCpu()).isPositive();
                assertThat(run.cost().clientCpu())
                        .isGreaterThanOrEqualTo(run.cost().streamThreadCpu());
                assertThat(run.producerErrors()).isZero();
                assertThat(run.bytesByTopic().keySet()).allMatch(topic -> topic.startsWith("<app>"));
            }
            // No-op updates are left out: whether they write anything is what the processor may change.
            assertThat(harness.runs)
                    .filteredOn(run -> run.variant() == Variant.TTL_STREAMS && run.workload() == Workload.INSERTS)
                    .allSatisfy(run -> {
                        assertThat(run.scheduled()).isEqualTo(EVENTS);
                        assertThat(run.bytesByTopic())
                                .containsKeys("<app>-schedule-changelog", "<app>-index-changelog");
                    });
            assertThat(harness.runs)
                    .filteredOn(run -> run.variant() == Variant.PASS_THROUGH)
                    .allSatisfy(run -> assertThat(run.bytesByTopic()).containsOnlyKeys("<app>.out"));
            assertThat(harness.runs)
                    .filteredOn(run -> run.position() == 1)
                    .extracting(Run::round, Run::variant)
                    .containsOnly(
                            org.assertj.core.groups.Tuple.tuple(1, Variant.TTL_STREAMS),
                            org.assertj.core.groups.Tuple.tuple(2, Variant.PASS_THROUGH));
            assertThat(harness.restore.scheduleEntries()).isEqualTo(EVENTS);
            assertThat(harness.restore.indexEntries()).isEqualTo(EVENTS);
            assertThat(harness.restore.restoredRecords()).isGreaterThanOrEqualTo(2L * EVENTS);

            assertThat(drains.results).hasSize(2);
            for (MassExpiryBench.Result result : drains.results) {
                assertThat(result.received()).isEqualTo(result.drain().documents());
                assertThat(result.missing()).isZero();
                assertThat(result.duplicates()).isZero();
                assertThat(result.early()).isZero();
                assertThat(result.lastArrivalMs()).isGreaterThanOrEqualTo(result.lastDeadlineMs());
                assertThat(result.punctuations()).isPositive();
            }
        }
    }
}
