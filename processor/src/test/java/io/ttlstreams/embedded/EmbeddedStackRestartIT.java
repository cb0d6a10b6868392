package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;

/**
 * A stack started on a data directory of its own keeps it on close, and the next stack on that directory reuses
 * the formatted Kafka log (topics and records) and Connect's source offsets.
 */
@Tag("integration")
class EmbeddedStackRestartIT {

    private static final String DOCS = "ttl.docs";

    @Test
    void shouldReuseAKeptDataDirectory(@TempDir Path dataDir) {
        try (EmbeddedStack first = EmbeddedStack.builder().namespaces(List.of(DOCS)).dataDir(dataDir).start()) {
            assertThat(first.deletesDataDirOnClose()).isFalse();
            insertAndAwaitEvent(first, "first-run", 1);
        }
        assertThat(dataDir.resolve("kafka")).isDirectory();
        assertThat(Files.exists(dataDir.resolve("connect").resolve("connect.offsets"))).isTrue();

        try (EmbeddedStack second = EmbeddedStack.builder().namespaces(List.of(DOCS)).dataDir(dataDir).start()) {
            // The first run's event is still in the topic, and the new one follows it.
            insertAndAwaitEvent(second, "second-run", 2);
        }
    }

    private static void insertAndAwaitEvent(EmbeddedStack stack, String id, int expectedEvents) {
        try (MongoClient client = MongoClients.create(stack.mongoConnectionString());
                TopicReader reader = new TopicReader(stack.bootstrapServers(), DOCS)) {
            client.getDatabase("ttl").getCollection("docs", BsonDocument.class)
                    .insertOne(new BsonDocument("_id", new BsonString(id)));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> reader.poll(r -> true), records -> records.size() >= expectedEvents);
            assertThat(reader.poll(r -> true)).hasSize(expectedEvents)
                    .last().satisfies(r -> assertThat(r.key()).contains(id));
        }
    }
}
