package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import java.nio.charset.StandardCharsets;
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
        for (String namespace : List.of("app.s", "app.sessions", "app.s.archive", "apple.x", "ap.x", "other.s")) {
            store.put(DocumentRef.of(Namespace.parse(namespace), KEY), namespace);
            store.put(
                    DocumentRef.of(Namespace.parse(namespace), new BsonDocument("_id", new BsonString(namespace))),
                    namespace);
        }
    }

    @AfterEach
    void closeStore() {
        harness.close();
    }

    @Property
    void shouldRoundTripNamespaceAndDocumentKey(
            @ForAll @From(supplier = NamespaceSupplier.class) Namespace namespace,
            @ForAll @From(supplier = KeySupplier.class) BsonDocument documentKey) {
        Bytes ref = DocumentRef.of(namespace, documentKey);

        assertThat(DocumentRef.namespaceOf(ref)).isEqualTo(namespace);
        assertThat(DocumentRef.documentKeyOf(ref)).isEqualTo(documentKey);
        assertThat(DocumentRef.documentKeyOf(ref).keySet()).containsExactlyElementsOf(documentKey.keySet());
    }

    @Property
    void shouldGiveOneKeyOneReferenceWhateverItsInMemoryForm(
            @ForAll @From(supplier = KeySupplier.class) BsonDocument documentKey) {
        Namespace namespace = Namespace.parse("app.sessions");
        Bytes parsed = DocumentRef.of(namespace, BsonDocument.parse(CanonicalJson.of(documentKey)));

        assertThat(DocumentRef.of(namespace, documentKey)).isEqualTo(parsed);
        // The change-event parser hands on the key as the BSON it measured.
        assertThat(DocumentRef.of(namespace, new RawBsonDocument(documentKey, new BsonDocumentCodec())))
                .isEqualTo(parsed);
        assertThat(DocumentRef.of(namespace, DocumentRef.documentKeyOf(parsed))).isEqualTo(parsed);
    }

    @Property
    void shouldGiveDistinctDocumentsDistinctReferences(
            @ForAll @From(supplier = NamespaceSupplier.class) Namespace firstNamespace,
            @ForAll @From(supplier = KeySupplier.class) BsonDocument firstKey,
            @ForAll @From(supplier = NamespaceSupplier.class) Namespace secondNamespace,
            @ForAll @From(supplier = KeySupplier.class) BsonDocument secondKey) {
        boolean sameDocument =
                firstNamespace.equals(secondNamespace) && exact(firstKey).equals(exact(secondKey));

        assertThat(DocumentRef.of(firstNamespace, firstKey).equals(DocumentRef.of(secondNamespace, secondKey)))
                .isEqualTo(sameDocument);
    }

    @Property
    void shouldKeepEveryReferenceUnderItsOwnCollectionAndDatabasePrefixesOnly(
            @ForAll @From(supplier = NamespaceSupplier.class) Namespace namespace,
            @ForAll @From(supplier = KeySupplier.class) BsonDocument documentKey) {
        byte[] ref = DocumentRef.of(namespace, documentKey).get();

        for (Namespace other : Refs.NAMESPACES) {
            assertThat(startsWith(ref, DocumentRef.collectionPrefix(other)))
                    .as("under the collection prefix of %s", other)
                    .isEqualTo(other.equals(namespace));
            assertThat(startsWith(ref, DocumentRef.databasePrefix(Namespace.database(other.database()))))
                    .as("under the database prefix of %s", other.database())
                    .isEqualTo(other.database().equals(namespace.database()));
        }
    }

    /**
     * Every input is a claim: whatever bytes a store hands back (another version, truncated, extended, corrupted),
     * reading them either gives a namespace and key or refuses them with an {@link IllegalArgumentException}, never
     * another exception; a reference of another format is refused with the advice to reset the state.
     */
    @Property(tries = 2000)
    void shouldReadOrRefuseAnyBytes(
            @ForAll @From(supplier = NamespaceSupplier.class) Namespace namespace,
            @ForAll @From(supplier = KeySupplier.class) BsonDocument documentKey,
            @ForAll @IntRange(min = 0, max = 200) int cut,
            @ForAll byte[] tail,
            @ForAll @IntRange(min = 0, max = 200) int flipped,
            @ForAll byte flip) {
        byte[] valid = DocumentRef.of(namespace, documentKey).get();
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
        byte[] ref = DocumentRef.of(Namespace.parse("a.b"), documentKey).get();
        ref[0] = (byte) version;

        if (version == DocumentRef.FORMAT_VERSION) {
            assertThat(DocumentRef.documentKeyOf(Bytes.wrap(ref))).isEqualTo(documentKey);
        } else {
            assertThatThrownBy(() -> DocumentRef.namespaceOf(Bytes.wrap(ref)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("format version 2: version " + version)
                    .hasMessageContaining("Reset the application's state");
        }
    }

    @Test
    void shouldStartWithTheFormatVersionThenNamespaceAndSeparator() {
        assertThat(DocumentRef.of(Namespace.parse("a.b"), KEY).get()).startsWith(2, 'a', '.', 'b', 0);
        assertThat(DocumentRef.collectionPrefix(Namespace.parse("a.b")).get()).containsExactly(2, 'a', '.', 'b', 0);
        assertThat(DocumentRef.databasePrefix(Namespace.database("a")).get()).containsExactly(2, 'a', '.');
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
        // An ObjectId _id in app.sessions: 1 + 12 + 1 + 13 bytes, against format 1's 36.
        assertThat(DocumentRef.of(Namespace.parse("app.sessions"), new BsonDocument("_id", new BsonObjectId(objectId)))
                        .get())
                .hasSize(27);
    }

    @Test
    void shouldKeepEveryOtherKeyAsBson() {
        BsonDocument compound = new BsonDocument("tenant", new BsonString("t")).append("_id", new BsonInt32(1));
        BsonDocument legacyUuid = new BsonDocument("_id", new BsonBinary(BsonBinarySubType.UUID_LEGACY, new byte[16]));
        BsonDocument unpairedSurrogate = new BsonDocument("_id", new BsonString("a\uD800"));

        for (BsonDocument key : List.of(compound, legacyUuid, unpairedSurrogate)) {
            byte[] ref = DocumentRef.of(Namespace.parse("a.b"), key).get();
            assertThat(ref[5]).as("tag of %s", key).isEqualTo((byte) 0x03);
        }
        assertThat(DocumentRef.documentKeyOf(DocumentRef.of(Namespace.parse("a.b"), compound))
                        .keySet())
                .containsExactly("tenant", "_id");
    }

    private static byte[] keyBytes(BsonValue id) {
        byte[] ref = DocumentRef.of(Namespace.parse("a.b"), new BsonDocument("_id", id))
                .get();
        return Arrays.copyOfRange(ref, 5, ref.length);
    }

    private static void readOrRefuse(Bytes ref) {
        try {
            DocumentRef.namespaceOf(ref);
            DocumentRef.documentKeyOf(ref);
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
        assertThat(namespacesUnder(DocumentRef.collectionPrefix(Namespace.parse("app.s"))))
                .containsOnly("app.s")
                .hasSize(2);
        assertThat(namespacesUnder(DocumentRef.collectionPrefix(Namespace.parse("app.sessions"))))
                .containsOnly("app.sessions")
                .hasSize(2);
    }

    @Test
    void shouldScanExactlyOneDatabaseByItsPrefix() {
        assertThat(namespacesUnder(DocumentRef.databasePrefix(Namespace.database("app"))))
                .containsOnly("app.s", "app.sessions", "app.s.archive")
                .hasSize(6);
        assertThat(namespacesUnder(DocumentRef.databasePrefix(Namespace.database("ap"))))
                .containsOnly("ap.x")
                .hasSize(2);
    }

    private List<String> namespacesUnder(Bytes prefix) {
        List<String> namespaces = new ArrayList<>();
        try (KeyValueIterator<Bytes, String> entries = store.prefixScan(prefix, new BytesSerializer())) {
            while (entries.hasNext()) {
                KeyValue<Bytes, String> entry = entries.next();
                assertThat(DocumentRef.namespaceOf(entry.key)).hasToString(entry.value);
                namespaces.add(entry.value);
            }
        }
        return namespaces;
    }

    @Test
    void shouldRefuseBytesWithoutSeparatorOrKeyOrOfAnUnknownTagOrLength() {
        Bytes noSeparator = Bytes.wrap("\u0002app.sessions".getBytes(StandardCharsets.UTF_8));
        Bytes noKey = Bytes.wrap("\u0002app.sessions\u0000".getBytes(StandardCharsets.UTF_8));
        Bytes unknownTag = Bytes.wrap("\u0002a.b\u0000\u0001".getBytes(StandardCharsets.UTF_8));
        Bytes shortInt64 = Bytes.wrap(new byte[] {2, 'a', '.', 'b', 0, 0x12, 1, 2, 3});
        Bytes invalidUtf8 = Bytes.wrap(new byte[] {2, 'a', '.', 'b', 0, 0x02, (byte) 0xC3});
        Bytes bsonShorterThanItSays = Bytes.wrap(new byte[] {2, 'a', '.', 'b', 0, 0x03, 6, 0, 0, 0, 0});

        assertThatThrownBy(() -> DocumentRef.documentKeyOf(noSeparator)).hasMessageContaining("no 0x00");
        assertThatThrownBy(() -> DocumentRef.documentKeyOf(noKey)).hasMessageContaining("no document key");
        assertThatThrownBy(() -> DocumentRef.documentKeyOf(unknownTag))
                .hasMessageContaining("unknown document key tag");
        assertThatThrownBy(() -> DocumentRef.documentKeyOf(shortInt64)).hasMessageContaining("8 bytes, not 3");
        assertThatThrownBy(() -> DocumentRef.documentKeyOf(invalidUtf8)).hasMessageContaining("not UTF-8");
        assertThatThrownBy(() -> DocumentRef.documentKeyOf(bsonShorterThanItSays))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not exactly the rest");
    }

    /** jqwik suppliers over {@link Refs}. */
    static final class NamespaceSupplier implements net.jqwik.api.ArbitrarySupplier<Namespace> {
        @Override
        public net.jqwik.api.Arbitrary<Namespace> get() {
            return Refs.namespaces();
        }
    }

    static final class KeySupplier implements net.jqwik.api.ArbitrarySupplier<BsonDocument> {
        @Override
        public net.jqwik.api.Arbitrary<BsonDocument> get() {
            return Refs.documentKeys();
        }
    }
}
