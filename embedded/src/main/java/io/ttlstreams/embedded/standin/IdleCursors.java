package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.CursorNotFoundException;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * MongoDB's idle cursor timeout ({@code cursorTimeoutMillis}, 10 minutes by default): a cursor no command used for
 * that long is killed, and a later {@code getMore} of it answers CursorNotFound (43), as a resync holding a cursor
 * through a long stall meets it. A cursor opened with {@code noCursorTimeout} is exempt. Time is the stand-in's
 * clock's, so a test can drive it.
 *
 * <p>MongoDB's reaper runs every few seconds; the stand-in reaps when a {@code getMore} arrives, which is when a
 * client can tell (a cursor never asked for again stays in memory, as every cursor of mongo-java-server does). Not modelled: MongoDB 5.0+ also ends a cursor bound to a session when that session times out
 * (30 idle minutes), noCursorTimeout or not.
 */
final class IdleCursors {

    private final Clock clock;
    private final Duration timeout;
    private final CursorRegistry registry;
    /** When each cursor subject to the timeout was last used. */
    private final ConcurrentMap<Long, Instant> lastUsed = new ConcurrentHashMap<>();

    IdleCursors(Clock clock, Duration timeout, CursorRegistry registry) {
        this.clock = clock;
        this.timeout = timeout;
        this.registry = registry;
    }

    /** Kills every cursor idle for longer than the timeout, as MongoDB's reaper does. */
    void reap() {
        Instant now = clock.instant();
        lastUsed.entrySet().removeIf(entry -> {
            if (Duration.between(entry.getValue(), now).compareTo(timeout) > 0) {
                registry.remove(entry.getKey());
                return true;
            }
            return !exists(entry.getKey());
        });
    }

    /**
     * A {@code getMore} of {@code cursorId} begins: the cursor is in use, so that a getMore waiting for change events
     * does not see its own cursor killed under it.
     *
     * @throws MongoServerError CursorNotFound (43) with MongoDB's message when there is no such cursor
     *     (mongo-java-server would answer its own code, -5)
     */
    void use(Object cursorId) {
        if (!(cursorId instanceof Number id)) {
            return; // the stock path refuses a malformed getMore
        }
        if (!exists(id.longValue())) {
            throw new MongoServerError(
                    ErrorCodes.CURSOR_NOT_FOUND, "CursorNotFound", "cursor id " + id.longValue() + " not found");
        }
        lastUsed.replace(id.longValue(), clock.instant());
    }

    /** After a command: the cursor its reply names (a new one, or one a getMore continued) was used now. */
    void afterCommand(String command, Document query, Document reply) {
        if (!(reply.get("cursor") instanceof Document cursor)
                || !(cursor.get("id") instanceof Number id)
                || id.longValue() == 0) {
            return;
        }
        if (command.equals("getMore")) {
            lastUsed.replace(id.longValue(), clock.instant());
        } else if (!Utils.isTrue(query.get("noCursorTimeout"))) {
            lastUsed.put(id.longValue(), clock.instant());
        }
    }

    private boolean exists(long id) {
        try {
            registry.getCursor(id);
            return true;
        } catch (CursorNotFoundException e) {
            return false;
        }
    }
}
