package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.Namespace;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DocumentRefTest {

    private static final String KEY = "{\"_id\": {\"$oid\": \"5f1b2c3d4e5f607182930a4b\"}}";

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
            store.put(DocumentRef.of(Namespace.parse(namespace), "{\"_id\": \"" + namespace + "\"}"), namespace);
        }
    }

    @AfterEach
    void closeStore() {
        harness.close();
    }

    @Test
    void shouldEncodeNamespaceSeparatorAndKey() {
        assertThat(DocumentRef.of(Namespace.parse("a.b"), "{\"_id\": 1}").get())
                .isEqualTo("a.b\u0000{\"_id\": 1}".getBytes(StandardCharsets.UTF_8));
        assertThat(DocumentRef.collectionPrefix(Namespace.parse("a.b")).get()).isEqualTo(new byte[] {'a', '.', 'b', 0});
        assertThat(DocumentRef.databasePrefix(Namespace.database("a")).get()).isEqualTo(new byte[] {'a', '.'});
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "app.sessions|{\"_id\": {\"$oid\": \"5f1b2c3d4e5f607182930a4b\"}}",
                "app.s.archive|{\"_id\": \"a.b\\u0000c\"}",
                "café.ünïcode|{\"_id\": \"日本\", \"region\": \"eu\"}",
                "a.b|''"
            })
    void shouldRoundTripNamespaceAndDocumentKeyJson(String namespace, String documentKeyJson) {
        Bytes ref = DocumentRef.of(Namespace.parse(namespace), documentKeyJson);

        assertThat(DocumentRef.namespaceOf(ref)).isEqualTo(Namespace.parse(namespace));
        assertThat(DocumentRef.documentKeyJsonOf(ref)).isEqualTo(documentKeyJson);
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
    void shouldRejectBytesWithoutSeparator() {
        Bytes notARef = Bytes.wrap("app.sessions".getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(() -> DocumentRef.namespaceOf(notARef)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DocumentRef.documentKeyJsonOf(notARef)).isInstanceOf(IllegalArgumentException.class);
    }
}
