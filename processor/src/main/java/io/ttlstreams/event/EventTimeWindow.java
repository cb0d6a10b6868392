package io.ttlstreams.event;

import io.ttlstreams.config.SourceOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.bson.BsonTimestamp;

/**
 * The span of times a change event may plausibly claim, judged against the time its record was published: an event
 * happens before the source connector publishes it, so its {@code wallTime} or {@code clusterTime} may lie after the
 * record's timestamp by clock skew only, and before it by no more than the connector can lag. A time outside the span
 * is a claim nothing real makes (a clusterTime of 2^32-1 would make a drop epoch no later event passes, a wallTime of
 * 2020 an early deadline), so the event is refused before any time of it is stored.
 *
 * @param maxFutureSkew how far an event's times may lie after the reference
 * @param maxLag        how far they may lie before it
 */
public record EventTimeWindow(Duration maxFutureSkew, Duration maxLag) {

    /**
     * The largest future skew accepted: a time further ahead than this is no plausible claim for any setting.
     */
    public static final Duration MAX_FUTURE_SKEW = Duration.ofDays(1);

    /**
     * @throws IllegalArgumentException if a bound is negative, or the skew exceeds {@link #MAX_FUTURE_SKEW}
     */
    public EventTimeWindow {
        Objects.requireNonNull(maxFutureSkew, "maxFutureSkew");
        Objects.requireNonNull(maxLag, "maxLag");
        if (maxFutureSkew.isNegative() || maxFutureSkew.compareTo(MAX_FUTURE_SKEW) > 0) {
            throw new IllegalArgumentException("The future skew must lie between 0 and " + MAX_FUTURE_SKEW);
        }
        if (maxLag.isNegative()) {
            throw new IllegalArgumentException("The lag must not be negative");
        }
    }

    /**
     * Checks the event's time and clusterTime.
     *
     * @param topic     the topic the event came from, for the message
     * @param event     the parsed event
     * @param reference the record's timestamp (ms), capped at the processor's clock, so that a record stamped ahead
     *                  widens nothing
     * @throws InvalidChangeEventException naming the time, the bound and the option, if either lies outside
     */
    public void check(String topic, ChangeEvent event, long reference) {
        BsonTimestamp clusterTime = event.clusterTime();
        if (clusterTime != null) {
            // The seconds are unsigned: 2^32-1 is 2106, not -1.
            long seconds = Integer.toUnsignedLong(clusterTime.getTime());
            check(topic, "clusterTime", seconds * 1000, reference);
        }
        check(topic, "event time", event.eventTime().toEpochMilli(), reference);
    }

    private void check(String topic, String what, long millis, long reference) {
        if (millis > saturatedAdd(reference, maxFutureSkew.toMillis())) {
            throw implausible(
                    topic,
                    what + " " + Instant.ofEpochMilli(millis) + " is later than its record's time "
                            + Instant.ofEpochMilli(reference) + " by more than " + maxFutureSkew.toMillis()
                            + " ms (" + SourceOptions.EVENT_TIME_MAX_FUTURE_SKEW_MS_CONFIG + ")");
        }
        if (millis < saturatedAdd(reference, -maxLag.toMillis())) {
            throw implausible(
                    topic,
                    what + " " + Instant.ofEpochMilli(millis) + " is earlier than its record's time "
                            + Instant.ofEpochMilli(reference) + " by more than " + maxLag.toMillis()
                            + " ms (" + SourceOptions.EVENT_TIME_MAX_LAG_MS_CONFIG + ")");
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        // Overflow only when both have the same sign and the sum's sign differs.
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }

    private static InvalidChangeEventException implausible(String topic, String problem) {
        return new InvalidChangeEventException("Implausible change event on topic '" + topic + "': its " + problem);
    }
}
