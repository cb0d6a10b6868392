package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.processor.TtlMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/**
 * Issue 43: while the sink does not write, each task emits only a few delete commands per second, probing, and once
 * it writes again the pace doubles every second, so that a recovering primary is not met by the whole backlog at
 * once; nothing goes out before its deadline.
 */
class OutagePacingTest {

    private static final int DOCUMENTS = 300;
    private static final Duration DEADLINE = Duration.ofSeconds(1);
    private static final int OUTAGE_PER_SECOND = 10;

    /** The commands emitted by each punctuation, every 100 ms of the driven wall clock from {@code from} to {@code to}. */
    private static List<Integer> punctuateEvery100Ms(
            TopologyFixture fixture, Duration from, Duration to, Set<String> keys) {
        List<Integer> counts = new ArrayList<>();
        for (Duration at = from; at.compareTo(to) <= 0; at = at.plusMillis(100)) {
            fixture.wallClockAt(at);
            List<TestRecord<String, String>> emitted = fixture.deletes();
            for (TestRecord<String, String> command : emitted) {
                assertThat(command.timestamp())
                        .as("not before its deadline")
                        .isGreaterThanOrEqualTo(START.plus(DEADLINE).toEpochMilli());
                assertThat(keys.add(command.key()))
                        .as("emitted once: " + command.key())
                        .isTrue();
            }
            counts.add(emitted.size());
        }
        return counts;
    }

    private static int sum(List<Integer> counts, int from, int to) {
        return counts.subList(from, to).stream().mapToInt(Integer::intValue).sum();
    }

    @Test
    void shouldEmitAFewCommandsPerSecondWhileTheSinkFailsAndRampUpAfterwardsWhenABacklogIsDue() {
        try (TopologyFixture fixture = new TopologyFixture(TopologyFixture.sessionsSettings(
                "ttl.confirm.timeout.ms",
                "600000",
                "ttl.outage.deletes.per.second",
                Integer.toString(OUTAGE_PER_SECOND)))) {
            TestInputTopic<String, String> sessions = fixture.input("app.sessions");
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            for (int i = 0; i < DOCUMENTS; i++) {
                BsonString id = new BsonString("s" + i);
                sessions.pipeInput(
                        ChangeEvents.key(id),
                        events.insert(
                                id,
                                new BsonDocument(
                                        "expireAt",
                                        new BsonDateTime(START.plus(DEADLINE).toEpochMilli()))));
            }
            Set<String> keys = new HashSet<>();
            assertThat(punctuateEvery100Ms(fixture, Duration.ofMillis(100), Duration.ofMillis(900), keys))
                    .as("nothing before the deadline")
                    .containsOnly(0);

            // The sink stops writing as the deadline passes: 10 seconds of outage, one punctuation every 100 ms.
            fixture.sinkWriting.set(false);
            List<Integer> outage = punctuateEvery100Ms(fixture, DEADLINE, Duration.ofMillis(10_900), keys);
            for (int second = 0; second < 10; second++) {
                assertThat(sum(outage, second * 10, second * 10 + 10))
                        .as("commands in second %d of the outage", second)
                        .isBetween(1, OUTAGE_PER_SECOND);
            }
            assertThat(fixture.metric(TtlMetrics.EMISSIONS_PACED)).isPositive();
            int sentInOutage = keys.size();

            fixture.sinkWriting.set(true);
            List<Integer> recovery =
                    punctuateEvery100Ms(fixture, Duration.ofSeconds(11), Duration.ofMillis(30_900), keys);
            assertThat(sum(recovery, 0, 10))
                    .as("the first second after recovery: twice the outage's pace at most, not the backlog of "
                            + (DOCUMENTS - sentInOutage))
                    .isBetween(1, 2 * OUTAGE_PER_SECOND);
            for (int second = 1; second < 20 && sentInOutage + sum(recovery, 0, second * 10) < DOCUMENTS; second++) {
                assertThat(sum(recovery, second * 10, second * 10 + 10))
                        .as("second %d after recovery: at most double the second before", second)
                        .isBetween(1, 2 * sum(recovery, (second - 1) * 10, second * 10));
            }
            assertThat(keys).as("every due document's command, once").hasSize(DOCUMENTS);
        }
    }
}
