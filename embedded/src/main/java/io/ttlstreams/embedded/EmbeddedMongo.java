package io.ttlstreams.embedded;

import de.bwaldvogel.mongo.MongoServer;
import io.ttlstreams.config.SourceProfile;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-memory MongoDB stand-in (mongo-java-server) with change streams enabled, listening on 127.0.0.1.
 *
 * <p>It speaks the wire protocol well enough for the MongoDB Java driver and the Kafka connectors, with the
 * quirks described in the package documentation. Data lives in memory only and is gone after {@link #close()}.
 */
public final class EmbeddedMongo implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedMongo.class);

    /**
     * Netty worker threads. Channels are spread over event loops round-robin and a waiting change-stream getMore
     * holds its loop (see {@link LongPollingMemoryBackend}); with a loop per connection for all realistic
     * connection counts (a few per connector and client) nothing waits behind an idle change stream. Idle loops
     * cost a sleeping thread each, and netty starts them only when first used.
     */
    private static final int WORKER_THREADS = 64;

    private final MongoServer server;
    private final LongPollingMemoryBackend backend;
    private final int port;
    private boolean closed;

    private EmbeddedMongo(MongoServer server, LongPollingMemoryBackend backend, int port) {
        this.server = server;
        this.backend = backend;
        this.port = port;
    }

    /**
     * Starts the stand-in.
     *
     * @param port the port to listen on at 127.0.0.1, or 0 for any free port
     * @return the running server
     * @throws EmbeddedStackException if the port cannot be bound
     */
    public static EmbeddedMongo start(int port) {
        return start(port, SourceProfile.MONGODB);
    }

    /**
     * Starts the stand-in playing {@code profile}: {@link SourceProfile#COSMOSDB} refuses the change streams Cosmos
     * DB refuses ({@link CosmosDbEmulation}); no other service is emulated.
     *
     * @param port the port to listen on at 127.0.0.1, or 0 for any free port
     * @param profile {@link SourceProfile#MONGODB} or {@link SourceProfile#COSMOSDB}
     * @return the running server
     * @throws EmbeddedStackException if the port cannot be bound
     */
    public static EmbeddedMongo start(int port, SourceProfile profile) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("MongoDB port must be between 0 and 65535, got " + port);
        }
        LongPollingMemoryBackend backend = new LongPollingMemoryBackend(
                switch (profile) {
                    case MONGODB -> command -> null;
                    case COSMOSDB -> CosmosDbEmulation::refusal;
                    default -> throw new IllegalArgumentException("The stand-in does not emulate " + profile.service());
                });
        // Without the oplog, change streams open fine but never return an event.
        backend.enableOplog();
        MongoServer server = new MongoServer(backend);
        try {
            server.bind(new InetSocketAddress(LocalPorts.HOST, port), 1, WORKER_THREADS);
        } catch (Exception e) {
            // Exception, not RuntimeException: netty rethrows a checked BindException undeclared, which also
            // slips past bind()'s own clean-up and would leave its event-loop threads running.
            server.shutdownNow();
            throw new EmbeddedStackException(
                    "Embedded MongoDB could not listen on " + LocalPorts.HOST + ":" + port + " (" + e.getMessage()
                            + ")",
                    e);
        }
        EmbeddedMongo mongo =
                new EmbeddedMongo(server, backend, server.getLocalAddress().getPort());
        log.debug("Embedded MongoDB (mongo-java-server) listening at {}", mongo.connectionString());
        return mongo;
    }

    /** @return the port the server listens on */
    public int port() {
        return port;
    }

    /**
     * @return a connection string for the MongoDB drivers and connectors, {@code mongodb://127.0.0.1:<port>}
     *         (a single host without a replica set name, so drivers connect directly)
     */
    public String connectionString() {
        return "mongodb://" + LocalPorts.HOST + ":" + port;
    }

    /** Stops listening, disconnects all clients and drops all data. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Release waiting getMores first; otherwise each event loop finishes its wait before it can stop.
        backend.beginShutdown();
        server.shutdownNow();
        log.debug("Embedded MongoDB stopped");
    }
}
