package io.ttlstreams.embedded;

import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * mongo-java-server's in-memory backend with a {@code getMore} that waits for data like a real server does.
 *
 * <p>Why: the stock backend answers a {@code getMore} on a change stream at once, even when the batch is empty
 * and the driver asked to wait ({@code maxTimeMS}, from the source connector's {@code poll.await.time.ms}). Each
 * idle source task then spins on getMore and the stack burns more than a core doing nothing. Here an empty
 * answer on a live cursor is held back until a write arrives or min(maxTimeMS, {@link #MAX_WAIT_MILLIS}) has
 * passed, then re-polled.
 *
 * <p>The wait blocks the netty event loop serving that connection (the backend API is synchronous), so the
 * server must run with enough worker threads that other connections rarely share a loop with a waiting change
 * stream; see {@link EmbeddedMongo}. The cap keeps that worst case, and shutdown, short.
 */
final class LongPollingMemoryBackend extends MemoryBackend {

    /**
     * Upper bound of one server-side wait. Short enough that a connection sharing an event loop with an idle
     * change stream waits at most this long, long enough that idle polling costs little CPU.
     */
    static final long MAX_WAIT_MILLIS = 500;

    /**
     * Commands that may change data and so may produce change events. Anything else (reads, handshakes,
     * heartbeats) does not wake waiting change streams. A missing entry only delays an event by at most
     * {@link #MAX_WAIT_MILLIS}; it never loses one, because the wait ends with a re-poll.
     */
    private static final Set<String> WRITE_COMMANDS = Set.of(
            "insert",
            "update",
            "delete",
            "findandmodify",
            "aggregate",
            "create",
            "drop",
            "dropdatabase",
            "renamecollection");

    private final Object writeSignal = new Object();
    /** Bumped after every write; a waiter re-polls when it differs from what it saw before polling. */
    private long writeCount; // guarded by writeSignal

    private volatile boolean shuttingDown;

    /** What the emulated service refuses: the error reply for a command, or null to run it. */
    private final UnaryOperator<Document> refusals;

    /** @param refusals the error reply of the emulated service for a command it refuses, null for one it runs */
    LongPollingMemoryBackend(UnaryOperator<Document> refusals) {
        this.refusals = refusals;
    }

    /**
     * Every command the driver sends (OP_MSG) arrives here; the command name is the document's first key. The
     * legacy OP_QUERY path is used for the connection handshake only, which writes nothing.
     */
    @Override
    public Document handleMessage(MongoMessage message) {
        Document refused = refusals.apply(message.getDocument());
        if (refused != null) {
            return refused;
        }
        try {
            return super.handleMessage(message);
        } finally {
            // In finally: a failed multi-document write may still have written (and logged) part of it.
            if (isWrite(message.getDocument())) {
                signalWrite();
            }
        }
    }

    @Override
    protected Document handleGetMore(String databaseName, String command, Document query) {
        long waitMillis = Math.min(maxTimeMillis(query), MAX_WAIT_MILLIS);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        while (true) {
            long writesSeen = writeCount();
            Document response = super.handleGetMore(databaseName, command, query);
            long remainingNanos = deadline - System.nanoTime();
            if (remainingNanos <= 0 || shuttingDown || !isEmptyBatchOfLiveCursor(response)) {
                return response;
            }
            awaitWriteAfter(writesSeen, remainingNanos);
        }
    }

    /** Wakes every waiting getMore so the netty event loops can stop promptly. */
    void beginShutdown() {
        shuttingDown = true;
        synchronized (writeSignal) {
            writeSignal.notifyAll();
        }
    }

    private void signalWrite() {
        synchronized (writeSignal) {
            writeCount++;
            writeSignal.notifyAll();
        }
    }

    private long writeCount() {
        synchronized (writeSignal) {
            return writeCount;
        }
    }

    private void awaitWriteAfter(long writesSeen, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (writeSignal) {
            long remaining = timeoutNanos;
            while (writeCount == writesSeen && !shuttingDown && remaining > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(writeSignal, remaining);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                remaining = deadline - System.nanoTime();
            }
        }
    }

    private static boolean isWrite(Document command) {
        return !command.isEmpty()
                && WRITE_COMMANDS.contains(command.keySet().iterator().next().toLowerCase(Locale.ROOT));
    }

    /** No maxTimeMS means the client does not want to wait: keep the stock behaviour then. */
    private static long maxTimeMillis(Document query) {
        Object value = query.get("maxTimeMS");
        return value instanceof Number number ? Math.max(0, number.longValue()) : 0;
    }

    /** True for {@code {cursor: {id: <non-zero>, nextBatch: []}}}: nothing yet, but the cursor stays open. */
    private static boolean isEmptyBatchOfLiveCursor(Document response) {
        if (!(response.get("cursor") instanceof Map<?, ?> cursor)) {
            return false;
        }
        return cursor.get("id") instanceof Number id
                && id.longValue() != 0
                && cursor.get("nextBatch") instanceof List<?> batch
                && batch.isEmpty();
    }
}
