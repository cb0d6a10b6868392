package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.HeldCount;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.state.ScheduleKey.Timeline;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.bson.BsonDocument;
import org.bson.BsonInt32;

/**
 * A stateful model test of {@link ExpirySchedule} over real RocksDB stores: random sequences of what the processor
 * does to it — put, reschedule, remove, drop a namespace, drain due entries within a budget (removing or moving them
 * later, as emission and confirmation do), move entries earlier outside a due scan (as the rule walk does) — checked
 * after every step against a {@link TreeMap} model. The invariant that matters most: a due scan of any timeline
 * returns exactly the model's entries due on it, so the remembered scan start ({@code scanFrom}) never skips one. And
 * the schedule counts what it holds for approval: each rule's held count is the model's entries of the rule on the
 * awaiting-approval timeline, their earliest and latest deadline bounding them.
 */
class ExpiryScheduleModelTest {

    private static final List<Namespace> NAMESPACES =
            List.of(Namespace.parse("app.s"), Namespace.parse("app.sessions"), Namespace.parse("other.x"));

    /** The namespaces' ids, as a task seeing them in order would give them. */
    private static final Map<Namespace, Bytes> PREFIXES = Map.of(
            NAMESPACES.get(0), DocumentRef.collectionPrefix(0, 0),
            NAMESPACES.get(1), DocumentRef.collectionPrefix(0, 1),
            NAMESPACES.get(2), DocumentRef.collectionPrefix(1, 0));

    private static Path stateDir;
    private static StoreHarness harness;

    @BeforeContainer
    static void openStores() throws IOException {
        stateDir = Files.createTempDirectory("expiry-schedule-model");
        harness = new StoreHarness(stateDir, ScheduleStores.schedule(), ScheduleStores.index(), ScheduleStores.task());
    }

    @AfterContainer
    static void closeStores() throws IOException {
        harness.close();
        Utils.delete(stateDir.toFile());
    }

    @Property(tries = 60)
    void shouldBehaveLikeASortedMap(@ForAll("chains") ActionChain<Harness> chain) {
        chain.withInvariant("matches the model", Harness::check).run();
    }

    @Provide
    Arbitrary<ActionChain<Harness>> chains() {
        return ActionChain.<Harness>startWith(Harness::new)
                .withAction(3, new Put())
                .withAction(1, new Remove())
                .withAction(1, new RemoveNamespace())
                .withAction(3, new Drain())
                .withAction(2, new EmitInPlace())
                .withAction(1, new MoveOutsideScan())
                .withMaxTransformations(40);
    }

    /** The schedule under test, its stores emptied, and the model. */
    static final class Harness {
        final KeyValueStore<Bytes, ScheduleEntry> scheduleStore = harness.store(ScheduleStores.SCHEDULE);
        final KeyValueStore<Bytes, IndexEntry> indexStore = harness.store(ScheduleStores.INDEX);
        final KeyValueStore<Bytes, TaskRecord> taskStore = harness.store(ScheduleStores.TASK);
        final ExpirySchedule schedule;
        /** Schedule key to entry, in the stores' order. */
        final TreeMap<Bytes, ScheduleEntry> model = new TreeMap<>();
        /** Document reference to its schedule key. */
        final Map<Bytes, Bytes> positions = new HashMap<>();

        long now = 1_000;
        /** The last deadline key emitted in place: it and the deadlines before it await confirmation. */
        Bytes emittedThrough;

        Harness() {
            clear(scheduleStore);
            clear(indexStore);
            clear(taskStore);
            schedule = new ExpirySchedule(scheduleStore, indexStore, taskStore);
        }

        private static <V> void clear(KeyValueStore<Bytes, V> store) {
            List<Bytes> keys = new ArrayList<>();
            try (KeyValueIterator<Bytes, V> all = store.all()) {
                all.forEachRemaining(entry -> keys.add(entry.key));
            }
            keys.forEach(store::delete);
        }

        /** Where the schedule puts an entry: a deadline at or before the emitted position just after it. */
        long placed(Timeline timeline, long dueAt, Bytes ref) {
            if (timeline == Timeline.DEADLINES
                    && emittedThrough != null
                    && ScheduleKey.of(timeline, dueAt, ref).compareTo(emittedThrough) <= 0) {
                return ScheduleKey.dueAtOf(emittedThrough) + 1;
            }
            return dueAt;
        }

