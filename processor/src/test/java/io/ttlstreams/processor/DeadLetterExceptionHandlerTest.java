package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler.Response;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler.Result;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

class DeadLetterExceptionHandlerTest {

    private final ProcessingFailures failures = new ProcessingFailures();
    private final DeadLetterExceptionHandler handler = new DeadLetterExceptionHandler();

    DeadLetterExceptionHandlerTest() {
        handler.configure(Map.of(
                DeadLetterExceptionHandler.DLQ_TOPIC_CONFIG,
                "ttl.dlq",
                DeadLetterExceptionHandler.FAILURES_CONFIG,
                failures,
                "max.request.size",
                "20000"));
    }

    /** The context Kafka Streams gives: a record read at app.sessions-1@42, or a punctuation (no source). */
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

    private static String header(ProducerRecord<byte[], byte[]> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldDeadLetterTheSourceRecordOfAFailedProcessorAndResume() {
        byte[] key = "{\"_id\": 1}".getBytes(StandardCharsets.UTF_8);
        byte[] value = "x".repeat(50_000).getBytes(StandardCharsets.UTF_8);

        Response response = handler.handleError(
                context("app.sessions", key, value),
                new Record<>("parsed", "parsed", 5L),
                new IllegalArgumentException("bug"));

        assertThat(response.result()).isEqualTo(Result.RESUME);
        assertThat(response.deadLetterQueueRecords()).hasSize(1);
        ProducerRecord<byte[], byte[]> letter =
                response.deadLetterQueueRecords().get(0);
        assertThat(letter.topic()).isEqualTo("ttl.dlq");
        assertThat(letter.key()).isEqualTo(key);
        assertThat(letter.value().length).isLessThan(20_000);
        assertThat(header(letter, DeadLetters.SOURCE_TOPIC_HEADER)).isEqualTo("app.sessions");
        assertThat(header(letter, DeadLetters.SOURCE_OFFSET_HEADER)).isEqualTo("42");
        assertThat(header(letter, DeadLetters.ERROR_HEADER)).isEqualTo("bug");
        assertThat(header(letter, DeadLetters.TRUNCATED_HEADER)).isEqualTo("true");
        assertThat(header(letter, DeadLetters.ORIGINAL_VALUE_BYTES_HEADER)).isEqualTo("50000");
        assertThat(failures.recordFailures()).isEqualTo(1);
        assertThat(failures.punctuationFailures()).isZero();
    }

    @Test
    void shouldCountAFailedPunctuationAndFailTheThread() {
        Response response =
                handler.handleError(context(null, null, null), null, new IllegalStateException("broken store"));

        assertThat(response.result()).isEqualTo(Result.FAIL);
        assertThat(response.deadLetterQueueRecords()).isEmpty();
        assertThat(failures.punctuationFailures()).isEqualTo(1);
        assertThat(failures.recordFailures()).isZero();
    }
}
