package io.ttlstreams.bench;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import io.ttlstreams.config.RulesOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.embedded.app.EmbeddedOptions;
import io.ttlstreams.embedded.app.EmbeddedPipeline;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;

/**
 * Figure 6: end-to-end expiry lag through the whole embedded stack ({@link EmbeddedPipeline}: the MongoDB
 * stand-in, the official source and sink connectors in an embedded Connect worker, the KRaft broker and the
 * processor with its default settings, a field rule on {@code app.sessions.expireAt}).
 *
 * <p>A writer inserts documents through the MongoDB sync driver at {@code rate} per second (a batch every 100 ms)
 * for {@code seconds} seconds, each expiring {@code leadMs} after its insert, spaced 1000/rate ms apart, so that
 * {@code rate} deadlines per second fall due in steady state while the inserts keep coming. A change stream on the
 * collection records when each delete arrives at the bench; lag = that arrival time - the document's deadline.
 * Deletes before the deadline (negative lag) are counted separately; documents still there 30 s after the last
 * deadline are reported as missing.
 */
final class EndToEndLagBench {

    private static final int BATCHES_PER_SECOND = 10;

    final int rate;
    final int seconds;
    final long leadMs;
    double[] lagsMs = new double[0];
    /** Each lag's deadline, in ms after the first insert, in the order of {@link #lagsMs}. */
    long[] deadlineOffsetsMs = new long[0];

    int inserted;
    int early;
    int missing;
    double stackStartSeconds;

    private final Consumer<String> log;

    EndToEndLagBench(int rate, int seconds, long leadMs, Consumer<String> log) {
        this.rate = rate;
        this.seconds = seconds;
        this.leadMs = leadMs;
        this.log = log;
    }

    double p(double percentile) {
        return lagsMs.length == 0 ? Double.NaN : Stats.percentile(lagsMs, percentile);
    }

    double max() {
        return lagsMs.length == 0 ? Double.NaN : Stats.max(lagsMs);
    }

    /**
     * A percentile of the lags of the documents due in {@code [fromMs, toMs)} after the first insert.
     *
     * @return NaN when none was due then
     */
    double p(double percentile, long fromMs, long toMs) {
        double[] window = java.util.stream.IntStream.range(0, lagsMs.length)
                .filter(i -> deadlineOffsetsMs[i] >= fromMs && deadlineOffsetsMs[i] < toMs)
                .mapToDouble(i -> lagsMs[i])
                .toArray();
        return window.length == 0 ? Double.NaN : Stats.percentile(window, percentile);
    }

