package io.ttlstreams.event;

import io.ttlstreams.config.ResyncOptions;
import io.ttlstreams.config.SourceOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.OptionalLong;
import org.bson.BsonTimestamp;

/**
 * The span of times a change event may plausibly claim, judged against the time its record was published: an event
 * happens before the source connector publishes it, so its {@code wallTime} or {@code clusterTime} may lie after the
 * record's timestamp by clock skew only. A time further ahead is a claim nothing real makes (a clusterTime of 2^32-1
 * would make a drop epoch no later event passes, or deadlines 2106), so the event is refused before any time of it is
 * stored. The skew allowed is {@code maxFutureSkew}, plus how far MongoDB's clock was measured to run ahead of this
 * processor's ({@link SourceClock}), measured from MongoDB and never from the events, so that no record can widen it.
 *
 * <p>A time further back than {@code maxLag} is a source resuming far back (Connect down for longer, a connector
 * re-created with old offsets): its events are still applied, as every deadline counts from no earlier than the
 * record's time and every order between events from their own cluster times; {@link #check} says so, to be logged.
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
     * @param sourceOffset how far MongoDB's clock runs ahead of this processor's, as measured ({@link SourceClock});
     *                  a positive offset widens the future skew by as much, a negative one changes nothing
     * @return whether a time lies further back than {@code maxLag}: a source resuming far back, applied all the same
     * @throws InvalidChangeEventException naming the time, the bound and the option, if either lies too far ahead
     */
    public boolean check(String topic, ChangeEvent event, long reference, OptionalLong sourceOffset) {
        long ahead = saturatedAdd(
                maxFutureSkew.toMillis(), Math.min(MAX_FUTURE_SKEW.toMillis(), Math.max(0, sourceOffset.orElse(0))));
        boolean farBack = false;
        BsonTimestamp clusterTime = event.clusterTime();
        if (clusterTime != null) {
            // The seconds are unsigned: 2^32-1 is 2106, not -1.
            long seconds = Integer.toUnsignedLong(clusterTime.getTime());
            farBack = check(topic, "clusterTime", seconds * 1000, reference, ahead, sourceOffset);
        }
        return check(topic, "event time", event.eventTime().toEpochMilli(), reference, ahead, sourceOffset) || farBack;
    }

    private boolean check(
            String topic, String what, long millis, long reference, long ahead, OptionalLong sourceOffset) {
        if (millis > saturatedAdd(reference, ahead)) {
            throw implausible(
                    topic,
                    what + " " + Instant.ofEpochMilli(millis) + " is later than its record's time "
                            + Instant.ofEpochMilli(reference) + " by more than " + ahead + " ms ("
                            + SourceOptions.EVENT_TIME_MAX_FUTURE_SKEW_MS_CONFIG
                            + (sourceOffset.isPresent()
                                    ? ", plus MongoDB's clock measured " + sourceOffset.getAsLong()
                                            + " ms ahead of this processor's"
                                    : ", MongoDB's clock not measured: no " + ResyncOptions.MONGODB_URI_CONFIG
                                            + ", or not reached yet")
                            + ")");
        }
        return millis < saturatedAdd(reference, -maxLag.toMillis());
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
