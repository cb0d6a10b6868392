package io.ttlstreams.processor;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Streams' {@code processing.exception.handler} for ttl-streams: the safety net under the processors' own
 * error handling.
 *
 * <ul>
 *   <li>An exception escaping a processor while it handles a record (a bug, since parsing and routing dead-letter
 *       their own failures) dead-letters the record as it was read, with the usual {@link DeadLetters} headers,
 *       and processing resumes with the next record: no record can stop a task.</li>
 *   <li>An exception escaping a punctuation is logged with the task id, counted, and fails the stream thread: the
 *       punctuation is what deletes, so carrying on without it would leave a task that no longer expires anything
 *       while looking healthy. The thread is replaced, from the last commit, under the application's bounded
 *       failure policy.</li>
 * </ul>
 *
 * <p>Configured from the Kafka Streams settings: {@value #DLQ_TOPIC_CONFIG} names the dead-letter topic (required),
 * the producer's {@code max.request.size} bounds a dead letter, and {@value #FAILURES_CONFIG} may hold the {@link
 * ProcessingFailures} to count into.
 */
public final class DeadLetterExceptionHandler implements ProcessingExceptionHandler {

    /** Setting: the dead-letter topic. */
    public static final String DLQ_TOPIC_CONFIG = "ttl.dlq.topic";
    /** Setting: a {@link ProcessingFailures} instance to count into; a private one when absent. */
    public static final String FAILURES_CONFIG = "ttl.internal.processing.failures";

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterExceptionHandler.class);

    private String dlqTopic;
    private DeadLetters deadLetters;
    private ProcessingFailures failures;

    @Override
    public void configure(Map<String, ?> configs) {
        this.dlqTopic = Objects.requireNonNull((String) configs.get(DLQ_TOPIC_CONFIG), DLQ_TOPIC_CONFIG);
        this.deadLetters = new DeadLetters(DeadLetters.producerLimit(configs));
        this.failures =
                configs.get(FAILURES_CONFIG) instanceof ProcessingFailures shared ? shared : new ProcessingFailures();
    }

    @Override
    public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        if (record == null) {
            failures.punctuationFailed();
            LOG.error(
                    "Punctuation of task {} failed in node {}; the stream thread stops and is replaced under the"
                            + " failure policy",
                    context.taskId(),
                    context.processorNodeId(),
                    exception);
            return Response.fail();
        }
        failures.recordFailed();
        LOG.warn(
                "Processing the record at {}-{}@{} failed in node {} of task {}; dead-lettered: {}",
                context.topic(),
                context.partition(),
                context.offset(),
                context.processorNodeId(),
                context.taskId(),
                // Cut as the dead letter's header is: a parser's message can quote the whole input.
                DeadLetters.errorText(exception.toString()));
        return Response.resume(List.of(deadLetter(context, exception)));
    }

    private ProducerRecord<byte[], byte[]> deadLetter(ErrorHandlerContext context, Exception exception) {
        String value = text(context.sourceRawValue());
        Record<String, String> original = new Record<>(
                text(context.sourceRawKey()), value, context.timestamp(), new RecordHeaders(context.headers()));
        Record<String, String> letter =
                deadLetters.letter(original, value, Optional.of(new Source(context)), exception);
        return new ProducerRecord<>(
                dlqTopic, null, letter.timestamp(), bytes(letter.key()), bytes(letter.value()), letter.headers());
    }

    static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    /** Where the failed record was read, as {@link DeadLetters} takes it. */
    record Source(ErrorHandlerContext context) implements RecordMetadata {
        @Override
        public String topic() {
            return context.topic();
        }

        @Override
        public int partition() {
            return context.partition();
        }

        @Override
        public long offset() {
            return context.offset();
        }
    }
}
