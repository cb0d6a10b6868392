package io.ttlstreams.processor;

import io.ttlstreams.config.ConfirmMode;
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
 * @param confirmMode when documents are read back, given {@code readBack}: in {@link ConfirmMode#READ_BACK}, {@code
 *     confirmReadDelay} after each command instead of awaiting a delete event; otherwise when a confirmation is late
 * @param confirmReadDelay read-back mode: the wait after a first command before its document is read
 * @param dryRun whether delete commands are suppressed
 * @param auditEnabled whether an {@code ExpiryEvent} is emitted for each outcome
 * @param maxRecordBytes the largest record the producer sends ({@code max.request.size}), which bounds a delete command
 * @param nanoClock measures a punctuation's own duration; {@link System#nanoTime} outside tests
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
        ConfirmMode confirmMode,
        Duration confirmReadDelay,
        boolean dryRun,
        boolean auditEnabled,
        int maxRecordBytes,
        LongSupplier nanoClock,
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
                config.confirmMode(),
                config.confirmReadDelay(),
                config.dryRun(),
                config.auditTopic().isPresent(),
                DeadLetters.producerLimit(config.streamsProperties()),
                System::nanoTime,
                Optional.empty(),
                Map.copyOf(config.guardLimits()));
    }

    /** The same settings measuring punctuation time with another clock (tests). */
    public SchedulerSettings withNanoClock(LongSupplier clock) {
        return with(clock, readBack);
    }

    /** The same settings reading unconfirmed deletes' documents back through {@code readBack}. */
    public SchedulerSettings withReadBack(DocumentReadBack readBack) {
        return with(nanoClock, Optional.of(readBack));
    }

    private SchedulerSettings with(LongSupplier clock, Optional<DocumentReadBack> readBack) {
        return new SchedulerSettings(
                rules,
                punctuateInterval,
                maxEntriesPerPunctuation,
                maxDurationPerPunctuation,
                maxDeletesPerSecond,
                partitions,
                confirmTimeout,
                confirmMaxAttempts,
                confirmMode,
                confirmReadDelay,
                dryRun,
                auditEnabled,
                maxRecordBytes,
                clock,
                readBack,
                guardLimits);
    }

    /** The blast-radius limit of rule {@code rule}; an unguarded one when it has none. */
    public GuardLimit guardLimit(String rule) {
        return guardLimits.getOrDefault(rule, UNGUARDED);
    }

    private static final GuardLimit UNGUARDED = new GuardLimit(0, Duration.ofMinutes(1));

    /**
     * Whether documents are read back after each command instead of awaiting a delete event: read-back mode, with a
     * read-back service to read through.
     */
    public boolean readsFirst() {
        return readBack.isPresent() && confirmMode == ConfirmMode.READ_BACK;
    }

    /**
     * The wait for confirmation after the {@code attempt}-th delete command, doubling from the confirm timeout (from
     * the read delay when {@link #readsFirst}), at most 1 h.
     */
    public long confirmWaitMillis(int attempt) {
        return doubling(readsFirst() ? confirmReadDelay.toMillis() : confirmTimeout.toMillis(), attempt);
    }

    private static long doubling(long first, int attempt) {
        long cap = Math.max(first, Duration.ofHours(1).toMillis());
        int doublings = Math.min(attempt - 1, 40);
        return first > cap >> doublings ? cap : Math.min(cap, first << doublings);
    }
}
