package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.CanonicalJson;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DocumentRefTest {

    private static final BsonDocument KEY = new BsonDocument("_id", new BsonString("k"));

    /** Ids that share leading bytes as varints (1 and 129 = 0x81 0x01) and reach past one and two bytes. */
    private static final int[][] IDS = {{0, 0}, {0, 1}, {0, 129}, {1, 0}, {129, 0}, {129, 1}, {16_384, 7}};

    @TempDir
    Path stateDir;

    private StoreHarness harness;
    private KeyValueStore<Bytes, String> store;

    @BeforeEach
    void openStore() {
        harness = new StoreHarness(
                stateDir,
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("refs"), Serdes.Bytes(), Serdes.String()));
        store = harness.store("refs");
        for (int[] ids : IDS) {
            Bytes prefix = DocumentRef.collectionPrefix(ids[0], ids[1]);
            store.put(DocumentRef.of(prefix, KEY), name(ids));
            store.put(DocumentRef.of(prefix, new BsonDocument("_id", new BsonString(name(ids)))), name(ids));
        }
    }

    @AfterEach
    void closeStore() {
        harness.close();
    }

    private static String name(int[] ids) {
        return ids[0] + "." + ids[1];
    }

    @Property
    void shouldRoundTripNamespaceIdsAndTheDocumentKeysId(
            @ForAll("ids") int database,
            @ForAll("ids") int collection,
            @ForAll @From(supplier = KeySupplier.class) BsonDocument documentKey) {
        Bytes ref = DocumentRef.of(DocumentRef.collectionPrefix(database, collection), documentKey);

        assertThat(DocumentRef.databaseIdOf(ref)).isEqualTo(database);
        assertThat(DocumentRef.collectionIdOf(ref)).isEqualTo(collection);
        assertThat(DocumentRef.idKeyOf(ref)).isEqualTo(idKey(documentKey));
    }

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<Integer> ids() {
        return Refs.namespaceIds();
    }

    @Property
    void shouldGiveOneKeyOneReferenceWhateverItsInMemoryForm(
            @ForAll @From(supplier = KeySupplier.class) BsonDocument documentKey) {
        Bytes namespace = DocumentRef.collectionPrefix(0, 1);
        Bytes parsed = DocumentRef.of(namespace, BsonDocument.parse(CanonicalJson.of(documentKey)));

        assertThat(DocumentRef.of(namespace, documentKey)).isEqualTo(parsed);
        // The change-event parser hands on the key as the BSON it measured.
        assertThat(DocumentRef.of(namespace, new RawBsonDocument(documentKey, new BsonDocumentCodec())))
                .isEqualTo(parsed);
        assertThat(DocumentRef.of(namespace, DocumentRef.idKeyOf(parsed))).isEqualTo(parsed);
    }

    /** A sharded collection's key changes shape ({@code shardCollection}, refine, reshard): the document does not. */
    @Test
    void shouldGiveOneDocumentOneReferenceWhateverItsShardKeyFieldsWhenCollectionIsSharded() {
        Bytes namespace = DocumentRef.collectionPrefix(0, 1);
        BsonString id = new BsonString("s1");
        Bytes unsharded = DocumentRef.of(namespace, new BsonDocument("_id", id));

        for (BsonDocument key : List.of(
                new BsonDocument("tenant", new BsonString("t1")).append("_id", id),
                new BsonDocument("tenant", new BsonString("t1"))
                        .append("region", new BsonString("eu"))
                        .append("_id", id),
                new BsonDocument("region", new BsonString("eu")).append("_id", id))) {
            assertThat(DocumentRef.of(namespace, key)).as("%s", key).isEqualTo(unsharded);
            assertThat(DocumentRef.of(namespace, new RawBsonDocument(key, new BsonDocumentCodec())))
                    .isEqualTo(unsharded);
        }
        assertThatThrownBy(() -> DocumentRef.of(namespace, new BsonDocument("tenant", new BsonString("t1"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without _id");
    }

    @Property
    void shouldGiveDistinctDocumentsDistinctReferences(
            @ForAll("ids") int firstDatabase,
            @ForAll("ids") int firstCollection,
            @ForAll @From(supplier = KeySupplier.class) BsonDocument firstKey,
            @ForAll("ids") int secondDatabase,
            @ForAll("ids") int secondCollection,
            @ForAll @From(supplier = KeySupplier.class) BsonDocument secondKey) {
        boolean sameDocument = firstDatabase == secondDatabase
                && firstCollection == secondCollection
                && exact(idKey(firstKey)).equals(exact(idKey(secondKey)));

        assertThat(DocumentRef.of(DocumentRef.collectionPrefix(firstDatabase, firstCollection), firstKey)
                        .equals(DocumentRef.of(
                                DocumentRef.collectionPrefix(secondDatabase, secondCollection), secondKey)))
                .isEqualTo(sameDocument);
    }

    @Property
    void shouldKeepEveryReferenceUnderItsOwnCollectionAndDatabasePrefixesOnly(
            @ForAll("ids") int database,
            @ForAll("ids") int collection,
            @ForAll @From(supplier = KeySupplier.class) BsonDocument documentKey,
            @ForAll("ids") int otherDatabase,
            @ForAll("ids") int otherCollection) {
        byte[] ref = DocumentRef.of(DocumentRef.collectionPrefix(database, collection), documentKey)
                .get();

        for (int[] other : List.of(
                new int[] {otherDatabase, otherCollection},
                new int[] {database, otherCollection},
                new int[] {otherDatabase, collection},
                new int[] {database, collection})) {
            assertThat(startsWith(ref, DocumentRef.collectionPrefix(other[0], other[1])))
                    .as("under the collection prefix of %d.%d", other[0], other[1])
                    .isEqualTo(other[0] == database && other[1] == collection);
            assertThat(startsWith(ref, DocumentRef.databasePrefix(other[0])))
                    .as("under the database prefix of %d", other[0])
                    .isEqualTo(other[0] == database);
        }
    }

    /**
     * Every input is a claim: whatever bytes a store hands back (another version, truncated, extended, corrupted),
     * reading them either gives namespace ids and a key or refuses them with an {@link IllegalArgumentException},
     * never another exception; a reference of another format is refused with the advice to reset the state.
     */
    @Property(tries = 2000)
    void shouldReadOrRefuseAnyBytes(
            @ForAll("ids") int database,
            @ForAll("ids") int collection,
            @ForAll @From(supplier = KeySupplier.class) BsonDocument documentKey,
            @ForAll @IntRange(min = 0, max = 200) int cut,
            @ForAll byte[] tail,
            @ForAll @IntRange(min = 0, max = 200) int flipped,
            @ForAll byte flip) {
        byte[] valid = DocumentRef.of(DocumentRef.collectionPrefix(database, collection), documentKey)
                .get();
        byte[] truncated = Arrays.copyOf(valid, Math.min(cut, valid.length));
        byte[] extended = Arrays.copyOf(valid, valid.length + tail.length);
        System.arraycopy(tail, 0, extended, valid.length, tail.length);
        byte[] corrupted = valid.clone();
        corrupted[flipped % corrupted.length] ^= flip;

        for (byte[] bytes : List.of(truncated, extended, corrupted)) {
            readOrRefuse(Bytes.wrap(bytes));
        }
    }

    @Property
    void shouldRefuseEveryOtherFormatVersionAdvisingAReset(
            @ForAll @From(supplier = KeySupplier.class) BsonDocument documentKey,
            @ForAll @IntRange(min = 0, max = 255) int version) {
        byte[] ref =
                DocumentRef.of(DocumentRef.collectionPrefix(0, 0), documentKey).get();
        ref[0] = (byte) version;

        if (version == DocumentRef.FORMAT_VERSION) {
            assertThat(DocumentRef.idKeyOf(Bytes.wrap(ref))).isEqualTo(idKey(documentKey));
        } else {
            for (ThrowingCallable read : List.<ThrowingCallable>of(
                    () -> DocumentRef.databaseIdOf(Bytes.wrap(ref)),
                    () -> DocumentRef.collectionIdOf(Bytes.wrap(ref)),
                    () -> DocumentRef.idKeyOf(Bytes.wrap(ref)))) {
                assertThatThrownBy(read)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("format version 4: version " + version)
                        .hasMessageContaining("Reset the application's state");
            }
        }
    }

    /** Format 2 wrote the namespace's text: such a reference is refused, never read as ids. */
    @Test
    void shouldRefuseAFormatTwoReferenceAdvisingAReset() {
        Bytes formatTwo = Bytes.wrap(new byte[] {2, 'a', '.', 'b', 0, 0x02, 'k'});

        assertThatThrownBy(() -> DocumentRef.idKeyOf(formatTwo))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Reset the application's state");
    }

    @Test
    void shouldStartWithTheFormatVersionThenTheNamespaceIdsAsVarints() {
        assertThat(DocumentRef.of(DocumentRef.collectionPrefix(0, 1), KEY).get())
                .startsWith(4, 0, 1, 0x02, 'k');
        assertThat(DocumentRef.collectionPrefix(129, 0).get()).containsExactly(4, 0x81, 0x01, 0);
        assertThat(DocumentRef.collectionPrefix(1, 16_384).get()).containsExactly(4, 1, 0x80, 0x80, 0x01);
        assertThat(DocumentRef.databasePrefix(5).get()).containsExactly(4, 5);
        assertThat(DocumentRef.databasePrefix(Integer.MAX_VALUE).get())
                .containsExactly(4, 0xFF, 0xFF, 0xFF, 0xFF, 0x07);
        assertThatThrownBy(() -> DocumentRef.databasePrefix(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRefuseNamespaceIdsOfNonCanonicalOrOversizedForm() {
        // 0 as two bytes (0x80 0x00), an id past an int, an id whose bytes never end.
        Bytes nonCanonical = Bytes.wrap(new byte[] {4, (byte) 0x80, 0, 0, 0x02, 'k'});
        Bytes pastAnInt = Bytes.wrap(new byte[] {4, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x08, 0, 0x02});
        Bytes endless = Bytes.wrap(new byte[] {4, 0, (byte) 0x80, (byte) 0x80});

        assertThatThrownBy(() -> DocumentRef.databaseIdOf(nonCanonical)).hasMessageContaining("non-canonical");
        assertThatThrownBy(() -> DocumentRef.databaseIdOf(pastAnInt)).hasMessageContaining("beyond an int");
        assertThatThrownBy(() -> DocumentRef.idKeyOf(endless)).hasMessageContaining("cut short");
    }

    @Test
    void shouldWriteAnIdOfACommonTypeWithoutBsonFraming() {
        ObjectId objectId = new ObjectId("0102030405060708090a0b0c");
        byte[] uuid = new byte[16];
        uuid[15] = 9;

        assertThat(keyBytes(new BsonObjectId(objectId))).containsExactly(0x07, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
        assertThat(keyBytes(new BsonString("é\u0000"))).containsExactly(0x02, 0xC3, 0xA9, 0);
        assertThat(keyBytes(new BsonInt32(-2))).containsExactly(0x10, 0xFF, 0xFF, 0xFF, 0xFE);
        assertThat(keyBytes(new BsonInt64(258))).containsExactly(0x12, 0, 0, 0, 0, 0, 0, 1, 2);
        assertThat(keyBytes(new BsonBinary(BsonBinarySubType.UUID_STANDARD, uuid)))
                .containsExactly(0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9);
        // An ObjectId _id in a task's first collection: 1 + 2 + 1 + 12 bytes, against format 2's 27 and format 1's 36.
        assertThat(DocumentRef.of(
                                DocumentRef.collectionPrefix(0, 0), new BsonDocument("_id", new BsonObjectId(objectId)))
                        .get())
                .hasSize(16);
    }

    @Test
    void shouldKeepEveryOtherIdAsBson() {
        BsonDocument legacyUuid = new BsonDocument("_id", new BsonBinary(BsonBinarySubType.UUID_LEGACY, new byte[16]));
        BsonDocument unpairedSurrogate = new BsonDocument("_id", new BsonString("a\uD800"));

        for (BsonDocument key : List.of(legacyUuid, unpairedSurrogate)) {
            Bytes ref = DocumentRef.of(DocumentRef.collectionPrefix(0, 0), key);
            assertThat(ref.get()[3]).as("tag of %s", key).isEqualTo((byte) 0x03);
        }
        assertThat(DocumentRef.idKeyOf(DocumentRef.of(DocumentRef.collectionPrefix(0, 0), legacyUuid)))
                .isEqualTo(legacyUuid);
    }

    /** What a reference holds of a document key: its {@code _id}. */
    private static BsonDocument idKey(BsonDocument documentKey) {
        return new BsonDocument("_id", documentKey.get("_id"));
    }

    private static byte[] keyBytes(BsonValue id) {
        byte[] ref = DocumentRef.of(DocumentRef.collectionPrefix(0, 0), new BsonDocument("_id", id))
                .get();
        return Arrays.copyOfRange(ref, 3, ref.length);
    }

    private static void readOrRefuse(Bytes ref) {
        try {
            DocumentRef.databaseIdOf(ref);
            DocumentRef.collectionIdOf(ref);
            DocumentRef.idKeyOf(ref);
        } catch (IllegalArgumentException refused) {
            // refused: what every malformed input must give
        }
    }

    /** The key's identity as MongoDB sees it in a change event: its fields, their order and their types. */
    private static String exact(BsonDocument documentKey) {
        return documentKey.toJson(
                JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build());
    }

    private static boolean startsWith(byte[] bytes, Bytes prefix) {
        byte[] start = prefix.get();
        return bytes.length >= start.length && Arrays.equals(bytes, 0, start.length, start, 0, start.length);
    }

    @Test
    void shouldScanExactlyOneCollectionByItsPrefix() {
        for (int[] ids : IDS) {
            assertThat(namespacesUnder(DocumentRef.collectionPrefix(ids[0], ids[1])))
                    .containsOnly(name(ids))
                    .hasSize(2);
        }
    }

    @Test
    void shouldScanExactlyOneDatabaseByItsPrefix() {
        assertThat(namespacesUnder(DocumentRef.databasePrefix(0)))
                .containsOnly("0.0", "0.1", "0.129")
                .hasSize(6);
        assertThat(namespacesUnder(DocumentRef.databasePrefix(1)))
                .containsOnly("1.0")
                .hasSize(2);
        assertThat(namespacesUnder(DocumentRef.databasePrefix(129)))
                .containsOnly("129.0", "129.1")
                .hasSize(4);
    }

    private List<String> namespacesUnder(Bytes prefix) {
        List<String> namespaces = new ArrayList<>();
        try (KeyValueIterator<Bytes, String> entries = store.prefixScan(prefix, new BytesSerializer())) {
            while (entries.hasNext()) {
                KeyValue<Bytes, String> entry = entries.next();
                assertThat(DocumentRef.databaseIdOf(entry.key) + "." + DocumentRef.collectionIdOf(entry.key))
                        .isEqualTo(entry.value);
                namespaces.add(entry.value);
            }
        }
        return namespaces;
    }

    @Test
    void shouldRefuseBytesWithoutKeyOrOfAnUnknownTagOrLength() {
        Bytes noKey = Bytes.wrap(new byte[] {4, 0, 0});
        Bytes unknownTag = Bytes.wrap(new byte[] {4, 0, 0, 0x01});
        Bytes shortInt64 = Bytes.wrap(new byte[] {4, 0, 0, 0x12, 1, 2, 3});
        Bytes invalidUtf8 = Bytes.wrap(new byte[] {4, 0, 0, 0x02, (byte) 0xC3});
        Bytes bsonShorterThanItSays = Bytes.wrap(new byte[] {4, 0, 0, 0x03, 6, 0, 0, 0, 0});

        assertThatThrownBy(() -> DocumentRef.idKeyOf(noKey)).hasMessageContaining("no document key");
        assertThatThrownBy(() -> DocumentRef.idKeyOf(unknownTag)).hasMessageContaining("unknown document key tag");
        assertThatThrownBy(() -> DocumentRef.idKeyOf(shortInt64)).hasMessageContaining("8 bytes, not 3");
        assertThatThrownBy(() -> DocumentRef.idKeyOf(invalidUtf8)).hasMessageContaining("not UTF-8");
        assertThatThrownBy(() -> DocumentRef.idKeyOf(bsonShorterThanItSays))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not exactly the rest");
    }

    static final class KeySupplier implements net.jqwik.api.ArbitrarySupplier<BsonDocument> {
        @Override
        public net.jqwik.api.Arbitrary<BsonDocument> get() {
            return Refs.documentKeys();
        }
    }
}
