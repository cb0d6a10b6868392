package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ttlstreams.contract.BoundedJson;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.OperationType;
import io.ttlstreams.serde.ChangeEventSerde;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler.Response;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler.Result;
import org.apache.kafka.streams.processor.api.Record;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

class ProcessingFailureHandlerTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ProcessingFailureHandler handler = new ProcessingFailureHandler();
    private final IllegalStateException bug = new IllegalStateException("a bug");

    ProcessingFailureHandlerTest() {
        handler.configure(
                Map.of("errors.dead.letter.queue.topic.name", "ttl.dlq", TtlMetrics.REGISTRY_CONFIG, registry));
    }

    private double deadLettered() {
        return registry.get(TtlMetrics.meterName(TtlMetrics.DEAD_LETTERED))
                .tag(TtlMetrics.TASK_TAG, "0_1")
                .counter()
                .count();
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void shouldDeadLetterTheEventAsItsJsonAndGoOnWhenTheSchedulerThrowsOnIt() {
        ChangeEvent event = new ChangeEvent(
                OperationType.INSERT,
                Namespace.parse("app.sessions"),
                new BsonDocument("_id", new BsonString("s1")),
                new BsonDocument("_id", new BsonString("s1")),
                Instant.parse("2026-01-01T00:00:00Z"),
                null);

        Response response = handler.handleError(
                SendFailureHandlerTest.context("app.sessions", null, null),
                new Record<>("{\"_id\": \"s1\"}", event, 7L, new RecordHeaders()),
                bug);

        assertThat(response.result()).isEqualTo(Result.RESUME);
        ProducerRecord<byte[], byte[]> letter =
                response.deadLetterQueueRecords().get(0);
        assertThat(response.deadLetterQueueRecords()).hasSize(1);
        assertThat(letter.topic()).isEqualTo("ttl.dlq");
        assertThat(text(letter.key())).isEqualTo("{\"_id\": \"s1\"}");
        assertThat(ChangeEventSerde.fromJson(text(letter.value()))).isEqualTo(event);
        assertThat(letter.timestamp()).isEqualTo(7L);
        assertThat(text(letter.headers()
                        .lastHeader(DeadLetters.SOURCE_OFFSET_HEADER)
                        .value()))
                .isEqualTo("42");
        assertThat(text(letter.headers()
                        .lastHeader(DeadLetters.ERROR_CLASS_HEADER)
                        .value()))
                .isEqualTo(IllegalStateException.class.getName());
        assertThat(deadLettered()).isEqualTo(1.0);
    }

    @Test
    void shouldDeadLetterTheDecisionAsItsJsonWhenTheGuardThrowsOnIt() {
        GuardDecision decision = new GuardDecision("sessions", true, "d-1");

        Response response = handler.handleError(
                SendFailureHandlerTest.context("ttl.control", null, null), new Record<>("sessions", decision, 7L), bug);

        assertThat(response.result()).isEqualTo(Result.RESUME);
        assertThat(GuardDecision.of(BoundedJson.parse(
                        text(response.deadLetterQueueRecords().get(0).value()))))
                .isEqualTo(decision);
    }

    @Test
    void shouldFailTheThreadWhenAPunctuationThrows() {
        Response response = handler.handleError(SendFailureHandlerTest.context(null, null, null), null, bug);

        assertThat(response.result()).isEqualTo(Result.FAIL);
        assertThat(response.deadLetterQueueRecords()).isEmpty();
    }
}
