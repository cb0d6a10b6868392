package io.ttlstreams.app;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.topology.TtlTopology;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running processor: provisions topics, starts Kafka Streams with the ttl-streams topology and
 * closes it. Separate from the command line so that the embedded run, the demo and the integration
 * tests start exactly what production starts.
 */
public final class TtlStreamsApp implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TtlStreamsApp.class);

    private final TtlStreamsConfig config;
    private final KafkaStreams streams;

    /**
     * Provisions the topics and creates (does not start) Kafka Streams.
     *
     * @param config the processor configuration; its Kafka Streams settings must name bootstrap.servers
     */
    public TtlStreamsApp(TtlStreamsConfig config) throws InterruptedException {
        this.config = config;
        Properties props = config.streamsProperties();
        try (Admin admin = Admin.create(props)) {
            new TopicProvisioner(admin).provision(config);
        }
        this.streams = new KafkaStreams(TtlTopology.build(config), props);
        // A failing stream thread is replaced rather than left dead: its tasks move to the new thread
        // and resume from the last commit, which exactly-once makes safe.
        streams.setUncaughtExceptionHandler(e -> {
            LOG.error("Stream thread failed; replacing it", e);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        });
    }

    /** Starts processing. */
    public TtlStreamsApp start() {
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
        streams.close(CloseOptions.groupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofSeconds(30)));
    }
}
