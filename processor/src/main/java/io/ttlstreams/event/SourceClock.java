package io.ttlstreams.event;

import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How far MongoDB's clock runs ahead of this processor's (negative: behind), as last measured from MongoDB itself,
 * never from the events: the stream threads judge and place change events' times by it, the health check measures
 * it. Unmeasured (no {@code ttl.mongodb.uri}, or MongoDB not reached yet), it changes nothing.
 *
 * <p>Its magnitude is capped at {@link EventTimeWindow#MAX_FUTURE_SKEW}: a measurement beyond that is no clock a
 * window may follow.
 */
public final class SourceClock {

    private static final long UNMEASURED = Long.MIN_VALUE;
    private static final long CAP = EventTimeWindow.MAX_FUTURE_SKEW.toMillis();

    private final AtomicLong offset = new AtomicLong(UNMEASURED);

    /** A clock not measured yet. */
    public SourceClock() {}

    /** The last measured offset in milliseconds, within ±{@link EventTimeWindow#MAX_FUTURE_SKEW}; empty before any. */
    public OptionalLong offsetMillis() {
        long value = offset.get();
        return value == UNMEASURED ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /** Records a measurement: MongoDB's clock read {@code offsetMillis} ahead of this processor's. */
    public void measured(long offsetMillis) {
        offset.set(Math.max(-CAP, Math.min(CAP, offsetMillis)));
    }
}
