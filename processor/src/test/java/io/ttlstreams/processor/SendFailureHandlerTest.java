package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler.Response;
import org.apache.kafka.streams.errors.ProductionExceptionHandler.Result;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

class SendFailureHandlerTest {

    private static final int PRODUCER_LIMIT = 20_000;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final SendFailureHandler handler = new SendFailureHandler();
    /** A punctuation's context: it has no source record. */
    private final ErrorHandlerContext punctuation = context(null, null, null);

    private final RecordTooLargeException tooLarge = new RecordTooLargeException(
            "The message is 1200215 bytes when serialized which is larger than 1048576, the value of the"
                    + " max.request.size configuration.");

    SendFailureHandlerTest() {
        handler.configure(Map.of(
                StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG,
                "ttl.dlq",
                "application.id",
                "ttl-streams",
                "max.request.size",
                Integer.toString(PRODUCER_LIMIT),
                TtlMetrics.REGISTRY_CONFIG,
                registry));
    }

    /** The context Kafka Streams gives: a record read at {@code topic}-1@42, or a punctuation (no topic). */
    static ErrorHandlerContext context(String topic, byte[] key, byte[] value) {
        return new ErrorHandlerContext() {
            @Override
            public String topic() {
                return topic;
            }

            @Override
            public int partition() {
                return topic == null ? -1 : 1;
            }

            @Override
            public long offset() {
                return topic == null ? -1 : 42;
            }

            @Override
            public Headers headers() {
                return new RecordHeaders();
            }

            @Override
            public String processorNodeId() {
                return "expiry-scheduler";
            }

            @Override
            public TaskId taskId() {
                return new TaskId(0, 1);
            }

            @Override
            public long timestamp() {
                return 5L;
            }

            @Override
            public byte[] sourceRawKey() {
                return key;
            }

            @Override
            public byte[] sourceRawValue() {
                return value;
            }
        };
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, int valueBytes) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("ttl.signature", "abc".getBytes(StandardCharsets.US_ASCII));
        return new ProducerRecord<>(
                topic,
                0,
                7L,
                "{\"_id\": \"big\"}".getBytes(StandardCharsets.UTF_8),
                "x".repeat(valueBytes).getBytes(StandardCharsets.UTF_8),
                headers);
    }

    private double sendFailures() {
        return registry.get(TtlMetrics.meterName(TtlMetrics.SEND_FAILURES))
                .counter()
                .count();
    }

    private static String header(ProducerRecord<byte[], byte[]> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldDeadLetterADeleteCommandTooLargeToSendCutToFitAndGoOn() {
        Response response = handler.handleError(punctuation, record("ttl.deletes", 1_200_000), tooLarge);

        assertThat(response.result()).isEqualTo(Result.RESUME);
        assertThat(response.deadLetterQueueRecords()).singleElement().satisfies(letter -> {
            assertThat(letter.topic()).isEqualTo("ttl.dlq");
            assertThat(letter.value().length).isLessThan(PRODUCER_LIMIT);
            assertThat(header(letter, DeadLetters.ERROR_HEADER)).contains("The message is 1200215 bytes");
            assertThat(header(letter, DeadLetters.ERROR_CLASS_HEADER))
                    .isEqualTo(RecordTooLargeException.class.getName());
            assertThat(header(letter, DeadLetters.TRUNCATED_HEADER)).isEqualTo("true");
            assertThat(header(letter, DeadLetters.ORIGINAL_VALUE_BYTES_HEADER)).isEqualTo("1200000");
            assertThat(letter.headers().lastHeader(DeadLetters.SOURCE_TOPIC_HEADER))
                    .as("a punctuation has no source record")
                    .isNull();
        });
        assertThat(sendFailures()).isEqualTo(1.0);
    }

    @Test
    void shouldPointADeadLetterAtTheRecordWhoseProcessingProducedIt() {
        ErrorHandlerContext processing = context("app.sessions", null, null);

        Response response = handler.handleError(processing, record("ttl.audit", 100), tooLarge);

        assertThat(response.result()).isEqualTo(Result.RESUME);
        assertThat(response.deadLetterQueueRecords()).singleElement().satisfies(letter -> {
            assertThat(header(letter, DeadLetters.SOURCE_TOPIC_HEADER)).isEqualTo("app.sessions");
            assertThat(header(letter, DeadLetters.SOURCE_OFFSET_HEADER)).isEqualTo("42");
            assertThat(letter.value()).isEqualTo("x".repeat(100).getBytes(StandardCharsets.UTF_8));
        });
    }

    @Test
    void shouldDropADeadLetterThatCannotBeWrittenRatherThanDeadLetterItAgain() {
        Response response = handler.handleError(punctuation, record("ttl.dlq", 100), tooLarge);

        assertThat(response.result()).isEqualTo(Result.RESUME);
        assertThat(response.deadLetterQueueRecords()).isEmpty();
        assertThat(sendFailures()).isEqualTo(1.0);
    }

    @Test
    void shouldFailTheThreadWhenAStoreChangelogWriteFails() {
        Response response = handler.handleError(punctuation, record("ttl-streams-schedule-changelog", 100), tooLarge);

        assertThat(response.result()).isEqualTo(Result.FAIL);
        assertThat(response.deadLetterQueueRecords()).isEmpty();
        assertThat(sendFailures()).as("the thread fails instead").isZero();
    }
}
