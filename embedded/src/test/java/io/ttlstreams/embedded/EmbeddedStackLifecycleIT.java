package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.ttlstreams.contract.Namespace;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.io.TempDir;

/** Starting, failing to start, stopping and restarting whole stacks. */
@Tag("integration")
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
class EmbeddedStackLifecycleIT {

    private static final Namespace DOCS = Namespace.parse("ttl.docs");

    /**
     * A stack started on a data directory of its own keeps it on close, and the next stack on that directory
     * reuses the formatted Kafka log (topics and records), Connect's source offsets and the stand-in's documents:
     * both stores, or Kafka's state would schedule documents the stand-in no longer has.
     */
    @Test
    void shouldReuseAKeptDataDirectory(@TempDir Path dataDir) {
        try (EmbeddedStack first = EmbeddedStack.builder()
                .rules(TestRules.expireAt(DOCS))
                .dataDir(dataDir)
                .start()) {
            assertThat(first.deletesDataDirOnClose()).isFalse();
            insertAndAwaitEvent(first, "first-run", List.of());
        }
        assertThat(dataDir.resolve("kafka")).isDirectory();
        assertThat(Files.exists(dataDir.resolve("connect").resolve("connect.offsets")))
                .isTrue();

        try (EmbeddedStack second = EmbeddedStack.builder()
                .rules(TestRules.expireAt(DOCS))
                .dataDir(dataDir)
                .start()) {
            try (MongoClient client = MongoClients.create(second.mongoConnectionString())) {
                assertThat(client.getDatabase(DOCS.database())
                                .getCollection(DOCS.collection())
                                .countDocuments(new Document("_id", "first-run")))
                        .as("the first run's document, kept by the stand-in")
                        .isEqualTo(1);
            }
            // The first run's event is still in the topic, and the new one follows it: the source resumed.
            insertAndAwaitEvent(second, "second-run", List.of("first-run"));
        }
    }

    @Test
    void shouldStopWhatItStartedWhenAComponentCannotStart() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName(LocalPorts.HOST))) {
            int port = taken.getLocalPort();

            assertThatThrownBy(() -> EmbeddedStack.builder()
                            .rules(TestRules.expireAt(DOCS))
                            .connectPort(port)
                            .start())
                    .isInstanceOf(EmbeddedStackException.class)
                    .hasMessageContaining("Connect")
                    .hasMessageContaining(Integer.toString(port));
            assertThatThrownBy(() -> EmbeddedStack.builder()
                            .rules(TestRules.expireAt(DOCS))
                            .mongoPort(port)
                            .start())
                    .isInstanceOf(EmbeddedStackException.class)
                    .hasMessageContaining("MongoDB")
                    .hasMessageContaining(Integer.toString(port));
        }
        // MongoDB and Kafka were up when Connect failed: their threads must be gone again.
        await("the threads of MongoDB and Kafka gone")
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
                        .filteredOn(Thread::isAlive)
                        .extracting(Thread::getName)
                        .noneMatch(name -> name.startsWith("mongo-server")
                                || name.startsWith("data-plane")
                                || name.startsWith("quorum-controller")
                                || name.startsWith("kafka-")
                                || name.startsWith("raft")
                                || name.startsWith("task-thread")));
    }

    /** Inserts a document and checks that its event follows exactly the events of {@code idsBefore}, in order. */
    private static void insertAndAwaitEvent(EmbeddedStack stack, String id, List<String> idsBefore) {
        try (MongoClient client = MongoClients.create(stack.mongoConnectionString());
                TopicReader reader = new TopicReader(stack.bootstrapServers(), DOCS.toString())) {
            client.getDatabase(DOCS.database())
                    .getCollection(DOCS.collection(), BsonDocument.class)
                    .insertOne(new BsonDocument("_id", new BsonString(id)));

            assertThat(reader.readUntil(
                            "the change event of " + id, r -> r.key().contains(id), Duration.ofSeconds(30)))
                    .extracting(
                            r -> BsonDocument.parse(r.key()).getString("_id").getValue())
                    .containsExactlyElementsOf(idsBefore);
        }
    }
}
