package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.bson.BsonDocument;
import org.bson.BsonString;
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
        assertThat(DocumentRef.of(namespace, DocumentRef.documentKeyOf(parsed))).isEqualTo(parsed);
    }

    @Test
    void shouldStartWithTheFormatVersionThenNamespaceAndSeparator() {
        assertThat(DocumentRef.of(Namespace.parse("a.b"), KEY).get()).startsWith(1, 'a', '.', 'b', 0);
        assertThat(DocumentRef.collectionPrefix(Namespace.parse("a.b")).get()).containsExactly(1, 'a', '.', 'b', 0);
        assertThat(DocumentRef.databasePrefix(Namespace.database("a")).get()).containsExactly(1, 'a', '.');
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
    void shouldRefuseBytesOfAnotherFormatOrWithoutSeparator() {
        byte[] otherVersion = DocumentRef.of(Namespace.parse("a.b"), KEY).get();
        otherVersion[0] = 0;
        Bytes noSeparator = Bytes.wrap("\u0001app.sessions".getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(() -> DocumentRef.namespaceOf(Bytes.wrap(otherVersion)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("format version 1");
        assertThatThrownBy(() -> DocumentRef.documentKeyOf(noSeparator))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no 0x00");
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
