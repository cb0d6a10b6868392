package io.ttlstreams.embedded;

import de.bwaldvogel.mongo.MongoServer;
import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.standin.StandInBackend;
import io.ttlstreams.embedded.standin.StandInSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-memory MongoDB stand-in (mongo-java-server) with change streams like MongoDB's, listening on 127.0.0.1.
 *
 * <p>It speaks the wire protocol well enough for the MongoDB Java driver and the Kafka connectors; its change
 * streams are the stand-in's own ({@link StandInBackend}), and docs/embedded.md lists where they still differ from
 * MongoDB's. Data lives in memory only and is gone after {@link #close()}.
 */
public final class EmbeddedMongo implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedMongo.class);

    /**
     * Netty worker threads. Channels are spread over event loops round-robin and a waiting change-stream getMore
     * holds its loop (see {@link StandInBackend}); with a loop per connection for all realistic
     * connection counts (a few per connector and client) nothing waits behind an idle change stream. Idle loops
     * cost a sleeping thread each, and netty starts them only when first used.
     */
    private static final int WORKER_THREADS = 64;
    /** The stand-in's data in a directory it is started on. */
    static final String DATA_FILE = "stand-in.bson";

    private final MongoServer server;
    private final StandInBackend backend;
    private final int port;
    private final Optional<Path> dataFile;
    private boolean closed;

    private EmbeddedMongo(MongoServer server, StandInBackend backend, int port, Optional<Path> dataFile) {
        this.server = server;
        this.backend = backend;
        this.port = port;
        this.dataFile = dataFile;
    }

    /**
     * Starts the stand-in.
     *
     * @param port the port to listen on at 127.0.0.1, or 0 for any free port
     * @return the running server
     * @throws EmbeddedStackException if the port cannot be bound
     */
    public static EmbeddedMongo start(int port) {
        return start(
                port,
                StandInBackend.DEFAULT_HISTORY_CHANGES,
                Optional.empty(),
                SourceProfile.MONGODB,
                StandInSettings.DEFAULTS);
    }

    /**
     * Starts the stand-in playing {@code profile}: {@link SourceProfile#COSMOSDB} refuses the change streams Cosmos
     * DB refuses ({@link CosmosDbEmulation}); no other service is emulated.
     *
     * @param port the port to listen on at 127.0.0.1, or 0 for any free port
     * @param directory where the data is kept ({@value #DATA_FILE}), as {@link #start(int, Path)} keeps it
     * @param profile {@link SourceProfile#MONGODB} or {@link SourceProfile#COSMOSDB}
     * @return the running server
     * @throws EmbeddedStackException if the port cannot be bound or the data there cannot be read
     */
    public static EmbeddedMongo start(int port, Path directory, SourceProfile profile) {
        return start(port, directory, profile, StandInSettings.DEFAULTS);
    }

    /**
     * Starts the stand-in playing {@code profile} as {@code settings} say ({@link StandInSettings}: the MongoDB
     * release, ...), its data kept in {@code directory} as {@link #start(int, Path)} keeps it.
     *
     * @throws EmbeddedStackException if the port cannot be bound or the data there cannot be read
     */
    public static EmbeddedMongo start(int port, Path directory, SourceProfile profile, StandInSettings settings) {
        return start(
                port,
                StandInBackend.DEFAULT_HISTORY_CHANGES,
                Optional.of(directory.resolve(DATA_FILE)),
                profile,
                settings);
    }

    /**
     * Starts the stand-in on the data a previous one left in {@code directory}, and leaves its own there on
     * {@link #close()}: the documents, and where the change history stands, so that the source connectors' stored
     * resume tokens stay valid. Written on a clean stop only: after a crash the stand-in comes back as it last
     * stopped.
     *
     * @param port      the port to listen on at 127.0.0.1, or 0 for any free port
     * @param directory where the data is kept ({@value #DATA_FILE})
     * @return the running server
     * @throws EmbeddedStackException if the port cannot be bound or the data there cannot be read
     */
    public static EmbeddedMongo start(int port, Path directory) {
        return start(port, directory, SourceProfile.MONGODB);
    }

    /**
     * Starts the stand-in with a change history of its own size.
     *
     * @param port           the port to listen on at 127.0.0.1, or 0 for any free port
     * @param historyChanges how many changes the history keeps; a stream resuming from an older one fails as on a
     *                       MongoDB whose oplog rolled over
     * @return the running server
     * @throws EmbeddedStackException if the port cannot be bound
     */
    public static EmbeddedMongo start(int port, int historyChanges) {
        return start(port, historyChanges, StandInSettings.DEFAULTS);
    }

    /**
     * Starts the stand-in with a change history of its own size, playing MongoDB as {@code settings} say.
     *
     * @throws EmbeddedStackException if the port cannot be bound
     */
    public static EmbeddedMongo start(int port, int historyChanges, StandInSettings settings) {
        return start(port, historyChanges, Optional.empty(), SourceProfile.MONGODB, settings);
    }

    private static EmbeddedMongo start(
            int port, int historyChanges, Optional<Path> dataFile, SourceProfile profile, StandInSettings settings) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("MongoDB port must be between 0 and 65535, got " + port);
        }
        StandInBackend backend;
        try {
            backend = StandInBackend.create(historyChanges, dataFile, settings);
        } catch (IOException e) {
            throw new EmbeddedStackException(
                    "Embedded MongoDB could not read its data in " + dataFile.orElseThrow() + ": " + e.getMessage()
                            + " (delete the file to start empty)",
                    e);
        }
        switch (profile) {
            case MONGODB -> {}
            case COSMOSDB -> backend.refuseChangeStreams(CosmosDbEmulation::refusal);
            default -> throw new IllegalArgumentException("The stand-in does not emulate " + profile.service());
        }
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
                new EmbeddedMongo(server, backend, server.getLocalAddress().getPort(), dataFile);
        log.debug("Embedded MongoDB (mongo-java-server) listening at {}", mongo.connectionString());
        return mongo;
    }

    /**
     * Documents deleted from {@code namespaces} since the stand-in started, whatever deleted them: the stand-in's own
     * count, so that it needs no change stream (a service such as Cosmos DB reports no deletes on one).
     */
    public long deletedDocuments(List<Namespace> namespaces) {
        return backend.deletedDocuments(
                namespaces.stream().map(Namespace::toString).toList());
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

    /**
     * Stops listening, disconnects all clients, writes the data to the directory it was started on, if any, and
     * drops it from memory. Idempotent.
     *
     * @throws EmbeddedStackException if the data cannot be written
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Release waiting getMores first; otherwise each event loop finishes its wait before it can stop.
        backend.beginShutdown();
        // Before the server stops: stopping it clears the backend's databases.
        EmbeddedStackException notWritten = null;
        if (dataFile.isPresent()) {
            try {
                backend.snapshot(dataFile.get());
            } catch (IOException e) {
                notWritten =
                        new EmbeddedStackException("Embedded MongoDB could not write its data to " + dataFile.get(), e);
            }
        }
        server.shutdownNow();
        if (notWritten != null) {
            throw notWritten;
        }
        log.debug("Embedded MongoDB stopped");
    }
}
