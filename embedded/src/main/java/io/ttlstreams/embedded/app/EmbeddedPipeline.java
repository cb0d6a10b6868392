package io.ttlstreams.embedded.app;

import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.OutputTopicOptions;
import io.ttlstreams.config.ResyncOptions;
import io.ttlstreams.config.SourceOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ManagedConnectors;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.EmbeddedStack;
import io.ttlstreams.embedded.EmbeddedStackBuilder;
import io.ttlstreams.embedded.KafkaUsers;
import io.ttlstreams.platform.AclPlan;
import io.ttlstreams.platform.TopicPlan;
import io.ttlstreams.rules.TtlRule;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.config.provider.DirectoryConfigProvider;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The whole pipeline on one machine: the embedded stack (Kafka, Kafka Connect with the MongoDB
 * connectors, the MongoDB stand-in) and the processor, wired from one configuration. {@code run
 * --embedded}, {@code demo} and the integration tests all start it, so they exercise what
 * production runs, the sink guard included: the processor signs with the stack's key (the configured {@code
 * ttl.command.signing.key}, or a random one per run) and the guard allows the rules' namespaces.
 */
public final class EmbeddedPipeline implements AutoCloseable {

    /** Where every part of the embedded stack listens. */
    private static final String LOOPBACK = "127.0.0.1";

    private static final String CONFIG_PROVIDERS = "config.providers";
    private static final String DIRECTORY_PROVIDER = "directory";

    private final EmbeddedStack stack;
    private TtlStreamsConfig processorConfig;
    private TtlStreamsApp processor;

    private EmbeddedPipeline(EmbeddedStack stack, TtlStreamsConfig processorConfig) {
        this.stack = stack;
        this.processorConfig = processorConfig;
    }

    /**
     * Starts the stack for the namespaces the rules name, with {@value EmbeddedOptions#EMBEDDED_PARTITIONS_CONFIG}
     * partitions per topic it creates, then the processor against it, and waits until both connectors and Kafka
     * Streams are running.
     */
    public static EmbeddedPipeline start(TtlStreamsConfig config) throws InterruptedException {
        checkPortFree(EmbeddedOptions.EMBEDDED_KAFKA_PORT_CONFIG, EmbeddedOptions.kafkaPort(config));
        checkPortFree(EmbeddedOptions.EMBEDDED_MONGODB_PORT_CONFIG, EmbeddedOptions.mongodbPort(config));
        checkPortFree(EmbeddedOptions.EMBEDDED_CONNECT_PORT_CONFIG, EmbeddedOptions.connectPort(config));
        int brokers = EmbeddedOptions.kafkaBrokers(config);
        if (brokers > 1 && EmbeddedOptions.kafkaSecurity(config).enforced()) {
            throw new ConfigException(
                    EmbeddedOptions.EMBEDDED_KAFKA_BROKERS_CONFIG,
                    brokers,
                    "the embedded stack enforces " + EmbeddedOptions.EMBEDDED_KAFKA_SECURITY_CONFIG + "="
                            + EmbeddedOptions.kafkaSecurity(config).configValue()
                            + " with one broker only: drop one of the two settings");
        }
        EmbeddedStackBuilder builder = EmbeddedStack.builder()
                .rules(config)
                .namespaces(List.copyOf(watchedNamespaces(config)))
                .mongoPort(EmbeddedOptions.mongodbPort(config))
                .kafkaPort(EmbeddedOptions.kafkaPort(config))
                .connectPort(EmbeddedOptions.connectPort(config))
                .partitions(EmbeddedOptions.partitions(config))
                .brokers(brokers)
                .profile(EmbeddedOptions.profile(config))
                .standIn(EmbeddedOptions.standIn(config))
                .kafkaSecurity(EmbeddedOptions.kafkaSecurity(config));
        EmbeddedOptions.dataDir(config).ifPresent(builder::dataDir);
        // The user's key, or one made for this run: either way the guard is on and the processor signs.
        Password signingKey = config.getPassword(OperationsOptions.COMMAND_SIGNING_KEY_CONFIG);
        if (signingKey != null && !signingKey.value().isEmpty()) {
            builder.commandSigningKey(signingKey.value());
        }
        EmbeddedStack stack = builder.start();
        try {
            EmbeddedPipeline pipeline = new EmbeddedPipeline(stack, processorConfig(config, stack));
            pipeline.startProcessor();
            return pipeline;
        } catch (RuntimeException | InterruptedException e) {
            stack.close();
            throw e;
        }
    }

