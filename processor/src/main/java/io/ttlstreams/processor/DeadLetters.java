package io.ttlstreams.processor;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.errors.TaskMigratedException;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Builds dead-letter records: the input as it was, with headers that say where it came from and why it could not be
 * processed, so that nothing is lost and an operator can replay it after a fix.
 *
 * <p>A dead letter always fits: one larger than the producer may send ({@code max.request.size}) or the topic may
 * store ({@code max.message.bytes}) would fail the send, and under exactly-once the whole task with it, again and
 * again. So a record that does not fit is stored truncated to the limit, less a margin for framing and headers,
 * with the header {@value #TRUNCATED_HEADER} and the original sizes; the source topic, partition and offset headers
 * lead to the whole record.
 */
public final class DeadLetters {

    /** Header: the topic the record was read from. */
    public static final String SOURCE_TOPIC_HEADER = "ttl.dlq.source.topic";
    /** Header: the partition the record was read from. */
    public static final String SOURCE_PARTITION_HEADER = "ttl.dlq.source.partition";
    /** Header: the offset the record was read from. */
    public static final String SOURCE_OFFSET_HEADER = "ttl.dlq.source.offset";
    /** Header: the error message (its first {@value #MAX_ERROR_CHARS} characters). */
    public static final String ERROR_HEADER = "ttl.dlq.error";
    /** Header: the error's class name. */
    public static final String ERROR_CLASS_HEADER = "ttl.dlq.error.class";
    /** Header: {@code true} when the key or value was cut to make the dead letter fit; absent otherwise. */
    public static final String TRUNCATED_HEADER = "ttl.dlq.truncated";
    /** Header, on truncated dead letters: the original value's size in bytes (UTF-8). */
    public static final String ORIGINAL_VALUE_BYTES_HEADER = "ttl.dlq.original.value.bytes";
    /** Header, on truncated dead letters: the original key's size in bytes (UTF-8). */
    public static final String ORIGINAL_KEY_BYTES_HEADER = "ttl.dlq.original.key.bytes";
    /** Header, on truncated dead letters: how many headers of the original record were left out to make room. */
    public static final String HEADERS_DROPPED_HEADER = "ttl.dlq.original.headers.dropped";

    /** An error message longer than this is cut: some parsers quote the input, which can be megabytes. */
    static final int MAX_ERROR_CHARS = 1_000;
    /**
     * Bytes kept free for what the producer adds around key, value and headers: a record batch header (61 bytes),
     * the record's own varints and attributes (at most 21 bytes) and a header's two length varints (10 bytes each),
     * with room to spare.
     */
    static final int FRAMING_BYTES = 1_024;

    /** The smallest limit that leaves room for the headers (the error message alone can take 4,000 bytes). */
    public static final int MIN_RECORD_BYTES = 16 * 1024;

    private static final int HEADER_FRAMING_BYTES = 10;
    private static final int DEFAULT_MAX_REQUEST_SIZE = 1_048_576;

    private final int maxRecordBytes;

    /**
     * @param maxRecordBytes the largest record the dead-letter topic takes: the smaller of the producer's {@code
     *                       max.request.size} and the topic's {@code max.message.bytes}
     */
    public DeadLetters(int maxRecordBytes) {
        if (maxRecordBytes < MIN_RECORD_BYTES) {
            throw new IllegalArgumentException("Dead letters need records of at least " + MIN_RECORD_BYTES
                    + " bytes; the limit is " + maxRecordBytes);
        }
        this.maxRecordBytes = maxRecordBytes;
    }

    /**
     * The producer's {@code max.request.size} in Kafka Streams settings: {@code producer.max.request.size}, else
     * {@code max.request.size}, else the producer's default.
     *
     * @throws ConfigException naming the option when it is not a whole number of at least {@value #MIN_RECORD_BYTES}
     */
    public static int producerLimit(Map<?, ?> streamsProperties) {
        String prefixed = StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        String name = streamsProperties.get(prefixed) != null ? prefixed : ProducerConfig.MAX_REQUEST_SIZE_CONFIG;
        Object value = streamsProperties.get(name);
        if (value == null) {
            return DEFAULT_MAX_REQUEST_SIZE;
        }
        int limit = (Integer) ConfigDef.parseType(name, value, ConfigDef.Type.INT);
        if (limit < MIN_RECORD_BYTES) {
            throw new ConfigException(
                    name, value, "Dead letters need records of at least " + MIN_RECORD_BYTES + " bytes");
        }
        return limit;
    }

    /**
     * The dead-letter topic that Kafka Streams' configs name to the exception handlers: Kafka Streams' own {@code
     * errors.dead.letter.queue.topic.name} (KIP-1034), which the topology sets to {@code ttl.dlq.topic}.
     */
    static String topic(Map<String, ?> configs) {
        String name = StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG;
        return Objects.requireNonNull((String) configs.get(name), name);
    }

    /** An error's text as dead letters and logs show it: its first {@value #MAX_ERROR_CHARS} characters. */
    static String errorText(String text) {
        return cut(text, MAX_ERROR_CHARS);
    }

    /**
     * Returns the dead-letter record for {@code original}, keeping its key, value, timestamp and headers, or as much of
     * them as fits.
     *
     * @param original the record that failed, as it was read
     * @param source where the record was read from, if known (a punctuator has no source)
     * @param error why it failed
     */
    public Record<String, String> letter(
            Record<String, String> original, Optional<RecordMetadata> source, Throwable error) {
        return letter(
                original,
                source.map(read -> sourceHeaders(read.topic(), read.partition(), read.offset()))
                        .orElseGet(RecordHeaders::new),
                error);
    }

    /**
     * The dead letter of {@code failed} as an exception handler returns it to Kafka Streams (KIP-1034), which sends it
     * in the task's transaction: a record for {@code topic}, with the source record that the handler's context names
     * (none in a punctuation).
     */
    ProducerRecord<byte[], byte[]> letter(
            String topic, ErrorHandlerContext context, Record<String, String> failed, Exception error) {
        Headers own = context.topic() == null
                ? new RecordHeaders()
                : sourceHeaders(context.topic(), context.partition(), context.offset());
        Record<String, String> letter = letter(failed, own, error);
        return new ProducerRecord<>(
                topic, null, letter.timestamp(), bytes(letter.key()), bytes(letter.value()), letter.headers());
    }

    private static Headers sourceHeaders(String topic, int partition, long offset) {
        Headers own = new RecordHeaders();
        put(own, SOURCE_TOPIC_HEADER, String.valueOf(topic));
        put(own, SOURCE_PARTITION_HEADER, Integer.toString(partition));
        put(own, SOURCE_OFFSET_HEADER, Long.toString(offset));
        return own;
    }

    /** The dead letter of {@code original}, with the {@code own} headers that say where it was read. */
    private Record<String, String> letter(Record<String, String> original, Headers own, Throwable error) {
        put(own, ERROR_HEADER, errorText(String.valueOf(error.getMessage())));
        put(own, ERROR_CLASS_HEADER, error.getClass().getName());

        String key = original.key();
        String value = original.value();
        int keyBytes = utf8Length(key);
        int valueBytes = utf8Length(value);
        Header[] originalHeaders = original.headers().toArray();
        if (size(originalHeaders) + keyBytes + valueBytes <= room(own)) {
            return new Record<>(key, value, original.timestamp(), merge(originalHeaders, own));
        }
        put(own, TRUNCATED_HEADER, "true");
        put(own, ORIGINAL_VALUE_BYTES_HEADER, Integer.toString(valueBytes));
        put(own, ORIGINAL_KEY_BYTES_HEADER, Integer.toString(keyBytes));
        // The original headers stay unless they would take more than a quarter of the room; the key keeps up to
        // half of what is left, the value the rest.
        boolean dropHeaders = size(originalHeaders) > room(own) / 4;
        if (dropHeaders) {
            put(own, HEADERS_DROPPED_HEADER, Integer.toString(originalHeaders.length));
        }
        Header[] keptHeaders = dropHeaders ? new Header[0] : originalHeaders;
        int room = room(own) - size(keptHeaders);
        String keptKey = truncate(key, Math.min(keyBytes, room / 2));
        String keptValue = truncate(value, room - utf8Length(keptKey));
        return new Record<>(keptKey, keptValue, original.timestamp(), merge(keptHeaders, own));
    }

    private static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    /** Bytes left for the original headers, key and value next to {@code own} headers. */
    private int room(Headers own) {
        return maxRecordBytes - FRAMING_BYTES - size(own.toArray());
    }

    /**
     * Whether {@code error} can be blamed on the record being processed, so that dead-lettering the record is the
     * right answer: everything except the JVM's own failures ({@link VirtualMachineError}, such as running out of
     * memory) and a broken installation ({@link LinkageError}), which would dead-letter every record and must stop
     * the thread instead, nor Kafka Streams' signals that the task must be closed or revived ({@link
     * TaskMigratedException}, {@link TaskCorruptedException}). A {@link StackOverflowError} is the record's: deep
     * nesting causes it.
     */
    public static boolean isCausedByRecord(Throwable error) {
        return error instanceof StackOverflowError
                || !(error instanceof VirtualMachineError
                        || error instanceof LinkageError
                        || error instanceof TaskMigratedException
                        || error instanceof TaskCorruptedException);
    }

    private static Headers merge(Header[] originalHeaders, Headers own) {
        Headers headers = new RecordHeaders(originalHeaders);
        for (Header header : own) {
            headers.remove(header.key());
        }
        own.forEach(headers::add);
        return headers;
    }

    /** The longest prefix of {@code text} of at most {@code maxBytes} bytes in UTF-8, never splitting a character. */
    static String truncate(String text, int maxBytes) {
        if (text == null) {
            return null;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxBytes) {
            return text;
        }
        int end = Math.max(0, maxBytes);
        // Back off continuation bytes (10xxxxxx): the cut must fall before the first byte of a character.
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }

    /** {@code text}, or its first {@code maxChars} characters and "..." (never half a surrogate pair). */
    static String cut(String text, int maxChars) {
        if (text.length() <= maxChars) {
            return text;
        }
        int end = Character.isHighSurrogate(text.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
        return text.substring(0, end) + "...";
    }

    private static int utf8Length(String text) {
        return text == null ? 0 : text.getBytes(StandardCharsets.UTF_8).length;
    }

    private static int size(Header[] headers) {
        int total = 0;
        for (Header header : headers) {
            total += utf8Length(header.key())
                    + (header.value() == null ? 0 : header.value().length)
                    + 2 * HEADER_FRAMING_BYTES;
        }
        return total;
    }

    private static void put(Headers headers, String name, String value) {
        headers.remove(name);
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }
}
