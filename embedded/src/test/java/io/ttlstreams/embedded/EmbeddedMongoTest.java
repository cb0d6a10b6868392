package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The MongoDB stand-in on its own: no Kafka needed, so it runs with the unit tests. */
class EmbeddedMongoTest {

    private EmbeddedMongo mongo;
    private MongoClient client;
    private MongoCollection<Document> docs;

    @BeforeEach
    void start() {
        mongo = EmbeddedMongo.start(0);
        client = MongoClients.create(mongo.connectionString());
        docs = client.getDatabase("ttl").getCollection("docs");
    }

    @AfterEach
    void stop() {
        client.close();
        mongo.close();
    }

    @Test
    void shouldHoldAnIdleChangeStreamGetMoreInsteadOfAnsweringAtOnce() {
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor =
                docs.watch().maxAwaitTime(2, TimeUnit.SECONDS).cursor()) {
            long start = System.nanoTime();
            assertThat(cursor.tryNext()).isNull();
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            // The stock backend answers in about a millisecond; the wait is capped at 500 ms, not maxTimeMS.
            assertThat(waitedMillis).isBetween(LongPollingMemoryBackend.MAX_WAIT_MILLIS - 50, 1_500L);
        }
    }

    @Test
    void shouldAnswerAWaitingGetMoreAsSoonAsAWriteArrives() throws Exception {
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor =
                docs.watch().maxAwaitTime(2, TimeUnit.SECONDS).cursor()) {
            CompletableFuture<Long> insertedAt = CompletableFuture.supplyAsync(() -> {
                sleep(150);
                docs.insertOne(new Document("_id", "d1"));
                return System.nanoTime();
            });
            ChangeStreamDocument<Document> event = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (event == null && System.nanoTime() < deadline) {
                event = cursor.tryNext();
            }
            long receivedAt = System.nanoTime();

            assertThat(event).isNotNull();
            assertThat(event.getFullDocument()).containsEntry("_id", "d1");
            assertThat(TimeUnit.NANOSECONDS.toMillis(receivedAt - insertedAt.get()))
                    .isLessThan(200);
        }
    }

    @Test
    void shouldAnswerPlainQueriesWithoutWaiting() {
        docs.insertOne(new Document("_id", "d1"));
        long start = System.nanoTime();
        assertThat(docs.find().into(new java.util.ArrayList<>())).hasSize(1);
        assertThat(docs.find(new Document("_id", "none")).first()).isNull();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(300);
    }

    @Test
    void shouldFreeItsPortOnClose() throws Exception {
        int port = mongo.port();
        client.close();
        mongo.close();
        mongo.close(); // idempotent

        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(LocalPorts.HOST, port));
        }
        // Let @AfterEach close fresh instances.
        mongo = EmbeddedMongo.start(0);
        client = MongoClients.create(mongo.connectionString());
    }

    @Test
    void shouldNameThePortWhenItIsTaken() {
        assertThatThrownBy(() -> EmbeddedMongo.start(mongo.port()))
                .isInstanceOf(EmbeddedStackException.class)
                .hasMessageContaining("127.0.0.1:" + mongo.port());
        assertThat(Thread.getAllStackTraces().keySet())
                .extracting(Thread::getName)
                .filteredOn(name -> name.startsWith("mongo-server-boss"))
                .hasSizeLessThanOrEqualTo(1);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
