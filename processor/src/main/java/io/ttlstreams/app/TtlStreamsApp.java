package io.ttlstreams.app;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ManagedConnectors;
import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.processor.SchedulerSettings;
import io.ttlstreams.topology.TtlTopology;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running processor: provisions topics, starts Kafka Streams with the ttl-streams topology and its HTTP surface
 * ({@link OperationsServer}: health, metrics, schedule queries, status page), and closes them. Separate from the
 * command line so that the embedded run, the demo and the integration tests start exactly what production starts.
 */
public final class TtlStreamsApp implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TtlStreamsApp.class);

    private final TtlStreamsConfig config;
    private final OperationsServer operations;
    private final KafkaStreams streams;

    /**
     * Provisions the topics and creates (does not start) Kafka Streams, watching no connectors.
     *
     * @param config the processor configuration; its Kafka Streams settings must name bootstrap.servers
     */
    public TtlStreamsApp(TtlStreamsConfig config) throws InterruptedException {
        this(config, Optional.empty());
    }

    /**
     * Binds the HTTP port, provisions the topics and creates (does not start) Kafka Streams, with {@code
     * application.server} set to the HTTP address unless the configuration sets it.
     *
     * @param config the processor configuration; its Kafka Streams settings must name bootstrap.servers
     * @param connectors the Kafka Connect connectors whose status readiness and metrics report; empty for none
     * @throws org.apache.kafka.common.config.ConfigException when the HTTP port cannot be bound
     */
    public TtlStreamsApp(TtlStreamsConfig config, Optional<ManagedConnectors> connectors) throws InterruptedException {
        this.config = config;
        this.operations = OperationsServer.bind(config, connectors);
        try {
            Properties props = config.streamsProperties();
            props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, operations.applicationServer());
            try (Admin admin = Admin.create(props)) {
                new TopicProvisioner(admin).provision(config);
            }
            SchedulerSettings settings = SchedulerSettings.from(config).withListener(operations.expiryListener());
            this.streams = new KafkaStreams(TtlTopology.build(config, settings), props);
        } catch (RuntimeException | InterruptedException e) {
            operations.close();
            throw e;
        }
        // A failing stream thread is replaced rather than left dead: its tasks move to the new thread
        // and resume from the last commit, which exactly-once makes safe.
        streams.setUncaughtExceptionHandler(e -> {
            LOG.error("Stream thread failed; replacing it", e);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        });
    }

    /** Starts processing. */
    public TtlStreamsApp start() {
        // Serving first: liveness answers while Kafka Streams restores, readiness tells when it runs.
        operations.start(streams);
        streams.start();
        LOG.info(
                "ttl-streams started: application.id={}, reading {}",
                config.streamsProperties().getProperty("application.id"),
                config.sourceTopics());
        return this;
    }

    /** The Kafka Streams instance, for status and metrics. */
    public KafkaStreams streams() {
        return streams;
    }

    /** The HTTP surface's address for a person on this machine: the status page. */
    public URI httpUrl() {
        return operations.url();
    }

    /** The address other instances forward queries to: Kafka Streams' {@code application.server}. */
    public String applicationServer() {
        return operations.applicationServer();
    }

    /** Waits until Kafka Streams is RUNNING, or fails after {@code timeout}. */
    public void awaitRunning(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (streams.state() != KafkaStreams.State.RUNNING) {
            if (System.nanoTime() > deadline
                    || !streams.state().isRunningOrRebalancing() && streams.state() != KafkaStreams.State.CREATED) {
                throw new IllegalStateException(
                        "Kafka Streams did not reach RUNNING within " + timeout + "; state is " + streams.state());
            }
            Thread.sleep(50);
        }
    }

    /**
     * Stops processing and leaves the consumer group, so that the partitions move to the remaining
     * (or restarted) instances at once instead of after the session timeout.
     */
    @Override
    public void close() {
        try {
            streams.close(CloseOptions.groupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(Duration.ofSeconds(30)));
        } finally {
            operations.close();
        }
    }
}
