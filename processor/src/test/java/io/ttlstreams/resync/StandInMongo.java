package io.ttlstreams.resync;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.net.InetSocketAddress;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * An in-memory MongoDB (mongo-java-server) on a free loopback port, with a client, for tests that read documents:
 * like the embedded stand-in it reports no cluster time and has no sessions, so resyncs stamp from the clock.
 */
public final class StandInMongo implements AutoCloseable {

    private final MongoServer server;
    private final String connectionString;
    private final MongoClient client;

    public StandInMongo() {
        server = new MongoServer(new MemoryBackend());
        InetSocketAddress address = server.bind();
        connectionString = "mongodb://" + address.getHostString() + ":" + address.getPort();
        client = MongoClients.create(connectionString);
    }

    /** A stand-in holding one document, {@code app.sessions} {@code {_id: "s1"}}: what the sweep tests read. */
    public static StandInMongo withOneSession() {
        StandInMongo mongo = new StandInMongo();
        mongo.client()
                .getDatabase("app")
                .getCollection("sessions", BsonDocument.class)
                .insertOne(new BsonDocument("_id", new BsonString("s1")));
        return mongo;
    }

    /** {@code mongodb://host:port}. */
    public String connectionString() {
        return connectionString;
    }

    /** A client of the server, closed with it. */
    public MongoClient client() {
        return client;
    }

    @Override
    public void close() {
        client.close();
        server.shutdownNow();
    }
}
