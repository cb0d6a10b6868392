package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.TaskRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.lifecycle.BeforeTry;
import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * The namespace dictionary over a real (RocksDB) {@code task} store: references round-trip through it, distinct
 * namespaces get distinct ids in first-seen order, a dictionary read again from the store (a restart, a restore) gives
 * the same ids and never gives one twice, a namespace it does not know has no references, and a corrupted record is
 * refused with an {@link IllegalArgumentException} only.
 */
class NamespaceIdsTest {

    private static Path stateDir;
    private static StoreHarness harness;
    private static KeyValueStore<Bytes, TaskRecord> task;

    @BeforeContainer
    static void openStore() throws IOException {
        stateDir = Files.createTempDirectory("namespace-ids");
        harness = new StoreHarness(stateDir, ScheduleStores.task());
        task = harness.store(ScheduleStores.TASK);
    }

    @AfterContainer
    static void closeStore() throws IOException {
        harness.close();
        Utils.delete(stateDir.toFile());
    }

    @BeforeTry
    void emptyTheStore() {
        List<Bytes> keys = new ArrayList<>();
        try (KeyValueIterator<Bytes, TaskRecord> all = task.all()) {
            all.forEachRemaining(entry -> keys.add(entry.key));
        }
        keys.forEach(task::delete);
    }

    @Property(tries = 300)
    void shouldRoundTripEveryDocumentThroughTheDictionaryAndGiveDistinctNamespacesDistinctIds(
            @ForAll("documents") @Size(min = 1, max = 30) List<Document> documents) {
        NamespaceIds ids = NamespaceIds.of(task);
        Map<Namespace, Bytes> prefixes = new HashMap<>();

        for (Document document : documents) {
            Bytes ref = ids.ref(document.namespace(), document.key());

            assertThat(ids.namespaceOf(ref)).isEqualTo(document.namespace());
            assertThat(DocumentRef.idKeyOf(ref))
                    .isEqualTo(new BsonDocument("_id", document.key().get("_id")));
            Bytes prefix = ids.collectionPrefix(document.namespace()).orElseThrow();
            assertThat(startsWith(ref, prefix)).isTrue();
            assertThat(startsWith(
                            ref,
                            ids.databasePrefix(document.namespace().database()).orElseThrow()))
                    .isTrue();
            prefixes.putIfAbsent(document.namespace(), prefix);
            assertThat(prefix).as("one namespace, one prefix").isEqualTo(prefixes.get(document.namespace()));
        }
        assertThat(new HashSet<>(prefixes.values()))
                .as("distinct namespaces, distinct ids")
                .hasSameSizeAs(prefixes.keySet());
        for (Namespace namespace : prefixes.keySet()) {
            for (Namespace other : prefixes.keySet()) {
                assertThat(startsWith(
                                prefixes.get(namespace),
                                ids.databasePrefix(other.database()).orElseThrow()))
                        .as("%s under the database prefix of %s", namespace, other.database())
                        .isEqualTo(namespace.database().equals(other.database()));
            }
        }
    }

    /**
     * A restart or a restore reads the dictionary from the store: the same ids for every namespace seen, nothing
     * renumbered, and a namespace seen afterwards gets an id no other had.
     */
    @Property(tries = 300)
    void shouldGiveTheSameIdsAfterARestartAndNewIdsOnlyToNewNamespaces(
            @ForAll("namespaceLists") List<Namespace> before, @ForAll("namespaceLists") List<Namespace> after) {
        NamespaceIds first = NamespaceIds.of(task);
        Map<Namespace, Bytes> given = new HashMap<>();
        for (Namespace namespace : before) {
            first.ref(namespace, KEY);
            given.put(namespace, first.collectionPrefix(namespace).orElseThrow());
        }

        NamespaceIds restarted = NamespaceIds.of(task);
        for (Namespace namespace : given.keySet()) {
            assertThat(restarted.collectionPrefix(namespace)).contains(given.get(namespace));
        }
        for (Namespace namespace : after) {
            Bytes ref = restarted.ref(namespace, KEY);
            Bytes prefix = restarted.collectionPrefix(namespace).orElseThrow();
            if (given.containsKey(namespace)) {
                assertThat(prefix).isEqualTo(given.get(namespace));
            } else {
                assertThat(given.values())
                        .as("%s gets an id no other had", namespace)
                        .doesNotContain(prefix);
                given.put(namespace, prefix);
            }
            assertThat(restarted.namespaceOf(ref)).isEqualTo(namespace);
        }
        NamespaceIds readOnly = NamespaceIds.readOnly(task);
        for (Map.Entry<Namespace, Bytes> namespace : given.entrySet()) {
            assertThat(readOnly.collectionPrefix(namespace.getKey())).contains(namespace.getValue());
        }
    }

