package io.ttlstreams.processor;

import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the sink connector's dead letters ({@code ttl.sink.dlq}): delete commands the sink guard refused or MongoDB
 * rejected, which delete nothing, and would otherwise wait silently for the confirmation retries. Each is counted as
 * {@value TtlMetrics#SINK_DEAD_LETTERS}, tagged with its {@link SinkDeadLetterReason}, and the first of each reason
 * in the task (one per partition of {@code ttl.sink.dlq}) is logged at ERROR with the reason Connect recorded and
 * what to check; later ones only count. A dead letter of a write that failed for a reason not its command's own
 * ({@link SinkDeadLetterReason#notTheCommands()}: a write-concern error, an unreachable MongoDB) is not a refusal: it
 * tells {@link SinkWriteFailures} that the sink does not write, so that unconfirmed commands wait without spending
 * attempts and new ones are paced, and the command's own confirmation decides whether it was applied.
 *
 * <p>Only the headers are read: whatever the key and value hold, the record is counted and the next one follows.
 */
public final class SinkDeadLetterProcessor implements Processor<byte[], byte[], Void, Void> {

    private static final Logger LOG = LoggerFactory.getLogger(SinkDeadLetterProcessor.class);

    /** A logged reason is cut here: Connect's message can quote a whole command. */
    private static final int MAX_LOGGED_CHARS = 500;

    private final Map<SinkDeadLetterReason, Counter> counters = new EnumMap<>(SinkDeadLetterReason.class);
    private final Set<SinkDeadLetterReason> logged = EnumSet.noneOf(SinkDeadLetterReason.class);
    private final SinkWriteFailures writeFailures;
    private ProcessorContext<Void, Void> context;
    private TtlMetrics metrics;

    /** @param writeFailures learns of the writes that failed for reasons not their commands' own */
    public SinkDeadLetterProcessor(SinkWriteFailures writeFailures) {
        this.writeFailures = writeFailures;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        this.metrics = TtlMetrics.forTask(context);
        // Every reason from the start, at 0: an alert on increase() then sees the first refusal.
        for (SinkDeadLetterReason reason : SinkDeadLetterReason.values()) {
            counters.put(
                    reason,
                    metrics.counter(TtlMetrics.SINK_DEAD_LETTERS, Map.of(TtlMetrics.REASON_TAG, reason.label())));
        }
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        String message = header(record.headers(), SinkDeadLetterReason.MESSAGE_HEADER);
        SinkDeadLetterReason reason =
                SinkDeadLetterReason.of(message, header(record.headers(), SinkDeadLetterReason.EXCEPTION_HEADER));
        counters.get(reason).increment();
        if (reason.notTheCommands()) {
            writeFailures.failedAt(record.timestamp(), context.currentSystemTimeMs());
        }
        // Once per reason, not per record: a key mismatch refuses every command, and one line says it all.
        if (logged.add(reason)) {
            LOG.error(
                    "The sink connector dead-lettered a delete command ({}, at {}), {}: {}. To check:"
                            + " {}. Further ones of this reason are counted in ttl_sink_dead_letters_total{reason=\"{}\"}"
                            + " and on /v1/status, not logged",
                    reason.label(),
                    Instant.ofEpochMilli(record.timestamp()),
                    reason.notTheCommands()
                            ? "which failed for a reason not its own (it may have been applied: its confirmation"
                                    + " decides; unconfirmed commands wait without spending attempts, new ones are"
                                    + " paced)"
                            : "so it deleted nothing",
                    message == null
                            ? "no " + SinkDeadLetterReason.MESSAGE_HEADER + " header"
                            : DeadLetters.cut(message, MAX_LOGGED_CHARS),
                    reason.check(),
                    reason.label());
        }
    }

    private static String header(Headers headers, String name) {
        Header header = headers.lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        if (metrics != null) {
            metrics.close();
        }
    }
}
