package io.ttlstreams.embedded;

import io.ttlstreams.platform.AclPlan;
import io.ttlstreams.platform.PlatformSettings;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.provider.DirectoryConfigProvider;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.connect.cli.AbstractConnectCli;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.cli.ConnectStandalone;
import org.apache.kafka.connect.runtime.Connect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a Kafka Connect worker in this JVM for {@link EmbeddedConnect}: its properties, its plugin path with the
 * MongoDB connectors and the sink guard, each in a class loader of its own ({@link ConnectPlugins}), and the undoing
 * of what Connect's command line does to a JVM of its own. Standalone (offsets in a file) against a broker
 * without security; distributed, as Strimzi runs Connect, against one that enforces the plan's ACLs, which are a
 * distributed worker's, and in the JVM of its own of {@link ConnectProcess}.
 */
final class ConnectWorker {

    private static final Logger log = LoggerFactory.getLogger(ConnectWorker.class);

    private static final String STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter";
    /** Kafka's Exit hooks are JVM-global; starting two workers at once must not interleave the swap. */
    private static final Object EXIT_HOOKS_LOCK = new Object();

    private ConnectWorker() {}

    /**
     * Installs the plugins under {@code directory/plugins} and starts the worker.
     *
     * @param directory  the worker's directory (offsets, plugins)
     * @param secretsDir the worker's secrets directory
     * @throws EmbeddedStackException if the worker fails to start
     */
    static Connect<?> start(
            String bootstrapServers, Path directory, Path secretsDir, int restPort, Optional<KafkaUsers> users) {
        if (users.isEmpty()) {
            return startWorker(
                    new ConnectStandalone(), workerProperties(bootstrapServers, directory, secretsDir, restPort));
        }
        // The one broker that enforces security replicates nothing.
        Map<String, String> props = distributedProperties(bootstrapServers, directory, secretsDir, restPort, 1);
        props.putAll(securityProperties(users.get()));
        return startWorker(new ConnectDistributed(), props);
    }

    /**
     * Installs the plugins under {@code directory/plugins} and starts a distributed worker that does not log
     * in: {@link ConnectProcess}'s, in a JVM of its own.
     *
     * @param replicationFactor of the worker's config, offset and status topics
     * @throws EmbeddedStackException if the worker fails to start
     */
    static Connect<?> startDistributed(
            String bootstrapServers, Path directory, Path secretsDir, int restPort, int replicationFactor) {
        return startWorker(
                new ConnectDistributed(),
                distributedProperties(bootstrapServers, directory, secretsDir, restPort, replicationFactor));
    }

    /**
     * A distributed worker of group {@value PlatformSettings#DEFAULT_CONNECT_CLUSTER}, as the plan names it, its
     * source offsets (the change streams' resume tokens) in its offset topic instead of a file.
     */
    private static Map<String, String> distributedProperties(
            String bootstrapServers, Path directory, Path secretsDir, int restPort, int replicationFactor) {
        Map<String, String> props = workerProperties(bootstrapServers, directory, secretsDir, restPort);
        props.remove("offset.storage.file.filename");
        String group = PlatformSettings.DEFAULT_CONNECT_CLUSTER;
        props.put("group.id", group);
        props.put("config.storage.topic", group + "-configs");
        props.put("offset.storage.topic", group + "-offsets");
        props.put("status.storage.topic", group + "-status");
        for (String topic : List.of("config", "offset", "status")) {
            props.put(topic + ".storage.replication.factor", Integer.toString(replicationFactor));
        }
        props.put("offset.storage.partitions", "1");
        props.put("status.storage.partitions", "1");
        return props;
    }