    @Property(tries = 100)
    void shouldKnowNoReferenceOfANamespaceItHasNotSeen(
            @ForAll("namespaceLists") List<Namespace> seen,
            @ForAll @From(supplier = DocumentRefTest.KeySupplier.class) BsonDocument key) {
        NamespaceIds ids = NamespaceIds.of(task);
        seen.forEach(namespace -> ids.ref(namespace, key));
        NamespaceIds readOnly = NamespaceIds.readOnly(task);

        for (Namespace namespace : Refs.NAMESPACES) {
            boolean known = seen.contains(namespace);
            assertThat(readOnly.find(namespace, key).isPresent()).isEqualTo(known);
            assertThat(readOnly.collectionPrefix(namespace).isPresent()).isEqualTo(known);
            assertThat(readOnly.databasePrefix(namespace.database()).isPresent())
                    .isEqualTo(seen.stream().anyMatch(other -> other.database().equals(namespace.database())));
            if (known) {
                assertThat(readOnly.find(namespace, key)).contains(ids.ref(namespace, key));
            }
        }
    }

    @Property(tries = 1000)
    void shouldReadOrRefuseAnyCorruptedRecord(
            @ForAll @IntRange(min = 0, max = 40) int cut,
            @ForAll byte[] tail,
            @ForAll @IntRange(min = 0, max = 40) int flipped,
            @ForAll byte flip,
            @ForAll @IntRange(min = 0, max = 2) int which) {
        NamespaceIds.of(task).ref(Namespace.parse("café.ünïcode"), KEY);
        byte[] valid = dictionaryKeys().get(0).get();
        task.delete(Bytes.wrap(valid));
        byte[] bytes = switch (which) {
            case 0 -> Arrays.copyOf(valid, Math.min(cut, valid.length));
            case 1 -> {
                byte[] extended = Arrays.copyOf(valid, valid.length + tail.length);
                System.arraycopy(tail, 0, extended, valid.length, tail.length);
                yield extended;
            }
            default -> {
                byte[] corrupted = valid.clone();
                corrupted[flipped % corrupted.length] ^= flip;
                yield corrupted;
            }
        };
        if (bytes.length == 0) {
            return; // no key at all: nothing a store can hold
        }
        task.put(Bytes.wrap(bytes), new TaskRecord(null, null));

        for (boolean readOnly : new boolean[] {false, true}) {
            try {
                NamespaceIds read = readOnly ? NamespaceIds.readOnly(task) : NamespaceIds.of(task);
                read.collectionPrefix(Namespace.parse("café.ünïcode"));
            } catch (IllegalArgumentException refused) {
                // refused: what every malformed record must give
            }
        }
    }

    @Example
    void shouldGiveIdsInFirstSeenOrderADatabaseIdThenACollectionId() {
        NamespaceIds ids = NamespaceIds.of(task);

        assertThat(ids.ref(Namespace.parse("app.sessions"), KEY).get()).startsWith(4, 0, 0);
        assertThat(ids.ref(Namespace.parse("other.x"), KEY).get()).startsWith(4, 1, 0);
        assertThat(ids.ref(Namespace.parse("app.s"), KEY).get()).startsWith(4, 0, 1);
        assertThat(ids.ref(Namespace.parse("app.sessions"), KEY).get()).startsWith(4, 0, 0);
        assertThat(ids.databasePrefix("app")).contains(DocumentRef.databasePrefix(0));
        // One record per namespace: its kind, the ids as a reference writes them, the text.
        assertThat(dictionaryKeys())
                .extracting(Bytes::get)
                .containsExactlyInAnyOrder(
                        new byte[] {2, 4, 0, 0, 'a', 'p', 'p', '.', 's', 'e', 's', 's', 'i', 'o', 'n', 's'},
                        new byte[] {2, 4, 1, 0, 'o', 't', 'h', 'e', 'r', '.', 'x'},
                        new byte[] {2, 4, 0, 1, 'a', 'p', 'p', '.', 's'});
    }

