package io.ttlstreams.bench;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import io.ttlstreams.embedded.EmbeddedMongo;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.Document;

/**
 * Timings of the MongoDB stand-in's await getMore (the embedded module's {@code standin.ChangeStreams}), which the
 * unit tests check by behaviour only: how long an idle change-stream getMore is held (the driver's maxAwaitTime, 2 s
 * here), how soon a write answers a held one, and what a plain query costs while a change stream waits on another
 * connection.
 *
 * <pre>
 *   java -cp "bench/target/ttl-streams-bench.jar:bench/target/lib/*" io.ttlstreams.bench.StandInLatencyBench
 * </pre>
 */
public final class StandInLatencyBench {

    /** How long after the getMore went out the write is made: well inside the 2 s hold. */
    private static final long WRITE_AFTER_MILLIS = 100;

    /**
     * The figures, in milliseconds.
     *
     * @param idleHoldP50 median time an empty change-stream getMore took (driver maxAwaitTime 2 s)
     * @param writeToEventP50 median time from a write to the event, answered by the getMore held at the time
     * @param writeToEventMax the slowest of those
     * @param plainQueryP50 median round trip of a find by _id while a change stream waits on another connection
     * @param plainQueryMax the slowest of those
     */
    public record Figures(
            double idleHoldP50,
            double writeToEventP50,
            double writeToEventMax,
            double plainQueryP50,
            double plainQueryMax) {

        /** One line, {@code key=value} pairs. */
        public String line() {
            return String.format(
                    Locale.ROOT,
                    "stand-in getMore: idle_hold_p50_ms=%.1f write_to_event_p50_ms=%.1f write_to_event_max_ms=%.1f"
                            + " plain_query_p50_ms=%.2f plain_query_max_ms=%.2f",
                    idleHoldP50,
                    writeToEventP50,
                    writeToEventMax,
                    plainQueryP50,
                    plainQueryMax);
        }
    }

    private StandInLatencyBench() {}

    /** Measures {@code samples} of each figure (about 0.7 s per sample) on a fresh stand-in. */
    public static Figures run(int samples) throws InterruptedException, ExecutionException {
        ExecutorService watcher = Executors.newSingleThreadExecutor();
        try (EmbeddedMongo mongo = EmbeddedMongo.start(0);
                MongoClient streams = MongoClients.create(mongo.connectionString());
                MongoClient queries = MongoClients.create(mongo.connectionString())) {
            MongoCollection<Document> watched = streams.getDatabase("bench").getCollection("docs");
            MongoCollection<Document> queried = queries.getDatabase("bench").getCollection("docs");
            double[] idle = new double[samples];
            double[] wake = new double[samples];
            try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor =
                    watched.watch().maxAwaitTime(2, TimeUnit.SECONDS).cursor()) {
                for (int i = 0; i < samples; i++) {
                    long start = System.nanoTime();
                    if (cursor.tryNext() != null) {
                        throw new IllegalStateException("An event nobody wrote");
                    }
                    idle[i] = millisSince(start);
                }
                for (int i = 0; i < samples; i++) {
                    Future<Long> received = watcher.submit(() -> {
                        while (cursor.tryNext() == null) {
                            // the next getMore; the write comes during one of them
                        }
                        return System.nanoTime();
                    });
                    Thread.sleep(WRITE_AFTER_MILLIS);
                    long written = System.nanoTime();
                    queried.insertOne(new Document("_id", "wake-" + i));
                    wake[i] = (received.get() - written) / 1e6;
                }
            }
            double[] plain = plainQueriesWhileWatching(watched, queried, samples * 20, watcher);
            return new Figures(
                    Stats.median(idle), Stats.median(wake), Stats.max(wake), Stats.median(plain), Stats.max(plain));
        } finally {
            watcher.shutdownNow();
        }
    }

    private static double[] plainQueriesWhileWatching(
            MongoCollection<Document> watched, MongoCollection<Document> queried, int queries, ExecutorService watcher)
            throws InterruptedException, ExecutionException {
        double[] millis = new double[queries];
        AtomicBoolean done = new AtomicBoolean();
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor =
                watched.watch().maxAwaitTime(2, TimeUnit.SECONDS).cursor()) {
            CompletableFuture<Void> idleStream = CompletableFuture.runAsync(
                    () -> {
                        while (!done.get()) {
                            cursor.tryNext();
                        }
                    },
                    watcher);
            Thread.sleep(WRITE_AFTER_MILLIS); // the change stream's getMore is held now
            for (int i = 0; i < queries; i++) {
                long start = System.nanoTime();
                queried.find(Filters.eq("_id", "wake-0")).first();
                millis[i] = millisSince(start);
            }
            done.set(true);
            idleStream.get();
        }
        return millis;
    }

    private static double millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e6;
    }

    /** Prints the figures; an optional argument sets the number of samples (default 10). */
    public static void main(String[] args) throws Exception {
        int samples = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        System.out.println(run(samples).line());
    }
}
