package io.ttlstreams.resync;

import com.mongodb.ClientSessionOptions;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonInt32;

/**
 * Takes the {@link ReadStamp} of each batch just before the batch is read: a {@code ping} on the session the reads
 * use, whose response carries the cluster time. With a causally consistent session the read that follows sees
 * everything up to that time, which is what makes the stamp a lower bound of what was read.
 */
final class ReadStamps implements AutoCloseable {

    private static final BsonDocument PING = new BsonDocument("ping", new BsonInt32(1));

    private final ClientSession session;
    private final Clock clock;

    private ReadStamps(ClientSession session, Clock clock) {
        this.session = session;
        this.clock = clock;
    }

    /**
     * Connects (a first ping discovers the deployment) and opens a causally consistent session where the deployment
     * supports sessions (replica sets and sharded clusters; not a standalone server or the embedded stand-in).
     */
    static ReadStamps open(MongoClient client, Clock clock) {
        client.getDatabase("admin").runCommand(PING, BsonDocument.class);
        ClientSession session = client.getClusterDescription().getLogicalSessionTimeoutMinutes() == null
                ? null
                : client.startSession(
                        ClientSessionOptions.builder().causallyConsistent(true).build());
        return new ReadStamps(session, clock);
    }

    /** The session reads must use for their stamps to hold; empty where the deployment has no sessions. */
    Optional<ClientSession> session() {
        return Optional.ofNullable(session);
    }

    /** The stamp of a read about to run against {@code database}. */
    ReadStamp next(MongoDatabase database) {
        Instant before = clock.instant();
        BsonDocument response = session == null
                ? database.runCommand(PING, BsonDocument.class)
                : database.runCommand(session, PING, BsonDocument.class);
        return ReadStamp.choose(session == null ? null : session.getOperationTime(), response, before);
    }

    @Override
    public void close() {
        if (session != null) {
            session.close();
        }
    }
}
