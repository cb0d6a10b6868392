package io.ttlstreams.embedded.app;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import io.ttlstreams.contract.Namespace;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the documents deleted from MongoDB in the watched namespaces, by following one change stream per
 * database: what the user sees, whatever deleted them. The embedded run shows it in its status line.
 *
 * <p>Each stream is an await cursor: its getMore waits up to {@link #AWAIT_SECONDS} for a deletion, so an idle
 * counter costs nothing, where a loop of immediate answers spun a core.
 */
final class DeletionCounter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DeletionCounter.class);
    /** How long one getMore waits for a deletion: MongoDB's default for an await cursor. */
    static final long AWAIT_SECONDS = 1;

    private final AtomicLong deleted = new AtomicLong();
    private final MongoClient client;
    private final List<MongoChangeStreamCursor<ChangeStreamDocument<Document>>> cursors = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    DeletionCounter(String connectionString, List<Namespace> namespaces) {
        this.client = MongoClients.create(connectionString);
        Map<String, List<String>> collectionsByDatabase = new LinkedHashMap<>();
        namespaces.forEach(namespace -> collectionsByDatabase
                .computeIfAbsent(namespace.database(), database -> new ArrayList<>())
                .add(namespace.collection()));
        collectionsByDatabase.forEach((database, collections) -> {
            MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = client.getDatabase(database)
                    .watch(List.of(Aggregates.match(
                            Filters.and(Filters.eq("operationType", "delete"), Filters.in("ns.coll", collections)))))
                    .maxAwaitTime(AWAIT_SECONDS, TimeUnit.SECONDS)
                    .cursor();
            cursors.add(cursor);
            Thread thread = new Thread(() -> follow(cursor), "ttl-streams-deletions-" + database);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        });
    }

    private void follow(MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor) {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                if (cursor.tryNext() != null) {
                    deleted.incrementAndGet();
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("Deletion counter stopped: {}", e.toString());
        }
    }

    long deleted() {
        return deleted.get();
    }

    @Override
    public void close() {
        threads.forEach(Thread::interrupt);
        cursors.forEach(MongoChangeStreamCursor::close);
        client.close();
    }
}
