package io.ttlstreams.state;

import io.ttlstreams.schema.HeldCount;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.state.ScheduleKey.Timeline;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The expiry schedule over its stores, keeping them consistent: every document has at most one entry in {@code
 * schedule} (keyed by timeline, due time, then document) and the {@code index} entry that points to it. Updates move
 * the entry with point lookups; finding due entries is a range scan of one timeline up to "now", never a scan of the
 * whole store.
 *
 * <p>Callers see entries in their {@link EntryState lifecycle state} only, and change them through a closed set of
 * operations on a {@link DocumentEntry} that {@link #find} or a drain handed them: {@link #schedule} (a new deadline,
 * or held for approval), {@link #moveTo} another state, {@link #firstCommandOut}, {@link #remove}, {@link #removeAll}
 * of a namespace, {@link #putNotice}; what is due comes from {@link #drainDue} and {@link #drainNotices}, the rule
 * walk from {@link #walk}, what awaits approval from {@link #forEachAwaitingApproval}. Timelines, keys, scan
 * positions, the walk's cursor and the emission checkpoints stay here. A first delete command moves nothing, so that
 * emitting writes one checkpoint per punctuation instead of a tombstone, an entry and an index entry per command:
 * {@link EmittedDeadlines} states and keeps the invariant that makes that safe, and {@link EntryState#at} is the one
 * rule that reads a state from where an entry lies.
 *
 * <p>The scan of each timeline starts where the last one left off, not at its lowest key: every expiry deletes the
 * head of the key space, and RocksDB would otherwise step over all those tombstones, until the next compaction, on
 * every punctuation. The positions are kept in memory, lowered by any entry put before them, and start at the lowest
 * key when the task (re)starts; so one instance must be the only writer of its stores, as the task's scheduler is.
 *
 * <p>It is the one writer of the task's {@code task} store, which holds its own records, never a document's: the
 * namespace dictionary ({@link NamespaceIds}), the emission checkpoints ({@link EmittedDeadlines}) and what each rule
 * holds for approval ({@link HeldCounts}), all written in the same transaction as the entries they describe.
 */
public final class ExpirySchedule {

    /** FNV-1a's 64-bit parameters. */
    static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;

    private static final long FNV_PRIME = 0x100000001b3L;

    private final KeyValueStore<Bytes, ScheduleEntry> schedule;
    private final KeyValueStore<Bytes, IndexEntry> index;
    private final KeyValueStore<Bytes, TaskRecord> task;
    private final HeldCounts held;
    /** Per timeline: no entry is due before this (see the class comment). */
    private final long[] scanFrom = new long[Timeline.values().length];
    /**
     * Where the scan of the deadlines timeline has emitted, and when: read from the {@code task} store at first use,
     * after the stores are restored.
     */
    private EmittedDeadlines emitted;
    /** The task's namespace dictionary: read from the {@code task} store at first use, after the stores are restored. */
    private NamespaceIds namespaces;
    /** No emitted deadline whose first confirmation is overdue lies before this key; null for the timeline's start. */
    private Bytes firstConfirmationsFrom;
    /** Where the walk ({@link #walk}) goes on; null when none is under way. */
    private Bytes walkFrom;

    public ExpirySchedule(
            KeyValueStore<Bytes, ScheduleEntry> schedule,
            KeyValueStore<Bytes, IndexEntry> index,
            KeyValueStore<Bytes, TaskRecord> task) {
        this.schedule = schedule;
        this.index = index;
        this.task = task;
        this.held = new HeldCounts(task);
        Arrays.fill(scanFrom, Long.MIN_VALUE);
    }

    private EmittedDeadlines emitted() {
        if (emitted == null) {
            DocumentRef.refuseOtherFormats(index);
            emitted = EmittedDeadlines.of(task);
        }
        return emitted;
    }

    /**
     * The task's namespace dictionary, which gives the references of its documents ({@link NamespaceIds#ref}) and
     * their namespaces back ({@link NamespaceIds#namespaceOf}).
     */
    public NamespaceIds namespaces() {
        if (namespaces == null) {
            DocumentRef.refuseOtherFormats(index);
            namespaces = NamespaceIds.of(task);
        }
        return namespaces;
    }

    /** {@code entry} counting one more delete command, issued at {@code now}. */
    public static ScheduleEntry emitted(ScheduleEntry entry, long now) {
        // Not newBuilder(entry): it deep-copies every field through Avro's SpecificData, a fifth of a command's CPU.
        return new ScheduleEntry(
                entry.getRule(),
                entry.getRuleShape(),
                entry.getBase(),
                entry.getOffsetSeconds(),
                entry.getOffsetFromRule(),
                entry.getCondition(),
                entry.getAttempts() + 1,
                entry.getFirstEmittedAt() == null ? Instant.ofEpochMilli(now) : entry.getFirstEmittedAt(),
                entry.getDocumentKey());
    }

    /**
     * The fingerprint of what an entry was computed from (rule, rule shape, base, offset, condition, the document key
     * it keeps, so that an event reporting a new shard key shape rewrites the entry) — not of its
     * emission attempts: an event whose decision has the fingerprint the index holds changes nothing. FNV-1a, 64 bits:
     * cheap on every event; a collision could only leave a document on its previous, still conditional, entry.
     */
    public static long fingerprint(ScheduleEntry entry) {
        long hash = FNV_OFFSET_BASIS;
        hash = mix(hash, entry.getRule().getBytes(StandardCharsets.UTF_8));
        hash = mix(hash, entry.getRuleShape());
        hash = mix(hash, entry.getBase().toEpochMilli());
        hash = mix(hash, entry.getOffsetSeconds());
        hash = mix(hash, entry.getOffsetFromRule() ? 1 : 0);
        hash = fnv1a(hash, entry.getCondition());
        return entry.getDocumentKey() == null ? hash : fnv1a(hash, entry.getDocumentKey());
    }

    /** The document's entry and its state; null when it has none. */
    public DocumentEntry find(Bytes documentRef) {
        return find(index, documentRef, emitted());
    }

    /** The entry of {@code documentRef} in {@code index}, in its state by {@code emitted}; null when it has none. */
    static DocumentEntry find(
            ReadOnlyKeyValueStore<Bytes, IndexEntry> index, Bytes documentRef, EmittedDeadlines emitted) {
        IndexEntry position = index.get(documentRef);
        if (position == null) {
            return null;
        }
        Bytes key = key(documentRef, position);
        return new DocumentEntry(documentRef, key, EntryState.at(key, emitted), position);
    }

    /**
     * The document's entry {@code found} as it stands (one awaiting its first confirmation counts its first command);
     * null if the stores disagree, which they must not.
     */
    public ScheduleEntry entryOf(DocumentEntry found) {
        return emitted().asItStands(found.key(), schedule.get(found.key()));
    }

    /**
     * Gives the document a new entry, replacing {@code previous}: {@link EntryState#SCHEDULED} for its deadline, or
     * {@link EntryState#AWAITING_APPROVAL} when the blast-radius guard holds it.
     *
     * @param previous the document's entry ({@link #find}), or null when it has none
     * @param clusterTime the clusterTime of the event that set the entry, or null
     */
    public void schedule(
            Bytes documentRef,
            DocumentEntry previous,
            EntryState state,
            long deadline,
            ScheduleEntry entry,
            Long clusterTime) {
        put(documentRef, previous, admitted(state), deadline, entry, clusterTime);
    }

    /**
     * Moves an entry handed over by {@link #find}, a drain or a walk into {@code state}, due at {@code dueAt}, keeping
     * the source clusterTime the index holds: {@link EntryState#SCHEDULED} or {@link EntryState#AWAITING_APPROVAL}
     * for a new deadline, {@link EntryState#AWAITING_CONFIRMATION} for a later command (or read) out, {@link
     * EntryState#HELD} when its rule needs the document again.
     */
    public void moveTo(DocumentEntry current, EntryState state, long dueAt, ScheduleEntry entry) {
        move(current.key(), state.timeline(), dueAt, entry);
    }

    /**
     * The first delete command of {@code due}, handed to {@link DueHandler#deadlinePassed} as stored, went out at
     * {@code now}: the entry stays where it is and is {@link EntryState#AWAITING_FIRST_CONFIRMATION} from now on.
     */
    public void firstCommandOut(DocumentEntry due, long now) {
        if (due.state() != EntryState.SCHEDULED) {
            throw new IllegalArgumentException("Only a scheduled entry has its first command out");
        }
        awaitFirstConfirmation(due.key(), now);
    }

    /** Removes the document's entry (confirmed, given up, cancelled, rejected) and its index entry. */
    public void remove(DocumentEntry current) {
        removeAt(current.key());
    }

    private static Timeline admitted(EntryState state) {
        if (state != EntryState.SCHEDULED && state != EntryState.AWAITING_APPROVAL) {
            throw new IllegalArgumentException("A new entry is scheduled or awaits approval, not " + state);
        }
        return state.timeline();
    }

    /**
     * Puts the document's entry, replacing the one at {@code previous}; a deadline is placed by {@link
     * EmittedDeadlines#placed}.
     */
    void put(
            Bytes documentRef,
            DocumentEntry previous,
            Timeline timeline,
            long dueAt,
            ScheduleEntry entry,
            Long clusterTime) {
        if (previous != null) {
            delete(previous.key());
        }
        write(documentRef, timeline, dueAt, entry, clusterTime);
    }

    /** Moves the entry at {@code scheduleKey}, keeping the source clusterTime the index holds. */
    void move(Bytes scheduleKey, Timeline timeline, long dueAt, ScheduleEntry entry) {
        delete(scheduleKey);
        Bytes ref = ScheduleKey.documentRefOf(scheduleKey);
        IndexEntry position = index.get(ref);
        write(ref, timeline, dueAt, entry, position == null ? null : position.getSourceClusterTime());
    }

    /** Removes the entry at {@code scheduleKey} and its index entry. */
    void removeAt(Bytes scheduleKey) {
        delete(scheduleKey);
        index.delete(ScheduleKey.documentRefOf(scheduleKey));
    }

    /**
     * Cancels the entries under a {@link DocumentRef} prefix (a collection or a whole database) whose latest change
     * came no later than {@code clusterTime}; all of them when it is null.
     *
     * @return how many entries were cancelled
     */
    public int removeAll(Bytes prefix, Long clusterTime) {
        int count = 0;
        try (KeyValueIterator<Bytes, IndexEntry> entries = index.prefixScan(prefix, new BytesSerializer())) {
            while (entries.hasNext()) {
                KeyValue<Bytes, IndexEntry> entry = entries.next();
                Long changedAt = entry.value.getSourceClusterTime();
                // Unsigned: a BSON timestamp's seconds are unsigned, so from 2038 the value is negative as a long.
                if (clusterTime == null || changedAt == null || Long.compareUnsigned(changedAt, clusterTime) <= 0) {
                    // Deleting behind a RocksDB iterator is safe: the iterator reads a consistent view.
                    delete(key(entry.key, entry.value));
                    index.delete(entry.key);
                    count++;
                }
            }
        }
        return count;
    }

    /**
     * What {@link #drainDue} hands each due entry to, in due order, while {@link #more} allows. The handler of a due
     * entry removes it, moves it to a time after now, or, for a passed deadline whose first command it emitted, calls
     * {@link #firstCommandOut}; the next drain goes on after the last entry handed over.
     */
    public interface DueHandler {

        /** Whether the run may handle one more entry. */
        boolean more();

        /** The deadline of the {@link EntryState#SCHEDULED} entry {@code due}, as stored, has passed. */
        void deadlinePassed(DocumentEntry due, ScheduleEntry entry);

        /** The confirmation awaited for the entry {@code due}, as it stands, is overdue. */
        void confirmationOverdue(DocumentEntry due, ScheduleEntry entry);
    }

    /** What {@link #drainNotices} hands each due notice to; the notice is gone by then. */
    @FunctionalInterface
    public interface NoticeHandler {

        /**
         * The notice of the document's deadline, due at {@code noticeAt}, came due; {@code current} when the document
         * still has that deadline entry (on the deadlines timeline, computed from the same values), else the notice
         * is stale and to be dropped unsent.
         */
        void noticeDue(Bytes documentRef, ScheduleEntry notice, long noticeAt, boolean current);
    }

    /**
     * Drains what is due at {@code nowMs}, within what the handler allows: the passed deadlines, then the entries whose
     * first command went out at or before {@code firstEmittedBy} (now less the first confirmation wait) without a
     * confirmation, then the confirmations timeline's due entries, each in due order. What is left waits for the next
     * drain.
     */
    public void drainDue(long nowMs, long firstEmittedBy, DueHandler handler) {
        drain(
                due(Timeline.DEADLINES, nowMs),
                handler::more,
                handler::deadlinePassed,
                this::passed,
                () -> drained(Timeline.DEADLINES, nowMs));
        deadlineScanEnded();
        drain(
                firstConfirmationsDue(firstEmittedBy),
                handler::more,
                handler::confirmationOverdue,
                key -> firstConfirmationsFrom = EmittedDeadlines.successor(key),
                () -> firstConfirmationsDrained(firstEmittedBy));
        drain(
                due(Timeline.CONFIRMATIONS, nowMs),
                handler::more,
                handler::confirmationOverdue,
                this::passed,
                () -> drained(Timeline.CONFIRMATIONS, nowMs));
    }

    /**
     * Hands the notices due at {@code nowMs} to {@code handler}, removing each, in due order while {@code more}
     * allows.
     */
    public void drainNotices(long nowMs, BooleanSupplier more, NoticeHandler handler) {
        try (KeyValueIterator<Bytes, ScheduleEntry> due = due(Timeline.NOTICES, nowMs)) {
            while (more.getAsBoolean() && due.hasNext()) {
                KeyValue<Bytes, ScheduleEntry> next = due.next();
                schedule.delete(next.key);
                Bytes ref = ScheduleKey.documentRefOf(next.key);
                DocumentEntry current = find(ref);
                handler.noticeDue(
                        ref,
                        next.value,
                        ScheduleKey.dueAtOf(next.key),
                        current != null && current.state() == EntryState.SCHEDULED && current.computedFrom(next.value));
                passed(next.key);
            }
            if (!due.hasNext()) {
                drained(Timeline.NOTICES, nowMs);
            }
        }
    }

    /**
     * Hands each entry of {@code scan} over as it stands while {@code more}, tells the scan's cursor, and {@code
     * drained} at its end; a null scan has no entries.
     */
    private void drain(
            KeyValueIterator<Bytes, ScheduleEntry> scan,
            BooleanSupplier more,
            BiConsumer<DocumentEntry, ScheduleEntry> handle,
            Consumer<Bytes> passed,
            Runnable drained) {
        if (scan == null) {
            drained.run();
            return;
        }
        try (KeyValueIterator<Bytes, ScheduleEntry> due = scan) {
            while (more.getAsBoolean() && due.hasNext()) {
                KeyValue<Bytes, ScheduleEntry> next = due.next();
                handle.accept(handed(next.key), emitted().asItStands(next.key, next.value));
                passed.accept(next.key);
            }
            if (!due.hasNext()) {
                drained.run();
            }
        }
    }

    /** The entry at {@code scheduleKey}, found by a scan or a walk, in its state. */
    private DocumentEntry handed(Bytes scheduleKey) {
        return new DocumentEntry(
                ScheduleKey.documentRefOf(scheduleKey), scheduleKey, EntryState.at(scheduleKey, emitted()), null);
    }

    /**
     * The entries of {@code timeline} due at {@code nowMs}, oldest first. The caller handles them in order — removes
     * each, or moves it to a time after {@code nowMs} — and tells each one {@link #passed}; it stops whenever its
     * budget is spent, calls {@link #drained} if it reached the end, and closes the iterator. What {@link #drainDue}
     * does.
     */
    KeyValueIterator<Bytes, ScheduleEntry> due(Timeline timeline, long nowMs) {
        Bytes from = ScheduleKey.lowerBound(timeline, scanFrom[timeline.ordinal()]);
        if (timeline == Timeline.DEADLINES) {
            Bytes scheduled = EntryState.SCHEDULED.firstKey(emitted());
            if (scheduled.compareTo(from) > 0) {
                from = scheduled;
            }
        }
        return schedule.range(from, ScheduleKey.dueUpperBound(timeline, nowMs));
    }

    /**
     * The entry at {@code scheduleKey}, handed to {@link DueHandler#deadlinePassed} as stored, had its first command
     * emitted at {@code nowMs}: it stays where it is, awaiting its first confirmation.
     */
    void awaitFirstConfirmation(Bytes scheduleKey, long nowMs) {
        emitted().emittedInPlace(scheduleKey, nowMs);
    }

    /**
     * The emitted deadlines whose first command went out at or before {@code emittedBy} (now less the first
     * confirmation wait), in key order, as stored (their first command is not counted: {@link #entryOf}), null when
     * there are none: their first confirmation is overdue. The caller handles them as it handles due entries of the
     * confirmations timeline — each leaves the deadlines timeline — tells each one {@link #passed}, calls {@link
     * #firstConfirmationsDrained} if it reached the end, and closes the iterator.
     */
    KeyValueIterator<Bytes, ScheduleEntry> firstConfirmationsDue(long emittedBy) {
        Bytes through = emitted().emittedBy(emittedBy);
        Bytes from = firstConfirmationsFrom == null
                ? ScheduleKey.lowerBound(Timeline.DEADLINES, Long.MIN_VALUE)
                : firstConfirmationsFrom;
        return through == null || from.compareTo(through) > 0 ? null : schedule.range(from, through);
    }

    /**
     * Tells that every emitted deadline of {@link #firstConfirmationsDue}{@code (emittedBy)} was handled: the
     * checkpoints that covered them go.
     */
    void firstConfirmationsDrained(long emittedBy) {
        Bytes through = emitted().emittedBy(emittedBy);
        if (through != null) {
            emitted().leftThrough(through);
            firstConfirmationsFrom = EmittedDeadlines.successor(through);
        }
    }

    /**
     * Ends a scan of the deadlines timeline, whether or not it reached the end: one checkpoint for the entries it
     * left {@link #awaitFirstConfirmation awaiting their first confirmation}, if any. Before any scan for overdue
     * first confirmations.
     */
    void deadlineScanEnded() {
        emitted().checkpoint();
    }

    /** Tells that every entry of {@code timeline} due at {@code nowMs} was handled: the next scan starts after it. */
    void drained(Timeline timeline, long nowMs) {
        if (nowMs < Long.MAX_VALUE) {
            scanFrom[timeline.ordinal()] = Math.max(scanFrom[timeline.ordinal()], nowMs + 1);
        }
    }

    /**
     * Puts a notice of the document's deadline entry, due at {@code noticeAt}, on the {@link Timeline#NOTICES
     * notices} timeline, where {@link #drainNotices} finds it; the document's entry is left alone.
     */
    public void putNotice(Bytes documentRef, long noticeAt, ScheduleEntry entry) {
        schedule.put(ScheduleKey.of(Timeline.NOTICES, noticeAt, documentRef), entry);
        scanFrom[Timeline.NOTICES.ordinal()] = Math.min(scanFrom[Timeline.NOTICES.ordinal()], noticeAt);
    }

    /** Starts a walk over every entry of the schedule ({@link #walk}), from its first key. */
    public void startWalk() {
        walkFrom = ScheduleKey.lowerBound(Timeline.values()[0], Long.MIN_VALUE);
    }

    /** Whether a walk is started and not yet at its end. */
    public boolean walking() {
        return walkFrom != null;
    }

    /**
     * Goes on with the walk ({@link #startWalk}), handing {@code each} entry, as it stands, in key order (timelines
     * one after another) while {@code more} allows; the handler may move or remove it. Returns true when the walk
     * reached the end of the schedule, which ends it.
     */
    public boolean walk(BooleanSupplier more, BiConsumer<DocumentEntry, ScheduleEntry> each) {
        // Up to the notices, which are copies of entries, not entries of their own.
        drain(
                schedule.range(walkFrom, ScheduleKey.lowerBound(Timeline.NOTICES, Long.MIN_VALUE)),
                more,
                each,
                key -> walkFrom = EmittedDeadlines.successor(key),
                () -> walkFrom = null);
        return walkFrom == null;
    }

    /** Hands {@code each} entry awaiting approval, in due order; the handler may move or remove it. */
    public void forEachAwaitingApproval(BiConsumer<DocumentEntry, ScheduleEntry> each) {
        Timeline timeline = Timeline.AWAITING_APPROVAL;
        drain(
                schedule.range(
                        ScheduleKey.lowerBound(timeline, Long.MIN_VALUE),
                        ScheduleKey.dueUpperBound(timeline, Long.MAX_VALUE)),
                () -> true,
                each,
                key -> {},
                () -> {});
    }

    /**
     * The entries of {@code rule} held for approval, less the one of document {@code besides} (the document whose
     * entry is about to be replaced: its change is evaluated again like any other).
     */
    public long held(String rule, Bytes besides) {
        long count = held.count(rule);
        IndexEntry position = count == 0 ? null : index.get(besides);
        if (position != null && Timeline.of(position.getTimeline()) == Timeline.AWAITING_APPROVAL) {
            ScheduleEntry own = schedule.get(key(besides, position));
            if (own != null && own.getRule().equals(rule)) {
                count--;
            }
        }
        return count;
    }

    /** Each rule's holds in this task: its held entries counted, with bounds of their deadlines. */
    public List<KeyValue<String, HeldCount>> holds() {
        return HeldCounts.all(task);
    }

    /** Deletes the entry at {@code scheduleKey}, counting it out of its rule's held ones when it was held. */
    private void delete(Bytes scheduleKey) {
        if (ScheduleKey.timelineOf(scheduleKey) != Timeline.AWAITING_APPROVAL) {
            // A null put writes the same tombstone as a delete, without the store reading and decoding the value it
            // deletes, which only a held entry's counts need (a third of a confirmation's removal, in its profile).
            schedule.put(scheduleKey, null);
            return;
        }
        ScheduleEntry deleted = schedule.delete(scheduleKey);
        if (deleted != null) {
            held.removed(deleted.getRule());
        }
    }

    private void write(Bytes documentRef, Timeline timeline, long dueAt, ScheduleEntry entry, Long clusterTime) {
        if (timeline == Timeline.NOTICES) {
            throw new IllegalArgumentException("A document's entry is never a notice: putNotice puts a copy");
        }
        Bytes key = ScheduleKey.of(timeline, dueAt, documentRef);
        if (timeline == Timeline.DEADLINES) {
            Bytes placed = emitted().placed(key, documentRef);
            if (placed != key) {
                key = placed;
                dueAt = ScheduleKey.dueAtOf(key);
            }
        }
        schedule.put(key, entry);
        if (timeline == Timeline.AWAITING_APPROVAL) {
            held.added(entry.getRule(), dueAt);
        }
        index.put(
                documentRef,
                new IndexEntry(timeline.ordinal(), Instant.ofEpochMilli(dueAt), clusterTime, fingerprint(entry)));
        scanFrom[timeline.ordinal()] = Math.min(scanFrom[timeline.ordinal()], dueAt);
    }

    /**
     * Tells that the due entry at {@code scheduleKey} was handled: due entries are handled in key order, so nothing on
     * its timeline before it is left. Only for entries from {@link #due}, never from a {@link #walk}.
     */
    void passed(Bytes scheduleKey) {
        Timeline timeline = ScheduleKey.timelineOf(scheduleKey);
        scanFrom[timeline.ordinal()] = Math.max(scanFrom[timeline.ordinal()], ScheduleKey.dueAtOf(scheduleKey));
    }

    private static Bytes key(Bytes documentRef, IndexEntry position) {
        return ScheduleKey.of(
                Timeline.of(position.getTimeline()), position.getDueAt().toEpochMilli(), documentRef);
    }

    /** FNV-1a from {@code hash} over what remains of {@code bytes}, leaving their position where it is. */
    static long fnv1a(long hash, ByteBuffer bytes) {
        for (int i = bytes.position(); i < bytes.limit(); i++) {
            hash = (hash ^ (bytes.get(i) & 0xff)) * FNV_PRIME;
        }
        return hash;
    }

    private static long mix(long hash, long value) {
        for (int shift = 0; shift < Long.SIZE; shift += Byte.SIZE) {
            hash = (hash ^ ((value >>> shift) & 0xff)) * FNV_PRIME;
        }
        return hash;
    }

    private static long mix(long hash, byte[] bytes) {
        // The length ends the field, so that ("ab", "c") and ("a", "bc") differ.
        return mix(fnv1a(hash, ByteBuffer.wrap(bytes)), bytes.length);
    }
}