    void run() throws InterruptedException {
        long startNanos = System.nanoTime();
        TtlStreamsConfig config = new TtlStreamsConfig(Map.of(
                RulesOptions.RULES_CONFIG,
                BenchSupport.RULE,
                "ttl.rule.sessions.namespace",
                BenchSupport.NAMESPACE,
                "ttl.rule.sessions.field",
                "expireAt",
                EmbeddedOptions.EMBEDDED_MONGODB_PORT_CONFIG,
                "0",
                EmbeddedOptions.EMBEDDED_KAFKA_PORT_CONFIG,
                "0",
                EmbeddedOptions.EMBEDDED_CONNECT_PORT_CONFIG,
                "0"));
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(config);
                MongoClient client = MongoClients.create(pipeline.stack().mongoConnectionString())) {
            stackStartSeconds = (System.nanoTime() - startNanos) / 1e9;
            log.accept(String.format(java.util.Locale.ROOT, "embedded pipeline up in %.1f s", stackStartSeconds));
            MongoCollection<Document> sessions = client.getDatabase("app").getCollection("sessions");
            Map<Long, Long> deadlines = new ConcurrentHashMap<>();
            Map<Long, Long> gone = new ConcurrentHashMap<>();
            AtomicBoolean stop = new AtomicBoolean();
            Thread watcher = watchDeletes(sessions, gone, stop);
            try {
                insertPaced(sessions, deadlines);
                long lastDeadline = deadlines.values().stream()
                        .mapToLong(Long::longValue)
                        .max()
                        .orElse(0);
                long waitUntil = lastDeadline + 30_000;
                while (gone.size() < deadlines.size() && System.currentTimeMillis() < waitUntil) {
                    Thread.sleep(50);
                }
            } finally {
                stop.set(true);
                watcher.join(5_000);
            }
            inserted = deadlines.size();
            long begin =
                    deadlines.values().stream().mapToLong(Long::longValue).min().orElse(leadMs) - leadMs;
            List<Double> lags = new ArrayList<>();
            List<Long> offsets = new ArrayList<>();
            for (Map.Entry<Long, Long> entry : deadlines.entrySet()) {
                Long goneAt = gone.get(entry.getKey());
                if (goneAt == null) {
                    missing++;
                } else if (goneAt < entry.getValue()) {
                    early++;
                } else {
                    lags.add((double) (goneAt - entry.getValue()));
                    offsets.add(entry.getValue() - begin);
                }
            }
            lagsMs = lags.stream().mapToDouble(Double::doubleValue).toArray();
            deadlineOffsetsMs = offsets.stream().mapToLong(Long::longValue).toArray();
            long left = sessions.countDocuments();
            if (left != missing) {
                log.accept("documents left in the collection: " + left + ", deletes not seen: " + missing);
            }
        }
    }

    /** Inserts {@code rate / 10} documents every 100 ms for {@code seconds} s, each due leadMs after its slot. */
    private void insertPaced(MongoCollection<Document> sessions, Map<Long, Long> deadlines)
            throws InterruptedException {
        int perBatch = Math.max(1, rate / BATCHES_PER_SECOND);
        double spacingMs = 1000.0 / rate;
        long begin = System.currentTimeMillis();
        long id = 0;
        int batches = seconds * BATCHES_PER_SECOND;
        for (int b = 0; b < batches; b++) {
            long slot = begin + b * (1000L / BATCHES_PER_SECOND);
            long wait = slot - System.currentTimeMillis();
            if (wait > 0) {
                Thread.sleep(wait);
            }
            List<Document> batch = new ArrayList<>(perBatch);
            for (int i = 0; i < perBatch; i++) {
                long deadline = slot + leadMs + Math.round(i * spacingMs);
                batch.add(new Document("_id", id).append("user", "user-" + id).append("expireAt", new Date(deadline)));
                deadlines.put(id, deadline);
                id++;
            }
            sessions.insertMany(batch);
        }
        long late = System.currentTimeMillis() - (begin + seconds * 1000L);
        if (late > 200) {
            log.accept("the writer fell " + late + " ms behind its schedule");
        }
    }

    /** Records the arrival time of each delete event on the collection's change stream. */
    private Thread watchDeletes(MongoCollection<Document> sessions, Map<Long, Long> gone, AtomicBoolean stop) {
        java.util.concurrent.CountDownLatch opened = new java.util.concurrent.CountDownLatch(1);
        Thread thread = new Thread(
                () -> {
                    try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = sessions.watch(
                                    List.of(Aggregates.match(Filters.eq("operationType", "delete"))))
                            .maxAwaitTime(100, TimeUnit.MILLISECONDS)
                            .cursor()) {
                        opened.countDown();
                        while (!stop.get()) {
                            ChangeStreamDocument<Document> change = cursor.tryNext();
                            if (change == null) {
                                continue;
                            }
                            long now = System.currentTimeMillis();
                            BsonDocument key = change.getDocumentKey();
                            BsonValue id = key == null ? null : key.get("_id");
                            if (id != null && id.isInt64()) {
                                gone.putIfAbsent(id.asInt64().getValue(), now);
                            } else if (id != null && id.isInt32()) {
                                gone.putIfAbsent((long) id.asInt32().getValue(), now);
                            }
                        }
                    } catch (RuntimeException e) {
                        if (!stop.get()) {
                            log.accept("delete watcher failed: " + e);
                        }
                    } finally {
                        opened.countDown();
                    }
                },
                "bench-delete-watcher");
        thread.setDaemon(true);
        thread.start();
        try {
            opened.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return thread;
    }
}
