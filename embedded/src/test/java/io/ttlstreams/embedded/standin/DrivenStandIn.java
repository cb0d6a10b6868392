package io.ttlstreams.embedded.standin;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A stand-in whose machine clock the test drives ({@link #advance}), and a client on it: for behaviour that depends on
 * the time passing, tested without waiting for it.
 */
final class DrivenStandIn implements AutoCloseable {

    /** A clock that stands still until told to move. */
    static final class DrivenClock extends Clock {

        private final AtomicReference<Instant> now;

        DrivenClock(Instant start) {
            this.now = new AtomicReference<>(start);
        }

        void advance(Duration by) {
            now.updateAndGet(instant -> instant.plus(by));
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    }

    final DrivenClock clock = new DrivenClock(Instant.parse("2030-01-01T00:00:00Z"));
    final MongoClient client;
    private final MongoServer server;

    DrivenStandIn(StandInSettings settings) {
        try {
            server = new MongoServer(StandInBackend.create(200, Optional.empty(), settings, clock));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        client = MongoClients.create("mongodb://" + server.bind().getHostString() + ":"
                + server.getLocalAddress().getPort());
    }

    void advance(Duration by) {
        clock.advance(by);
    }

    @Override
    public void close() {
        client.close();
        server.shutdownNow();
    }
}