        boolean emitted(Bytes key) {
            return ScheduleKey.timelineOf(key) == Timeline.DEADLINES
                    && emittedThrough != null
                    && key.compareTo(emittedThrough) <= 0;
        }

        void put(Bytes ref, Timeline timeline, long requestedAt, ScheduleEntry entry) {
            schedule.put(ref, schedule.find(ref), timeline, requestedAt, entry, null);
            long dueAt = placed(timeline, requestedAt, ref);
            Bytes previous = positions.put(ref, ScheduleKey.of(timeline, dueAt, ref));
            if (previous != null) {
                model.remove(previous);
            }
            model.put(ScheduleKey.of(timeline, dueAt, ref), entry);
        }

        void check() {
            assertThat(contents(scheduleStore)).isEqualTo(model);
            Map<Bytes, Bytes> indexed = new HashMap<>();
            try (KeyValueIterator<Bytes, IndexEntry> all = indexStore.all()) {
                all.forEachRemaining(entry -> {
                    indexed.put(
                            entry.key,
                            ScheduleKey.of(
                                    Timeline.of(entry.value.getTimeline()),
                                    entry.value.getDueAt().toEpochMilli(),
                                    entry.key));
                    EntryState expected = switch (Timeline.of(entry.value.getTimeline())) {
                        case DEADLINES ->
                            emitted(indexed.get(entry.key))
                                    ? EntryState.AWAITING_FIRST_CONFIRMATION
                                    : EntryState.SCHEDULED;
                        case CONFIRMATIONS -> EntryState.AWAITING_CONFIRMATION;
                        case HELD -> EntryState.HELD;
                        case AWAITING_APPROVAL -> EntryState.AWAITING_APPROVAL;
                        case NOTICES -> throw new AssertionError("a document's entry on the notices timeline");
                    };
                    assertThat(schedule.find(entry.key).state()).isEqualTo(expected);
                });
            }
            assertThat(indexed).isEqualTo(positions);
            assertThat(keysOf(schedule.firstConfirmationsDue(Long.MAX_VALUE)))
                    .as("emitted, awaiting their first confirmation")
                    .containsExactlyElementsOf(
                            model.keySet().stream().filter(this::emitted).toList());
            for (Timeline timeline : Timeline.values()) {
                assertThat(keysOf(schedule.due(timeline, now)))
                        .as("due on %s at %d", timeline, now)
                        .containsExactlyElementsOf(dueInModel(timeline, now));
            }
            Bytes nobody =
                    DocumentRef.of(DocumentRef.collectionPrefix(2, 0), new BsonDocument("_id", new BsonInt32(0)));
            for (int variant = 0; variant < 10; variant++) {
                String rule = "r" + variant;
                List<Long> held = model.entrySet().stream()
                        .filter(entry -> ScheduleKey.timelineOf(entry.getKey()) == Timeline.AWAITING_APPROVAL
                                && entry.getValue().getRule().equals(rule))
                        .map(entry -> ScheduleKey.dueAtOf(entry.getKey()))
                        .toList();
                assertThat(schedule.held(rule, nobody)).as("held of %s", rule).isEqualTo(held.size());
                HeldCount counts = schedule.holds().stream()
                        .filter(hold -> hold.key.equals(rule))
                        .map(hold -> hold.value)
                        .findFirst()
                        .orElse(null);
                if (held.isEmpty()) {
                    assertThat(counts).as("no record of %s", rule).isNull();
                } else {
                    assertThat(counts.getCount()).isEqualTo(held.size());
                    assertThat(counts.getEarliest().toEpochMilli()).isLessThanOrEqualTo(Collections.min(held));
                    assertThat(counts.getLatest().toEpochMilli()).isGreaterThanOrEqualTo(Collections.max(held));
                }
                for (Bytes ref : positions.keySet()) {
                    Bytes key = positions.get(ref);
                    boolean own = ScheduleKey.timelineOf(key) == Timeline.AWAITING_APPROVAL
                            && model.get(key).getRule().equals(rule);
                    assertThat(schedule.held(rule, ref)).isEqualTo(held.size() - (own ? 1 : 0));
                }
            }
        }