    /**
     * Fails with one line naming {@code option} when its port is taken on loopback, where the stack binds it, instead
     * of the component's bind error deep in its start-up. Another process may still take the port between this check
     * and the bind; that rare case fails as before.
     *
     * @throws ConfigException naming the option that moves the port
     */
    static void checkPortFree(String option, int port) {
        if (port == 0) {
            return;
        }
        try (ServerSocket socket = new ServerSocket()) {
            // As the components bind: a port a previous run left in TIME_WAIT is free, only a listener takes it.
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(LOOPBACK, port));
        } catch (IOException e) {
            throw new ConfigException(
                    option,
                    port,
                    "port " + port + " on " + LOOPBACK + " is in use ("
                            + e.getMessage()
                            + "): stop what listens there, or move the embedded stack's port with --set "
                            + option + "=0 (any free port) or another number");
        }
    }

    /**
     * The namespaces whose topics the processor reads: every exact rule namespace, and those of explicitly listed
     * source topics (a {@code db.*} rule's source connector publishes a topic per collection, which Kafka Streams
     * needs to exist before it starts, so such a rule's collections are named through {@code ttl.source.topics}).
     */
    static Set<Namespace> watchedNamespaces(TtlStreamsConfig config) {
        Set<Namespace> namespaces = new LinkedHashSet<>();
        for (TtlRule rule : config.rules().rules()) {
            rule.namespace().exactNamespace().ifPresent(namespaces::add);
        }
        for (String topic : config.sourceTopics()) {
            config.topicNamespaceMapping().namespaceOf(topic).ifPresent(namespaces::add);
        }
        return namespaces;
    }

    /**
     * The user's configuration pointed at the embedded broker, reading the stand-in's topics, signing with the key
     * the stack's sink guard verifies, resyncing from the stand-in; its HTTP server on a free loopback port unless the
     * configuration names one. On a broker that enforces security, logging in as the processor's user and checking
     * the topics the stack declared, as on a secured cluster. On several brokers, Kafka Streams' internal topics
     * replicated as the plan replicates the others.
     */
    private static TtlStreamsConfig processorConfig(TtlStreamsConfig config, EmbeddedStack stack) {
        Map<String, Object> props = new HashMap<>(config.originals());
        props.putIfAbsent(OperationsOptions.HTTP_PORT_CONFIG, "0");
        props.putIfAbsent(OperationsOptions.HTTP_BIND_ADDRESS_CONFIG, "127.0.0.1");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                stack.dataDir().resolve("streams").toString());
        props.put(
                SourceOptions.SOURCE_TOPICS_CONFIG,
                String.join(",", stack.sourceTopics().values()));
        props.put(SourceOptions.SOURCE_TOPIC_PREFIX_CONFIG, "");
        props.put(OperationsOptions.COMMAND_SIGNING_KEY_CONFIG, stack.commandSigningKey());
        props.put(ResyncOptions.MONGODB_URI_CONFIG, stack.mongoConnectionString());
        props.put(
                SourceOptions.SOURCE_PROFILE_CONFIG,
                EmbeddedOptions.profile(config).configValue());
        int replicationFactor = stack.kafka().replicationFactor();
        if (replicationFactor > 1) {
            // Kafka Streams' own topics (changelogs, repartition topics) replicated as the plan replicates the rest.
            props.putIfAbsent(StreamsConfig.REPLICATION_FACTOR_CONFIG, Integer.toString(replicationFactor));
            props.putIfAbsent(
                    StreamsConfig.topicPrefix(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG),
                    Integer.toString(TopicPlan.minInSyncReplicas(replicationFactor)));
        }
        stack.kafkaUsers().ifPresent(users -> props.putAll(asUser(users, AclPlan.PROCESSOR_USER, config)));
        return new TtlStreamsConfig(props);
    }

    /**
     * The settings that make a processor configuration's clients (and {@code resync}'s, and {@code approve}'s) log in
     * as {@code user} of the stack's plan, its JAAS line a {@code ${directory:...}} reference to the user's secret,
     * and check the topics the stack declared instead of creating them.
     */
    private static Map<String, Object> asUser(KafkaUsers users, String user, TtlStreamsConfig config) {
        Map<String, Object> props = new HashMap<>();
        KafkaUsers.securitySettings().forEach((key, value) -> props.put(key.toString(), value));
        props.put(SaslConfigs.SASL_JAAS_CONFIG, users.jaasReference(user));
        String providers = config.originals().containsKey(CONFIG_PROVIDERS)
                ? String.valueOf(config.originals().get(CONFIG_PROVIDERS))
                : "";
        if (!List.of(providers.split("\\s*,\\s*")).contains(DIRECTORY_PROVIDER)) {
            props.put(
                    CONFIG_PROVIDERS, providers.isBlank() ? DIRECTORY_PROVIDER : providers + "," + DIRECTORY_PROVIDER);
        }
        props.put(CONFIG_PROVIDERS + "." + DIRECTORY_PROVIDER + ".class", DirectoryConfigProvider.class.getName());
        props.put(
                CONFIG_PROVIDERS + "." + DIRECTORY_PROVIDER + ".param.allowed.paths",
                users.directory(user).toString());
        props.put(OutputTopicOptions.TOPICS_CREATE_CONFIG, "false");
        return props;
    }

    /**
     * Starts (again) the processor, on the state left by the previous one, watching the stack's connectors (its
     * readiness requires them RUNNING).
     */
    public void startProcessor() throws InterruptedException {
        processor = new TtlStreamsApp(processorConfig, Optional.of(connectors())).start();
        processor.awaitRunning(Duration.ofMinutes(1));
    }

    /**
     * Stops the processor and starts it again on the same state with {@code config}: changed rules, dry run, any
     * setting, as an operator restarting with a new configuration would. The connectors rendered from the new rules
     * are registered first, as {@code run} does.
     *
     * @throws IllegalArgumentException when {@code config} needs a namespace the stack does not watch: the topics the
     *     processor reads are fixed when the stack starts, so list such a namespace's topic in {@value
     *     SourceOptions#SOURCE_TOPICS_CONFIG} of the first configuration
     */
    public void restartProcessor(TtlStreamsConfig config) throws InterruptedException {
        Set<Namespace> unwatched = new LinkedHashSet<>(watchedNamespaces(config));
        stack.namespaces().forEach(unwatched::remove);
        if (!unwatched.isEmpty()) {
            throw new IllegalArgumentException(
                    "The embedded stack does not watch " + unwatched + "; it watches " + stack.namespaces());
        }
        stopProcessor();
        stack.registerConnectors(config);
        processorConfig = processorConfig(config, stack);
        startProcessor();
    }

    /** Stops the processor, leaving the stack running (restart tests). */
    public void stopProcessor() {
        if (processor != null) {
            processor.close();
            processor = null;
        }
    }

    /** The stack's connectors, which a processor against it depends on. */
    public ManagedConnectors connectors() {
        return stack.connectors();
    }

    /** The running stack. */
    public EmbeddedStack stack() {
        return stack;
    }

    /** The running processor. */
    public TtlStreamsApp processor() {
        return processor;
    }

    /** The processor's configuration, pointed at the stack. */
    public TtlStreamsConfig processorConfig() {
        return processorConfig;
    }

    /** Where the processor keeps its state stores. */
    public Path stateDir() {
        return Path.of(processorConfig.streamsProperties().getProperty(StreamsConfig.STATE_DIR_CONFIG));
    }

    @Override
    public void close() {
        stopProcessor();
        stack.close();
    }
}