    /**
     * Logging in as the plan's Connect user for the worker's own clients (its topics and group), and resolving the
     * connectors' {@code ${directory:...}} overrides from the secret directories of the Connect, source and sink
     * users only.
     */
    private static Map<String, String> securityProperties(KafkaUsers users) {
        Map<String, String> props = new HashMap<>();
        Map<String, String> security = new HashMap<>();
        KafkaUsers.securitySettings().forEach((key, value) -> security.put(key.toString(), value.toString()));
        security.put(SaslConfigs.SASL_JAAS_CONFIG, users.jaasReference(AclPlan.CONNECT_USER));
        // The worker's own clients, and the base of every connector's, which the connectors' overrides then change.
        for (String prefix : List.of("", "producer.", "consumer.", "admin.")) {
            security.forEach((key, value) -> props.put(prefix + key, value));
        }
        props.put("config.providers", "file,directory");
        props.put("config.providers.directory.class", DirectoryConfigProvider.class.getName());
        props.put(
                "config.providers.directory.param.allowed.paths",
                List.of(AclPlan.CONNECT_USER, AclPlan.SOURCE_USER, AclPlan.SINK_USER).stream()
                        .map(user -> users.directory(user).toString())
                        .collect(Collectors.joining(",")));
        return props;
    }

    /** A standalone worker's properties, after installing the plugins under {@code directory/plugins}. */
    private static Map<String, String> workerProperties(
            String bootstrapServers, Path directory, Path secretsDir, int restPort) {
        Path pluginPath = directory.resolve("plugins");
        ConnectPlugins.install(pluginPath);
        Map<String, String> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrapServers);
        props.put(
                "offset.storage.file.filename",
                directory.resolve("connect.offsets").toString());
        // Source offsets (change-stream resume tokens) are flushed this often; on a crash, at most this much
        // is replayed. The default (60 s) replays a lot after a killed demo.
        props.put("offset.flush.interval.ms", "1000");
        props.put("key.converter", STRING_CONVERTER);
        props.put("value.converter", STRING_CONVERTER);
        // Reads the plugins' META-INF/services entries only (each plugin ships them, see ConnectPlugins; the secrets
        // provider's are on the classpath), where the default reflective scan costs 3-5 s and 200 MB at every start.
        props.put("plugin.discovery", "service_load");
        props.put("plugin.path", pluginPath.toString());
        props.put("listeners", "http://" + LocalPorts.HOST + ":" + restPort);
        // Lets the sink read committed data only (consumer.override.isolation.level=read_committed).
        props.put("connector.client.config.override.policy", "All");
        // Secrets in connector configurations are ${file:...} references, resolved here, from the worker's secrets
        // directory only; production's /secrets/<name>.properties are looked up there too.
        props.put("config.providers", "file");
        props.put("config.providers.file.class", SecretsConfigProvider.class.getName());
        props.put("config.providers.file.param.allowed.paths", secretsDir.toString());
        props.put("config.providers.file.param." + SecretsConfigProvider.DIRECTORY_CONFIG, secretsDir.toString());
        return props;
    }

    /**
     * {@link ConnectStandalone#startConnect} is written for a process of its own: it calls
     * {@code Exit.exit(1)} when the worker fails to start, registers a JVM shutdown hook that it never removes,
     * and leaves the calling thread's context class loader set to its plugin loader. All three are undone here,
     * so a failure becomes an exception and {@link EmbeddedConnect#close()} owns the lifecycle.
     */
    private static Connect<?> startWorker(AbstractConnectCli<?, ?> cli, Map<String, String> workerProps) {
        Thread thread = Thread.currentThread();
        ClassLoader contextLoader = thread.getContextClassLoader();
        synchronized (EXIT_HOOKS_LOCK) {
            Exit.setExitProcedure((status, message) -> {
                throw new EmbeddedStackException("Embedded Connect failed to start (it asked to exit with status "
                        + status + (message == null ? "" : ": " + message) + "); see the log above for the cause");
            });
            Exit.setShutdownHookAdder((name, runnable) -> log.debug("Not registering Connect's {} hook", name));
            try {
                return cli.startConnect(workerProps);
            } catch (EmbeddedStackException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new EmbeddedStackException(
                        "Embedded Connect failed to start on " + workerProps.get("listeners") + ": " + e.getMessage(),
                        e);
            } finally {
                Exit.resetExitProcedure();
                Exit.resetShutdownHookAdder();
                thread.setContextClassLoader(contextLoader);
            }
        }
    }
}
