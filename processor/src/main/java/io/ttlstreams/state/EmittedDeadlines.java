package io.ttlstreams.state;

import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * How far the scan of the deadlines timeline has emitted, and when: a first delete command leaves its entry where it
 * is, on the deadlines timeline at its deadline, and only this position moves.
 *
 * <p><b>The invariant</b>, stated here only and kept here only: an entry of the deadlines timeline lies at or before
 * the position if and only if its first delete command went out and its confirmation is awaited ({@link
 * EntryState#AWAITING_FIRST_CONFIRMATION}, attempt 1, emitted at its checkpoint's time: {@link #asItStands}); every
 * entry after it waits for its deadline ({@link EntryState#SCHEDULED}). It holds because the position moves only over
 * an entry emitted in place ({@link #emittedInPlace}), because nothing is ever put at or before it ({@link #placed}
 * puts such a deadline just after it), and because an entry leaves only when confirmed, superseded or moved to the
 * confirmations timeline. {@code EmittedDeadlinesTest} and {@code ExpiryScheduleModelTest} check it, across restarts.
 *
 * <p>The position is kept as checkpoints, one per punctuation that emitted: the last deadline key emitted, and the
 * time the punctuation emitted it. An entry at or before the position was emitted at the time of the first checkpoint
 * at or after its key (keys and emission times grow together). The checkpoints are records of the task's {@code task}
 * store, under keys that begin with {@link TaskKeys#CHECKPOINT}, changelogged in the same transaction as the entries they describe:
 * a restart or a rebalance resumes from them.
 * A checkpoint goes once every entry it covers has left the deadlines timeline (confirmed, superseded, emitted again
 * on the confirmations timeline or given up): so the store holds one small record per recent punctuation that
 * emitted, not one per command.
 *
 * <p>The position in memory runs ahead of the checkpoints during a punctuation: between the last checkpoint and the
 * position there are then only the entries emitted in the running punctuation, at {@link #openAt}. After a checkpoint
 * whose entries all left is dropped, the position stays in memory (nothing lies at or before it any more) and a
 * restart starts from the checkpoints left.
 */
final class EmittedDeadlines {

    /** Deadline key of each checkpoint, in key order, to when it was emitted (epoch milliseconds). */
    private final NavigableMap<Bytes, Long> checkpoints;

    /** Where checkpoints are written; null for read-only checkpoints. */
    private final KeyValueStore<Bytes, TaskRecord> task;
    /** The last deadline key passed by the scan; null when none. */
    private Bytes position;
    /** When the entries after the last checkpoint, up to the position, were emitted; MIN_VALUE when none were. */
    private long openAt = Long.MIN_VALUE;

    private EmittedDeadlines(KeyValueStore<Bytes, TaskRecord> task, NavigableMap<Bytes, Long> checkpoints) {
        this.task = task;
        this.checkpoints = checkpoints;
        this.position = checkpoints.isEmpty() ? null : checkpoints.lastKey();
    }

    /** The checkpoints the task's {@code task} store holds, for the task that writes them. */
    static EmittedDeadlines of(KeyValueStore<Bytes, TaskRecord> task) {
        return new EmittedDeadlines(task, read(task));
    }

    /** The checkpoints a (read-only) {@code task} store of one partition holds, for questions. */
    static EmittedDeadlines readOnly(ReadOnlyKeyValueStore<Bytes, TaskRecord> task) {
        return new EmittedDeadlines(null, read(task));
    }

    private static NavigableMap<Bytes, Long> read(ReadOnlyKeyValueStore<Bytes, TaskRecord> task) {
        NavigableMap<Bytes, Long> checkpoints = new TreeMap<>();
        TaskKeys.forEach(task, TaskKeys.CHECKPOINT, (scheduleKey, checkpoint) -> {
            if (checkpoint.getEmittedAt() == null) {
                throw new IllegalArgumentException(
                        "An emission checkpoint without its time (" + DocumentRef.RESET_ADVICE + ")");
            }
            checkpoints.put(Bytes.wrap(scheduleKey), checkpoint.getEmittedAt().toEpochMilli());
        });
        return checkpoints;
    }

    /** Whether the entry at {@code scheduleKey} of the deadlines timeline was emitted (awaits its confirmation). */
    boolean emitted(Bytes scheduleKey) {
        return position != null && scheduleKey.compareTo(position) <= 0;
    }

    /** When the entry at {@code scheduleKey}, {@link #emitted}, was emitted. */
    long emittedAt(Bytes scheduleKey) {
        Map.Entry<Bytes, Long> checkpoint = checkpoints.ceilingEntry(scheduleKey);
        if (checkpoint != null) {
            return checkpoint.getValue();
        }
        if (openAt == Long.MIN_VALUE) {
            throw new IllegalStateException("No emission covers a deadline key at or before the position");
        }
        return openAt;
    }

    /**
     * The entry stored at {@code scheduleKey} as it stands: an emitted deadline's with its first command counted, at
     * its emission time (what moving it to the confirmations timeline used to write); any other as stored.
     */
    ScheduleEntry asItStands(Bytes scheduleKey, ScheduleEntry stored) {
        if (stored == null || EntryState.at(scheduleKey, this) != EntryState.AWAITING_FIRST_CONFIRMATION) {
            return stored;
        }
        return ExpirySchedule.emitted(stored, emittedAt(scheduleKey));
    }

    /** The last deadline key the scan passed (every entry up to it was emitted or left); null when none. */
    Bytes position() {
        return position;
    }

    /**
     * Where the deadline entry of {@code documentRef} meant for {@code scheduleKey} is put: there, unless that lies at
     * or before the position and would read as emitted (a document due on arrival, or renewed to a passed deadline),
     * in which case 1 ms after the last deadline emitted: later than its deadline, never earlier, and due at the next
     * drain.
     */
    Bytes placed(Bytes scheduleKey, Bytes documentRef) {
        if (!emitted(scheduleKey)) {
            return scheduleKey;
        }
        return ScheduleKey.of(ScheduleKey.Timeline.DEADLINES, ScheduleKey.dueAtOf(position) + 1, documentRef);
    }

    /**
     * The deadline entry at {@code scheduleKey}, the scan's latest, stays where it is as emitted at {@code now}. Only
     * an emission moves the position: entries the scan passes that leave the timeline need none, and a position
     * moved over them would only push later the deadlines put there afterwards.
     */
    void emittedInPlace(Bytes scheduleKey, long now) {
        if (position == null || scheduleKey.compareTo(position) > 0) {
            position = scheduleKey;
        }
        openAt = now;
    }

    /** Ends a punctuation's deadline scan: one checkpoint for the entries it emitted in place, if any. */
    void checkpoint() {
        if (openAt == Long.MIN_VALUE) {
            return;
        }
        checkpoints.put(position, openAt);
        task.put(key(position), new TaskRecord(Instant.ofEpochMilli(openAt), null));
        openAt = Long.MIN_VALUE;
    }

    /**
     * The last deadline key emitted at or before {@code emittedBy}, whose first confirmation is overdue when {@code
     * emittedBy} is now less the first wait; null when none is.
     */
    Bytes emittedBy(long emittedBy) {
        Bytes last = null;
        for (Map.Entry<Bytes, Long> checkpoint : checkpoints.entrySet()) {
            if (checkpoint.getValue() > emittedBy) {
                break;
            }
            last = checkpoint.getKey();
        }
        return last;
    }

    /** Every deadline entry up to {@code through} (inclusive) has left: the checkpoints that covered them go. */
    void leftThrough(Bytes through) {
        NavigableMap<Bytes, Long> done = checkpoints.headMap(through, true);
        for (Bytes checkpoint : done.keySet()) {
            task.delete(key(checkpoint));
        }
        done.clear();
    }

    /** The smallest key after {@code key}. */
    static Bytes successor(Bytes key) {
        byte[] bytes = key.get();
        return Bytes.wrap(Arrays.copyOf(bytes, bytes.length + 1));
    }

    private static Bytes key(Bytes scheduleKey) {
        return TaskKeys.key(TaskKeys.CHECKPOINT, scheduleKey.get());
    }
}
