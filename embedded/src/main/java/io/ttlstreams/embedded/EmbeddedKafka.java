package io.ttlstreams.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.metrics.KafkaYammerMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Kafka cluster in this JVM: one KRaft process acting as broker and controller, listening on
 * 127.0.0.1, with replication factor 1 everywhere so that consumer groups and transactions (the processor runs
 * {@code exactly_once_v2}) work on one node.
 *
 * <p>The log lives under {@code <dataDir>/kafka}. A data dir formatted by an earlier run is reused, with the
 * controller port it was formatted with, because a KRaft quorum formatted with {@code --standalone} stores its
 * controller endpoint.
 *
 * <p>With {@link KafkaSecurity#SCRAM_ACLS}, clients connect to a SASL_PLAINTEXT listener (SCRAM-SHA-512) and Kafka's
 * {@code StandardAuthorizer} allows only what an ACL allows. The stack's own set-up (topics, users, ACLs: {@link
 * #setupAdmin()}) uses a second listener, PLAINTEXT on loopback, whose anonymous principal is the one super user: the
 * controller listener's must be one anyway (the broker registers through it before any ACL or SCRAM credential is
 * loaded, and KRaft's controller listener takes no SCRAM), so no password has to be made and kept for it, and nothing
 * that connects to the clients' listener is a super user.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);
    private static final String CONTROLLER_PORT_FILE = "controller.port";
    /** Brokers started and not yet closed in this JVM; see {@link #forgetBrokerMetrics()}. */
    private static final AtomicInteger RUNNING = new AtomicInteger();

    /** The SASL mechanism of the clients' listener under {@link KafkaSecurity#SCRAM_ACLS}. */
    public static final String SASL_MECHANISM = "SCRAM-SHA-512";

    /** The authorizer under {@link KafkaSecurity#SCRAM_ACLS}: KRaft's, with ACLs in the metadata log. */
    static final String AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

    /** The principal of the set-up and controller listeners (PLAINTEXT), the only super user. */
    static final String SETUP_PRINCIPAL = "User:ANONYMOUS";

    private final KafkaRaftServer server;
    private final Listeners listeners;
    private boolean closed;

    private EmbeddedKafka(KafkaRaftServer server, Listeners listeners) {
        this.server = server;
        this.listeners = listeners;
    }

    /**
     * The node's listeners on 127.0.0.1: the clients' ({@code port}), the set-up's (the same as the clients' unless
     * the broker enforces security) and the controller's.
     */
    record Listeners(int port, int setupPort, int controllerPort, KafkaSecurity security) {}

    /** {@link #start(Path, int, int)} with one partition per topic created without a count. */
    public static EmbeddedKafka start(Path dataDir, int port) {
        return start(dataDir, port, 1);
    }

    /** {@link #start(Path, int, int, KafkaSecurity)} without security. */
    public static EmbeddedKafka start(Path dataDir, int port, int partitions) {
        return start(dataDir, port, partitions, KafkaSecurity.NONE);
    }

    /**
     * Formats (if needed) and starts the broker, and returns once it answers admin requests.
     *
     * @param dataDir    the stack's data directory; the broker uses {@code dataDir/kafka}
     * @param port       the client port at 127.0.0.1, or 0 for any free port
     * @param partitions partitions of topics created without a count ({@code num.partitions})
     * @param security   whether clients authenticate and ACLs are enforced
     * @return the running broker
     * @throws EmbeddedStackException if formatting or start-up fails
     */
    public static EmbeddedKafka start(Path dataDir, int port, int partitions, KafkaSecurity security) {
        Path directory = dataDir.resolve("kafka").toAbsolutePath();
        Path logDir = directory.resolve("logs");
        int brokerPort = LocalPorts.resolve(port);
        boolean formatted = Files.exists(logDir.resolve("meta.properties"));
        int controllerPort = formatted ? readControllerPort(directory) : LocalPorts.pickFree();
        Listeners listeners = new Listeners(
                brokerPort, security.enforced() ? LocalPorts.pickFree() : brokerPort, controllerPort, security);
        Properties props = brokerProperties(logDir, listeners);
        props.put("num.partitions", Integer.toString(partitions));
        try {
            Files.createDirectories(directory);
            if (!formatted) {
                format(directory, props);
                Files.writeString(directory.resolve(CONTROLLER_PORT_FILE), Integer.toString(controllerPort));
            }
        } catch (IOException e) {
            throw new EmbeddedStackException("Embedded Kafka could not prepare its directory " + directory, e);
        }

        long startNanos = System.nanoTime();
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        EmbeddedKafka kafka = new EmbeddedKafka(server, listeners);
        RUNNING.incrementAndGet();
        try {
            server.startup();
            kafka.awaitReady();
        } catch (RuntimeException e) {
            kafka.close();
            throw new EmbeddedStackException(
                    "Embedded Kafka failed to start on " + kafka.bootstrapServers() + " (controller port "
                            + controllerPort + ", data in " + directory + "): " + e.getMessage(),
                    e);
        }
        log.debug(
                "Embedded Kafka listening at {} (started in {} ms)",
                kafka.bootstrapServers(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        return kafka;
    }

    /** @return {@code 127.0.0.1:<port>}, for {@code bootstrap.servers} */
    public String bootstrapServers() {
        return LocalPorts.HOST + ":" + listeners.port();
    }

    /** @return the client port */
    public int port() {
        return listeners.port();
    }

    /** @return whether clients authenticate and ACLs are enforced */
    public KafkaSecurity security() {
        return listeners.security();
    }

    /**
     * An admin client for the stack's own set-up: topics, users, ACLs. Under {@link KafkaSecurity#SCRAM_ACLS} it
     * connects to the set-up listener as the super user, which no part of the stack ever gets; the caller closes it.
     */
    public Admin setupAdmin() {
        return Admin.create(adminProperties());
    }

    /**
     * Creates topics with replication factor 1; topics that already exist are left as they are.
     *
     * @param partitions partitions of each new topic
     * @param topics     topic names
     * @throws EmbeddedStackException if a topic cannot be created
     */
    public void createTopics(int partitions, String... topics) {
        List<NewTopic> newTopics = new ArrayList<>();
        for (String topic : topics) {
            newTopics.add(new NewTopic(topic, partitions, (short) 1));
        }
        createTopics(newTopics);
    }

    /**
     * Creates topics as given (replication factor must be 1 or unset); topics that already exist are left as
     * they are.
     *
     * @param topics the topics to create
     * @throws EmbeddedStackException if a topic cannot be created
     */
    public void createTopics(Collection<NewTopic> topics) {
        try (Admin admin = Admin.create(adminProperties())) {
            for (Map.Entry<String, KafkaFuture<Void>> result :
                    admin.createTopics(topics).values().entrySet()) {
                try {
                    result.getValue().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new EmbeddedStackException(
                                "Could not create topic " + result.getKey() + ": "
                                        + e.getCause().getMessage(),
                                e.getCause());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted while creating topics " + topics, e);
        } catch (TimeoutException e) {
            throw new EmbeddedStackException("Timed out creating topics " + topics, e);
        }
    }

    /** Shuts the broker and controller down and waits for them. Idempotent. Leaves the data on disk. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.shutdown();
            server.awaitShutdown();
        } finally {
            if (RUNNING.decrementAndGet() == 0) {
                forgetBrokerMetrics();
            }
        }
        log.debug("Embedded Kafka stopped");
    }

    /**
     * A broker registers about a hundred metrics in the JVM-wide Yammer registry and leaves them there on
     * shutdown, and through them its request purgatories: a few MB per broker started, plus their JMX beans.
     * Tests and demos start several stacks in one JVM, so they are removed once no embedded broker runs. Only
     * brokers use that registry (clients, Streams and Connect use Kafka's own metrics).
     */
    private static void forgetBrokerMetrics() {
        // Reflection because metrics-core (the registry's type) is only on the runtime classpath here.
        try {
            Object registry =
                    KafkaYammerMetrics.class.getMethod("defaultRegistry").invoke(null);
            Map<?, ?> metrics =
                    (Map<?, ?>) registry.getClass().getMethod("allMetrics").invoke(registry);
            Class<?> metricName = Class.forName("com.yammer.metrics.core.MetricName");
            Method remove = registry.getClass().getMethod("removeMetric", metricName);
            for (Object name : List.copyOf(metrics.keySet())) {
                remove.invoke(registry, name);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.debug("Could not remove the stopped broker's metrics; a few MB stay allocated", e);
        }
    }

    private Properties adminProperties() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, LocalPorts.HOST + ":" + listeners.setupPort());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "ttl-streams-embedded-admin");
        return props;
    }

    /** startup() returns once the broker registered; this also proves a client can reach it. */
    private void awaitReady() {
        try (Admin admin = Admin.create(adminProperties())) {
            admin.describeCluster().nodes().get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted while waiting for embedded Kafka", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new EmbeddedStackException("Embedded Kafka did not answer within " + READY_TIMEOUT, e);
        }
    }

    /** The node's whole configuration: its listeners and security, and the settings of a laptop-sized cluster. */
    private static Properties brokerProperties(Path logDir, Listeners listeners) {
        String controller = LocalPorts.HOST + ":" + listeners.controllerPort();
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.bootstrap.servers", controller);
        props.put("controller.listener.names", "CONTROLLER");
        if (listeners.security().enforced()) {
            String clients = "CLIENT://" + LocalPorts.HOST + ":" + listeners.port();
            String setup = "SETUP://" + LocalPorts.HOST + ":" + listeners.setupPort();
            props.put("listeners", clients + "," + setup + ",CONTROLLER://" + controller);
            props.put("advertised.listeners", clients + "," + setup);
            props.put("listener.security.protocol.map", "CLIENT:SASL_PLAINTEXT,SETUP:PLAINTEXT,CONTROLLER:PLAINTEXT");
            // The broker talks to itself (transaction markers, the controller) as the super user, on loopback.
            props.put("inter.broker.listener.name", "SETUP");
            props.put("listener.name.client.sasl.enabled.mechanisms", SASL_MECHANISM);
            props.put(
                    "listener.name.client." + SASL_MECHANISM.toLowerCase(Locale.ROOT) + ".sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;");
            props.put("authorizer.class.name", AUTHORIZER);
            props.put("allow.everyone.if.no.acl.found", "false");
            props.put("super.users", SETUP_PRINCIPAL);
        } else {
            props.put(
                    "listeners",
                    "PLAINTEXT://" + LocalPorts.HOST + ":" + listeners.port() + ",CONTROLLER://" + controller);
            props.put("advertised.listeners", "PLAINTEXT://" + LocalPorts.HOST + ":" + listeners.port());
            props.put("inter.broker.listener.name", "PLAINTEXT");
            props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        }
        props.put("log.dirs", logDir.toString());
        // One node: every internal topic must be satisfiable with a single replica.
        props.put("offsets.topic.replication.factor", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("default.replication.factor", "1");
        props.put("min.insync.replicas", "1");
        // Internal topics default to 50 partitions each; creating them on first use costs seconds locally.
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.num.partitions", "1");
        props.put("share.coordinator.state.topic.num.partitions", "1");
        // No other group members are coming: rebalance at once instead of after 3 s.
        props.put("group.initial.rebalance.delay.ms", "0");
        // A processor killed mid-transaction leaves it open until transaction.timeout.ms (10 s under Kafka Streams'
        // exactly-once) and the broker's next check for timed-out transactions (every 10 s by default); until then
        // read_committed consumers, the delete sink among them, see nothing after it. Checking every second bounds
        // the failover delay this adds to the transaction timeout.
        props.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
        // The log cleaner allocates its dedupe buffer (128 MB by default) up front; local data is tiny.
        props.put("log.cleaner.dedupe.buffer.size", Integer.toString(4 * 1024 * 1024));
        // Fewer threads than a production broker: this shares a laptop with Connect, MongoDB and the app. Each idle
        // network and request-handler thread (the controller has as many handlers again) wakes every 300 ms, and
        // each group coordinator thread polls its queue: at rest, these threads took about a tenth of the stack's CPU.
        props.put("num.network.threads", "1");
        props.put("num.io.threads", "2");
        props.put("group.coordinator.threads", "1");
        props.put("background.threads", "2");
        props.put("num.recovery.threads.per.data.dir", "1");
        props.put("log.cleaner.threads", "1");
        // The active controller appends a no-op record to the metadata log every 500 ms by default, so that other
        // nodes see it alive (KIP-835); each one is a Raft append, a flush and a metadata publication. This node is
        // the only voter and the only broker, so nobody needs them: without them an idle stack's broker sleeps.
        props.put("metadata.max.idle.interval.ms", "0");
        return props;
    }

    private static void format(Path directory, Properties props) throws IOException {
        Path propsFile = directory.resolve("server.properties");
        try (Writer writer = Files.newBufferedWriter(propsFile, StandardCharsets.UTF_8)) {
            props.store(writer, "Written by ttl-streams EmbeddedKafka to format the KRaft storage");
        }
        String clusterId = Uuid.randomUuid().toString();
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int exitCode;
        try (PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8)) {
            exitCode = StorageTool.execute(
                    new String[] {"format", "-t", clusterId, "-c", propsFile.toString(), "--standalone"}, out);
        } catch (Exception e) {
            throw new EmbeddedStackException(
                    "Formatting the embedded Kafka storage in " + directory + " failed: " + e.getMessage() + "\n"
                            + output.toString(StandardCharsets.UTF_8),
                    e);
        }
        if (exitCode != 0) {
            throw new EmbeddedStackException("Formatting the embedded Kafka storage in " + directory
                    + " failed with exit code " + exitCode + ":\n" + output.toString(StandardCharsets.UTF_8));
        }
        log.debug(
                "Formatted KRaft storage: {}",
                output.toString(StandardCharsets.UTF_8).trim());
    }

    private static int readControllerPort(Path directory) {
        Path file = directory.resolve(CONTROLLER_PORT_FILE);
        try {
            return Integer.parseInt(
                    Files.readString(file, StandardCharsets.UTF_8).trim());
        } catch (IOException | NumberFormatException e) {
            throw new EmbeddedStackException(
                    "The Kafka data in " + directory + " was formatted before, but its "
                            + "controller port cannot be read from " + file + "; delete " + directory
                            + " to start afresh",
                    e);
        }
    }
}
