package io.ttlstreams.processor;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Limits one task's delete commands to its share of {@code ttl.max.deletes.per.second}, so that the whole application
 * never emits more than the setting in any one-second window.
 *
 * <p>A sliding window, not a token bucket: a bucket lets its capacity plus a second's rate through in one second,
 * and starts full. Here a command goes only while fewer than the share went in the second before it, counted by the
 * punctuator's wall-clock timestamps (never a clock read here, so tests drive it exactly); the window starts empty.
 * The application-wide limit is split into whole shares by partition, adding up to the limit exactly.
 */
public final class DeleteThrottle {

    private static final long WINDOW_MS = 1_000;

    private final int perSecond;
    /** Punctuations of the last second that emitted: {time, count}, oldest first. */
    private final Deque<long[]> recent = new ArrayDeque<>();

    private int inWindow;

    /** @param perSecond commands allowed in any one-second window, at least 1 */
    public DeleteThrottle(int perSecond) {
        if (perSecond < 1) {
            throw new IllegalArgumentException("A throttle needs at least 1 delete per second, not " + perSecond);
        }
        this.perSecond = perSecond;
    }

    /**
     * The whole share of an application-wide {@code limit} for the task of {@code partition} among {@code
     * partitions}: {@code limit / partitions}, plus one for the first {@code limit % partitions} partitions. The
     * shares add up to {@code limit}; each is at least 1 when {@code limit >= partitions}.
     *
     * @throws IllegalArgumentException when {@code limit < partitions}, which would leave some task no share
     */
    public static int share(int limit, int partitions, int partition) {
        if (partitions < 1 || partition < 0 || partition >= partitions) {
            throw new IllegalArgumentException("Partition " + partition + " of " + partitions);
        }
        if (limit < partitions) {
            throw new IllegalArgumentException("A limit of " + limit + " deletes per second cannot give each of "
                    + partitions + " tasks a share: it must be at least the number of partitions");
        }
        return limit / partitions + (partition < limit % partitions ? 1 : 0);
    }

    /** How many commands may go at {@code nowMs}: the share less those of the second up to and including now. */
    public int available(long nowMs) {
        while (!recent.isEmpty() && recent.peekFirst()[0] <= nowMs - WINDOW_MS) {
            inWindow -= (int) recent.pollFirst()[1];
        }
        return Math.max(0, perSecond - inWindow);
    }

    /** Records {@code count} commands emitted at {@code nowMs}, after {@link #available(long)} allowed them. */
    public void consume(long nowMs, int count) {
        if (count > 0) {
            recent.addLast(new long[] {nowMs, count});
            inWindow += count;
        }
    }
}