        List<Bytes> dueInModel(Timeline timeline, long at) {
            return model
                    .subMap(
                            ScheduleKey.lowerBound(timeline, Long.MIN_VALUE), true,
                            ScheduleKey.dueUpperBound(timeline, at), true)
                    .keySet()
                    .stream()
                    .filter(key -> !emitted(key))
                    .toList();
        }

        private static TreeMap<Bytes, ScheduleEntry> contents(KeyValueStore<Bytes, ScheduleEntry> store) {
            TreeMap<Bytes, ScheduleEntry> contents = new TreeMap<>();
            try (KeyValueIterator<Bytes, ScheduleEntry> all = store.all()) {
                all.forEachRemaining(entry -> contents.put(entry.key, entry.value));
            }
            return contents;
        }

        private static List<Bytes> keysOf(KeyValueIterator<Bytes, ScheduleEntry> entries) {
            List<Bytes> keys = new ArrayList<>();
            if (entries == null) {
                return keys;
            }
            try (entries) {
                entries.forEachRemaining(entry -> keys.add(entry.key));
            }
            return keys;
        }
    }

    private static Arbitrary<Bytes> refs() {
        // Few documents, so that actions meet the same ones again.
        return Combinators.combine(
                        Arbitraries.of(NAMESPACES), Arbitraries.integers().between(1, 6))
                .as((namespace, id) ->
                        DocumentRef.of(PREFIXES.get(namespace), new BsonDocument("_id", new BsonInt32(id))));
    }

    private static ScheduleEntry entry(int variant) {
        return new ScheduleEntry(
                "r" + variant,
                7L,
                Instant.ofEpochMilli(variant),
                0L,
                true,
                ByteBuffer.wrap(new byte[] {5, 0, 0, 0, 0}),
                variant % 3,
                null,
                null);
    }

    private static final class Put implements Action.Independent<Harness> {
        @Override
        public Arbitrary<Transformer<Harness>> transformer() {
            return Combinators.combine(
                            refs(),
                            // A document's entry is never put on the notices timeline: a notice is a copy of one.
                            Arbitraries.of(Timeline.class).filter(timeline -> timeline != Timeline.NOTICES),
                            Arbitraries.longs().between(-20, 120),
                            Arbitraries.integers().between(0, 9))
                    .as((ref, timeline, offset, variant) -> Transformer.mutate(
                            "put " + ref + " on " + timeline + " at now" + (offset < 0 ? "" : "+") + offset,
                            harness -> harness.put(ref, timeline, harness.now + offset, entry(variant))));
        }
    }

    private static final class Remove implements Action.Independent<Harness> {
        @Override
        public Arbitrary<Transformer<Harness>> transformer() {
            return refs().map(ref -> Transformer.mutate("remove " + ref, harness -> {
                DocumentEntry found = harness.schedule.find(ref);
                Bytes key = harness.positions.remove(ref);
                assertThat(found != null).isEqualTo(key != null);
                if (key != null) {
                    harness.schedule.remove(found);
                    harness.model.remove(key);
                }
            }));
        }
    }

    private static final class RemoveNamespace implements Action.Independent<Harness> {
        @Override
        public Arbitrary<Transformer<Harness>> transformer() {
            return Arbitraries.of(NAMESPACES)
                    .map(namespace -> Transformer.mutate("drop " + namespace, harness -> {
                        int removed = harness.schedule.removeAll(PREFIXES.get(namespace), null);
                        List<Bytes> refs = harness.positions.keySet().stream()
                                .filter(ref -> DocumentRef.databaseIdOf(ref)
                                                == DocumentRef.databaseIdOf(PREFIXES.get(namespace))
                                        && DocumentRef.collectionIdOf(ref)
                                                == DocumentRef.collectionIdOf(PREFIXES.get(namespace)))
                                .toList();
                        assertThat(removed).isEqualTo(refs.size());
                        refs.forEach(ref -> harness.model.remove(harness.positions.remove(ref)));
                    }));
        }
    }

    /**
     * The punctuator's use: time moves on, then a budget's worth of due entries is handled in order, each removed
     * (emitted for good) or moved to a later time (awaiting confirmation, a retry).
     */
    private static final class Drain implements Action.Independent<Harness> {
        @Override
        public Arbitrary<Transformer<Harness>> transformer() {
            return Combinators.combine(
                            Arbitraries.of(Timeline.DEADLINES, Timeline.CONFIRMATIONS),
                            Arbitraries.longs().between(0, 60),
                            Arbitraries.integers().between(1, 4),
                            Arbitraries.of(true, false))
                    .as((timeline, advance, budget, moveLater) -> Transformer.mutate(
                            "advance " + advance + ", drain " + budget + " of " + timeline
                                    + (moveLater ? " moving them later" : " removing them"),
                            harness -> drain(harness, timeline, advance, budget, moveLater)));
        }

