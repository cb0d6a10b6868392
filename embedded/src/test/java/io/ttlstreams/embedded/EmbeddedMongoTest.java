package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * The MongoDB stand-in on its own: no Kafka needed, so it runs with the unit tests.
 *
 * <p>The await getMore of change streams ({@code io.ttlstreams.embedded.standin.ChangeStreams}) is checked by what
 * the server does, not by how long calls take: a waiting getMore is seen parked in it, from the server's thread
 * stacks. How long it waits and how fast a write wakes it are figures for
 * {@code io.ttlstreams.bench.StandInLatencyBench}. What the events hold is for {@code ChangeStreamFidelityTest}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class EmbeddedMongoTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    /** Where a held change-stream getMore waits. */
    private static final String AWAITING_CLASS = "io.ttlstreams.embedded.standin.ChangeStreams";

    private EmbeddedMongo mongo;
    private MongoClient client;
    private MongoCollection<Document> docs;
    private final ExecutorService background = Executors.newCachedThreadPool();

    @BeforeEach
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
    void start() {
        mongo = EmbeddedMongo.start(0);
        client = MongoClients.create(mongo.connectionString());
        docs = client.getDatabase("ttl").getCollection("docs");
    }

    @AfterEach
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
    void stop() {
        background.shutdownNow();
        client.close();
        mongo.close();
    }

    /**
     * True when a server thread is parked inside the backend's getMore, i.e. a getMore is being held. One stack
     * trace is one consistent snapshot of its thread.
     */
    private static boolean aGetMoreIsHeld() {
        return Thread.getAllStackTraces().values().stream().anyMatch(EmbeddedMongoTest::isHeldGetMore);
    }

    private static boolean isHeldGetMore(StackTraceElement[] stack) {
        boolean waiting = stack.length > 0
                && stack[0].getClassName().equals(Object.class.getName())
                && stack[0].getMethodName().startsWith("wait");
        return waiting
                && Arrays.stream(stack)
                        .anyMatch(frame -> frame.getClassName().equals(AWAITING_CLASS)
                                && frame.getMethodName().equals("getMore"));
    }

    @Test
    void shouldHoldAnIdleChangeStreamGetMoreAndAnswerItWithTheNextWrite() throws Exception {
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor =
                docs.watch().maxAwaitTime(2, TimeUnit.SECONDS).cursor()) {
            // Each tryNext is one getMore; with the stock backend they would come back at once, empty, and spin.
            Future<ChangeStreamDocument<Document>> next = background.submit(() -> {
                ChangeStreamDocument<Document> event = cursor.tryNext();
                while (event == null) {
                    event = cursor.tryNext();
                }
                return event;
            });

            await("a change-stream getMore held by the server")
                    .atMost(WAIT)
                    .pollInterval(Duration.ofMillis(5))
                    .until(EmbeddedMongoTest::aGetMoreIsHeld);
            docs.insertOne(new Document("_id", "d1"));

            assertThat(next.get(WAIT.toSeconds(), TimeUnit.SECONDS).getFullDocument())
                    .containsEntry("_id", "d1");
        }
    }

    @Test
    void shouldEndAHeldGetMoreWithAnEmptyBatchAndKeepTheCursorOpen() {
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor =
                docs.watch().maxAwaitTime(2, TimeUnit.SECONDS).cursor()) {
            assertThat(cursor.tryNext()).as("nothing was written").isNull();
            assertThat(cursor.getServerCursor())
                    .as("the change stream's cursor")
                    .isNotNull();

            docs.insertOne(new Document("_id", "d1"));
            ChangeStreamDocument<Document> event = cursor.tryNext();
            while (event == null) {
                event = cursor.tryNext();
            }
            assertThat(event.getFullDocument()).containsEntry("_id", "d1");
        }
    }

    /**
     * MongoDB waits up to a second on an await cursor whose getMore gives no maxTimeMS; answering at once instead
     * made every such loop spin (the status line's deletion counter used 0.9 of two cores at rest).
     */
    @Test
    void shouldHoldAChangeStreamGetMoreWhenItGivesNoMaxTime() throws Exception {
        MongoDatabase database = client.getDatabase("ttl");
        Document opened = database.runCommand(new Document("aggregate", "docs")
                .append("pipeline", List.of(new Document("$changeStream", new Document())))
                .append("cursor", new Document()));
        long cursorId = opened.get("cursor", Document.class).getLong("id");
        Future<Document> getMore = background.submit(
                () -> database.runCommand(new Document("getMore", cursorId).append("collection", "docs")));

        await("a getMore without maxTimeMS held by the server")
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(5))
                .until(EmbeddedMongoTest::aGetMoreIsHeld);
        docs.insertOne(new Document("_id", "d1"));

        Document batch = getMore.get(WAIT.toSeconds(), TimeUnit.SECONDS).get("cursor", Document.class);
        List<Document> events = batch.getList("nextBatch", Document.class);
        if (events.isEmpty()) { // the wait ended just before the insert: the next getMore has it
            events = database.runCommand(new Document("getMore", cursorId).append("collection", "docs"))
                    .get("cursor", Document.class)
                    .getList("nextBatch", Document.class);
        }
        assertThat(events).extracting(event -> event.get("documentKey")).containsExactly(new Document("_id", "d1"));
    }

    /**
     * Only change streams wait. A plain cursor's getMore carries no maxTimeMS from the driver, so the raw command
     * asks for one, which must not make the server hold it either.
     */
    @Test
    void shouldNeverHoldTheGetMoreOfAPlainQuery() throws Exception {
        for (int i = 0; i < 5; i++) {
            docs.insertOne(new Document("_id", "d" + i));
        }
        AtomicBoolean stopWatching = new AtomicBoolean();
        AtomicInteger looks = new AtomicInteger();
        CompletableFuture<Boolean> everHeld = CompletableFuture.supplyAsync(
                () -> {
                    boolean held = false;
                    while (!held
                            && !stopWatching.get()
                            && !Thread.currentThread().isInterrupted()) {
                        held = aGetMoreIsHeld();
                        looks.incrementAndGet();
                    }
                    return held;
                },
                background);
        await("the watcher of held getMores running").atMost(WAIT).until(() -> looks.get() > 0);

        List<Document> all = docs.find().batchSize(2).into(new ArrayList<>());
        Document missing = docs.find(Filters.eq("_id", "none")).first();
        MongoDatabase database = client.getDatabase("ttl");
        Document firstBatch = database.runCommand(new Document("find", "docs").append("batchSize", 2));
        long cursorId = firstBatch.get("cursor", Document.class).getLong("id");
        List<Document> batches = new ArrayList<>();
        while (cursorId != 0) {
            Document batch = database.runCommand(new Document("getMore", cursorId)
                            .append("collection", "docs")
                            .append("batchSize", 2)
                            .append("maxTimeMS", 2_000))
                    .get("cursor", Document.class);
            batches.addAll(batch.getList("nextBatch", Document.class));
            cursorId = batch.getLong("id");
        }
        stopWatching.set(true);

        assertThat(all).hasSize(5);
        assertThat(missing).isNull();
        assertThat(batches).extracting(d -> d.get("_id")).containsExactly("d2", "d3", "d4");
        assertThat(everHeld.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .as("a plain query's getMore was held")
                .isFalse();
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
}
