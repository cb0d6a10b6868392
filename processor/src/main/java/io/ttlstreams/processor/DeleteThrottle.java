package io.ttlstreams.processor;

/**
 * A token bucket limiting delete commands per second for one task ({@code ttl.max.deletes.per.second}).
 *
 * <p>Tokens accrue with the punctuator's wall-clock timestamps, never with a clock read here, so tests
 * drive it exactly. The bucket holds at most one second's worth, so a quiet period does not turn into
 * a burst larger than the configured rate.
 */
public final class DeleteThrottle {

    private final double perSecond;
    private final double capacity;
    private double tokens;
    private long lastRefillMs = Long.MIN_VALUE;

    /**
     * @param perSecond the sustained rate, greater than zero
     */
    public DeleteThrottle(double perSecond) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("deletes per second must be a finite number > 0, was " + perSecond);
        }
        this.perSecond = perSecond;
        this.capacity = Math.max(1.0, perSecond);
    }

    /** Refills for the time elapsed up to {@code nowMs} and returns how many deletes may go now. */
    public int available(long nowMs) {
        if (lastRefillMs == Long.MIN_VALUE) {
            tokens = capacity;
        } else if (nowMs > lastRefillMs) {
            tokens = Math.min(capacity, tokens + (nowMs - lastRefillMs) * perSecond / 1000.0);
        }
        lastRefillMs = Math.max(lastRefillMs, nowMs);
        return (int) Math.min(Integer.MAX_VALUE, Math.floor(tokens));
    }

    /** Takes {@code count} tokens, after {@link #available(long)} allowed them. */
    public void consume(int count) {
        tokens -= count;
    }
}
