package io.ttlstreams.app;

import com.mongodb.client.MongoClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.ttlstreams.config.KafkaClientSecurity;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.RuleConfig;
import io.ttlstreams.config.SchedulerOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ManagedConnectors;
import io.ttlstreams.platform.AccessDenied;
import io.ttlstreams.platform.AclPlan;
import io.ttlstreams.processor.SchedulerSettings;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.readback.DocumentReadBack;
import io.ttlstreams.readback.MongoDocumentReader;
import io.ttlstreams.resync.Resync;
import io.ttlstreams.resync.RewriteResync;
import io.ttlstreams.rules.TtlMode;
import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.topology.TtlTopology;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running processor: provisions topics, starts Kafka Streams with the ttl-streams topology and its HTTP surface
 * ({@link OperationsSurface}: health, metrics, schedule queries, status page), and closes them. Separate from the
 * command line so that the embedded run, the demo and the integration tests start exactly what production starts.
 *
 * <p>Failures are bounded: a stream thread that dies is replaced under the {@link ThreadFailurePolicy} ({@value
 * OperationsOptions#THREAD_REPLACEMENTS_MAX_CONFIG} within {@value
 * OperationsOptions#THREAD_REPLACEMENTS_WINDOW_MS_CONFIG}), after which this instance shuts down; Kafka Streams then
 * reaches state ERROR, and {@link #failed()} completes so that the command line can exit with a non-zero code.
 */
public final class TtlStreamsApp implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TtlStreamsApp.class);

    /**
     * How long {@link #close()} lets Kafka Streams commit, checkpoint and leave the group (0.6-7.7 s from SIGTERM to
     * exit measured in rolling restarts, docs/deployment.md); a pod's termination grace must be longer.
     */
    public static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final TtlStreamsConfig config;
    /** How the Kafka clients authenticate, checked before anything starts. */
    private final KafkaClientSecurity security;

    private final OperationsSurface operations;
    private final KafkaStreams streams;
    /** Reads unconfirmed deletes' documents back, with its own MongoDB client; empty without read-back. */
    private final Optional<ReadBack> readBack;
    /** The automatic resync after a rewrite, from {@link #start} on; empty before, or when it is off. */
    private volatile Optional<RewriteResync> rewriteResync = Optional.empty();

    private final ThreadFailurePolicy policy;
    private final CompletableFuture<String> failed = new CompletableFuture<>();
    /** Completes with true once Kafka Streams runs, with false if it stops before it ever did. */
    private final CompletableFuture<Boolean> started = new CompletableFuture<>();

    private volatile Throwable lastThreadFailure;
    /** The broker's refusal that stopped a stream thread, said as the ACL it lacks; null while there is none. */
    private volatile AccessDenied accessDenied;
    /** A broker's refusal of {@code group.protocol=streams} that stopped a stream thread; null while there is none. */
    private volatile String protocolRefused;

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
        this.security = KafkaClientSecurity.of(config);
        this.operations = OperationsSurface.bind(config, connectors);
        Optional<ReadBack> reading = Optional.empty();
        try {
            Properties props = TtlTopology.streamsProperties(config);
            props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, operations.applicationServer());
            int partitions;
            try (Admin admin = Admin.create(props)) {
                partitions = new TopicProvisioner(admin).provision(config);
            }
            checkThrottleCoversPartitions(config, partitions);
            reading = ReadBack.create(config);
            SchedulerSettings settings = new SchedulerSettings(
                    config, partitions, System::nanoTime, reading.map(ReadBack::service), operations.sink());
            // After the admin client, which would take the registry for a setting of its own.
            props.put(TtlMetrics.REGISTRY_CONFIG, operations.metrics().events());
            this.streams = new KafkaStreams(TtlTopology.build(config, settings, operations.sourceClock()), props);
        } catch (RuntimeException | InterruptedException e) {
            reading.ifPresent(ReadBack::close);
            operations.close();
            // Kafka's clients wrap a bad setting (bootstrap.servers without a port) in "Failed to create new
            // KafkaAdminClient": the setting's own message is the one to show.
            if (e instanceof KafkaException && e.getCause() instanceof ConfigException bad) {
                throw bad;
            }
            throw e;
        }
        this.readBack = reading;
        warnAboutRulesWithoutWitness(config);
        this.policy = new ThreadFailurePolicy(
                config.threadReplacementsMax(), config.threadReplacementsWindow(), System::currentTimeMillis);
        streams.setUncaughtExceptionHandler(this::onThreadFailure);
        streams.setStateListener((newState, oldState) -> {
            if (newState == KafkaStreams.State.RUNNING) {
                started.complete(true);
            } else if (newState == KafkaStreams.State.PENDING_SHUTDOWN || newState == KafkaStreams.State.NOT_RUNNING) {
                started.complete(false);
            } else if (newState == KafkaStreams.State.ERROR) {
                String reason = "Kafka Streams reached state ERROR"
                        + (lastThreadFailure == null ? "" : " after a stream thread failed: " + lastThreadFailure);
                LOG.error("{}; this instance processes nothing more and must be restarted", reason);
                failed.complete(reason);
            }
        });
    }

    /**
     * Each task throttles with a whole share of the limit, so a limit below the partition count would leave some
     * tasks without any share and their documents never deleted.
     */
    private static void checkThrottleCoversPartitions(TtlStreamsConfig config, int partitions) {
        config.maxDeletesPerSecond().ifPresent(limit -> {
            if (limit < partitions) {
                throw new ConfigException(
                        SchedulerOptions.MAX_DELETES_PER_SECOND_CONFIG,
                        limit,
                        "The source topics have " + partitions
                                + " partitions, each a task with its own whole share of the limit:"
                                + " it must be at least " + partitions);
            }
        });
    }

    /**
     * A last-modified rule without {@code modified.field} cannot tell a renewal that the processor has not seen yet
     * from no renewal: the race is inherent, and users should know its size before they rely on it.
     */
    private static void warnAboutRulesWithoutWitness(TtlStreamsConfig config) {
        for (TtlRule rule : config.rules().rules()) {
            if (rule.mode() == TtlMode.LAST_MODIFIED && rule.modifiedField() == null) {
                LOG.warn(
                        "Rule {} counts from the last modification but has no {}{}: a document modified while its"
                                + " delete command is on its way (the pipeline's latency: source connector, processor"
                                + " and sink) can be deleted although it was just renewed. Name a field that changes on"
                                + " every write (an updatedAt date, a version number) to close the race (docs/rules.md,"
                                + " 'The renewal race').",
                        rule.name(),
                        RuleConfig.prefix(rule.name()),
                        RuleConfig.MODIFIED_FIELD_CONFIG);
            }
        }
    }

    /**
     * A stream thread died: it is replaced, from its last commit (which exactly-once makes safe), unless the policy
     * says this instance has failed too often, in which case the instance shuts down.
     */
    private StreamThreadExceptionResponse onThreadFailure(Throwable error) {
        lastThreadFailure = error;
        AccessDenied.in(error, config, AclPlan.PROCESSOR_USER).ifPresent(denied -> {
            accessDenied = denied;
            LOG.error("{}", denied.message());
        });
        StreamsProtocolCheck.refusal(error, config).ifPresent(refused -> {
            protocolRefused = refused;
            LOG.error("{}", refused);
        });
        StreamThreadExceptionResponse response = policy.decide(error);
        if (response == StreamThreadExceptionResponse.REPLACE_THREAD) {
            LOG.error(
                    "Stream thread failed; replacing it ({} of {} replacements allowed within {} ms)",
                    policy.recentReplacements(),
                    config.threadReplacementsMax(),
                    config.threadReplacementsWindow().toMillis(),
                    error);
        } else {
            LOG.error(
                    "Stream thread failed and will not be replaced ({} replacements within {} ms already, {} at"
                            + " most): shutting this instance down, to exit with a non-zero code and be restarted",
                    policy.recentReplacements(),
                    config.threadReplacementsWindow().toMillis(),
                    config.threadReplacementsMax(),
                    error);
        }
        return response;
    }

    /** Starts processing. */
    public TtlStreamsApp start() {
        // Serving first: liveness answers while Kafka Streams restores, readiness tells when it runs.
        operations.start(streams);
        readBack.ifPresent(r -> r.service().start());
        streams.start();
        rewriteResync = RewriteResync.start(config, metrics());
        LOG.info(
                "ttl-streams started: application.id={}, reading {}, Kafka clients {}",
                config.streamsProperties().getProperty("application.id"),
                config.sourceTopics(),
                security.describe());
        return this;
    }

    /** The configuration the processor runs with. */
    public TtlStreamsConfig config() {
        return config;
    }

    /**
     * The broker's refusal that stopped a stream thread (a missing ACL), naming the principal, the resource and the
     * plan's grant; empty unless one did.
     */
    public Optional<AccessDenied> accessDenied() {
        return Optional.ofNullable(accessDenied);
    }

    /**
     * A broker's refusal of the streams rebalance protocol that {@code group.protocol=streams} asked for, which stopped
     * a stream thread, as a line naming the option; empty unless one did.
     */
    public Optional<String> protocolRefused() {
        return Optional.ofNullable(protocolRefused);
    }

    /** How the Kafka clients authenticate, for people: protocol, mechanism and user, never a secret. */
    public KafkaClientSecurity security() {
        return security;
    }

    /** The Kafka Streams instance, for status and metrics. */
    public KafkaStreams streams() {
        return streams;
    }

    /** This instance's meters as {@code /metrics} shows them: ttl-streams' own among them ({@code ExpiryFigures}). */
    public MeterRegistry metrics() {
        return operations.metrics().registry();
    }

    /** The HTTP surface's address for a person on this machine: the status page. */
    public URI httpUrl() {
        return operations.url();
    }

    /** The address other instances forward queries to: Kafka Streams' {@code application.server}. */
    public String applicationServer() {
        return operations.applicationServer();
    }

    /**
     * Completes, with a description of the cause, when Kafka Streams reaches state ERROR: the instance has stopped
     * processing for good and the process should end with a non-zero exit code.
     */
    public CompletableFuture<String> failed() {
        return failed;
    }

    /** The stream threads replaced so far, for the status line. */
    long threadsReplaced() {
        return policy.replacements();
    }

    /**
     * Waits until Kafka Streams is RUNNING, or fails after {@code timeout}, or as soon as it stops or fails on the
     * way (in which case {@link #failed()} has completed, so that the caller can tell it from a slow start).
     */
    public void awaitRunning(Duration timeout) throws InterruptedException {
        boolean running;
        try {
            running = (boolean) CompletableFuture.anyOf(started, failed.thenApply(reason -> false))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            running = false;
        }
        if (!running) {
            throw new IllegalStateException(
                    "Kafka Streams did not reach RUNNING within " + timeout + "; state is " + streams.state());
        }
    }

    /** Stops processing; leaves the consumer group unless a static member ({@link #membershipOnClose}). */
    @Override
    public void close() {
        try {
            streams.close(
                    CloseOptions.groupMembershipOperation(membershipOnClose(TtlTopology.streamsProperties(config)))
                            .withTimeout(CLOSE_TIMEOUT));
        } finally {
            rewriteResync.ifPresent(RewriteResync::close);
            readBack.ifPresent(ReadBack::close);
            operations.close();
        }
    }

    /**
     * What a closing instance does with its group membership. A dynamic member leaves, so that its tasks move to the
     * others (their standbys) at once instead of after {@code session.timeout.ms}. A static member ({@code
     * group.instance.id}, however prefixed: the StatefulSet's pod name) stays, so that, back within {@code
     * session.timeout.ms}, it takes its own tasks again without a rebalance (KIP-345); leaving would cost a rolling
     * restart two rebalances per instance, one when it leaves and one when it is back.
     */
    static GroupMembershipOperation membershipOnClose(Properties streamsProperties) {
        boolean staticMember = Stream.of(
                        StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG),
                        StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG),
                        ConsumerConfig.GROUP_INSTANCE_ID_CONFIG)
                .map(streamsProperties::getProperty)
                .anyMatch(id -> id != null && !id.isBlank());
        return staticMember ? GroupMembershipOperation.REMAIN_IN_GROUP : GroupMembershipOperation.LEAVE_GROUP;
    }

    /** The read-back service and the MongoDB client it reads with, closed together. */
    private record ReadBack(DocumentReadBack service, MongoClient client) {

        /** The application name the MongoDB server logs for read-back connections. */
        private static final String APPLICATION_NAME = "ttl-streams-read-back";

        static Optional<ReadBack> create(TtlStreamsConfig config) {
            if (!config.confirmMode().reads()) {
                return Optional.empty();
            }
            MongoClient client = Resync.mongoClient(config, APPLICATION_NAME);
            LOG.info(
                    "Deletes are confirmed by reading back from MongoDB ({}), {} documents per look-up and {}"
                            + " look-ups a second at most",
                    config.confirmMode().configValue(),
                    config.confirmReadBatchSize(),
                    config.confirmReadMaxPerSecond());
            return Optional.of(new ReadBack(
                    new DocumentReadBack(
                            new MongoDocumentReader(client, config.rules()),
                            config.confirmReadBatchSize(),
                            config.confirmReadMaxPerSecond()),
                    client));
        }

        void close() {
            try {
                service.close();
            } finally {
                client.close();
            }
        }
    }
}
