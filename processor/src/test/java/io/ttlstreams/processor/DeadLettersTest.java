package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.internal.AbstractRecords;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeadLettersTest {

    private static final int LIMIT = 64 * 1024;
    private static final Optional<RecordMetadata> SOURCE = Optional.of(new RecordMetadata() {
        @Override
        public String topic() {
            return "app.sessions";
        }

        @Override
        public int partition() {
            return 1;
        }

        @Override
        public long offset() {
            return 42;
        }
    });

    private final DeadLetters deadLetters = new DeadLetters(LIMIT);

    private static Record<String, String> record(String key, String value, Headers headers) {
        return new Record<>(key, value, 7L, headers);
    }

    /** The size the producer checks against max.request.size (KafkaProducer#ensureValidRecordSize). */
    private static int producerSize(Record<String, String> letter) {
        return AbstractRecords.estimateSizeInBytesUpperBound(
                RecordBatch.CURRENT_MAGIC_VALUE,
                CompressionType.NONE,
                bytes(letter.key()),
                bytes(letter.value()),
                letter.headers().toArray());
    }

    private static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    private static String header(Record<String, String> letter, String name) {
        return letter.headers().lastHeader(name) == null
                ? null
                : new String(letter.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldKeepARecordThatFitsAsItWasWithWhereAndWhy() {
        Headers original = new RecordHeaders().add("trace", "t1".getBytes(StandardCharsets.UTF_8));

        Record<String, String> letter =
                deadLetters.letter(record("k", "{bad", original), SOURCE, new IllegalArgumentException("broken"));

        assertThat(letter.key()).isEqualTo("k");
        assertThat(letter.value()).isEqualTo("{bad");
        assertThat(letter.timestamp()).isEqualTo(7L);
        assertThat(header(letter, "trace")).isEqualTo("t1");
        assertThat(header(letter, DeadLetters.SOURCE_TOPIC_HEADER)).isEqualTo("app.sessions");
        assertThat(header(letter, DeadLetters.SOURCE_PARTITION_HEADER)).isEqualTo("1");
        assertThat(header(letter, DeadLetters.SOURCE_OFFSET_HEADER)).isEqualTo("42");
        assertThat(header(letter, DeadLetters.ERROR_HEADER)).isEqualTo("broken");
        assertThat(header(letter, DeadLetters.ERROR_CLASS_HEADER)).isEqualTo(IllegalArgumentException.class.getName());
        assertThat(header(letter, DeadLetters.TRUNCATED_HEADER)).isNull();
    }

    @ParameterizedTest
    @ValueSource(ints = {LIMIT - 500, LIMIT, 10 * LIMIT})
    void shouldTruncateAValueThatWouldNotFitAndSaySo(int valueBytes) {
        String value = "x".repeat(valueBytes);

        Record<String, String> letter = deadLetters.letter(
                record("{\"_id\": 1}", value, new RecordHeaders()), SOURCE, new RuntimeException("too big"));

        assertThat(producerSize(letter)).isLessThanOrEqualTo(LIMIT);
        assertThat(value).startsWith(letter.value());
        assertThat(letter.value().length()).isGreaterThan(LIMIT - 2 * DeadLetters.FRAMING_BYTES);
        assertThat(letter.key()).isEqualTo("{\"_id\": 1}");
        assertThat(header(letter, DeadLetters.TRUNCATED_HEADER)).isEqualTo("true");
        assertThat(header(letter, DeadLetters.ORIGINAL_VALUE_BYTES_HEADER)).isEqualTo(Integer.toString(valueBytes));
        assertThat(header(letter, DeadLetters.ORIGINAL_KEY_BYTES_HEADER)).isEqualTo("10");
        assertThat(header(letter, DeadLetters.SOURCE_OFFSET_HEADER)).isEqualTo("42");
    }

    @Test
    void shouldCutAtACharacterBoundary() {
        String value = "é".repeat(LIMIT); // two bytes each
        Record<String, String> letter =
                deadLetters.letter(record(null, value, new RecordHeaders()), SOURCE, new RuntimeException());

        assertThat(producerSize(letter)).isLessThanOrEqualTo(LIMIT);
        assertThat(letter.value()).matches("é+");
        assertThat(DeadLetters.truncate("aé", 2)).isEqualTo("a");
        assertThat(DeadLetters.truncate("a\uD83D\uDE00", 4)).isEqualTo("a");
        assertThat(DeadLetters.truncate("a\uD83D\uDE00", 5)).isEqualTo("a\uD83D\uDE00");
    }

    @Test
    void shouldTruncateAHugeKeyAndDropHugeHeadersToo() {
        String key = "k".repeat(LIMIT);
        String value = "v".repeat(LIMIT);
        Headers original = new RecordHeaders().add("big", new byte[LIMIT / 2]);

        Record<String, String> letter =
                deadLetters.letter(record(key, value, original), SOURCE, new RuntimeException("x".repeat(50_000)));

        assertThat(producerSize(letter)).isLessThanOrEqualTo(LIMIT);
        assertThat(key).startsWith(letter.key());
        assertThat(letter.key().length()).isGreaterThan(LIMIT / 4);
        assertThat(letter.headers().lastHeader("big")).isNull();
        assertThat(header(letter, DeadLetters.HEADERS_DROPPED_HEADER)).isEqualTo("1");
        assertThat(header(letter, DeadLetters.ORIGINAL_KEY_BYTES_HEADER)).isEqualTo(Integer.toString(LIMIT));
        assertThat(header(letter, DeadLetters.ERROR_HEADER)).hasSize(DeadLetters.MAX_ERROR_CHARS + 3);
    }

    @Test
    void shouldTakeTheLimitFromTheProducerSettings() {
        assertThat(DeadLetters.producerLimit(Map.of())).isEqualTo(1_048_576);
        assertThat(DeadLetters.producerLimit(Map.of("max.request.size", "2000000")))
                .isEqualTo(2_000_000);
        assertThat(DeadLetters.producerLimit(
                        Map.of("max.request.size", "2000000", "producer.max.request.size", "3000000")))
                .isEqualTo(3_000_000);
        assertThatThrownBy(() -> DeadLetters.producerLimit(Map.of("producer.max.request.size", "lots")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("producer.max.request.size");
        assertThatThrownBy(() -> DeadLetters.producerLimit(Map.of("max.request.size", "1000")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("max.request.size")
                .hasMessageContaining("at least 16384 bytes");
        assertThatThrownBy(() -> new DeadLetters(1_000)).hasMessageContaining("at least 16384 bytes");
    }

    @Test
    void shouldBlameTheRecordForEverythingButTheJvmAndTheInstallation() {
        assertThat(DeadLetters.isCausedByRecord(new IllegalArgumentException())).isTrue();
        assertThat(DeadLetters.isCausedByRecord(new StackOverflowError())).isTrue();
        assertThat(DeadLetters.isCausedByRecord(new AssertionError())).isTrue();
        assertThat(DeadLetters.isCausedByRecord(new OutOfMemoryError())).isFalse();
        assertThat(DeadLetters.isCausedByRecord(new NoClassDefFoundError())).isFalse();
    }
}