    @Example
    void shouldKeepItsRecordsOutOfTheEmittedCheckpointsAndOutOfEveryReferencePrefix() {
        NamespaceIds ids = NamespaceIds.of(task);
        ids.ref(Namespace.parse("app.sessions"), KEY);

        assertThat(EmittedDeadlines.of(task).position()).as("no checkpoint").isNull();
        try (KeyValueIterator<Bytes, TaskRecord> references =
                task.prefixScan(DocumentRef.databasePrefix(0), new BytesSerializer())) {
            assertThat(references.hasNext()).isFalse();
        }
    }

    @Example
    void shouldRefuseAReferenceOfIdsItDoesNotHoldAndGiveNoIdsWhenReadOnly() {
        NamespaceIds ids = NamespaceIds.of(task);
        ids.ref(Namespace.parse("app.sessions"), KEY);

        assertThatThrownBy(() -> ids.namespaceOf(DocumentRef.of(DocumentRef.collectionPrefix(0, 1), KEY)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0.1");
        assertThatThrownBy(() -> ids.namespaceOf(DocumentRef.of(DocumentRef.collectionPrefix(4, 0), KEY)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NamespaceIds.readOnly(task).ref(Namespace.parse("app.other"), KEY))
                .isInstanceOf(IllegalStateException.class);
    }

    @Example
    void shouldRefuseRecordsThatGiveOneIdTwiceOrOneNamespaceTwoIdsOrIdsNeverGiven() {
        assertRefused("one id, two namespaces", "conflicts", new byte[] {2, 4, 0, 0, 'a', '.', 'b'}, new byte[] {
            2, 4, 0, 0, 'a', '.', 'c'
        });
        assertRefused(
                "one database, two database ids", "conflicts", new byte[] {2, 4, 0, 0, 'a', '.', 'b'}, new byte[] {
                    2, 4, 1, 0, 'a', '.', 'c'
                });
        assertRefused(
                "an id the task never gave: the largest int, read without allocating up to it",
                "from 0 up",
                new byte[] {2, 4, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 7, 0, 'a', '.', 'b'});
        assertRefused("a collection id skipped", "from 0 up", new byte[] {2, 4, 0, 1, 'a', '.', 'b'});
        assertRefused(
                "a record of another format", "Reset the application's state", new byte[] {2, 3, 0, 0, 'a', '.', 'b'});
    }

    /** A dictionary of just {@code records} is refused, with {@code message}. */
    private void assertRefused(String why, String message, byte[]... records) {
        emptyTheStore();
        for (byte[] record : records) {
            task.put(Bytes.wrap(record), new TaskRecord(null, null));
        }
        assertThatThrownBy(() -> NamespaceIds.of(task))
                .as(why)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    private static final BsonDocument KEY = new BsonDocument("_id", new BsonString("k"));

    /** A document: its namespace and key. */
    record Document(Namespace namespace, BsonDocument key) {}

    @Provide
    Arbitrary<List<Document>> documents() {
        return net.jqwik.api.Combinators.combine(namespaces(), Refs.documentKeys())
                .as(Document::new)
                .list();
    }

    @Provide
    Arbitrary<List<Namespace>> namespaceLists() {
        return namespaces().list().ofMaxSize(12);
    }

    /** Refs' namespaces, with more databases and collections, some past 128 ids of one database. */
    private static Arbitrary<Namespace> namespaces() {
        return Arbitraries.oneOf(
                Refs.namespaces(),
                Arbitraries.of("app", "apple", "ap", "db1", "ü")
                        .flatMap(database -> Arbitraries.integers()
                                .between(0, 200)
                                .map(collection -> Namespace.of(database, "c" + collection))));
    }

    private static List<Bytes> dictionaryKeys() {
        List<Bytes> keys = new ArrayList<>();
        try (KeyValueIterator<Bytes, TaskRecord> records =
                task.prefixScan(Bytes.wrap(new byte[] {TaskKeys.NAMESPACE}), new BytesSerializer())) {
            records.forEachRemaining((KeyValue<Bytes, TaskRecord> record) -> keys.add(record.key));
        }
        return keys;
    }

    private static boolean startsWith(Bytes bytes, Bytes prefix) {
        byte[] all = bytes.get();
        byte[] start = prefix.get();
        return all.length >= start.length && Arrays.equals(all, 0, start.length, start, 0, start.length);
    }
}