        private static void drain(Harness harness, Timeline timeline, long advance, int budget, boolean moveLater) {
            harness.now += advance;
            List<Bytes> expected = harness.dueInModel(timeline, harness.now);
            int handled = 0;
            boolean exhausted;
            try (KeyValueIterator<Bytes, ScheduleEntry> due = harness.schedule.due(timeline, harness.now)) {
                while (handled < budget && due.hasNext()) {
                    KeyValue<Bytes, ScheduleEntry> next = due.next();
                    assertThat(next.key).isEqualTo(expected.get(handled));
                    Bytes ref = ScheduleKey.documentRefOf(next.key);
                    harness.model.remove(next.key);
                    if (moveLater) {
                        Timeline to = timeline == Timeline.DEADLINES ? Timeline.CONFIRMATIONS : timeline;
                        long later = harness.now + 1 + handled;
                        harness.schedule.move(next.key, to, later, next.value);
                        harness.model.put(ScheduleKey.of(to, later, ref), next.value);
                        harness.positions.put(ref, ScheduleKey.of(to, later, ref));
                    } else {
                        harness.schedule.removeAt(next.key);
                        harness.positions.remove(ref);
                    }
                    harness.schedule.passed(next.key);
                    handled++;
                }
                exhausted = !due.hasNext();
            }
            if (exhausted) {
                harness.schedule.drained(timeline, harness.now);
            }
        }
    }

    /**
     * The punctuator's first commands: time moves on, then a budget's worth of due deadlines is emitted in place, each
     * staying where it is and awaiting confirmation from then on; the scan ends with its checkpoint.
     */
    private static final class EmitInPlace implements Action.Independent<Harness> {
        @Override
        public Arbitrary<Transformer<Harness>> transformer() {
            return Combinators.combine(
                            Arbitraries.longs().between(0, 60),
                            Arbitraries.integers().between(1, 4))
                    .as((advance, budget) -> Transformer.mutate(
                            "advance " + advance + ", emit " + budget + " deadlines in place",
                            harness -> emit(harness, advance, budget)));
        }

        private static void emit(Harness harness, long advance, int budget) {
            harness.now += advance;
            List<Bytes> expected = harness.dueInModel(Timeline.DEADLINES, harness.now);
            int handled = 0;
            boolean exhausted;
            try (KeyValueIterator<Bytes, ScheduleEntry> due = harness.schedule.due(Timeline.DEADLINES, harness.now)) {
                while (handled < budget && due.hasNext()) {
                    Bytes key = due.next().key;
                    assertThat(key).isEqualTo(expected.get(handled));
                    harness.schedule.awaitFirstConfirmation(key, harness.now);
                    harness.schedule.passed(key);
                    harness.emittedThrough = key;
                    handled++;
                }
                exhausted = !due.hasNext();
            }
            if (exhausted) {
                harness.schedule.drained(Timeline.DEADLINES, harness.now);
            }
            harness.schedule.deadlineScanEnded();
        }
    }

    /** The rule walk's use: an entry moves to another time, earlier too, outside any due scan. */
    private static final class MoveOutsideScan implements Action.Independent<Harness> {
        @Override
        public Arbitrary<Transformer<Harness>> transformer() {
            return Combinators.combine(refs(), Arbitraries.longs().between(-30, 30))
                    .as((ref, shift) -> Transformer.mutate("move " + ref + " by " + shift, harness -> {
                        Bytes key = harness.positions.get(ref);
                        if (key == null) {
                            return;
                        }
                        Timeline timeline = ScheduleKey.timelineOf(key);
                        long requested = ScheduleKey.dueAtOf(key) + shift;
                        ScheduleEntry entry = harness.model.remove(key);
                        harness.schedule.move(key, timeline, requested, entry);
                        long to = harness.placed(timeline, requested, ref);
                        harness.model.put(ScheduleKey.of(timeline, to, ref), entry);
                        harness.positions.put(ref, ScheduleKey.of(timeline, to, ref));
                    }));
        }
    }
}
