package io.ttlstreams.health;

import io.ttlstreams.processor.SinkAvailability;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Whether the sink connector writes, from what {@link ConnectorMonitor} sees of it: not from the first check that
 * finds it FAILED (its task fails, with its commands unapplied, when MongoDB cannot be written) until it has run for
 * {@code recovery} since the last check that found it failed. A restarted task that still cannot reach a primary runs
 * for up to the driver's {@code serverSelectionTimeoutMS} before it fails again, so one RUNNING status alone proves
 * nothing. The stream threads read it ({@link SinkAvailability}); the monitor's thread writes it.
 */
public final class SinkOutage implements SinkAvailability {

    private static final long NEVER = Long.MIN_VALUE;

    private final long recoveryNanos;
    private final LongSupplier nanoClock;
    /** {@link System#nanoTime} of the last check that found the sink failed, or {@link #NEVER}. */
    private volatile long lastFailedNanos = NEVER;

    /**
     * @param recovery how long the sink must run after its last failure to count as writing again
     * @param nanoClock {@link System#nanoTime} outside tests
     */
    public SinkOutage(Duration recovery, LongSupplier nanoClock) {
        this.recoveryNanos = recovery.toNanos();
        this.nanoClock = nanoClock;
    }

    /** A check found the sink connector or one of its tasks FAILED. */
    void failed() {
        lastFailedNanos = nanoClock.getAsLong();
    }

    /** Whether the sink counts as writing now, on the monitor's own clock. */
    public boolean writing() {
        long failed = lastFailedNanos;
        return failed == NEVER || nanoClock.getAsLong() - failed >= recoveryNanos;
    }

    /** As {@link #writing()}: the monitor's clock, not the punctuator's {@code now}, judges its checks. */
    @Override
    public boolean writing(long now) {
        return writing();
    }
}
