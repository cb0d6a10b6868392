package io.ttlstreams.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.util.NamedThreadFactory;
import io.ttlstreams.config.ExpiryEvents;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.query.LocalSchedule;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.OptionalLong;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prints one status line every few seconds when it changed (and at least every {@link #REPEAT_UNCHANGED}): the state, the tasks this instance owns (active, and standby copies),
 * documents scheduled (the schedule store's size), due (deadline passed, command not yet emitted), delete commands
 * emitted, documents deleted (when the caller can count them, as the embedded run can), documents the blast-radius
 * guard holds for approval (when any), dead letters, the commands the sink dead-lettered (when any, by reason),
 * failures, and the expiry lag percentiles.
 *
 * <p>A status line is most needed when things break, so no failure stops the reporting: a line that cannot be built
 * (a store moving away in a rebalance, a metric that vanished) is logged at WARN and the next one comes on time.
 */
final class StatusReporter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StatusReporter.class);

    /**
     * An unchanged line is printed again only after this long: a quiet instance prints a line every few minutes, to
     * show it is alive, instead of hundreds of identical ones.
     */
    static final Duration REPEAT_UNCHANGED = Duration.ofMinutes(5);

    private final KafkaStreams streams;
    private final MeterRegistry metrics;
    private final LongSupplier threadsReplaced;
    private final PrintStream out;
    private final Clock clock;
    /** The last line printed and when; touched by the timer's thread only. */
    private String lastLine;

    private long lastPrintedMillis;
    private final Supplier<OptionalLong> deleted;
    private final LocalSchedule schedule;
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("ttl-streams-status"));

    /**
     * @param metrics the registry the figures are read from: the one {@code /metrics} shows outside tests
     * @param threadsReplaced the stream threads replaced so far
     * @param deleted counts documents deleted from MongoDB; empty when that cannot be observed
     */
    StatusReporter(
            KafkaStreams streams,
            MeterRegistry metrics,
            LongSupplier threadsReplaced,
            PrintStream out,
            Clock clock,
            Supplier<OptionalLong> deleted) {
        this.streams = streams;
        this.metrics = metrics;
        this.threadsReplaced = threadsReplaced;
        this.out = out;
        this.clock = clock;
        this.deleted = deleted;
        // The status line counts; it never asks for a document's notice.
        this.schedule = new LocalSchedule(streams, ExpiryEvents.NONE);
    }

    StatusReporter start(Duration period) {
        long millis = period.toMillis();
        timer.scheduleAtFixedRate(this::report, millis, millis, TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * Prints one line. Catches everything: an exception escaping a periodic task would cancel it for good, silencing
     * the status exactly when it matters.
     */
    void report() {
        try {
            String line = statusLine();
            long now = clock.millis();
            if (!line.equals(lastLine) || now - lastPrintedMillis >= REPEAT_UNCHANGED.toMillis()) {
                out.println(line);
                lastLine = line;
                lastPrintedMillis = now;
            }
        } catch (Throwable e) {
            LOG.warn("Could not build the status line; the next one follows as scheduled", e);
        }
    }

    String statusLine() {
        ExpiryFigures figures = ExpiryFigures.of(metrics);
        long replaced = threadsReplaced.getAsLong();
        double punctuationFailures = figures.total(TtlMetrics.PUNCTUATION_FAILURES);
        StringBuilder line = new StringBuilder("status: state=").append(streams.state());
        Collection<ThreadMetadata> threads = streams.metadataForLocalThreads();
        line.append(" active=").append(taskIds(threads, ThreadMetadata::activeTasks));
        line.append(" standby=").append(taskIds(threads, ThreadMetadata::standbyTasks));
        line.append(schedule());
        line.append(String.format(" deletes-emitted=%.0f", figures.total(TtlMetrics.EMITTED)));
        deleted.get().ifPresent(count -> line.append(" deleted=").append(count));
        long held = schedule.held();
        if (held > 0) {
            line.append(" held-for-approval=").append(held);
        }
        double paced = figures.total(TtlMetrics.EMISSIONS_PACED);
        if (paced > 0) {
            line.append(String.format(" emissions-paced=%.0f", paced));
        }
        line.append(String.format(
                " confirmed=%.0f unconfirmed=%.0f dead-lettered=%.0f",
                figures.total(TtlMetrics.CONFIRMED),
                figures.total(TtlMetrics.UNCONFIRMED),
                figures.total(TtlMetrics.DEAD_LETTERED)));
        line.append(sinkDeadLetters(figures.sinkDeadLetters()));
        if (replaced > 0 || punctuationFailures > 0) {
            line.append(" threads-replaced=")
                    .append(replaced)
                    .append(String.format(" punctuation-failures=%.0f", punctuationFailures));
        }
        // Across tasks the worst percentile is the honest one to show.
        line.append(String.format(
                " expiry-lag-ms p50=%.0f p99=%.0f confirmed-lag-ms p99=%.0f",
                figures.percentile(TtlMetrics.EXPIRY_LAG, 0.5),
                figures.percentile(TtlMetrics.EXPIRY_LAG, 0.99),
                figures.percentile(TtlMetrics.CONFIRMED_LAG, 0.99)));
        return line.toString();
    }

    /** The schedule's figures while Kafka Streams runs; nothing while its stores cannot be queried. */
    private String schedule() {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            return "";
        }
        try {
            long now = clock.millis();
            return " scheduled=" + schedule.scheduled() + " due="
                    + schedule.due(now).due() + " awaiting=" + schedule.awaitingConfirmation();
        } catch (InvalidStateStoreException e) {
            return ""; // rebalancing: the next line will tell
        }
    }

    /**
     * The sink's dead letters by reason, as {@code " sink-dead-lettered=495 (signature=492 namespace=3)"}; nothing
     * while there are none, as there should be none.
     */
    static String sinkDeadLetters(ExpiryFigures.SinkDeadLetters sink) {
        if (sink.total() == 0) {
            return "";
        }
        StringJoiner reasons = new StringJoiner(" ", " (", ")");
        sink.byReason().forEach((reason, count) -> reasons.add(String.format("%s=%.0f", reason, count)));
        return String.format(" sink-dead-lettered=%.0f", sink.total()) + reasons;
    }

    /** The task ids of every local thread, sorted, comma-separated; "-" for none. */
    private static String taskIds(
            Collection<ThreadMetadata> threads, Function<ThreadMetadata, Set<TaskMetadata>> tasks) {
        Set<String> ids = new TreeSet<>();
        threads.forEach(thread ->
                tasks.apply(thread).forEach(task -> ids.add(task.taskId().toString())));
        return ids.isEmpty() ? "-" : String.join(",", ids);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
