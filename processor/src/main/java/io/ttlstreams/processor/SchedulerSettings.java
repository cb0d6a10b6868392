package io.ttlstreams.processor;

import io.ttlstreams.config.GuardLimit;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.readback.DocumentReadBack;
import io.ttlstreams.rules.TtlRules;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.LongSupplier;

/**
 * What the {@link ExpirySchedulerProcessor} needs to know, taken from {@link TtlStreamsConfig} and from the cluster.
 *
 * @param rules the TTL rules
 * @param punctuateInterval how often the wall-clock punctuator looks for due entries
 * @param maxEntriesPerPunctuation at most this many entries handled per punctuation
 * @param maxDurationPerPunctuation a punctuation stops handling entries once it has run this long
 * @param maxDeletesPerSecond the application-wide throttle; empty means unthrottled
 * @param partitions the number of tasks sharing the throttle: the source topics' largest partition count
 * @param confirmTimeout how long a delete command first awaits the change stream's delete event
 * @param confirmMaxAttempts delete commands emitted for one document before giving up
 * @param dryRun whether delete commands are suppressed
 * @param auditEnabled whether an {@code ExpiryEvent} is emitted for each outcome
 * @param maxRecordBytes the largest record the producer sends ({@code max.request.size}), which bounds a delete command
 * @param nanoClock measures a punctuation's own duration; {@link System#nanoTime} outside tests
 * @param listener hears emissions and confirmations, for metrics kept outside Kafka Streams
 * @param readBack reads a document back from MongoDB when its delete goes unconfirmed; empty: no read-back, the
 *     command is only emitted again
 * @param guardLimits each rule's blast-radius limit, by name; a rule without one is unguarded
 */
public record SchedulerSettings(
        TtlRules rules,
        Duration punctuateInterval,
        int maxEntriesPerPunctuation,
        Duration maxDurationPerPunctuation,
        OptionalInt maxDeletesPerSecond,
        int partitions,
        Duration confirmTimeout,
        int confirmMaxAttempts,
        boolean dryRun,
        boolean auditEnabled,
        int maxRecordBytes,
        LongSupplier nanoClock,
        ExpiryListener listener,
        Optional<DocumentReadBack> readBack,
        Map<String, GuardLimit> guardLimits) {

    /** Settings from the application configuration, for {@code partitions} source partitions. */
    public static SchedulerSettings from(TtlStreamsConfig config, int partitions) {
        return new SchedulerSettings(
                config.rules(),
                config.punctuateInterval(),
                config.punctuateMaxEntries(),
                config.punctuateMaxDuration(),
                config.maxDeletesPerSecond(),
                partitions,
                config.confirmTimeout(),
                config.confirmMaxAttempts(),
                config.dryRun(),
                config.auditTopic().isPresent(),
                DeadLetters.producerLimit(config.streamsProperties()),
                System::nanoTime,
                ExpiryListener.NONE,
                Optional.empty(),
                Map.copyOf(config.guardLimits()));
    }

    /** The same settings measuring punctuation time with another clock (tests). */
    public SchedulerSettings withNanoClock(LongSupplier clock) {
        return with(clock, listener, readBack);
    }

    /** The same settings reporting to {@code listener}. */
    public SchedulerSettings withListener(ExpiryListener listener) {
        return with(nanoClock, listener, readBack);
    }

    /** The same settings reading unconfirmed deletes' documents back through {@code readBack}. */
    public SchedulerSettings withReadBack(DocumentReadBack readBack) {
        return with(nanoClock, listener, Optional.of(readBack));
    }

    private SchedulerSettings with(LongSupplier clock, ExpiryListener listener, Optional<DocumentReadBack> readBack) {
        return new SchedulerSettings(
                rules,
                punctuateInterval,
                maxEntriesPerPunctuation,
                maxDurationPerPunctuation,
                maxDeletesPerSecond,
                partitions,
                confirmTimeout,
                confirmMaxAttempts,
                dryRun,
                auditEnabled,
                maxRecordBytes,
                clock,
                listener,
                readBack,
                guardLimits);
    }

    /** The blast-radius limit of rule {@code rule}; an unguarded one when it has none. */
    public GuardLimit guardLimit(String rule) {
        return guardLimits.getOrDefault(rule, UNGUARDED);
    }

    private static final GuardLimit UNGUARDED = new GuardLimit(0, Duration.ofMinutes(1));

    /** The wait for confirmation after the {@code attempt}-th delete command: doubling from the timeout, at most 1 h. */
    public long confirmWaitMillis(int attempt) {
        long first = confirmTimeout.toMillis();
        long cap = Math.max(first, Duration.ofHours(1).toMillis());
        int doublings = Math.min(attempt - 1, 40);
        return first > cap >> doublings ? cap : Math.min(cap, first << doublings);
    }
}
