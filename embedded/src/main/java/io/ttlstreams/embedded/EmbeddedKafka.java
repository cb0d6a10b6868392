package io.ttlstreams.embedded;

import io.ttlstreams.config.StreamsDefaults;
import io.ttlstreams.platform.TopicPlan;
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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.server.metrics.KafkaYammerMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka cluster in this JVM, on 127.0.0.1. With one broker (the default, so that the quickstart stays light): one
 * KRaft process acting as broker and controller, replication factor 1 everywhere, so that consumer groups and
 * transactions (the processor runs {@code exactly_once_v2}) work on one node. With N brokers: N broker-only nodes and
 * a quorum of three controller-only nodes of their own (so that losing any one controller, the active one included,
 * keeps a majority), every internal topic at replication factor {@code min(3, N)} and {@code min.insync.replicas} as
 * the production topic plan asks ({@link TopicPlan#minInSyncReplicas}); brokers and controllers can be stopped, hard
 * or not, and started again one at a time ({@link #killBroker}, {@link #startBroker}, {@link #killController}).
 *
 * <p>The log lives under {@code <dataDir>/kafka}. A data dir formatted by an earlier run is reused, with the
 * controller port it was formatted with, because a KRaft quorum formatted with {@code --standalone} stores its
 * controller endpoint; a multi-broker cluster's quorum is static ({@code controller.quorum.voters}), so its ports are
 * picked afresh.
 *
 * <p>With {@link KafkaSecurity#SCRAM_ACLS} (one broker only), clients connect to a SASL_PLAINTEXT listener
 * (SCRAM-SHA-512) and Kafka's
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
    private static final Duration POLL_INTERVAL = Duration.ofMillis(100);
    private static final String CONTROLLER_PORT_FILE = "controller.port";
    /** In a multi-broker cluster's directory: how many brokers it was formatted for. */
    private static final String BROKERS_FILE = "brokers";
    /** The controller quorum of a multi-broker cluster: three voters, so that it survives the loss of one. */
    static final int CONTROLLERS = 3;
    /** Node ids of a multi-broker cluster's controllers start here; brokers are 1 to N. */
    static final int FIRST_CONTROLLER_ID = 101;
    /** The replication factor production runs with, which a cluster of that many brokers or more gets too. */
    static final int PRODUCTION_REPLICATION_FACTOR = 3;
    /** Clusters started and not yet closed in this JVM; see {@link #forgetBrokerMetrics()}. */
    private static final AtomicInteger RUNNING = new AtomicInteger();

    /** The SASL mechanism of the clients' listener under {@link KafkaSecurity#SCRAM_ACLS}. */
    public static final String SASL_MECHANISM = "SCRAM-SHA-512";

    /** The authorizer under {@link KafkaSecurity#SCRAM_ACLS}: KRaft's, with ACLs in the metadata log. */
    static final String AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

    /** The principal of the set-up and controller listeners (PLAINTEXT), the only super user. */
    static final String SETUP_PRINCIPAL = "User:ANONYMOUS";

    /** Broker nodes by id: one combined broker and controller, or N broker-only nodes. */
    private final Map<Integer, KafkaNode> brokers;
    /** Controller-only nodes by id: none with one broker, {@value #CONTROLLERS} with more. */
    private final Map<Integer, KafkaNode> controllers;

    private final Listeners listeners;
    private boolean closed;

    private EmbeddedKafka(List<KafkaNode> brokers, List<KafkaNode> controllers, Listeners listeners) {
        this.brokers = byId(brokers);
        this.controllers = byId(controllers);
        this.listeners = listeners;
    }

    private static Map<Integer, KafkaNode> byId(List<KafkaNode> nodes) {
        Map<Integer, KafkaNode> map = new TreeMap<>();
        nodes.forEach(node -> map.put(node.id(), node));
        return map;
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

    /** {@link #start(Path, int, int, KafkaSecurity, int)} with one broker. */
    public static EmbeddedKafka start(Path dataDir, int port, int partitions, KafkaSecurity security) {
        return start(dataDir, port, partitions, security, 1);
    }

    /**
     * Formats (if needed) and starts the cluster, and returns once every broker answers admin requests.
     *
     * @param dataDir    the stack's data directory; the cluster uses {@code dataDir/kafka}
     * @param port       the (first) broker's client port at 127.0.0.1, or 0 for any free port
     * @param partitions partitions of topics created without a count ({@code num.partitions})
     * @param security   whether clients authenticate and ACLs are enforced (one broker only)
     * @param brokers    how many brokers: 1 for a combined broker and controller, more for broker-only nodes
     *                   beside a quorum of three controllers
     * @return the running cluster
     * @throws EmbeddedStackException if formatting or start-up fails
     * @throws IllegalArgumentException for fewer than one broker, or security with more than one
     */
    public static EmbeddedKafka start(Path dataDir, int port, int partitions, KafkaSecurity security, int brokers) {
        if (brokers < 1) {
            throw new IllegalArgumentException("The embedded Kafka cluster needs at least one broker, not " + brokers);
        }
        if (brokers > 1 && security.enforced()) {
            throw new IllegalArgumentException(
                    "The embedded Kafka cluster enforces security with one broker only, not " + brokers);
        }
        Path directory = directory(dataDir);
        return brokers == 1
                ? startSingleNode(directory, port, partitions, security, Map.of())
                : startCluster(directory, port, partitions, brokers);
    }

    /**
     * One broker on a free port, configured as {@link #start(Path, int)} configures it but with {@code settings} over
     * its configuration: a broker unlike the stack's in what a test is about (one without the streams rebalance
     * protocol, say).
     */
    public static EmbeddedKafka startWith(Path dataDir, Map<String, String> settings) {
        return startSingleNode(directory(dataDir), 0, 1, KafkaSecurity.NONE, settings);
    }

    /** The cluster's directory in the stack's data directory, created. */
    private static Path directory(Path dataDir) {
        Path directory = dataDir.resolve("kafka").toAbsolutePath();
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new EmbeddedStackException("Embedded Kafka could not prepare its directory " + directory, e);
        }
        return directory;
    }

    private static EmbeddedKafka startSingleNode(
            Path directory, int port, int partitions, KafkaSecurity security, Map<String, String> settings) {
        Path logDir = directory.resolve("logs");
        int brokerPort = LocalPorts.resolve(port);
        boolean formatted = Files.exists(logDir.resolve("meta.properties"));
        if (!formatted && Files.exists(directory.resolve(BROKERS_FILE))) {
            throw formattedFor(directory, readBrokers(directory), 1);
        }
        int controllerPort = formatted ? readControllerPort(directory) : LocalPorts.pickFree();
        Listeners listeners = new Listeners(
                brokerPort, security.enforced() ? LocalPorts.pickFree() : brokerPort, controllerPort, security);
        Properties props = brokerProperties(logDir, listeners);
        props.put("num.partitions", Integer.toString(partitions));
        props.putAll(settings);
        try {
            if (!formatted) {
                format(directory, props, Uuid.randomUuid().toString(), true);
                Files.writeString(directory.resolve(CONTROLLER_PORT_FILE), Integer.toString(controllerPort));
            }
        } catch (IOException e) {
            throw new EmbeddedStackException("Embedded Kafka could not prepare its directory " + directory, e);
        }
        return started(
                new EmbeddedKafka(List.of(new KafkaNode(1, props, brokerPort)), List.of(), listeners), directory);
    }

    /**
     * N broker-only nodes and three controller-only nodes, each with a log directory of its own, all formatted with
     * one cluster id. A static quorum: the voters are in every node's configuration, not in the formatted log.
     */
    private static EmbeddedKafka startCluster(Path directory, int port, int partitions, int brokerCount) {
        boolean formatted = Files.exists(directory.resolve(BROKERS_FILE));
        if (formatted && readBrokers(directory) != brokerCount) {
            throw formattedFor(directory, readBrokers(directory), brokerCount);
        }
        if (!formatted && Files.exists(directory.resolve("logs"))) {
            throw formattedFor(directory, 1, brokerCount);
        }
        List<String> voters = new ArrayList<>();
        List<Integer> controllerPorts = new ArrayList<>();
        for (int i = 0; i < CONTROLLERS; i++) {
            int controllerPort = LocalPorts.pickFree();
            controllerPorts.add(controllerPort);
            voters.add((FIRST_CONTROLLER_ID + i) + "@" + LocalPorts.HOST + ":" + controllerPort);
        }
        String quorum = String.join(",", voters);
        int replicationFactor = Math.min(PRODUCTION_REPLICATION_FACTOR, brokerCount);
        List<KafkaNode> controllers = new ArrayList<>();
        for (int i = 0; i < CONTROLLERS; i++) {
            int id = FIRST_CONTROLLER_ID + i;
            Properties props =
                    controllerProperties(directory.resolve("controller-" + id), id, controllerPorts.get(i), quorum);
            // Under KRaft the controller gives a topic created without them its partitions and replicas.
            props.put("num.partitions", Integer.toString(partitions));
            props.put("default.replication.factor", Integer.toString(replicationFactor));
            props.put("min.insync.replicas", Integer.toString(TopicPlan.minInSyncReplicas(replicationFactor)));
            controllers.add(new KafkaNode(id, props, 0));
        }
        List<KafkaNode> brokers = new ArrayList<>();
        int firstPort = LocalPorts.resolve(port);
        for (int id = 1; id <= brokerCount; id++) {
            int clientPort = id == 1 ? firstPort : LocalPorts.pickFree();
            Properties props =
                    brokerOnlyProperties(directory.resolve("broker-" + id), id, clientPort, quorum, replicationFactor);
            props.remove("default.replication.factor"); // the controllers'
            brokers.add(new KafkaNode(id, props, clientPort));
        }
        if (!formatted) {
            String clusterId = Uuid.randomUuid().toString();
            try {
                for (KafkaNode node : concat(controllers, brokers)) {
                    Path nodeDir = Path.of(node.props().getProperty("log.dirs")).getParent();
                    Files.createDirectories(nodeDir);
                    format(nodeDir, node.props(), clusterId, false);
                }
                Files.writeString(directory.resolve(BROKERS_FILE), Integer.toString(brokerCount));
            } catch (IOException e) {
                throw new EmbeddedStackException("Embedded Kafka could not prepare its directory " + directory, e);
            }
        }
        Listeners listeners = new Listeners(firstPort, firstPort, controllerPorts.get(0), KafkaSecurity.NONE);
        return started(new EmbeddedKafka(brokers, controllers, listeners), directory);
    }

    private static List<KafkaNode> concat(List<KafkaNode> first, List<KafkaNode> second) {
        List<KafkaNode> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }

    /** Starts every node, controllers first, and waits until every broker answers; stops them again on failure. */
    private static EmbeddedKafka started(EmbeddedKafka kafka, Path directory) {
        long startNanos = System.nanoTime();
        RUNNING.incrementAndGet();
        try {
            // A controller-only node returns from startup() before the quorum has a leader, a broker only once it
            // registered with it: all controllers first, or the first broker waits for a quorum that never forms.
            kafka.controllers.values().forEach(KafkaNode::start);
            kafka.brokers.values().forEach(KafkaNode::start);
            kafka.awaitReady(kafka.brokers.size());
        } catch (RuntimeException e) {
            kafka.close();
            throw new EmbeddedStackException(
                    "Embedded Kafka failed to start on " + kafka.bootstrapServers() + " (controller port "
                            + kafka.listeners.controllerPort() + ", data in " + directory + "): " + e.getMessage(),
                    e);
        }
        log.debug(
                "Embedded Kafka ({} broker(s)) listening at {} (started in {} ms)",
                kafka.brokers.size(),
                kafka.bootstrapServers(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        return kafka;
    }

    private static EmbeddedStackException formattedFor(Path directory, int formatted, int asked) {
        return new EmbeddedStackException("The Kafka data in " + directory + " was formatted for " + formatted
                + " broker(s), not " + asked + ": start with " + formatted + " broker(s), or delete " + directory
                + " to start afresh");
    }

    private static int readBrokers(Path directory) {
        Path file = directory.resolve(BROKERS_FILE);
        try {
            return Integer.parseInt(
                    Files.readString(file, StandardCharsets.UTF_8).trim());
        } catch (IOException | NumberFormatException e) {
            throw new EmbeddedStackException(
                    "The broker count of the Kafka data in " + directory + " cannot be read from " + file + "; delete "
                            + directory + " to start afresh",
                    e);
        }
    }

    /** @return every broker's {@code 127.0.0.1:<port>}, comma-separated, for {@code bootstrap.servers} */
    public String bootstrapServers() {
        List<String> addresses = new ArrayList<>();
        brokers.values().forEach(node -> addresses.add(LocalPorts.HOST + ":" + node.clientPort()));
        return String.join(",", addresses);
    }

    /** @return how many brokers the cluster has, running or not */
    public int brokerCount() {
        return brokers.size();
    }

    /** @return the brokers' node ids, 1 to N */
    public List<Integer> brokerIds() {
        return List.copyOf(brokers.keySet());
    }

    /** @return the controller-only nodes' ids; none with one broker, which is its own controller */
    public List<Integer> controllerIds() {
        return List.copyOf(controllers.keySet());
    }

    /**
     * @return the replication factor of the cluster's internal topics and the one topics get by default: {@code
     *     min(3, brokers)}
     */
    public int replicationFactor() {
        return Math.min(PRODUCTION_REPLICATION_FACTOR, brokers.size());
    }

    /**
     * Stops broker {@code id} hard ({@link KafkaNode#crash()}): no controlled shutdown, no heartbeat; its partitions
     * move when its session expires. A multi-broker cluster's only.
     *
     * @throws IllegalArgumentException for an unknown broker, or the only one
     */
    public void killBroker(int id) {
        multiBrokerNode(brokers, id, "broker").crash();
        log.info("Embedded Kafka broker {} stopped hard", id);
    }

    /**
     * Stops broker {@code id} as a rolling restart does: its leaderships handed over first. A multi-broker cluster's
     * only.
     */
    public void stopBroker(int id) {
        multiBrokerNode(brokers, id, "broker").stop();
        log.info("Embedded Kafka broker {} stopped", id);
    }

    /** Starts stopped broker {@code id} again on its log and port, and waits until it answers. */
    public void startBroker(int id) {
        KafkaNode node = multiBrokerNode(brokers, id, "broker");
        if (!node.running()) {
            node.start();
        }
        awaitReady((int) brokers.values().stream().filter(KafkaNode::running).count());
        log.info("Embedded Kafka broker {} started again", id);
    }

    /**
     * Stops controller {@code id}; if it was the active controller, the other two elect a new one. Its Raft client
     * resigns its leadership on the way out (KRaft does that on any shutdown in the JVM), so the election starts at
     * once rather than after {@code controller.quorum.fetch.timeout.ms}, as it would after a crash.
     */
    public void killController(int id) {
        multiBrokerNode(controllers, id, "controller").crash();
        log.info("Embedded Kafka controller {} stopped", id);
    }

    /** Starts stopped controller {@code id} again; it rejoins the quorum as a follower. */
    public void startController(int id) {
        KafkaNode node = multiBrokerNode(controllers, id, "controller");
        if (!node.running()) {
            node.start();
        }
        log.info("Embedded Kafka controller {} started again", id);
    }

    /** @return the id of the quorum's active controller, as the brokers report it */
    public int activeController() {
        try (Admin admin = Admin.create(adminProperties())) {
            return admin.describeMetadataQuorum()
                    .quorumInfo()
                    .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .leaderId();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted while asking for the active controller", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new EmbeddedStackException("Could not learn the active controller: " + e.getMessage(), e);
        }
    }

    /**
     * The broker whose loss hurts the processor most: the transaction coordinator (the transaction log has one
     * partition in the embedded cluster), ties broken by the most changelog partitions led. Chaos scenarios stop it.
     *
     * @return its id
     */
    public int transactionCoordinatorBroker() {
        try (Admin admin = Admin.create(adminProperties())) {
            Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true))
                    .names()
                    .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Map<String, TopicDescription> described = admin.describeTopics(topics.stream()
                            .filter(topic ->
                                    topic.endsWith("-changelog") || topic.equals(Topic.TRANSACTION_STATE_TOPIC_NAME))
                            .toList())
                    .allTopicNames()
                    .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Map<Integer, Integer> score = new HashMap<>();
            described.forEach((name, topic) -> {
                for (TopicPartitionInfo partition : topic.partitions()) {
                    if (partition.leader() != null) {
                        score.merge(
                                partition.leader().id(),
                                name.equals(Topic.TRANSACTION_STATE_TOPIC_NAME) ? 1000 : 1,
                                Integer::sum);
                    }
                }
            });
            return score.entrySet().stream()
                    .max(Map.Entry.comparingByValue())
                    .orElseThrow(() -> new EmbeddedStackException(
                            "No partition of the transaction log or of a changelog has a leader"))
                    .getKey();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted while looking for the transaction coordinator", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new EmbeddedStackException("Could not describe the topics: " + e.getMessage(), e);
        }
    }

    private KafkaNode multiBrokerNode(Map<Integer, KafkaNode> nodes, int id, String role) {
        if (brokers.size() == 1) {
            throw new IllegalArgumentException(
                    "The embedded Kafka cluster has one node, broker and controller: it cannot lose it");
        }
        KafkaNode node = nodes.get(id);
        if (node == null) {
            throw new IllegalArgumentException(
                    "The embedded Kafka cluster has no " + role + " " + id + "; it has " + nodes.keySet());
        }
        return node;
    }

    /** @return the (first) broker's client port */
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
     * Creates topics with the cluster's {@link #replicationFactor()} and the {@code min.insync.replicas} the
     * production topic plan asks with it; topics that already exist are left as they are.
     *
     * @param partitions partitions of each new topic
     * @param topics     topic names
     * @throws EmbeddedStackException if a topic cannot be created
     */
    public void createTopics(int partitions, String... topics) {
        List<NewTopic> newTopics = new ArrayList<>();
        for (String topic : topics) {
            newTopics.add(new NewTopic(topic, partitions, (short) replicationFactor())
                    .configs(Map.of(
                            TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
                            Integer.toString(TopicPlan.minInSyncReplicas(replicationFactor())))));
        }
        createTopics(newTopics);
    }

    /**
     * Creates topics as given (a replication factor at most the brokers'); topics that already exist are left as
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

    /** Shuts the brokers, then the controllers, down and waits for them. Idempotent. Leaves the data on disk. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            // Brokers first, while the quorum that approves their controlled shutdown still runs; all at once, since
            // none is left to take over another's leaderships (one after the other, each waited for the next).
            stopTogether(brokers.values());
            // The quorum's last leader has no voter left to hand its leadership to: Kafka's Raft client completes a
            // graceful shutdown only on a node that follows another leader, so that one waits its fixed 5 s and then
            // reports the timeout (which log4j2-dev.xml keeps quiet). Together, the 5 s are paid once.
            stopTogether(controllers.values());
        } finally {
            if (RUNNING.decrementAndGet() == 0) {
                forgetBrokerMetrics();
            }
        }
        log.debug("Embedded Kafka stopped");
    }

    /**
     * Stops {@code nodes}, each on a thread of its own, and returns once all are stopped.
     *
     * @throws RuntimeException the first node's failure to stop, the others' suppressed in it
     */
    private static void stopTogether(Collection<KafkaNode> nodes) {
        List<RuntimeException> failures = new CopyOnWriteArrayList<>();
        List<Thread> stopping = new ArrayList<>();
        for (KafkaNode node : nodes) {
            Thread thread = new Thread(
                    () -> {
                        try {
                            node.stop();
                        } catch (RuntimeException e) {
                            failures.add(e);
                        }
                    },
                    "kafka-" + node.id() + "-stop");
            thread.start();
            stopping.add(thread);
        }
        for (Thread thread : stopping) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EmbeddedStackException("Interrupted while the embedded Kafka cluster stopped", e);
            }
        }
        if (!failures.isEmpty()) {
            failures.subList(1, failures.size()).forEach(failures.get(0)::addSuppressed);
            throw failures.get(0);
        }
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
        // Every broker of a multi-broker cluster: the first one may be the one a test stopped.
        props.put(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                brokers.size() == 1 ? LocalPorts.HOST + ":" + listeners.setupPort() : bootstrapServers());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "ttl-streams-embedded-admin");
        return props;
    }

    /** startup() returns once a broker registered; this also proves a client can reach {@code expected} brokers. */
    private void awaitReady(int expected) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        try (Admin admin = Admin.create(adminProperties())) {
            while (admin.describeCluster()
                            .nodes()
                            .get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                            .size()
                    < expected) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException(expected + " brokers did not all register");
                }
                Thread.sleep(POLL_INTERVAL.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted while waiting for embedded Kafka", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new EmbeddedStackException("Embedded Kafka did not answer within " + READY_TIMEOUT, e);
        }
    }

    /** The single node's whole configuration: its listeners and security, and the settings of a laptop-sized cluster. */
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
        replication(props, 1);
        leanNode(props);
        leanBroker(props);
        // The active controller appends a no-op record to the metadata log every 500 ms by default, so that other
        // nodes see it alive (KIP-835); each one is a Raft append, a flush and a metadata publication. This node is
        // the only voter and the only broker, so nobody needs them: without them an idle stack's broker sleeps.
        props.put("metadata.max.idle.interval.ms", "0");
        return props;
    }

    /** A broker-only node of a multi-broker cluster, its log in {@code nodeDir/logs}. */
    private static Properties brokerOnlyProperties(
            Path nodeDir, int id, int clientPort, String quorum, int replicationFactor) {
        Properties props = new Properties();
        props.put("process.roles", "broker");
        props.put("node.id", Integer.toString(id));
        props.put("controller.quorum.voters", quorum);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listeners", "PLAINTEXT://" + LocalPorts.HOST + ":" + clientPort);
        props.put("advertised.listeners", "PLAINTEXT://" + LocalPorts.HOST + ":" + clientPort);
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("log.dirs", nodeDir.resolve("logs").toString());
        replication(props, replicationFactor);
        leanNode(props);
        leanBroker(props);
        return props;
    }

    /** A controller-only node of a multi-broker cluster's quorum, its log in {@code nodeDir/logs}. */
    private static Properties controllerProperties(Path nodeDir, int id, int port, String quorum) {
        Properties props = new Properties();
        props.put("process.roles", "controller");
        props.put("node.id", Integer.toString(id));
        props.put("controller.quorum.voters", quorum);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listeners", "CONTROLLER://" + LocalPorts.HOST + ":" + port);
        props.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT");
        props.put("log.dirs", nodeDir.resolve("logs").toString());
        leanNode(props);
        return props;
    }

    /**
     * Replication of the internal topics and of topics created without settings: {@code replicationFactor} replicas,
     * and the {@code min.insync.replicas} the production topic plan asks with it.
     */
    private static void replication(Properties props, int replicationFactor) {
        String replicas = Integer.toString(replicationFactor);
        String minInSync = Integer.toString(TopicPlan.minInSyncReplicas(replicationFactor));
        props.put("offsets.topic.replication.factor", replicas);
        props.put("transaction.state.log.replication.factor", replicas);
        props.put("transaction.state.log.min.isr", minInSync);
        props.put("share.coordinator.state.topic.replication.factor", replicas);
        props.put("share.coordinator.state.topic.min.isr", minInSync);
        props.put("default.replication.factor", replicas);
        props.put("min.insync.replicas", minInSync);
    }

    /**
     * Fewer threads than a production node: this shares a laptop with Connect, MongoDB and the app. Each idle
     * network and request-handler thread (the controller has as many handlers again) wakes every 300 ms: at rest,
     * these threads took about a tenth of the stack's CPU.
     */
    private static void leanNode(Properties props) {
        props.put("num.network.threads", "1");
        props.put("num.io.threads", "2");
        props.put("background.threads", "2");
    }

    /** What a broker of a laptop-sized cluster needs less of, or sooner, than a production one. */
    private static void leanBroker(Properties props) {
        // Internal topics default to 50 partitions each; creating them on first use costs seconds locally.
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.num.partitions", "1");
        props.put("share.coordinator.state.topic.num.partitions", "1");
        // No other group members are coming: rebalance at once instead of after 3 s.
        props.put("group.initial.rebalance.delay.ms", "0");
        // The streams rebalance protocol (KIP-1071, group.protocol=streams) needs nothing enabled on Kafka 4.4: its
        // group coordinator is on by default (group.coordinator.rebalance.protocols) and formatting finalizes
        // streams.version=1, the latest production level. Its groups have their own initial delay, 3 s by default.
        props.put("group.streams.initial.rebalance.delay.ms", "0");
        // Under that protocol a group's standby replicas are the broker's to set, and Kafka Streams ignores its own
        // num.standby.replicas: every streams group here gets the one standby the processor asks for by default.
        props.put("group.streams.num.standby.replicas", "1");
        // And its session timeout and heartbeat interval too (at least 45 s and 5 s by default): the processor's
        // defaults, so that an instance killed without leaving holds its tasks as long under either protocol.
        String session = Integer.toString(StreamsDefaults.DEFAULT_SESSION_TIMEOUT_MS);
        String heartbeat = Integer.toString(StreamsDefaults.DEFAULT_HEARTBEAT_INTERVAL_MS);
        props.put("group.streams.min.session.timeout.ms", session);
        props.put("group.streams.session.timeout.ms", session);
        props.put("group.streams.min.heartbeat.interval.ms", heartbeat);
        props.put("group.streams.heartbeat.interval.ms", heartbeat);
        // A processor killed mid-transaction leaves it open until transaction.timeout.ms (10 s under Kafka Streams'
        // exactly-once) and the broker's next check for timed-out transactions (every 10 s by default); until then
        // read_committed consumers, the delete sink among them, see nothing after it. Checking every second bounds
        // the failover delay this adds to the transaction timeout.
        props.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
        // The log cleaner allocates its dedupe buffer (128 MB by default) up front; local data is tiny.
        props.put("log.cleaner.dedupe.buffer.size", Integer.toString(4 * 1024 * 1024));
        // Each group coordinator thread polls its queue.
        props.put("group.coordinator.threads", "1");
        props.put("num.recovery.threads.per.data.dir", "1");
        props.put("log.cleaner.threads", "1");
    }

    /**
     * Formats one node's storage; {@code standalone} for the single node, whose quorum (itself) is written into its
     * log; a multi-broker cluster's static quorum is in every node's configuration instead.
     */
    private static void format(Path directory, Properties props, String clusterId, boolean standalone)
            throws IOException {
        Path propsFile = directory.resolve("server.properties");
        try (Writer writer = Files.newBufferedWriter(propsFile, StandardCharsets.UTF_8)) {
            props.store(writer, "Written by ttl-streams EmbeddedKafka to format the KRaft storage");
        }
        List<String> args = new ArrayList<>(List.of("format", "-t", clusterId, "-c", propsFile.toString()));
        if (standalone) {
            args.add("--standalone");
        }
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int exitCode;
        try (PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8)) {
            exitCode = StorageTool.execute(args.toArray(String[]::new), out);
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
