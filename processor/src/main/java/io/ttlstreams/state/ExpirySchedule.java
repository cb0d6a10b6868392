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
import java.util.NoSuchElementException;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The expiry schedule over its two stores, keeping them consistent: every document has at most one entry in {@code
 * schedule} (keyed by timeline, due time, then document) and the {@code index} entry that points to it. Updates move
 * the entry with point lookups; finding due entries is a range scan of one timeline up to "now", never a scan of the
 * whole store.
 *
 * <p>The scan of each timeline starts where the last one left off, not at its lowest key: every expiry deletes the
 * head of the key space, and RocksDB would otherwise step over all those tombstones, until the next compaction, on
 * every punctuation. The positions are kept in memory, lowered by any entry put before them, and start at the lowest
 * key when the task (re)starts; so one instance must be the only writer of its stores, as the task's scheduler is.
 *
 * <p>It is the one writer of the task's {@code task} store, which holds its own records, never a document's: the
 * namespace dictionary ({@link NamespaceIds}), the emission checkpoints ({@link EmittedDeadlines}) and what each rule
 * holds for approval ({@link HeldCounts}), all written in the same transaction as the entries they describe.
 *
 * <p>Every entry is in one {@link EntryState lifecycle state}, which {@link #find} and {@link #stateAt} give by
 * the one rule of {@link EntryState#at}. A first delete command moves nothing: its entry stays on the deadlines
 * timeline ({@link #awaitFirstConfirmation}), and the scan's position, kept in a few checkpoints ({@link
 * EmittedDeadlines}, whose javadoc states the invariant), says that every deadline at or before it was emitted; {@link
 * #entryOf} answers for such an entry as it stands (attempt 1, emitted at its checkpoint's time). {@link #drainDue}
 * finds those whose first confirmation is overdue by a range of the deadlines timeline, up to the last checkpoint old
 * enough. Only then, or when its document changes, does the entry move: so emitting writes one checkpoint per
 * punctuation instead of a tombstone, an entry and an index entry per command. Callers see none of it: they drain
 * what is due with {@link #drainDue} and {@link #drainNotices}, and the positions, cursors and checkpoints stay
 * here.
 */
public final class ExpirySchedule {

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
        long hash = 0xcbf29ce484222325L;
        hash = mix(hash, entry.getRule().getBytes(StandardCharsets.UTF_8));
        hash = mix(hash, entry.getRuleShape());
        hash = mix(hash, entry.getBase().toEpochMilli());
        hash = mix(hash, entry.getOffsetSeconds());
        hash = mix(hash, entry.getOffsetFromRule() ? 1 : 0);
        ByteBuffer condition = entry.getCondition().duplicate();
        while (condition.hasRemaining()) {
            hash = (hash ^ (condition.get() & 0xff)) * 0x100000001b3L;
        }
        if (entry.getDocumentKey() != null) {
            ByteBuffer key = entry.getDocumentKey().duplicate();
            while (key.hasRemaining()) {
                hash = (hash ^ (key.get() & 0xff)) * 0x100000001b3L;
            }
        }
        return hash;
    }

    /** The document's entry, where it is and its state; null when it has none. */
    public DocumentEntry find(Bytes documentRef) {
        IndexEntry position = index.get(documentRef);
        if (position == null) {
            return null;
        }
        Bytes key = key(documentRef, position);
        return new DocumentEntry(documentRef, position, key, EntryState.at(key, emitted()));
    }

    /**
     * The document's entry {@code found} as it stands (one awaiting its first confirmation counts its first command);
     * null if the stores disagree, which they must not.
     */
    public ScheduleEntry entryOf(DocumentEntry found) {
        return emitted().asItStands(found.key(), schedule.get(found.key()));
    }

    /** The lifecycle state of the entry at {@code scheduleKey}, found by a scan or a walk ({@link EntryState#at}). */
    public EntryState stateAt(Bytes scheduleKey) {
        return EntryState.at(scheduleKey, emitted());
    }

    /**
     * Puts the document's entry, replacing the one at {@code previous}. A deadline at or before the emitted position
     * (due on arrival, or renewed to a passed deadline) is put just after it instead, 1 ms after the last deadline
     * emitted, so that it never reads as emitted ({@link EmittedDeadlines}' invariant): later than its deadline, never
     * earlier, and due at the next drain.
     *
     * @param previous the document's entry ({@link #find}), or null when it has none
     * @param clusterTime the clusterTime of the event that set the entry, or null
     */
    public void put(
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

    /**
     * Moves an entry handed over by a drain ({@link #drainDue}) or a walk ({@link #walkFrom}) to another timeline or due time, keeping the
     * source clusterTime the index holds.
     */
    public void move(Bytes scheduleKey, Timeline timeline, long dueAt, ScheduleEntry entry) {
        delete(scheduleKey);
        Bytes ref = ScheduleKey.documentRefOf(scheduleKey);
        IndexEntry position = index.get(ref);
        write(ref, timeline, dueAt, entry, position == null ? null : position.getSourceClusterTime());
    }

    /** Removes the document's entry; returns where it was, or null when it had none. */
    public IndexEntry remove(Bytes documentRef) {
        IndexEntry previous = index.delete(documentRef);
        if (previous != null) {
            delete(key(documentRef, previous));
        }
        return previous;
    }

    /** Removes an entry handed over by a drain ({@link #drainDue}) or a walk ({@link #walkFrom}), and its index entry. */
    public void removeAt(Bytes scheduleKey) {
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
     * What a drain ({@link #drainDue}, {@link #drainNotices}) hands each due entry to, in due order, while {@link
     * #more} allows. The handler of a due entry removes it ({@link #removeAt}), moves it to a time after now ({@link
     * #move}), or, for a passed deadline whose first command it emitted, leaves it awaiting its first confirmation
     * ({@link #awaitFirstConfirmation}); the next drain goes on after the last entry handed over.
     */
    public interface DueHandler {

        /** Whether the run may handle one more entry. */
        boolean more();

        /** The deadline of the entry at {@code scheduleKey}, as stored, has passed (for notices: the notice is due). */
        void deadlinePassed(Bytes scheduleKey, ScheduleEntry entry);

        /** The confirmation awaited for the entry at {@code scheduleKey}, as it stands, is overdue. */
        void confirmationOverdue(Bytes scheduleKey, ScheduleEntry entry);
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
     * Hands the notices due at {@code nowMs} to {@code notice}, which removes each ({@link #removeNotice}), in due
     * order while {@code more} allows.
     */
    public void drainNotices(long nowMs, BooleanSupplier more, BiConsumer<Bytes, ScheduleEntry> notice) {
        drain(due(Timeline.NOTICES, nowMs), more, notice, this::passed, () -> drained(Timeline.NOTICES, nowMs));
    }

    /** Hands each entry of {@code scan} over while {@code more}, tells the scan's cursor, and {@code drained} at its end. */
    private static void drain(
            KeyValueIterator<Bytes, ScheduleEntry> scan,
            BooleanSupplier more,
            BiConsumer<Bytes, ScheduleEntry> handle,
            Consumer<Bytes> passed,
            Runnable drained) {
        try (KeyValueIterator<Bytes, ScheduleEntry> due = scan) {
            while (more.getAsBoolean() && due.hasNext()) {
                KeyValue<Bytes, ScheduleEntry> next = due.next();
                handle.accept(next.key, next.value);
                passed.accept(next.key);
            }
            if (!due.hasNext()) {
                drained.run();
            }
        }
    }

    /**
     * The entries of {@code timeline} due at {@code nowMs}, oldest first. The caller handles them in order — removes
     * each, or moves it to a time after {@code nowMs} — and tells each one {@link #passed}; it stops whenever its
     * budget is spent, calls {@link #drained} if it reached the end, and closes the iterator. What {@link #drainDue}
     * does.
     */
    KeyValueIterator<Bytes, ScheduleEntry> due(Timeline timeline, long nowMs) {
        Bytes from = ScheduleKey.lowerBound(timeline, scanFrom[timeline.ordinal()]);
        Bytes afterEmitted = timeline == Timeline.DEADLINES ? emitted().scanStart() : null;
        if (afterEmitted != null && afterEmitted.compareTo(from) > 0) {
            from = afterEmitted;
        }
        return schedule.range(from, ScheduleKey.dueUpperBound(timeline, nowMs));
    }

    /**
     * The entry at {@code scheduleKey}, handed to {@link DueHandler#deadlinePassed} as stored, had its first command
     * emitted at {@code nowMs}: it stays where it is, awaiting its first confirmation.
     */
    public void awaitFirstConfirmation(Bytes scheduleKey, long nowMs) {
        emitted().emittedInPlace(scheduleKey, nowMs);
    }

    /**
     * The emitted deadlines whose first command went out at or before {@code emittedBy} (now less the first
     * confirmation wait), in key order, as they stand (see {@link #entryOf}): their first confirmation is overdue. The
     * caller handles them as it handles due entries of the confirmations timeline — each leaves the deadlines
     * timeline — tells each one {@link #passed}, calls {@link #firstConfirmationsDrained} if it reached the end, and
     * closes the iterator.
     */
    KeyValueIterator<Bytes, ScheduleEntry> firstConfirmationsDue(long emittedBy) {
        Bytes through = emitted().emittedBy(emittedBy);
        Bytes from = firstConfirmationsFrom == null
                ? ScheduleKey.lowerBound(Timeline.DEADLINES, Long.MIN_VALUE)
                : firstConfirmationsFrom;
        if (through == null || from.compareTo(through) > 0) {
            return new AsItStands(null, emitted());
        }
        return new AsItStands(schedule.range(from, through), emitted());
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
     * notices} timeline; the index is left alone.
     */
    public void putNotice(Bytes documentRef, long noticeAt, ScheduleEntry entry) {
        schedule.put(ScheduleKey.of(Timeline.NOTICES, noticeAt, documentRef), entry);
        scanFrom[Timeline.NOTICES.ordinal()] = Math.min(scanFrom[Timeline.NOTICES.ordinal()], noticeAt);
    }

    /** Removes a notice handed over by {@link #drainNotices}, leaving the document's entry and index alone. */
    public void removeNotice(Bytes noticeKey) {
        schedule.delete(noticeKey);
    }

    /**
     * Whether {@code notice} is of the deadline entry the document still has: on the deadlines timeline, computed
     * from the same values (its fingerprint).
     */
    public boolean isCurrent(Bytes documentRef, ScheduleEntry notice) {
        DocumentEntry current = find(documentRef);
        return current != null
                && current.state() == EntryState.SCHEDULED
                && current.position().getFingerprint() == fingerprint(notice);
    }

    /**
     * Every entry from {@code fromKey} (inclusive) to the end of the schedule, in key order: timelines one after
     * another, for the walk that reconciles the schedule with changed rules.
     */
    public KeyValueIterator<Bytes, ScheduleEntry> walkFrom(Bytes fromKey) {
        // Up to the notices, which are copies of entries, not entries of their own.
        return new AsItStands(
                schedule.range(fromKey, ScheduleKey.lowerBound(Timeline.NOTICES, Long.MIN_VALUE)), emitted());
    }

    /** Every entry of {@code timeline}, in due order. */
    public KeyValueIterator<Bytes, ScheduleEntry> all(Timeline timeline) {
        return schedule.range(
                ScheduleKey.lowerBound(timeline, Long.MIN_VALUE), ScheduleKey.dueUpperBound(timeline, Long.MAX_VALUE));
    }

    /** The first key of the schedule's key space, where a walk starts. */
    public static Bytes walkStart() {
        return ScheduleKey.lowerBound(Timeline.values()[0], Long.MIN_VALUE);
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
        if (timeline == Timeline.DEADLINES && emitted().emitted(key)) {
            // Never at or before the emitted position, which would read as emitted (see EmittedDeadlines): just after.
            dueAt = emitted().afterPosition();
            key = ScheduleKey.of(timeline, dueAt, documentRef);
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
     * its timeline before it is left. Only for entries from {@link #due}, never from a {@link #walkFrom walk}.
     */
    void passed(Bytes scheduleKey) {
        Timeline timeline = ScheduleKey.timelineOf(scheduleKey);
        scanFrom[timeline.ordinal()] = Math.max(scanFrom[timeline.ordinal()], ScheduleKey.dueAtOf(scheduleKey));
    }

    private static Bytes key(Bytes documentRef, IndexEntry position) {
        return ScheduleKey.of(
                Timeline.of(position.getTimeline()), position.getDueAt().toEpochMilli(), documentRef);
    }

    private static long mix(long hash, long value) {
        for (int shift = 0; shift < Long.SIZE; shift += Byte.SIZE) {
            hash = (hash ^ ((value >>> shift) & 0xff)) * 0x100000001b3L;
        }
        return hash;
    }

    private static long mix(long hash, byte[] bytes) {
        for (byte b : bytes) {
            hash = (hash ^ (b & 0xff)) * 0x100000001b3L;
        }
        // The length ends the field, so that ("ab", "c") and ("a", "bc") differ.
        return mix(hash, bytes.length);
    }

    /** A scan's entries as they stand ({@link EmittedDeadlines#asItStands}); none for a null scan. */
    private static final class AsItStands implements KeyValueIterator<Bytes, ScheduleEntry> {

        private final KeyValueIterator<Bytes, ScheduleEntry> scan;
        private final EmittedDeadlines emitted;

        AsItStands(KeyValueIterator<Bytes, ScheduleEntry> scan, EmittedDeadlines emitted) {
            this.scan = scan;
            this.emitted = emitted;
        }

        @Override
        public boolean hasNext() {
            return scan != null && scan.hasNext();
        }

        @Override
        public KeyValue<Bytes, ScheduleEntry> next() {
            if (scan == null) {
                throw new NoSuchElementException();
            }
            KeyValue<Bytes, ScheduleEntry> next = scan.next();
            return KeyValue.pair(next.key, emitted.asItStands(next.key, next.value));
        }

        @Override
        public Bytes peekNextKey() {
            if (scan == null) {
                throw new NoSuchElementException();
            }
            return scan.peekNextKey();
        }

        @Override
        public void close() {
            if (scan != null) {
                scan.close();
            }
        }
    }
}
