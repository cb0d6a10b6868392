package io.ttlstreams.embedded;

import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.NamespacePattern;
import io.ttlstreams.contract.SigningKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole local stack: the MongoDB stand-in, a one-node Kafka cluster and a Connect worker running one
 * MongoDB source connector per watched namespace (to topic {@code "<db>.<coll>"}) and one sink connector that
 * applies delete commands from the delete topic, behind the sink guard: it applies only commands signed with the
 * stack's {@link #commandSigningKey() signing key} (random per stack unless given), in the allowed namespaces (the
 * watched ones unless given).
 *
 * <p>Started in that order by {@link Builder#start()}, which returns only when every connector task is RUNNING,
 * so a write made afterwards is captured. Closed in reverse order; a data directory the stack created itself
 * (the default, a temporary directory) is deleted on close. Nothing is printed (one INFO log line when up and
 * when stopped; the components log at DEBUG): the accessors give the CLI what to show.
 *
 * <pre>{@code
 * try (EmbeddedStack stack = EmbeddedStack.builder().namespaces(List.of(Namespace.parse("app.sessions"))).start()) {
 *     stack.mongoConnectionString(); stack.bootstrapServers(); stack.connectUrl();
 * }
 * }</pre>
 */
public final class EmbeddedStack implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedStack.class);

    /** The delete topic's default name, as in the API contract. */
    public static final String DEFAULT_DELETE_TOPIC = "ttl.deletes";
    /** The sink's dead-letter topic's default name. */
    public static final String DEFAULT_DEAD_LETTER_TOPIC = "ttl.sink.dlq";

    private final Path dataDir;
    private final boolean ownsDataDir;
    private final List<Namespace> namespaces;
    private final String deleteTopic;
    private final String deadLetterTopic;
    private List<NamespacePattern> allowedNamespaces;
    private final String commandSigningKey;
    private final Duration connectorTimeout;
    private EmbeddedMongo mongo;
    private EmbeddedKafka kafka;
    private EmbeddedConnect connect;
    private String signingKeyReference;
    private Duration startupDuration;
    private boolean closed;

    private EmbeddedStack(Builder builder, Path dataDir, boolean ownsDataDir) {
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
        this.namespaces = List.copyOf(builder.namespaces);
        this.deleteTopic = builder.deleteTopic;
        this.deadLetterTopic = builder.deadLetterTopic;
        this.allowedNamespaces = builder.allowedNamespaces != null
                ? List.copyOf(builder.allowedNamespaces)
                : namespaces.stream()
                        .map(namespace -> new NamespacePattern(namespace.database(), namespace.collection()))
                        .toList();
        this.commandSigningKey = builder.commandSigningKey != null ? builder.commandSigningKey : randomSecret();
        this.connectorTimeout = builder.connectorTimeout;
    }

    /** 32 random bytes, Base64: a fresh signing key for a stack that was given none. */
    private static String randomSecret() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    }

    /** @return a builder with no namespaces, the default topics, free ports and a temporary data directory */
    public static Builder builder() {
        return new Builder();
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
    public String connectUrl() {
        return connect.url();
    }

    /** @return where Kafka's log and Connect's offsets live */
    public Path dataDir() {
        return dataDir;
    }

    /** @return true when the data directory is temporary and deleted on close */
    public boolean deletesDataDirOnClose() {
        return ownsDataDir;
    }

    /** @return the watched namespaces, {@code "db.coll"}, in the order given */
    public List<Namespace> namespaces() {
        return namespaces;
    }

    /** @return the change-event topic per watched namespace, in the order given */
    public Map<Namespace, String> sourceTopics() {
        Map<Namespace, String> topics = new LinkedHashMap<>();
        namespaces.forEach(namespace -> topics.put(namespace, StandInSourceConfigs.topic(namespace)));
        return topics;
    }

    /** @return the topic the sink applies delete commands from */
    public String deleteTopic() {
        return deleteTopic;
    }

    /** @return the topic commands the sink cannot apply go to */
    public String deadLetterTopic() {
        return deadLetterTopic;
    }

    /** @return the namespaces the sink guard lets delete commands delete in */
    public synchronized List<NamespacePattern> allowedNamespaces() {
        return allowedNamespaces;
    }

    /**
     * Reconfigures the sink guard to let delete commands delete in {@code namespaces}, as {@code run} does when it
     * registers the connectors rendered from changed rules, and waits until the sink runs again.
     *
     * @throws IllegalArgumentException when {@code namespaces} is empty
     * @throws EmbeddedStackException when the sink does not run again in time
     */
    public synchronized void allowNamespaces(List<NamespacePattern> namespaces) {
        if (namespaces.isEmpty()) {
            throw new IllegalArgumentException("The sink guard needs at least one allowed namespace");
        }
        allowedNamespaces = List.copyOf(namespaces);
        connect.updateConnector(DeleteSinkConfigs.CONNECTOR_NAME, sinkConfig(), connectorTimeout);
        log.info("Sink guard now allows {}", allowedNamespaces);
    }

    /**
     * The guard's key is a config provider reference to a file of the worker's, as in production, so that Connect's
     * REST API ({@code GET /connectors/<sink>/config}) shows the reference rather than the key.
     */
    private Map<String, String> sinkConfig() {
        return DeleteSinkConfigs.forTopic(
                deleteTopic, deadLetterTopic, mongo.connectionString(), allowedNamespaces, signingKeyReference);
    }

    /**
     * @return the secret the sink guard verifies delete commands with: the processor's {@code
     *     ttl.command.signing.key} must be the same
     */
    public String commandSigningKey() {
        return commandSigningKey;
    }

    /** @return the names of the connectors the stack created: one source per namespace, then the sink */
    public List<String> connectorNames() {
        List<String> names = new ArrayList<>();
        namespaces.forEach(namespace -> names.add(StandInSourceConfigs.connectorName(namespace)));
        names.add(DeleteSinkConfigs.CONNECTOR_NAME);
        return names;
    }

    /** @return how long {@link Builder#start()} took, up to every connector task RUNNING */
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

    /** @return the Connect worker, e.g. for connector status */
    public EmbeddedConnect connect() {
        return connect;
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

    private void startComponents(Builder builder) {
        long startNanos = System.nanoTime();
        mongo = EmbeddedMongo.start(builder.mongoPort, builder.profile);
        kafka = EmbeddedKafka.start(dataDir, builder.kafkaPort, builder.partitions);
        connect = EmbeddedConnect.start(kafka.bootstrapServers(), dataDir, builder.connectPort);
        signingKeyReference = connect.secretReference("ttl-signing", commandSigningKey);
        // Up front, so the processor (Kafka Streams fails on missing source topics) and the tests find them.
        List<String> topics = new ArrayList<>(sourceTopics().values());
        topics.add(deleteTopic);
        topics.add(deadLetterTopic);
        kafka.createTopics(builder.partitions, new LinkedHashSet<>(topics).toArray(String[]::new));

        Map<String, Map<String, String>> connectors = new LinkedHashMap<>();
        for (Namespace namespace : namespaces) {
            connectors.put(
                    StandInSourceConfigs.connectorName(namespace),
                    StandInSourceConfigs.forNamespace(namespace, mongo.connectionString(), builder.profile));
        }
        connectors.put(DeleteSinkConfigs.CONNECTOR_NAME, sinkConfig());
        connect.createConnectors(connectors, connectorTimeout);

        startupDuration = Duration.ofNanos(System.nanoTime() - startNanos);
        log.info(
                "Embedded stack up in {} ms: MongoDB {}, Kafka {}, Connect {}, watching {}",
                TimeUnit.NANOSECONDS.toMillis(startupDuration.toNanos()),
                mongo.connectionString(),
                kafka.bootstrapServers(),
                connect.url(),
                namespaces);
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

    private static void deleteRecursively(Path directory) {
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

    /** Configures and starts an {@link EmbeddedStack}. */
    public static final class Builder {

        private final List<Namespace> namespaces = new ArrayList<>();
        private String deleteTopic = DEFAULT_DELETE_TOPIC;
        private String deadLetterTopic = DEFAULT_DEAD_LETTER_TOPIC;
        private List<NamespacePattern> allowedNamespaces;
        private String commandSigningKey;
        private Path dataDir;
        private int mongoPort;
        private SourceProfile profile = SourceProfile.MONGODB;
        private int kafkaPort;
        private int connectPort;
        private int partitions = 1;
        private Duration connectorTimeout = Duration.ofSeconds(60);

        private Builder() {}

        /**
         * @param namespaces the collections to watch, {@code "db.coll"} each (one source connector per namespace)
         * @return this builder
         */
        public Builder namespaces(List<Namespace> namespaces) {
            this.namespaces.clear();
            this.namespaces.addAll(new LinkedHashSet<>(namespaces));
            return this;
        }

        /**
         * @param deleteTopic the topic the sink applies delete commands from (default
         *                    {@value EmbeddedStack#DEFAULT_DELETE_TOPIC})
         * @return this builder
         */
        public Builder deleteTopic(String deleteTopic) {
            this.deleteTopic = requireTopic(deleteTopic, "delete topic");
            return this;
        }

        /**
         * @param deadLetterTopic where the sink puts commands it cannot apply (default
         *                        {@value EmbeddedStack#DEFAULT_DEAD_LETTER_TOPIC})
         * @return this builder
         */
        public Builder deadLetterTopic(String deadLetterTopic) {
            this.deadLetterTopic = requireTopic(deadLetterTopic, "dead-letter topic");
            return this;
        }

        /**
         * @param allowedNamespaces the namespaces the sink guard lets commands delete in, {@code db.coll} or {@code
         *                          db.*} (default: the watched namespaces)
         * @return this builder
         */
        public Builder allowedNamespaces(List<NamespacePattern> allowedNamespaces) {
            if (allowedNamespaces.isEmpty()) {
                throw new IllegalArgumentException("The sink guard needs at least one allowed namespace");
            }
            this.allowedNamespaces = List.copyOf(allowedNamespaces);
            return this;
        }

        /**
         * @param secret the secret the sink guard verifies delete commands with, at least 32 bytes (default: 32
         *               random bytes for this stack alone)
         * @return this builder
         * @throws IllegalArgumentException when the secret is too short
         */
        public Builder commandSigningKey(String secret) {
            SigningKey.of(secret);
            this.commandSigningKey = secret;
            return this;
        }

        /**
         * @param dataDir where Kafka's log and Connect's offsets go; kept on close, and reused (with its topics
         *                and connector offsets) by the next stack started on it. Default: a temporary directory
         *                deleted on close.
         * @return this builder
         */
        public Builder dataDir(Path dataDir) {
            this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
            return this;
        }

        /** The service the stand-in plays ({@link EmbeddedMongo#start(int, SourceProfile)}); MongoDB by default. */
        public Builder profile(SourceProfile profile) {
            this.profile = java.util.Objects.requireNonNull(profile, "profile");
            return this;
        }

        /**
         * @param port the stand-in's port at 127.0.0.1, 0 (default) for any free port
         * @return this builder
         */
        public Builder mongoPort(int port) {
            this.mongoPort = requirePort(port);
            return this;
        }

        /**
         * @param port the broker's client port at 127.0.0.1, 0 (default) for any free port
         * @return this builder
         */
        public Builder kafkaPort(int port) {
            this.kafkaPort = requirePort(port);
            return this;
        }

        /**
         * @param port the Connect REST port at 127.0.0.1, 0 (default) for any free port
         * @return this builder
         */
        public Builder connectPort(int port) {
            this.connectPort = requirePort(port);
            return this;
        }

        /**
         * @param partitions partitions of the topics the stack creates, and the broker's default for other topics
         *                   (default 1)
         * @return this builder
         */
        public Builder partitions(int partitions) {
            if (partitions < 1) {
                throw new IllegalArgumentException("partitions must be at least 1, got " + partitions);
            }
            this.partitions = partitions;
            return this;
        }

        /**
         * @param timeout how long to wait for all connectors to be RUNNING (default 60 s)
         * @return this builder
         */
        public Builder connectorTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("connector timeout must be positive, got " + timeout);
            }
            this.connectorTimeout = timeout;
            return this;
        }

        /**
         * Starts MongoDB, Kafka and Connect, creates the topics and connectors, and waits until every connector
         * task is RUNNING. On failure, whatever was started is stopped again before the exception is thrown.
         *
         * @return the running stack
         * @throws EmbeddedStackException if a component fails to start
         */
        public EmbeddedStack start() {
            boolean temporary = dataDir == null;
            Path directory;
            try {
                directory = temporary
                        ? Files.createTempDirectory("ttl-streams-embedded-")
                        : Files.createDirectories(dataDir.toAbsolutePath());
            } catch (IOException e) {
                throw new EmbeddedStackException(
                        "Could not create the embedded stack's data directory "
                                + (temporary ? "in " + System.getProperty("java.io.tmpdir") : dataDir),
                        e);
            }
            EmbeddedStack stack = new EmbeddedStack(this, directory, temporary);
            try {
                stack.startComponents(this);
                return stack;
            } catch (RuntimeException e) {
                try {
                    stack.close();
                } catch (RuntimeException closeFailure) {
                    e.addSuppressed(closeFailure);
                }
                throw e instanceof EmbeddedStackException
                        ? e
                        : new EmbeddedStackException("The embedded stack failed to start: " + e.getMessage(), e);
            }
        }

        private static int requirePort(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
            }
            return port;
        }

        private static String requireTopic(String topic, String what) {
            if (topic == null || topic.isBlank()) {
                throw new IllegalArgumentException("The " + what + " must not be empty");
            }
            return topic;
        }
    }
}
