package io.ttlstreams.processor;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.rules.TtlRules;
import java.time.Duration;
import java.util.OptionalDouble;
import java.util.function.LongSupplier;

/**
 * What the {@link ExpirySchedulerProcessor} needs to know, taken from {@link TtlStreamsConfig}.
 *
 * @param rules the TTL rules
 * @param punctuateInterval how often the wall-clock punctuator looks for due entries
 * @param maxEntriesPerPunctuation at most this many delete commands per punctuation
 * @param maxDurationPerPunctuation a punctuation stops emitting once it has run this long
 * @param maxDeletesPerSecond throttle per task; empty means unthrottled
 * @param auditEnabled whether an {@code ExpiryEvent} is emitted beside each delete command
 * @param nanoClock measures a punctuation's own duration; {@link System#nanoTime} outside tests
 * @param listener hears emissions, for metrics kept outside Kafka Streams
 */
public record SchedulerSettings(
        TtlRules rules,
        Duration punctuateInterval,
        int maxEntriesPerPunctuation,
        Duration maxDurationPerPunctuation,
        OptionalDouble maxDeletesPerSecond,
        boolean auditEnabled,
        LongSupplier nanoClock,
        ExpiryListener listener) {

    /** Settings from the application configuration. */
    public static SchedulerSettings from(TtlStreamsConfig config) {
        return new SchedulerSettings(
                config.rules(),
                config.punctuateInterval(),
                config.punctuateMaxEntries(),
                config.punctuateMaxDuration(),
                config.maxDeletesPerSecond(),
                config.auditTopic().isPresent(),
                System::nanoTime,
                ExpiryListener.NONE);
    }

    /** The same settings measuring punctuation time with another clock (tests). */
    public SchedulerSettings withNanoClock(LongSupplier clock) {
        return new SchedulerSettings(
                rules,
                punctuateInterval,
                maxEntriesPerPunctuation,
                maxDurationPerPunctuation,
                maxDeletesPerSecond,
                auditEnabled,
                clock,
                listener);
    }

    /** The same settings reporting emissions to {@code listener}. */
    public SchedulerSettings withListener(ExpiryListener listener) {
        return new SchedulerSettings(
                rules,
                punctuateInterval,
                maxEntriesPerPunctuation,
                maxDurationPerPunctuation,
                maxDeletesPerSecond,
                auditEnabled,
                nanoClock,
                listener);
    }
}
