package io.ttlstreams.processor;

import java.time.Duration;

/**
 * Whether the sink connector's writes fail for reasons that are not their commands' own, from its dead letters: a
 * write MongoDB applied but could not confirm at the sink's write concern (w:majority timing out while members are
 * down or lag), or, from a sink configured to park them, a MongoDB it could not reach. Such a command is neither
 * refused nor known to be applied: the confirmation decides, and meanwhile the sink does not count as writing, from
 * the last such dead letter's time until {@code recovery} after it.
 *
 * <p>Judged by the dead letters' record times (the Connect worker's clock when it parked them) against the
 * punctuator's wall clock, so that dead letters read again after a restart, long after they were written, change
 * nothing. The instance that reads {@code ttl.sink.dlq} (one partition) learns it; the stream thread that reads it
 * writes, the punctuating ones read.
 */
public final class SinkWriteFailures implements SinkAvailability {

    private static final long NEVER = Long.MIN_VALUE;

    private final long recoveryMillis;
    /** The record time of the latest such dead letter, or {@link #NEVER}. */
    private volatile long lastFailedMillis = NEVER;

    /** @param recovery how long after the last such failure the sink counts as writing again */
    public SinkWriteFailures(Duration recovery) {
        this.recoveryMillis = recovery.toMillis();
    }

    /**
     * A dead letter of such a failure, written at {@code recordTime}, read at {@code readAt} (the reading thread's
     * wall clock): a record time ahead of it counts as {@code readAt}, so that a clock far ahead holds nothing for
     * longer than {@code recovery}.
     */
    void failedAt(long recordTime, long readAt) {
        long at = Math.min(recordTime, readAt);
        if (at > lastFailedMillis) {
            lastFailedMillis = at;
        }
    }

    @Override
    public boolean writing(long now) {
        long failed = lastFailedMillis;
        return failed == NEVER || now - failed >= recoveryMillis;
    }
}
