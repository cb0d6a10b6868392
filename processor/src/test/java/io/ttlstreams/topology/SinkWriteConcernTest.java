package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.ConnectOptions;
import io.ttlstreams.config.SchedulerOptions;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.processor.TtlMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/**
 * Issue 43: the sink parks every command of a batch whose bulk write came back with a write-concern error
 * (mongo-kafka 2.0.1 under {@code mongo.errors.tolerance=data}, as {@code dlq.WriteConcernException}). That is not the
 * command refused: the delete may have been applied on the primary, and its confirmation decides. Meanwhile the sink
 * does not count as writing, so the unconfirmed command waits without spending an attempt, until
 * {@code ttl.connect.sink.recovery.ms} after the last such dead letter.
 */
class SinkWriteConcernTest {

    private static final BsonString ID = new BsonString("d1");
    private static final String WRITE_CONCERN_EXCEPTION = "com.mongodb.kafka.connect.sink.dlq.WriteConcernException";
    private static final String WRITE_CONCERN_MESSAGE = "v=1, code=64, codeName=WriteConcernFailed,"
            + " message=waiting for replication timed out, details={\"wtimeout\": true}";

    private static TestRecord<byte[], byte[]> deadLetter(String message, String exceptionClass, Instant parkedAt) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("__connect.errors.exception.message", message.getBytes(StandardCharsets.UTF_8));
        headers.add("__connect.errors.exception.class.name", exceptionClass.getBytes(StandardCharsets.UTF_8));
        return new TestRecord<>(
                "{\"_id\": \"d1\"}".getBytes(StandardCharsets.UTF_8),
                "the command".getBytes(StandardCharsets.UTF_8),
                headers,
                parkedAt);
    }

    private static TestInputTopic<byte[], byte[]> sinkDlq(TopologyFixture fixture) {
        return fixture.driver.createInputTopic(
                ConnectorConfigs.SINK_DLQ_TOPIC, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** A fixture whose one document, due at 1 s, got its first delete command then; close it. */
    private static TopologyFixture firstCommandSent() {
        TopologyFixture fixture = new TopologyFixture(TopologyFixture.sessionsSettings(
                SchedulerOptions.CONFIRM_TIMEOUT_MS_CONFIG, "10000",
                SchedulerOptions.CONFIRM_MAX_ATTEMPTS_CONFIG, "2",
                ConnectOptions.CONNECT_SINK_RECOVERY_MS_CONFIG, "30000"));
        fixture.input("app.sessions")
                .pipeInput(
                        ChangeEvents.key(ID),
                        new ChangeEvents("app.sessions", START)
                                .insert(
                                        ID,
                                        new BsonDocument(
                                                "expireAt",
                                                new BsonDateTime(
                                                        START.plusSeconds(1).toEpochMilli()))));
        fixture.wallClockAt(Duration.ofSeconds(1));
        assertThat(fixture.deletes()).as("the first command").hasSize(1);
        return fixture;
    }

    @Test
    void shouldSpendNoAttemptWhileTheSinkReportsWriteConcernErrorsAndCountNoRefusal() {
        try (TopologyFixture fixture = firstCommandSent()) {

            // The sink applied it on the primary, but w:majority timed out: the command is parked.
            fixture.wallClockAt(Duration.ofMillis(1_100));
            sinkDlq(fixture)
                    .pipeInput(deadLetter(WRITE_CONCERN_MESSAGE, WRITE_CONCERN_EXCEPTION, START.plusMillis(1_100)));

            // Its confirmation is overdue at 11 s and 21 s, both within 30 s of the dead letter.
            for (int second = 2; second <= 30; second++) {
                fixture.wallClockAt(Duration.ofSeconds(second));
            }
            assertThat(fixture.deletes())
                    .as("nothing emitted again while the sink reports write-concern errors")
                    .isEmpty();
            assertThat(fixture.scheduled("app.sessions", ID))
                    .as("still awaiting confirmation, with its one attempt")
                    .hasValueSatisfying(entry -> assertThat(entry.attempts()).isEqualTo(1));
            assertThat(ExpiryFigures.of(fixture.metrics.registry())
                            .sinkDeadLetters()
                            .byReason())
                    .as("counted as a write-concern error, not as MongoDB refusing the command")
                    .containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of("write-concern", 1.0)));

            fixture.wallClockAt(Duration.ofSeconds(41));
            assertThat(fixture.deletes())
                    .as("the second attempt, once 30 s passed without another such dead letter")
                    .hasSize(1);
            fixture.input("app.sessions")
                    .pipeInput(ChangeEvents.key(ID), new ChangeEvents("app.sessions", START.plusSeconds(2)).delete(ID));
            assertThat(fixture.position(Namespace.parse("app.sessions"), ID))
                    .as("confirmed")
                    .isNull();
            assertThat(fixture.metric(TtlMetrics.UNCONFIRMED)).isZero();
        }
    }

    @Test
    void shouldRetryAsUsualWhenTheWriteConcernDeadLettersAreOld() {
        try (TopologyFixture fixture = firstCommandSent()) {

            // Read again long after it was written (a new consumer group, say): it tells nothing of the sink now.
            sinkDlq(fixture)
                    .pipeInput(deadLetter(
                            WRITE_CONCERN_MESSAGE, WRITE_CONCERN_EXCEPTION, START.minus(Duration.ofHours(1))));
            fixture.wallClockAt(Duration.ofSeconds(11));
            assertThat(fixture.deletes()).as("the second attempt, on time").hasSize(1);
        }
    }

    @Test
    void shouldCountAnUnreachableMongoDbAsNotTheCommandsOwnWhenASinkParksIt() {
        try (TopologyFixture fixture = firstCommandSent()) {

            // A sink configured errors.tolerance=all alone parks a whole batch when no primary is found.
            sinkDlq(fixture)
                    .pipeInput(deadLetter(
                            "Timed out after 30000 ms while waiting for a server that matches WritableServerSelector.",
                            "com.mongodb.MongoTimeoutException",
                            START.plusSeconds(1)));
            fixture.wallClockAt(Duration.ofSeconds(11));
            assertThat(fixture.deletes())
                    .as("no attempt spent while it was unreachable")
                    .isEmpty();
            assertThat(ExpiryFigures.of(fixture.metrics.registry())
                            .sinkDeadLetters()
                            .byReason())
                    .containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of("unreachable", 1.0)));
        }
    }
}
