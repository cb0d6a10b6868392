package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The stand-in's oplog: the last {@code capacity} changes in a ring, indexed by position, so that reading what a
 * change stream has not seen yet costs the new changes only, never the history; older changes fall off as in a
 * capped oplog, and a stream that needs one of them gets MongoDB's "history lost" error.
 *
 * <p>Readers wait here for new changes ({@link #awaitAfter}): the await behind a change stream's {@code getMore}.
 * Thread-safe; one monitor guards the ring.
 */
final class ChangeHistory {

    private final Change[] ring;
    private final Clock clock;
    /** Random per history: a resume token from another stand-in (an earlier run) is recognised as foreign. */
    private final long epoch;

    /** Positions below this were used by an earlier run of the stand-in whose history is gone. */
    private final long floor;

    private long next; // the position the next change gets
    private long lastSecond;
    private int increment;
    private boolean closed;

    ChangeHistory(int capacity, Clock clock) {
        this(capacity, clock, ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 1);
    }

    /**
     * A history that continues an earlier run's: same epoch, positions from {@code next} on, none held before.
     *
     * @param epoch the earlier run's {@link #epoch()}
     * @param next  the earlier run's {@link #next()}
     */
    ChangeHistory(int capacity, Clock clock, long epoch, long next) {
        if (capacity < 1) {
            throw new IllegalArgumentException("The change history needs room for at least one change");
        }
        this.ring = new Change[capacity];
        this.clock = clock;
        this.epoch = epoch;
        this.floor = Math.max(1, next);
        this.next = floor;
    }

    long epoch() {
        return epoch;
    }

    /** Records a change at the next position, with its cluster time and wall time, and wakes waiting readers. */
    synchronized Change append(Change.Operation operation) {
        return appendTogether(List.of(operation)).get(0);
    }

    /**
     * Records changes at the next positions with one cluster time and wall time, as the operations of one transaction
     * share its commit time, and wakes waiting readers.
     */
    synchronized List<Change> appendTogether(List<Change.Operation> operations) {
        Instant now = clock.instant();
        long second = Math.max(now.getEpochSecond(), lastSecond);
        increment = second == lastSecond ? increment + 1 : 1;
        lastSecond = second;
        BsonTimestamp clusterTime = new BsonTimestamp(Instant.ofEpochSecond(second), increment);
        Instant wallTime = Instant.ofEpochMilli(now.toEpochMilli());
        List<Change> changes = new ArrayList<>(operations.size());
        for (Change.Operation operation : operations) {
            Change change = new Change(next, clusterTime, wallTime, operation);
            ring[(int) (next % ring.length)] = change;
            next++;
            changes.add(change);
        }
        notifyAll();
        return changes;
    }

    /** The position the next change will get; the history holds {@link #first()} up to this, exclusive. */
    synchronized long next() {
        return next;
    }

    /** The oldest position still held (equal to {@link #next()} while empty). */
    synchronized long first() {
        return Math.max(floor, next - ring.length);
    }

    /** The cluster time the next change will have at the earliest: where a stream opened now starts. */
    synchronized BsonTimestamp now() {
        long second = Math.max(clock.instant().getEpochSecond(), lastSecond);
        return new BsonTimestamp(Instant.ofEpochSecond(second), second == lastSecond ? increment : 0);
    }

    /**
     * Up to {@code max} changes from {@code position} on, in order.
     *
     * @throws HistoryLostException when {@code position} has fallen off the history
     */
    synchronized List<Change> read(long position, int max) {
        if (position < first()) {
            throw new HistoryLostException();
        }
        int count = (int) Math.max(0, Math.min(max, next - position));
        List<Change> changes = new ArrayList<>(count);
        for (long p = position; p < position + count; p++) {
            changes.add(ring[(int) (p % ring.length)]);
        }
        return changes;
    }

    /**
     * The first position whose change is at or after {@code clusterTime} ({@link #next()} when none is yet).
     *
     * @throws HistoryLostException when changes before that time have fallen off, so the stream would miss some
     */
    synchronized long positionAt(BsonTimestamp clusterTime) {
        long low = first();
        long high = next;
        if (low > 1
                && low < next
                && ring[(int) (low % ring.length)].clusterTime().compareTo(clusterTime) > 0) {
            throw new HistoryLostException();
        }
        while (low < high) {
            long middle = (low + high) >>> 1;
            if (ring[(int) (middle % ring.length)].clusterTime().compareTo(clusterTime) < 0) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /**
     * Waits until a change at {@code position} or later exists, the history is closed, or the time is up.
     *
     * @return true when such a change exists
     */
    synchronized boolean awaitAfter(long position, long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        long remaining = timeoutNanos;
        while (next <= position && !closed && remaining > 0) {
            TimeUnit.NANOSECONDS.timedWait(this, remaining);
            remaining = deadline - System.nanoTime();
        }
        return next > position;
    }

    /** Releases every waiting reader, for the server's shutdown; later waits return at once. */
    synchronized void close() {
        closed = true;
        notifyAll();
    }

    /** A stream needs changes the history no longer holds (MongoDB's ChangeStreamHistoryLost, code 286). */
    static final class HistoryLostException extends RuntimeException {
        HistoryLostException() {
            super(
                    "Resume of change stream was not possible, as the resume point may no longer be in the oplog.",
                    null,
                    false,
                    false);
        }
    }
}
