package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/**
 * The task's namespace dictionary across restarts and rule changes: the references stored before a restart keep their
 * namespace ids (the dictionary is restored from the {@code index} changelog with them), a namespace seen later gets a
 * new id, a rule removed or added renumbers nothing, and every command, drop and question after the restart names the
 * right namespace.
 */
class NamespaceDictionaryTest {

    private static final BsonString ID = new BsonString("d1");
    private static final List<String> NAMESPACES = List.of("app.b", "apple.x", "app.a");

    private static Map<String, String> settings() {
        return Map.of(
                "ttl.rules", "app,apple",
                "ttl.rule.app.namespace", "app.*",
                "ttl.rule.app.field", "expireAt",
                "ttl.rule.apple.namespace", "apple.x",
                "ttl.rule.apple.field", "expireAt",
                // "app": the database's own topic, where the source connector publishes a dropDatabase.
                "ttl.source.topics", "app.a,app.b,app.c,apple.x,app");
    }

    private static void insert(TopologyFixture fixture, String namespace, Duration dueIn) {
        fixture.input(namespace)
                .pipeInput(
                        ChangeEvents.key(ID),
                        new ChangeEvents(namespace, START)
                                .insert(
                                        ID,
                                        new BsonDocument(
                                                "expireAt",
                                                new BsonDateTime(
                                                        START.plus(dueIn).toEpochMilli()))));
    }

    /** A fixture with one document of each of {@link #NAMESPACES}, in that order, due at 10 s. */
    private static TopologyFixture withEachNamespaceScheduled() {
        TopologyFixture fixture = new TopologyFixture(settings());
        for (String namespace : NAMESPACES) {
            insert(fixture, namespace, Duration.ofSeconds(10));
        }
        return fixture;
    }

    private static Map<String, Bytes> refs(TopologyFixture fixture, List<String> namespaces) {
        Map<String, Bytes> refs = new HashMap<>();
        for (String namespace : namespaces) {
            refs.put(namespace, fixture.ref(Namespace.parse(namespace), ID).orElseThrow());
        }
        return refs;
    }

    private static List<String> namespacesOf(List<TestRecord<String, String>> commands) {
        return commands.stream()
                .map(command -> BsonDocument.parse(command.value()).getDocument("ns"))
                .map(ns -> ns.getString("db").getValue() + "."
                        + ns.getString("coll").getValue())
                .toList();
    }

    @Test
    void shouldKeepTheNamespaceIdsAcrossARestartAndNameEveryCommandAndDropRight() {
        TopologyFixture before = withEachNamespaceScheduled();
        Map<String, Bytes> stored = refs(before, NAMESPACES);
        assertThat(stored.get("app.b").get())
                .as("first seen: database 0, collection 0")
                .startsWith(4, 0, 0);
        assertThat(stored.get("apple.x").get()).startsWith(4, 1, 0);
        assertThat(stored.get("app.a").get()).startsWith(4, 0, 1);

        try (TopologyFixture after = before.restarted()) {
            assertThat(refs(after, NAMESPACES)).as("restored, not renumbered").isEqualTo(stored);
            insert(after, "app.c", Duration.ofSeconds(10));
            assertThat(after.ref(Namespace.parse("app.c"), ID).orElseThrow().get())
                    .as("a new collection of a known database: the next id")
                    .startsWith(4, 0, 2);
            assertThat(after.scheduled("apple.x", ID)).isPresent();
            assertThat(after.scheduled("other.x", ID))
                    .as("a namespace the task never saw")
                    .isEmpty();

            after.input("app").pipeInput(null, new ChangeEvents("app.a", START.plusSeconds(1)).dropDatabase());
            after.wallClockAt(Duration.ofSeconds(10));

            assertThat(namespacesOf(after.deletes())).containsExactly("apple.x");
        }
    }

    @Test
    void shouldRenumberNothingWhenRulesAreRemovedAndAddedBack() {
        TopologyFixture before = withEachNamespaceScheduled();
        Map<String, Bytes> stored = refs(before, NAMESPACES);

        // The rule of app.* removed: its entries go, apple.x's is emitted; every id stays.
        TopologyFixture withoutApp = before.restarted(
                "ttl.rules",
                "apple",
                "ttl.rule.app.namespace",
                null,
                "ttl.rule.app.field",
                null,
                "ttl.source.topics",
                "apple.x");
        withoutApp.wallClockAt(Duration.ofSeconds(10));
        assertThat(namespacesOf(withoutApp.deletes())).containsExactly("apple.x");
        assertThat(withoutApp.scheduled("app.b", ID)).isEmpty();
        assertThat(refs(withoutApp, NAMESPACES)).isEqualTo(stored);

        try (TopologyFixture withAppAgain = withoutApp.restarted(
                "ttl.rules", "app,apple",
                "ttl.rule.app.namespace", "app.*",
                "ttl.rule.app.field", "expireAt",
                "ttl.source.topics", "app.a,app.b,app.c,apple.x,app")) {
            insert(withAppAgain, "app.c", Duration.ofSeconds(20));
            insert(withAppAgain, "app.a", Duration.ofSeconds(20));

            assertThat(refs(withAppAgain, NAMESPACES))
                    .as("never given again, never renumbered")
                    .isEqualTo(stored);
            assertThat(withAppAgain
                            .ref(Namespace.parse("app.c"), ID)
                            .orElseThrow()
                            .get())
                    .startsWith(4, 0, 2);
            withAppAgain.wallClockAt(Duration.ofSeconds(20));
            assertThat(namespacesOf(withAppAgain.deletes()))
                    .contains("app.c", "app.a")
                    .doesNotContain("app.b");
        }
    }
}
