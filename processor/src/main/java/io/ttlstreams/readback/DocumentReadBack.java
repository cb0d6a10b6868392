package io.ttlstreams.readback;

import io.micrometer.core.instrument.util.NamedThreadFactory;
import io.ttlstreams.contract.Namespace;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-back service of one processor instance: tasks {@link #submit} requests without ever waiting, and one
 * thread of its own reads them from MongoDB, grouped per namespace into look-ups of at most {@code batchSize} ids
 * ({@code find({_id: {$in: [...]}})}), and delivers each answer to the asking task's {@link ReadBackInbox}.
 *
 * <p>Bounded: at most {@value #QUEUED_BATCHES} batches' worth of requests wait; a request that does not fit is
 * refused, and the task then carries on as without read-back. The requests themselves are bounded by the tasks'
 * overdue confirmations, which each punctuation handles within its entry budget and the delete throttle.
 *
 * <p>Bounded in rate: the thread starts at most {@code maxLookUpsPerSecond} look-ups a second, so that a mass expiry
 * spends the database's capacity on its deletes rather than on reading them back; requests wait meanwhile.
 *
 * <p>A look-up that fails answers {@link ReadResult.Kind#FAILED} for its ids only; the others are read as usual.
 */
public final class DocumentReadBack implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DocumentReadBack.class);
    /** How many batches' worth of requests may wait. */
    static final int QUEUED_BATCHES = 20;

    private final DocumentReader reader;
    private final int batchSize;
    private final BlockingQueue<ReadRequest> queue;
    private final Pace pace;
    private Thread thread;
    /** Cleared by {@link #close}: the driver may swallow the interrupt of a read under way. */
    private volatile boolean running;
    /** Whether the last look-up failed: a WARN when reads start failing, an INFO when they work again, not one each. */
    private boolean failing;

    /**
     * Creates the service; {@link #start} starts its thread (tests call {@link #readQueued} instead).
     *
     * @param reader reads the documents
     * @param batchSize at most this many ids per look-up
     * @param maxLookUpsPerSecond at most this many look-ups a second on the service's thread
     */
    public DocumentReadBack(DocumentReader reader, int batchSize, int maxLookUpsPerSecond) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be at least 1: " + batchSize);
        }
        if (maxLookUpsPerSecond < 1) {
            throw new IllegalArgumentException("maxLookUpsPerSecond must be at least 1: " + maxLookUpsPerSecond);
        }
        this.pace = new Pace(maxLookUpsPerSecond, System::nanoTime, TimeUnit.NANOSECONDS::sleep);
        this.reader = Objects.requireNonNull(reader, "reader");
        this.batchSize = batchSize;
        this.queue = new ArrayBlockingQueue<>(QUEUED_BATCHES * batchSize);
    }

    /** Queues a request; false, at once, when the queue is full. */
    public boolean submit(ReadRequest request) {
        return queue.offer(request);
    }

    /** Starts the thread that reads queued requests as they come. */
    public synchronized DocumentReadBack start() {
        if (thread == null) {
            running = true;
            thread = new NamedThreadFactory("ttl-streams-read-back").newThread(this::run);
            thread.start();
        }
        return this;
    }

    private void run() {
        List<ReadRequest> round = new ArrayList<>();
        while (running && !Thread.currentThread().isInterrupted()) {
            try {
                ReadRequest first = queue.poll(1, TimeUnit.SECONDS);
                if (first == null) {
                    continue;
                }
                round.add(first);
                queue.drainTo(round);
                read(round, pace);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                // read answers every failure of the reader itself; anything else is a bug, not worth the thread.
                LOG.error("Read-back round failed; its requests are answered by their next overdue time", e);
            } finally {
                round.clear();
            }
        }
    }

    /**
     * Reads every request queued now, on the caller's thread, and returns how many look-ups that took: for tests,
     * which then control when answers arrive.
     */
    public int readQueued() {
        List<ReadRequest> round = new ArrayList<>();
        queue.drainTo(round);
        try {
            return read(round, Pace.NONE);
        } catch (InterruptedException e) {
            throw new AssertionError("an unpaced read never waits", e);
        }
    }

    /** Reads the requests grouped per namespace in batches of at most batchSize; returns the look-ups issued. */
    private int read(List<ReadRequest> requests, Pace pace) throws InterruptedException {
        Map<Namespace, List<ReadRequest>> byNamespace = new LinkedHashMap<>();
        for (ReadRequest request : requests) {
            if (!request.inbox().isOpen()) {
                continue;
            }
            if (request.id() == null) {
                request.inbox().deliver(ReadResult.failed(request));
                continue;
            }
            byNamespace
                    .computeIfAbsent(request.namespace(), ns -> new ArrayList<>())
                    .add(request);
        }
        int lookUps = 0;
        for (Map.Entry<Namespace, List<ReadRequest>> namespace : byNamespace.entrySet()) {
            List<ReadRequest> all = namespace.getValue();
            for (int from = 0; from < all.size(); from += batchSize) {
                lookUps++;
                pace.await();
                readBatch(namespace.getKey(), all.subList(from, Math.min(all.size(), from + batchSize)));
            }
        }
        return lookUps;
    }

    private void readBatch(Namespace namespace, List<ReadRequest> batch) {
        List<BsonValue> ids = batch.stream().map(ReadRequest::id).distinct().toList();
        List<BsonDocument> found;
        try {
            found = reader.read(namespace, ids);
        } catch (RuntimeException e) {
            if (!failing) {
                LOG.warn(
                        "Could not read {} documents of {} back from MongoDB; while reads fail, unconfirmed deletes"
                                + " are retried as without read-back",
                        ids.size(),
                        namespace,
                        e);
            } else {
                LOG.debug("Could not read {} documents of {} back from MongoDB", ids.size(), namespace, e);
            }
            failing = true;
            batch.forEach(request -> request.inbox().deliver(ReadResult.failed(request)));
            return;
        }
        if (failing) {
            failing = false;
            LOG.info("Reading documents back from MongoDB works again");
        }
        Map<BsonValue, BsonDocument> byId = new HashMap<>();
        boolean unmatched = false;
        for (BsonDocument document : found) {
            BsonValue id = document.get("_id");
            if (id != null && ids.contains(id)) {
                byId.put(id, document);
            } else {
                unmatched = true;
            }
        }
        for (ReadRequest request : batch) {
            BsonDocument document = byId.get(request.id());
            if (document != null) {
                request.inbox().deliver(ReadResult.present(request, document));
            } else if (unmatched) {
                // A document whose _id MongoDB matched but which equals no id asked for (1 and 1L, say): which one
                // it answers is unclear, and absence is claimed only when nothing of the kind came back.
                request.inbox().deliver(ReadResult.failed(request));
            } else {
                request.inbox().deliver(ReadResult.absent(request));
            }
        }
    }

    /** Spaces look-ups at least a second / {@code perSecond} apart; {@link #NONE} never waits. */
    static final class Pace {

        /** No bound: for reads the caller times itself. */
        static final Pace NONE = new Pace(0, () -> 0L, nanos -> {});

        /** Waits on the read-back thread; a sleep there holds up reads only, never a stream thread. */
        interface Sleeper {
            void sleep(long nanos) throws InterruptedException;
        }

        private final long intervalNanos;
        private final LongSupplier nanoClock;
        private final Sleeper sleeper;
        private long next = Long.MIN_VALUE;

        Pace(int perSecond, LongSupplier nanoClock, Sleeper sleeper) {
            if (perSecond < 0) {
                throw new IllegalArgumentException("perSecond must not be negative: " + perSecond);
            }
            this.intervalNanos = perSecond == 0 ? 0 : TimeUnit.SECONDS.toNanos(1) / perSecond;
            this.nanoClock = nanoClock;
            this.sleeper = sleeper;
        }

        /** Returns once the next look-up may start. */
        void await() throws InterruptedException {
            if (intervalNanos == 0) {
                return;
            }
            long now = nanoClock.getAsLong();
            if (next != Long.MIN_VALUE && now - next < 0) {
                sleeper.sleep(next - now);
                now = next;
            }
            next = now + intervalNanos;
        }
    }

    /** Stops the thread; requests still queued are not read. */
    @Override
    public synchronized void close() {
        if (thread != null) {
            running = false;
            thread.interrupt();
            try {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            thread = null;
        }
        queue.clear();
    }
}
