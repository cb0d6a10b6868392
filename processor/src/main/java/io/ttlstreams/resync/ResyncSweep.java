package io.ttlstreams.resync;

import com.mongodb.client.MongoClient;
import io.micrometer.core.instrument.util.NamedThreadFactory;
import io.ttlstreams.config.ResyncOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic sweep of {@code run} ({@value ResyncOptions#RESYNC_INTERVAL_MS_CONFIG}): a full {@link Resync} of
 * every rule, on a thread of its own, one interval after start-up and then one interval after each sweep ends. A
 * failed sweep is logged and the next one tries again; the processor is not affected either way.
 */
public final class ResyncSweep implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ResyncSweep.class);

    private final Resync resync;
    private final ResyncSink sink;
    private final AutoCloseable client;
    private final ScheduledExecutorService executor;
    private final AtomicLong sweeps = new AtomicLong();

    ResyncSweep(Resync resync, ResyncSink sink, AutoCloseable client, Duration interval) {
        this.resync = Objects.requireNonNull(resync, "resync");
        this.sink = Objects.requireNonNull(sink, "sink");
        this.client = Objects.requireNonNull(client, "client");
        this.executor = Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("ttl-streams-resync-sweep"));
        executor.scheduleWithFixedDelay(this::sweep, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Checks that the sweep, if set, has a MongoDB deployment to read: {@code run} calls it before it starts anything,
     * so that a configuration missing {@value ResyncOptions#MONGODB_URI_CONFIG} stops it at once.
     *
     * @throws ConfigException naming both options when the interval is set without the URI
     */
    public static void check(TtlStreamsConfig config) {
        if (config.resyncInterval().isPresent() && config.mongodbUri().isEmpty()) {
            throw new ConfigException(ResyncOptions.RESYNC_INTERVAL_MS_CONFIG + " is set but "
                    + ResyncOptions.MONGODB_URI_CONFIG + " is not: the sweep needs the MongoDB deployment to read");
        }
    }

    /**
     * Starts the sweep when {@value ResyncOptions#RESYNC_INTERVAL_MS_CONFIG} is set.
     *
     * @return the running sweep, to be closed when {@code run} stops; empty when the sweep is off
     * @throws ConfigException naming {@value ResyncOptions#MONGODB_URI_CONFIG} when the sweep has nothing to read
     */
    public static Optional<ResyncSweep> start(TtlStreamsConfig config) {
        Optional<Duration> interval = config.resyncInterval();
        if (interval.isEmpty()) {
            return Optional.empty();
        }
        check(config);
        // The publisher first: if Kafka's producer refuses its settings, no MongoDB client is left open.
        KafkaResyncPublisher publisher = KafkaResyncPublisher.create(config);
        MongoClient client = Resync.mongoClient(config);
        LOG.info(
                "Resync sweep every {} ms, the first one interval from now",
                interval.get().toMillis());
        return Optional.of(
                new ResyncSweep(new Resync(config, client, Clock.systemUTC()), publisher, client, interval.get()));
    }

    /** Sweeps completed so far. */
    public long sweeps() {
        return sweeps.get();
    }

    private void sweep() {
        try {
            ResyncReport report = resync.run(ResyncSelection.ALL, Optional.of(sink), ResyncProgress.none());
            sweeps.incrementAndGet();
            LOG.info("Resync sweep done: {}", report.oneLine());
        } catch (RuntimeException e) {
            // MongoDB or Kafka unreachable for now, say: the next sweep tries again, and the processor runs on.
            LOG.warn("Resync sweep failed; the next one tries again", e);
        }
    }

    /** Stops {@code executor}, interrupting a resync under way; {@code log} says so if {@code what} outlives 30 s. */
    static void stop(ScheduledExecutorService executor, Logger log, String what) {
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
                log.warn("{} did not stop within 30 s", what);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the sweep, interrupting one under way, and closes its MongoDB client and producer. */
    @Override
    public void close() {
        stop(executor, LOG, "The resync sweep");
        sink.close();
        try {
            client.close();
        } catch (Exception e) {
            LOG.warn("Could not close the resync sweep's MongoDB client", e);
        }
    }
}
