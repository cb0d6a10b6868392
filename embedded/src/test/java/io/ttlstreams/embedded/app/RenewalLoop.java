package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.inc;

import com.mongodb.client.MongoCollection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.Document;

/**
 * A renewal workload on one collection: a fixed number of document slots, each touched at random intervals by an
 * {@code updateOne} that increments a counter, and nothing else. When a touch finds its document gone (it expired),
 * the slot goes on with a new document, so the collection keeps its size. Every write is logged with when it was
 * sent and when MongoDB acknowledged it, so that deletes can be checked against the last acknowledged modification.
 *
 * <p>Each slot has its own random sequence, drawn from the seed, and runs one write at a time on the shared
 * executor, so a document's writes are logged in the order MongoDB applied them.
 */
final class RenewalLoop {

    /** One write to a document: when it was sent, and when MongoDB acknowledged it. */
    record Write(Instant sent, Instant acknowledged) {}

    /** One document the loop created, with its writes in order: the insert, then every touch that found it. */
    static final class Tracked {
        private final String id;
        private final List<Write> writes = new ArrayList<>();

        private Tracked(String id) {
            this.id = id;
        }

        String id() {
            return id;
        }

        List<Write> writes() {
            return writes;
        }

        /** The counter's last value: each touch after the insert (which sets 0) adds one. */
        int counter() {
            return writes.size() - 1;
        }
    }

    private final MongoCollection<Document> collection;
    private final String counterField;
    private final String idPrefix;
    private final Duration minInterval;
    private final Duration maxInterval;
    private final ScheduledExecutorService executor;
    private final Map<String, Tracked> documents = new ConcurrentHashMap<>();
    private final AtomicInteger touches = new AtomicInteger();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private volatile boolean running;

    /**
     * @param collection where the documents live
     * @param counterField the field every touch increments
     * @param idPrefix prefix of the documents' ids, {@code <prefix>-<slot>-<generation>}
     * @param minInterval shortest wait between two touches of a slot
     * @param maxInterval longest wait between two touches of a slot
     * @param executor runs the touches; shared with other loops, shut down by the caller
     */
    RenewalLoop(
            MongoCollection<Document> collection,
            String counterField,
            String idPrefix,
            Duration minInterval,
            Duration maxInterval,
            ScheduledExecutorService executor) {
        this.collection = collection;
        this.counterField = counterField;
        this.idPrefix = idPrefix;
        this.minInterval = minInterval;
        this.maxInterval = maxInterval;
        this.executor = executor;
    }

    /** Inserts one document per slot and starts touching them. */
    void start(int slots, long seed) {
        running = true;
        for (int slot = 0; slot < slots; slot++) {
            Random random = new Random(seed + slot);
            Tracked document = insert(slot, 0);
            schedule(slot, 0, document, random);
        }
    }

    /** Stops scheduling touches; the caller then shuts the executor down and awaits it. */
    void stop() {
        running = false;
    }

    /** Touches acknowledged so far (modifications of a document that was there). */
    int touches() {
        return touches.get();
    }

    /** Every document created, once the executor has terminated. */
    Collection<Tracked> documents() {
        return documents.values();
    }

    /** The first exception a touch or insert threw, if any: it stopped that slot. */
    Optional<RuntimeException> failure() {
        return Optional.ofNullable(failure.get());
    }

    private void schedule(int slot, int generation, Tracked document, Random random) {
        long delay = minInterval.toMillis()
                + (long) (random.nextDouble() * (maxInterval.toMillis() - minInterval.toMillis()));
        try {
            executor.schedule(() -> touch(slot, generation, document, random), delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The executor shuts down only after stop(): a touch that was under way when the loop stopped.
            if (running) {
                throw e;
            }
        }
    }

    private void touch(int slot, int generation, Tracked document, Random random) {
        if (!running) {
            return;
        }
        try {
            Instant sent = Instant.now();
            long matched = collection
                    .updateOne(eq("_id", document.id), inc(counterField, 1))
                    .getMatchedCount();
            Instant acknowledged = Instant.now();
            if (matched == 1) {
                document.writes.add(new Write(sent, acknowledged));
                touches.incrementAndGet();
                schedule(slot, generation, document, random);
            } else {
                // Expired: the slot goes on with a new document.
                schedule(slot, generation + 1, insert(slot, generation + 1), random);
            }
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    private Tracked insert(int slot, int generation) {
        Tracked document = new Tracked(idPrefix + "-" + slot + "-" + generation);
        Instant sent = Instant.now();
        collection.insertOne(new Document("_id", document.id).append(counterField, 0));
        document.writes.add(new Write(sent, Instant.now()));
        documents.put(document.id, document);
        return document;
    }
}
