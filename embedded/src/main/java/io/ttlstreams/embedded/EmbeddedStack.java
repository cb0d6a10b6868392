package io.ttlstreams.embedded;

import io.ttlstreams.app.RunCommand;
import io.ttlstreams.config.ConnectOptions;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.ResyncOptions;
import io.ttlstreams.config.SourceOptions;
import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.connect.ManagedConnectors;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.platform.AclPlan;
import io.ttlstreams.platform.PlatformSettings;
import io.ttlstreams.platform.TopicPlan;
import io.ttlstreams.platform.TopicSetting;
import io.ttlstreams.platform.TopicSpec;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.NewTopic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole local stack: the MongoDB stand-in, a Kafka cluster (one node by default, or several brokers: {@link
 * EmbeddedStackBuilder#brokers}) and a Connect worker running exactly the
 * connectors {@code connect-config} renders for the rules (one source per database, to topics {@code
 * "<db>.<coll>"}, and the sink behind its guard), registered through {@code run}'s own registration code and
 * pointed at the stand-in. The guard applies only commands signed with the stack's {@link #commandSigningKey()
 * signing key} (random per stack unless given), in the rules' namespaces.
 *
 * <p>With {@link KafkaSecurity#SCRAM_ACLS} the broker enforces the users and ACLs {@code ttl-streams platform} renders
 * for the rules ({@link KafkaUsers}, from the same {@link AclPlan}); the stack declares every topic of the plan, as a
 * platform team would, and the Connect worker (distributed) and each connector run as their own users.
 *
 * <p>Started in that order by {@link EmbeddedStackBuilder#start()}, which returns only when every connector task is
 * RUNNING, so a write made afterwards is captured. Closed in reverse order; a data directory the stack created
 * itself (the default, a temporary directory) is deleted on close. Nothing is printed (one INFO log line when up
 * and when stopped; the components log at DEBUG): the accessors give the CLI what to show.
 *
 * <pre>{@code
 * try (EmbeddedStack stack = EmbeddedStack.builder().rules(config).start()) {
 *     stack.mongoConnectionString(); stack.bootstrapServers(); stack.connectUrl();
 * }
 * }</pre>
 */
public final class EmbeddedStack implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedStack.class);

    /** The sink's dead-letter topic, as {@code connect-config} renders it. */
    public static final String DEAD_LETTER_TOPIC = ConnectorConfigs.SINK_DLQ_TOPIC;

    private final Path dataDir;
    private final boolean ownsDataDir;
    private final List<Namespace> namespaces;
    private final String commandSigningKey;
    private final Duration connectorTimeout;
    private final int partitions;
    private final int brokers;
    /** The service the stand-in plays; the connectors are rendered for it. */
    private final SourceProfile profile;
    /** Whether the broker authenticates and authorizes. */
    private final KafkaSecurity security;

    private TtlStreamsConfig rules;
    private EmbeddedMongo mongo;
    private EmbeddedKafka kafka;
    private EmbeddedConnect connect;
    /** The worker in a JVM of its own, once {@link #moveConnectToOwnJvm} moved it there; null before. */
    private ConnectProcess connectProcess;
    /** The plan's users on a broker that enforces security; null on one that does not. */
    private KafkaUsers users;

    private ManagedConnectors connectors;
    /** The rendered connectors last registered, to skip registering the same again. */
    private String registeredJson;

    private Duration startupDuration;
    private boolean closed;

    EmbeddedStack(EmbeddedStackBuilder builder, Path dataDir, boolean ownsDataDir) {
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
        this.rules = builder.rules();
        Set<Namespace> watched = new LinkedHashSet<>(builder.namespaces());
        rules.rules().rules().forEach(rule -> rule.namespace().exactNamespace().ifPresent(watched::add));
        this.namespaces = List.copyOf(watched);
        this.commandSigningKey = builder.commandSigningKey();
        this.connectorTimeout = builder.connectorTimeout();
        this.partitions = builder.partitions();
        this.brokers = builder.brokers();
        this.profile = builder.profile();
        this.security = builder.kafkaSecurity();
    }

    /** @return a builder with no rules, free ports and a temporary data directory */
    public static EmbeddedStackBuilder builder() {
        return new EmbeddedStackBuilder();
    }

    /** @return the stand-in's connection string, {@code mongodb://127.0.0.1:<port>} */
    public String mongoConnectionString() {
        return mongo.connectionString();
    }

    /** @return the broker's {@code bootstrap.servers}, {@code 127.0.0.1:<port>} */
    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    /** @return the Connect worker's REST API, {@code http://127.0.0.1:<port>} */
    public synchronized String connectUrl() {
        return connectProcess != null ? connectProcess.url() : connect.url();
    }

    /** @return where Kafka's log and Connect's offsets live */
    public Path dataDir() {
        return dataDir;
    }

    /** @return true when the data directory is temporary and deleted on close */
    public boolean deletesDataDirOnClose() {
        return ownsDataDir;
    }

    /** @return the watched namespaces, {@code "db.coll"}: the rules' exact ones and those given to the builder */
    public List<Namespace> namespaces() {
        return namespaces;
    }

    /** @return the change-event topic per watched namespace, {@code "<db>.<coll>"}, in the order of {@link #namespaces} */
    public Map<Namespace, String> sourceTopics() {
        Map<Namespace, String> topics = new LinkedHashMap<>();
        namespaces.forEach(namespace -> topics.put(namespace, namespace.toString()));
        return topics;
    }

    /** @return the topic the sink applies delete commands from: the rules' {@code ttl.delete.topic} */
    public synchronized String deleteTopic() {
        return rules.deleteTopic();
    }

    /** @return the topic commands the sink cannot apply go to */
    public String deadLetterTopic() {
        return DEAD_LETTER_TOPIC;
    }

    /**
     * @return the secret the sink guard verifies delete commands with: the processor's {@code
     *     ttl.command.signing.key} must be the same
     */
    public String commandSigningKey() {
        return commandSigningKey;
    }

    /** @return whether the broker authenticates its clients and enforces ACLs */
    public KafkaSecurity kafkaSecurity() {
        return security;
    }

    /**
     * @return the Kafka users of the plan, their secrets and ACLs, when the broker enforces security; empty when it
     *     does not
     */
    public Optional<KafkaUsers> kafkaUsers() {
        return Optional.ofNullable(users);
    }

    /** @return the registered connectors, sources then sink, and the client of the worker that runs them */
    public synchronized ManagedConnectors connectors() {
        return connectors;
    }

    /** @return the names of the registered connectors: one source per database of the rules, then the sink */
    public synchronized List<String> connectorNames() {
        return connectors.names();
    }

    /**
     * Registers the connectors {@code connect-config} renders for {@code rules}, as {@code run} does at start-up
     * when the rules changed (the same code: {@link RunCommand#registerConnectors}), pointed at the stand-in and
     * this worker, and waits until they all run. Sources of databases no longer in the rules keep running, as with
     * {@code run}.
     *
     * @throws EmbeddedStackException when Connect refuses a connector or one does not run in time
     */
    public synchronized ManagedConnectors registerConnectors(TtlStreamsConfig rules) {
        Map<String, Object> props = pointed(rules);
        props.put(ConnectOptions.CONNECT_URL_CONFIG, connectUrl());
        if (users != null) {
            // Each connector runs as its own user, its JAAS line read from that user's secret directory.
            props.put(
                    ConnectOptions.CONNECT_KAFKA_USERS_DIR_CONFIG,
                    users.directory().toString());
            users.apply(kafka, plan(rules));
        }
        TtlStreamsConfig pointed = new TtlStreamsConfig(props);
        String rendered = ConnectorConfigs.render(pointed, mongo.connectionString(), false)
                .toJson();
        if (rendered.equals(registeredJson)) {
            this.rules = rules;
            return connectors; // what run would PUT is what runs already
        }
        createTopics(pointed);
        ManagedConnectors registered;
        try {
            registered = RunCommand.registerConnectors(
                            pointed, mongo.connectionString(), false, new PrintStream(PrintStream.nullOutputStream()))
                    .orElseThrow();
        } catch (IOException | IllegalArgumentException e) {
            throw new EmbeddedStackException("Embedded Connect refused the connectors: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted while registering the connectors", e);
        }
        if (connectProcess != null) {
            connectProcess.awaitConnectors(registered.names(), connectorTimeout);
        } else {
            long deadline = System.nanoTime() + connectorTimeout.toNanos();
            for (String name : registered.names()) {
                connect.awaitRunning(name, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            }
        }
        this.rules = rules;
        this.connectors = registered;
        this.registeredJson = rendered;
        return registered;
    }

    /** {@code rules} pointed at this stack: its topics, its signing key, the service and MongoDB it plays. */
    private Map<String, Object> pointed(TtlStreamsConfig rules) {
        Map<String, Object> props = new HashMap<>(rules.originals());
        // Topics "<db>.<coll>", the ones this stack creates and the processor against it reads.
        props.put(SourceOptions.SOURCE_TOPIC_PREFIX_CONFIG, "");
        // The key this worker's secret file holds, which the rendered sink guard reads: run refuses a sink without one.
        props.put(OperationsOptions.COMMAND_SIGNING_KEY_CONFIG, commandSigningKey);
        // Rendered for the service the stand-in plays, which reads back from the stand-in where it must.
        props.put(SourceOptions.SOURCE_PROFILE_CONFIG, profile.configValue());
        props.put(ResyncOptions.MONGODB_URI_CONFIG, mongo.connectionString());
        return props;
    }

    /**
     * The plan {@code ttl-streams platform} renders for {@code rules} as the processor runs them against this stack
     * (reading its source topics, with its MongoDB, so that it may resync), with the cluster's replication factor.
     */
    private AclPlan plan(TtlStreamsConfig rules) {
        TtlStreamsConfig config = planned(rules);
        return AclPlan.of(config, topicPlan(config), PlatformSettings.DEFAULT_CONNECT_CLUSTER);
    }

    private TtlStreamsConfig planned(TtlStreamsConfig rules) {
        Map<String, Object> props = pointed(rules);
        props.put(
                SourceOptions.SOURCE_TOPICS_CONFIG,
                String.join(",", sourceTopics().values()));
        return new TtlStreamsConfig(props);
    }

    private TopicPlan topicPlan(TtlStreamsConfig config) {
        return TopicPlan.of(config, partitions, OptionalInt.of(kafka.replicationFactor()));
    }

    /** @return how long {@link EmbeddedStackBuilder#start()} took, up to every connector task RUNNING */
    public Duration startupDuration() {
        return startupDuration;
    }

    /** @return the MongoDB stand-in */
    public EmbeddedMongo mongo() {
        return mongo;
    }

    /** @return the Kafka broker, e.g. to create more topics */
    public EmbeddedKafka kafka() {
        return kafka;
    }

    /** @return the Connect worker in this JVM, e.g. for connector status; stopped once {@link #moveConnectToOwnJvm} ran */
    public EmbeddedConnect connect() {
        return connect;
    }

    /**
     * Moves the Connect worker into a JVM of its own, which a chaos test can kill and start again as an SRE's Connect
     * pod dies and comes back: stops the worker in this JVM, starts a distributed one ({@link ConnectProcess}) with
     * the same wiring in {@code <dataDir>/connect-process}, its topics at the cluster's replication factor, and
     * registers the same connectors with it, as {@code run} does. The standalone worker's source offsets stay in its
     * file, so the new source connectors start from their configured start-up mode: move before writing anything
     * that must be captured.
     *
     * @param heap the worker JVM's {@code -Xmx}, such as {@code 256m}
     * @param log  where the worker's output goes
     * @return the worker; the stack stops it on close
     * @throws EmbeddedStackException if the worker or its connectors do not run in time, or it was moved already
     */
    public synchronized ConnectProcess moveConnectToOwnJvm(String heap, Path log) {
        if (connectProcess != null) {
            throw new EmbeddedStackException(
                    "The Connect worker runs in a JVM of its own already: " + connectProcess.url());
        }
        if (security.enforced()) {
            throw new EmbeddedStackException(
                    "The Connect worker moves to a JVM of its own on a broker without security only");
        }
        connect.close();
        Path directory = dataDir.resolve("connect-process");
        WorkerSecrets.in(directory.resolve("secrets")).storeAt(ConnectorConfigs.DEFAULT_SIGNING_KEY, commandSigningKey);
        connectProcess = ConnectProcess.start(
                kafka.bootstrapServers(), directory, kafka.replicationFactor(), heap, log, connectorTimeout);
        registeredJson = null; // registered with the worker that stopped
        registerConnectors(rules);
        return connectProcess;
    }

    /**
     * Stops Connect, then Kafka, then MongoDB, and deletes a temporary data directory. Every step runs even if
     * an earlier one fails. Idempotent.
     *
     * @throws EmbeddedStackException if any step failed (the others' failures are suppressed in it)
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<RuntimeException> failures = new ArrayList<>();
        closeQuietly(connectProcess, "Connect (its own JVM)", failures);
        closeQuietly(connect, "Connect", failures);
        closeQuietly(kafka, "Kafka", failures);
        closeQuietly(mongo, "MongoDB", failures);
        if (ownsDataDir) {
            try {
                deleteRecursively(dataDir);
            } catch (RuntimeException e) {
                failures.add(new EmbeddedStackException("Could not delete " + dataDir, e));
            }
        }
        if (!failures.isEmpty()) {
            EmbeddedStackException failure = new EmbeddedStackException(
                    "The embedded stack did not stop cleanly: "
                            + failures.get(0).getMessage(),
                    failures.get(0));
            failures.subList(1, failures.size()).forEach(failure::addSuppressed);
            throw failure;
        }
        log.info("Embedded stack stopped");
    }

    void startComponents(EmbeddedStackBuilder builder) {
        long startNanos = System.nanoTime();
        mongo = EmbeddedMongo.start(builder.mongoPort(), dataDir.resolve("mongo"), profile, builder.standIn());
        kafka = EmbeddedKafka.start(dataDir, builder.kafkaPort(), partitions, security, brokers);
        if (security.enforced()) {
            // Before anything that logs in: every topic declared, every user and ACL of the plan in place.
            createTopics(rules);
            users = KafkaUsers.create(kafka, plan(rules), dataDir.resolve("kafka-users"));
        }
        connect = EmbeddedConnect.start(
                kafka.bootstrapServers(), dataDir, builder.connectPort(), Optional.ofNullable(users));
        // Where the sink's rendered ${file:/secrets/ttl-signing.properties:key} finds the key on this worker.
        connect.storeProductionSecret(ConnectorConfigs.DEFAULT_SIGNING_KEY, commandSigningKey);
        registerConnectors(rules);
        startupDuration = Duration.ofNanos(System.nanoTime() - startNanos);
        log.info(
                "Embedded stack up in {} ms: MongoDB {}, Kafka {}, Connect {}, watching {}",
                TimeUnit.NANOSECONDS.toMillis(startupDuration.toNanos()),
                mongo.connectionString(),
                kafka.bootstrapServers(),
                connect.url(),
                namespaces);
    }

    /**
     * Up front, so the processor (Kafka Streams fails on missing source topics) and the tests find them: the
     * watched namespaces' topics, each database's heartbeat topic, the delete and dead-letter topics.
     */
    private void createTopics(TtlStreamsConfig config) {
        if (security.enforced()) {
            // Declared as a platform team declares them: every topic of the plan, with its settings; the processor,
            // which may create none, checks them at start-up.
            List<NewTopic> declared = new ArrayList<>();
            for (TopicSpec topic : topicPlan(planned(config)).topics()) {
                Map<String, String> settings = new LinkedHashMap<>();
                topic.settings().forEach((TopicSetting setting) -> settings.put(setting.name(), setting.value()));
                declared.add(new NewTopic(topic.name(), topic.partitions(), (short)
                                topic.replicationFactor().orElseThrow())
                        .configs(settings));
            }
            kafka.createTopics(declared);
            return;
        }
        Set<String> topics = new LinkedHashSet<>(sourceTopics().values());
        config.rules().rules().forEach(rule -> {
            rule.namespace().exactNamespace().ifPresent(namespace -> topics.add(namespace.toString()));
            topics.add(ConnectorConfigs.heartbeatTopic(rule.namespace().database()));
        });
        namespaces.forEach(namespace -> topics.add(ConnectorConfigs.heartbeatTopic(namespace.database())));
        topics.add(config.deleteTopic());
        topics.add(DEAD_LETTER_TOPIC);
        kafka.createTopics(partitions, topics.toArray(String[]::new));
    }

    private static void closeQuietly(AutoCloseable component, String name, List<RuntimeException> failures) {
        if (component == null) {
            return;
        }
        try {
            component.close();
        } catch (Exception e) {
            failures.add(new EmbeddedStackException("Stopping embedded " + name + " failed: " + e.getMessage(), e));
        }
    }

    /** Deletes {@code directory} and all it holds, if it exists. */
    static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
