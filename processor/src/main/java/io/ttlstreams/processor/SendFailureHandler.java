package io.ttlstreams.processor;

import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Streams' {@code production.exception.handler} for ttl-streams: what happens to a record the producer failed to
 * send, such as one over {@code max.request.size} ({@code RecordTooLargeException}). Kafka Streams hands it the
 * failures that are not fatal to the producer (not fencing, authorization or an unknown server error).
 *
 * <ul>
 *   <li>A record of the processor's own topics (delete commands, audit, control) is dead-lettered, cut to fit as
 *       {@link DeadLetters} does, logged with its topic and size, counted as {@value TtlMetrics#SEND_FAILURES}
 *       ({@code ttl_send_failures_total}), and processing goes on. A delete command that was not sent is not lost: its
 *       schedule entry already waits for the document's delete event, and without it the command goes out again after
 *       {@code ttl.confirm.timeout.ms}, until {@code ttl.confirm.max.attempts} ends it as unconfirmed (audited and
 *       logged).</li>
 *   <li>A dead letter that could not be written is logged and counted, not dead-lettered again.</li>
 *   <li>A record of Kafka Streams' own topics (store changelogs, repartition topics) fails the stream thread: a
 *       changelog missing a write would restore a schedule that differs from the one the task kept.</li>
 * </ul>
 *
 * <p>Under exactly-once (the default) the producer has also marked its transaction for abort when it reports the
 * failure, so whatever the answer, the transaction's commit fails and the task resumes from its last commit: the log
 * line and the count are what is left. That is why oversized delete commands are refused before they are scheduled
 * ({@link CommandSizeBound}); this handler keeps a failure that slips through from being silent.
 *
 * <p>Configured from the Kafka Streams settings: the dead-letter topic ({@code errors.dead.letter.queue.topic.name}),
 * {@code application.id}, the producer's {@code max.request.size} and the meter registry ({@value
 * TtlMetrics#REGISTRY_CONFIG}).
 */
public final class SendFailureHandler implements ProductionExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(SendFailureHandler.class);

    private String dlqTopic;
    private DeadLetters deadLetters;
    private String internalTopicPrefix;
    private Counter sendFailures;

    @Override
    public void configure(Map<String, ?> configs) {
        this.dlqTopic = DeadLetters.topic(configs);
        this.deadLetters = new DeadLetters(DeadLetters.producerLimit(configs));
        this.internalTopicPrefix = Objects.requireNonNull(
                        configs.get(StreamsConfig.APPLICATION_ID_CONFIG), StreamsConfig.APPLICATION_ID_CONFIG)
                + "-";
        this.sendFailures =
                TtlMetrics.instanceCounter(TtlMetrics.registry(configs), TtlMetrics.SEND_FAILURES, Map.of());
    }

    @Override
    public Response handleError(
            ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
        String topic = record.topic();
        int bytes = length(record.key()) + length(record.value());
        String error = DeadLetters.errorText(exception.toString());
        if (isInternal(topic)) {
            LOG.error(
                    "Task {} could not write a {}-byte record to Kafka Streams' topic {}; the stream thread stops: {}",
                    context.taskId(),
                    bytes,
                    topic,
                    error);
            return Response.fail();
        }
        sendFailures.increment();
        if (topic.equals(dlqTopic)) {
            LOG.error(
                    "Task {} could not write a {}-byte dead letter to {}; it is dropped: {}",
                    context.taskId(),
                    bytes,
                    topic,
                    error);
            return Response.resume();
        }
        LOG.warn(
                "Task {} could not write a {}-byte record to {}; it is dead-lettered to {} (a delete command is sent"
                        + " again after the confirmation timeout): {}",
                context.taskId(),
                bytes,
                topic,
                dlqTopic,
                error);
        Record<String, String> failed = new Record<>(
                text(record.key()),
                text(record.value()),
                record.timestamp() == null ? context.timestamp() : record.timestamp(),
                new RecordHeaders(record.headers().toArray()));
        return Response.resume(List.of(deadLetters.letter(dlqTopic, context, failed, exception)));
    }

    /** Store changelogs and repartition topics, named {@code <application.id>-<name>-changelog|repartition}. */
    private boolean isInternal(String topic) {
        return topic.startsWith(internalTopicPrefix)
                && (topic.endsWith("-changelog") || topic.endsWith("-repartition"));
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    private static int length(byte[] bytes) {
        return bytes == null ? 0 : bytes.length;
    }
}
