package io.ttlstreams.embedded;

import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.SigningKey;
import io.ttlstreams.embedded.standin.StandInSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

/** Configures and starts an {@link EmbeddedStack}: its rules, ports, data directory and signing key. */
public final class EmbeddedStackBuilder {

    private final List<Namespace> namespaces = new ArrayList<>();
    private TtlStreamsConfig rules;
    private String commandSigningKey;
    private Path dataDir;
    private int mongoPort;
    private SourceProfile profile = SourceProfile.MONGODB;
    private StandInSettings standIn = StandInSettings.DEFAULTS;
    private KafkaSecurity kafkaSecurity = KafkaSecurity.NONE;
    private int kafkaPort;
    private int connectPort;
    private int partitions = 1;
    private int brokers = 1;
    private Duration connectorTimeout = Duration.ofSeconds(60);

    EmbeddedStackBuilder() {}

    /**
     * @param config the configuration whose rules (and {@code ttl.delete.topic}, {@code ttl.document.key.max.bytes})
     *               the connectors are rendered from, as {@code connect-config} renders them
     * @return this builder
     */
    public EmbeddedStackBuilder rules(TtlStreamsConfig config) {
        this.rules = Objects.requireNonNull(config, "config");
        return this;
    }

    /**
     * @param namespaces more collections whose topics ({@code "db.coll"}) are created up front, besides the rules'
     *                   exact namespaces: those a {@code db.*} rule covers
     * @return this builder
     */
    public EmbeddedStackBuilder namespaces(List<Namespace> namespaces) {
        this.namespaces.clear();
        this.namespaces.addAll(new LinkedHashSet<>(namespaces));
        return this;
    }

    /**
     * @param secret the secret the sink guard verifies delete commands with, at least 32 bytes (default: 32
     *               random bytes for this stack alone)
     * @return this builder
     * @throws IllegalArgumentException when the secret is too short
     */
    public EmbeddedStackBuilder commandSigningKey(String secret) {
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
    public EmbeddedStackBuilder dataDir(Path dataDir) {
        this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
        return this;
    }

    /**
     * @param profile the service the stand-in plays ({@link EmbeddedMongo#start(int, Path, SourceProfile)}); MongoDB
     *                by default
     * @return this builder
     */
    public EmbeddedStackBuilder profile(SourceProfile profile) {
        this.profile = Objects.requireNonNull(profile, "profile");
        return this;
    }

    /**
     * @param settings how the MongoDB stand-in plays MongoDB ({@link StandInSettings}); 7.0 by default
     * @return this builder
     */
    public EmbeddedStackBuilder standIn(StandInSettings settings) {
        this.standIn = Objects.requireNonNull(settings, "settings");
        return this;
    }

    /**
     * @param security whether the broker authenticates its clients and enforces the plan's ACLs ({@link
     *                 KafkaSecurity#SCRAM_ACLS}); none by default
     * @return this builder
     */
    public EmbeddedStackBuilder kafkaSecurity(KafkaSecurity security) {
        this.kafkaSecurity = Objects.requireNonNull(security, "security");
        return this;
    }

    /**
     * @param port the stand-in's port at 127.0.0.1, 0 (default) for any free port
     * @return this builder
     */
    public EmbeddedStackBuilder mongoPort(int port) {
        this.mongoPort = requirePort(port);
        return this;
    }

    /**
     * @param port the broker's client port at 127.0.0.1, 0 (default) for any free port
     * @return this builder
     */
    public EmbeddedStackBuilder kafkaPort(int port) {
        this.kafkaPort = requirePort(port);
        return this;
    }

    /**
     * @param port the Connect REST port at 127.0.0.1, 0 (default) for any free port
     * @return this builder
     */
    public EmbeddedStackBuilder connectPort(int port) {
        this.connectPort = requirePort(port);
        return this;
    }

    /**
     * @param partitions partitions of the topics the stack creates, and the broker's default for other topics
     *                   (default 1)
     * @return this builder
     */
    public EmbeddedStackBuilder partitions(int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, got " + partitions);
        }
        this.partitions = partitions;
        return this;
    }

    /**
     * @param brokers Kafka brokers: 1 (default) for one node that is broker and controller, more for broker-only
     *                nodes beside a quorum of three controllers, every topic at replication factor {@code min(3,
     *                brokers)} ({@link EmbeddedKafka}); more than one with {@link KafkaSecurity#NONE} only
     * @return this builder
     */
    public EmbeddedStackBuilder brokers(int brokers) {
        if (brokers < 1) {
            throw new IllegalArgumentException("brokers must be at least 1, got " + brokers);
        }
        this.brokers = brokers;
        return this;
    }

    /**
     * @param timeout how long to wait for all connectors to be RUNNING (default 60 s)
     * @return this builder
     */
    public EmbeddedStackBuilder connectorTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("connector timeout must be positive, got " + timeout);
        }
        this.connectorTimeout = timeout;
        return this;
    }

    /**
     * Starts MongoDB, Kafka and Connect, creates the topics, registers the connectors rendered from the rules and
     * waits until every connector task is RUNNING. On failure, whatever was started is stopped again before the exception is thrown.
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
        if (rules == null) {
            throw new IllegalStateException("The embedded stack needs the rules its connectors are rendered from");
        }
        if (brokers > 1 && kafkaSecurity.enforced()) {
            throw new IllegalStateException(
                    "The embedded stack enforces Kafka security with one broker only, not " + brokers);
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

    TtlStreamsConfig rules() {
        return rules;
    }

    List<Namespace> namespaces() {
        return namespaces;
    }

    /** The given key, or 32 random bytes (Base64) for this stack alone. */
    String commandSigningKey() {
        if (commandSigningKey != null) {
            return commandSigningKey;
        }
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    }

    SourceProfile profile() {
        return profile;
    }

    StandInSettings standIn() {
        return standIn;
    }

    KafkaSecurity kafkaSecurity() {
        return kafkaSecurity;
    }

    int mongoPort() {
        return mongoPort;
    }

    int kafkaPort() {
        return kafkaPort;
    }

    int connectPort() {
        return connectPort;
    }

    int partitions() {
        return partitions;
    }

    int brokers() {
        return brokers;
    }

    Duration connectorTimeout() {
        return connectorTimeout;
    }
}
