package io.ttlstreams.embedded;

import io.ttlstreams.contract.PercentEncoding;
import java.io.IOException;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.connect.cli.ConnectStandalone;
import org.apache.kafka.connect.errors.NotFoundException;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.Herder;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.runtime.standalone.StandaloneHerder;
import org.apache.kafka.connect.util.FutureCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone Kafka Connect worker in this JVM, with its REST API on 127.0.0.1 and its source offsets in
 * {@code <dataDir>/connect/connect.offsets}.
 *
 * <p>The MongoDB connectors come from the application classpath (the thin mongo-kafka-connect jar), and so does
 * the sink guard (module sink-guard). Plugins are discovered with {@code plugin.discovery=service_load}, which only
 * reads {@code META-INF/services} files: mongo-kafka-connect 2.0.1 ships none, so {@link #start} writes them, for
 * the connectors and the guard, into a plugin directory under the data directory ({@code connect/plugins}). The default, reflective discovery ({@code hybrid_warn}) finds the
 * connectors too, but scans every class on the classpath: 3-5 s and over 200 MB of heap at every start, against
 * well under a second and a few MB here.
 *
 * <p>Keys and values are plain strings (extended JSON produced by the source connector, delete commands
 * consumed by the sink connector).
 *
 * <p>Secrets reach connectors as in production, through Kafka's {@code FileConfigProvider}: {@link #secretReference}
 * stores one in a file of the worker's, readable by its owner only, and returns the {@code ${file:...}} reference to
 * put in a connector's configuration, which is what the REST API then shows. The provider reads files in that
 * directory only. The REST API has no authentication: it listens on the loopback interface only, so it is as open
 * as the machine's other local users make it.
 */
public final class EmbeddedConnect implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedConnect.class);

    private static final String STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter";
    private static final String FILE_CONFIG_PROVIDER = "org.apache.kafka.common.config.provider.FileConfigProvider";
    private static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");
    /** ServiceLoader manifests for the plugins on the classpath: service interface -> implementation. */
    private static final Map<String, String> CONNECTOR_SERVICES = Map.of(
            "org.apache.kafka.connect.source.SourceConnector", StandInSourceConfigs.CONNECTOR_CLASS,
            "org.apache.kafka.connect.sink.SinkConnector", DeleteSinkConfigs.CONNECTOR_CLASS,
            "org.apache.kafka.connect.transforms.Transformation", DeleteSinkConfigs.GUARD_CLASS);

    private static final Duration POLL_INTERVAL = Duration.ofMillis(50);
    /** Kafka's Exit hooks are JVM-global; starting two workers at once must not interleave the swap. */
    private static final Object EXIT_HOOKS_LOCK = new Object();

    private final Connect<StandaloneHerder> connect;
    private final int port;
    private final Path secretsDir;
    private boolean closed;

    private EmbeddedConnect(Connect<StandaloneHerder> connect, int port, Path secretsDir) {
        this.connect = connect;
        this.port = port;
        this.secretsDir = secretsDir;
    }

    /**
     * Starts the worker and returns once its REST API is up.
     *
     * @param bootstrapServers the Kafka cluster the worker and its connectors use
     * @param dataDir          the stack's data directory; the worker uses {@code dataDir/connect}
     * @param port             the REST port at 127.0.0.1, or 0 for any free port
     * @return the running worker
     * @throws EmbeddedStackException if the worker fails to start
     */
    public static EmbeddedConnect start(String bootstrapServers, Path dataDir, int port) {
        Path directory = dataDir.resolve("connect").toAbsolutePath();
        Path pluginPath = directory.resolve("plugins");
        try {
            writeConnectorManifests(pluginPath.resolve("mongo-kafka-connect-services"));
        } catch (IOException e) {
            throw new EmbeddedStackException(
                    "Embedded Connect could not write its plugin manifests in " + pluginPath, e);
        }
        Path secretsDir = directory.resolve("secrets");
        try {
            createPrivateDirectory(secretsDir);
        } catch (IOException e) {
            throw new EmbeddedStackException(
                    "Embedded Connect could not create its secrets directory " + secretsDir, e);
        }
        int restPort = LocalPorts.resolve(port);
        Map<String, String> workerProps =
                workerProperties(bootstrapServers, directory, pluginPath, secretsDir, restPort);

        long startNanos = System.nanoTime();
        Connect<StandaloneHerder> connect = startWorker(workerProps);
        log.debug(
                "Embedded Connect worker at http://{}:{} (started in {} ms)",
                LocalPorts.HOST,
                restPort,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        return new EmbeddedConnect(connect, restPort, secretsDir);
    }

    /**
     * Stores a secret for connector configurations: writes {@code value} to {@code <name>.properties} in the worker's
     * secrets directory, readable and writable by its owner only (where the file system has POSIX permissions), and
     * returns the reference that resolves to it, {@code ${file:<path>:value}}. Storing a name again replaces its value.
     *
     * @param name  the secret's file name without {@code .properties}: letters, digits, {@code -} and {@code _}
     * @param value the secret
     * @return the config provider reference to put in a connector's configuration instead of the secret
     * @throws EmbeddedStackException if the file cannot be written
     */
    public String secretReference(String name, String value) {
        if (!name.matches("[A-Za-z0-9_-]+")) {
            throw new IllegalArgumentException("A secret's name is letters, digits, - and _ only: " + name);
        }
        Path file = secretsDir.resolve(name + ".properties");
        Properties secret = new Properties();
        secret.setProperty("value", value);
        try {
            // Deleted and created anew, so that the file has its permissions from the first byte on.
            Files.deleteIfExists(file);
            createPrivateFile(file);
            try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.WRITE)) {
                secret.store(writer, null);
            }
        } catch (IOException e) {
            throw new EmbeddedStackException("Embedded Connect could not write the secret file " + file, e);
        }
        return "${file:" + file + ":value}";
    }

    /** @return the worker's REST API, {@code http://127.0.0.1:<port>} */
    public String url() {
        return "http://" + LocalPorts.HOST + ":" + port;
    }

    /**
     * Creates a connector and waits until it and all its tasks are RUNNING.
     *
     * @param name    the connector name
     * @param config  the connector configuration ({@code name} is added if missing)
     * @param timeout how long to wait for RUNNING
     * @return the connector's status once RUNNING
     * @throws EmbeddedStackException if the configuration is rejected, the connector or a task fails (the message
     *                                carries its trace), or it is not RUNNING within the timeout
     */
    public ConnectorStatus createConnector(String name, Map<String, String> config, Duration timeout) {
        return createConnectors(Map.of(name, config), timeout).get(0);
    }

    /**
     * Creates several connectors at once (they start in parallel) and waits until all are RUNNING.
     *
     * @param configsByName connector configurations by connector name
     * @param timeout       how long to wait for all of them, in total
     * @return their statuses once RUNNING, in the iteration order of {@code configsByName}
     * @throws EmbeddedStackException as {@link #createConnector(String, Map, Duration)}
     */
    public List<ConnectorStatus> createConnectors(Map<String, Map<String, String>> configsByName, Duration timeout) {
        return putConnectors(configsByName, false, timeout);
    }

    /**
     * Replaces the configuration of an existing connector, as a PUT to Connect's REST API does (its tasks restart
     * with it), and waits until it and its tasks are RUNNING again.
     *
     * @throws EmbeddedStackException as {@link #createConnector(String, Map, Duration)}
     */
    public ConnectorStatus updateConnector(String name, Map<String, String> config, Duration timeout) {
        return putConnectors(Map.of(name, config), true, timeout).get(0);
    }

    private List<ConnectorStatus> putConnectors(
            Map<String, Map<String, String>> configsByName, boolean replace, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, FutureCallback<Herder.Created<ConnectorInfo>>> pending = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, String>> entry : configsByName.entrySet()) {
            Map<String, String> config = new HashMap<>(entry.getValue());
            config.putIfAbsent("name", entry.getKey());
            FutureCallback<Herder.Created<ConnectorInfo>> callback = new FutureCallback<>();
            herder().putConnectorConfig(entry.getKey(), config, replace, callback);
            pending.put(entry.getKey(), callback);
        }
        for (Map.Entry<String, FutureCallback<Herder.Created<ConnectorInfo>>> entry : pending.entrySet()) {
            try {
                entry.getValue().get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new EmbeddedStackException(
                        "Connect rejected connector '" + entry.getKey() + "': "
                                + e.getCause().getMessage(),
                        e.getCause());
            } catch (TimeoutException e) {
                throw new EmbeddedStackException(
                        "Connect did not accept connector '" + entry.getKey() + "' within " + timeout, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EmbeddedStackException("Interrupted while creating connector '" + entry.getKey() + "'", e);
            }
        }
        List<ConnectorStatus> statuses = new ArrayList<>();
        for (String name : configsByName.keySet()) {
            statuses.add(awaitRunning(name, Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
        }
        return statuses;
    }

    /**
     * Waits until a connector and all its tasks are RUNNING.
     *
     * @param name    the connector name
     * @param timeout how long to wait
     * @return the status once RUNNING
     * @throws EmbeddedStackException if the connector or a task FAILED (with its trace), or on timeout (with the
     *                                last status seen)
     */
    public ConnectorStatus awaitRunning(String name, Duration timeout) {
        return awaitState(name, "RUNNING", ConnectorStatus::isRunning, timeout);
    }

    private ConnectorStatus awaitState(
            String name, String state, Predicate<ConnectorStatus> reached, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        ConnectorStatus last = null;
        while (true) {
            try {
                last = status(name);
            } catch (EmbeddedStackException notYetKnown) {
                last = null;
            }
            if (last != null && reached.test(last)) {
                return last;
            }
            if (last != null && last.isFailed()) {
                throw new EmbeddedStackException("Connector '" + name + "' failed:\n" + last.describe());
            }
            if (System.nanoTime() >= deadline) {
                throw new EmbeddedStackException("Connector '" + name + "' was not " + state + " within " + timeout
                        + (last == null ? " (the worker does not know it)" : ":\n" + last.describe()));
            }
            sleep(POLL_INTERVAL);
        }
    }

    /**
     * @param name the connector name
     * @return the connector's current status
     * @throws EmbeddedStackException if the worker has no such connector
     */
    public ConnectorStatus status(String name) {
        ConnectorStateInfo info;
        try {
            info = herder().connectorStatus(name);
        } catch (NotFoundException e) {
            throw new EmbeddedStackException("No connector named '" + name + "' on the embedded Connect worker", e);
        }
        List<TaskStatus> tasks = new ArrayList<>();
        for (ConnectorStateInfo.TaskState task : info.tasks()) {
            tasks.add(new TaskStatus(task.id(), task.state(), task.trace()));
        }
        return new ConnectorStatus(
                name, info.connector().state(), info.connector().trace(), List.copyOf(tasks));
    }

    /**
     * Pauses a connector through the worker's REST API ({@code PUT /connectors/<name>/pause}), as an operator would,
     * and waits until it and all its tasks are PAUSED: a paused sink task consumes nothing more until resumed.
     *
     * @param name    the connector name
     * @param timeout how long to wait for PAUSED
     * @return the status once PAUSED
     * @throws EmbeddedStackException if the worker refuses the request, or the connector is not PAUSED in time
     */
    public ConnectorStatus pause(String name, Duration timeout) {
        return changeTargetState(name, "pause", "PAUSED", ConnectorStatus::isPaused, timeout);
    }

    /**
     * Resumes a paused connector through the worker's REST API ({@code PUT /connectors/<name>/resume}) and waits
     * until it and all its tasks are RUNNING again.
     *
     * @param name    the connector name
     * @param timeout how long to wait for RUNNING
     * @return the status once RUNNING
     * @throws EmbeddedStackException if the worker refuses the request, or the connector is not RUNNING in time
     */
    public ConnectorStatus resume(String name, Duration timeout) {
        return changeTargetState(name, "resume", "RUNNING", ConnectorStatus::isRunning, timeout);
    }

    private ConnectorStatus changeTargetState(
            String name, String action, String state, Predicate<ConnectorStatus> reached, Duration timeout) {
        URI uri = URI.create(url() + "/connectors/" + PercentEncoding.encode(name) + "/" + action);
        HttpResponse<String> response;
        try {
            response = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(uri)
                                    .timeout(timeout)
                                    .PUT(HttpRequest.BodyPublishers.noBody())
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new EmbeddedStackException("PUT " + uri + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted during PUT " + uri, e);
        }
        if (response.statusCode() / 100 != 2) {
            throw new EmbeddedStackException(
                    "PUT " + uri + " answered " + response.statusCode() + ": " + response.body());
        }
        return awaitState(name, state, reached, timeout);
    }

    /** @return the names of the connectors on this worker */
    public Collection<String> connectors() {
        return List.copyOf(herder().connectors());
    }

    /**
     * Stops and removes a connector. Its source offsets stay in the offsets file, so re-creating it resumes.
     *
     * @param name    the connector name
     * @param timeout how long to wait for the worker to confirm
     * @throws EmbeddedStackException if the connector does not exist or the worker does not confirm in time
     */
    public void deleteConnector(String name, Duration timeout) {
        FutureCallback<Herder.Created<ConnectorInfo>> callback = new FutureCallback<>();
        herder().deleteConnectorConfig(name, callback);
        try {
            callback.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new EmbeddedStackException(
                    "Could not delete connector '" + name + "': " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new EmbeddedStackException("Connector '" + name + "' was not deleted within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted while deleting connector '" + name + "'", e);
        }
    }

    /** Stops all connectors, then the worker and its REST server. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        connect.stop();
        connect.awaitStop();
        log.debug("Embedded Connect worker stopped");
    }

    private StandaloneHerder herder() {
        return connect.herder();
    }

    /**
     * A plugin directory holding nothing but {@code META-INF/services} files that name the MongoDB connectors and
     * the sink guard. Connect gives it an isolated class loader, which finds no classes of its own and so loads
     * them from the application classpath.
     */
    private static void writeConnectorManifests(Path plugin) throws IOException {
        for (Map.Entry<String, String> service : CONNECTOR_SERVICES.entrySet()) {
            try {
                Class.forName(service.getValue(), false, EmbeddedConnect.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new EmbeddedStackException(
                        service.getValue() + " is not on the classpath; the embedded stack needs"
                                + " org.mongodb.kafka:mongo-kafka-connect and io.ttlstreams:ttl-streams-sink-guard",
                        e);
            }
            Path manifest = plugin.resolve("META-INF").resolve("services").resolve(service.getKey());
            Files.createDirectories(manifest.getParent());
            Files.writeString(manifest, service.getValue() + "\n", StandardCharsets.UTF_8);
        }
    }

    private static void createPrivateDirectory(Path directory) throws IOException {
        if (posix(directory.getParent())) {
            Files.createDirectories(directory.getParent());
            if (!Files.isDirectory(directory)) {
                Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIRECTORY));
            }
            Files.setPosixFilePermissions(directory, OWNER_ONLY_DIRECTORY);
        } else {
            Files.createDirectories(directory);
        }
    }

    private static void createPrivateFile(Path file) throws IOException {
        if (posix(file.getParent())) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
        } else {
            Files.createFile(file);
        }
    }

    private static boolean posix(Path path) {
        return path.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    private static Map<String, String> workerProperties(
            String bootstrapServers, Path directory, Path pluginPath, Path secretsDir, int restPort) {
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
        props.put("plugin.discovery", "service_load");
        props.put("plugin.path", pluginPath.toString());
        props.put("listeners", "http://" + LocalPorts.HOST + ":" + restPort);
        // Lets the sink read committed data only (consumer.override.isolation.level=read_committed).
        props.put("connector.client.config.override.policy", "All");
        // Secrets in connector configurations are ${file:...} references (secretReference), resolved here, and
        // from the worker's secrets directory only.
        props.put("config.providers", "file");
        props.put("config.providers.file.class", FILE_CONFIG_PROVIDER);
        props.put("config.providers.file.param.allowed.paths", secretsDir.toString());
        return props;
    }

    /**
     * {@link ConnectStandalone#startConnect} is written for a process of its own: it calls
     * {@code Exit.exit(1)} when the worker fails to start, registers a JVM shutdown hook that it never removes,
     * and leaves the calling thread's context class loader set to its plugin loader. All three are undone here,
     * so a failure becomes an exception and {@link #close()} owns the lifecycle.
     */
    private static Connect<StandaloneHerder> startWorker(Map<String, String> workerProps) {
        Thread thread = Thread.currentThread();
        ClassLoader contextLoader = thread.getContextClassLoader();
        synchronized (EXIT_HOOKS_LOCK) {
            Exit.setExitProcedure((status, message) -> {
                throw new EmbeddedStackException("Embedded Connect failed to start (it asked to exit with status "
                        + status + (message == null ? "" : ": " + message) + "); see the log above for the cause");
            });
            Exit.setShutdownHookAdder((name, runnable) -> log.debug("Not registering Connect's {} hook", name));
            try {
                return new ConnectStandalone().startConnect(workerProps);
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

    private static long remainingMillis(long deadlineNanos) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted while waiting for a connector", e);
        }
    }

    /**
     * A connector's state as the worker reports it.
     *
     * @param name  the connector name
     * @param state UNASSIGNED, RUNNING, PAUSED, STOPPED, FAILED or RESTARTING
     * @param trace the failure's stack trace when FAILED, else null
     * @param tasks the states of its tasks (empty until the tasks are started)
     */
    public record ConnectorStatus(String name, String state, String trace, List<TaskStatus> tasks) {

        /**
         * Validates and copies.
         *
         * @param name  the connector name
         * @param state the connector's state
         * @param trace the connector's failure trace, or null
         * @param tasks the task states
         */
        public ConnectorStatus {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(state, "state");
            tasks = List.copyOf(tasks);
        }

        /** @return true when the connector and at least one task exist and all are RUNNING */
        public boolean isRunning() {
            return "RUNNING".equals(state)
                    && !tasks.isEmpty()
                    && tasks.stream().allMatch(task -> "RUNNING".equals(task.state()));
        }

        /** @return true when the connector and at least one task exist and all are PAUSED */
        public boolean isPaused() {
            return "PAUSED".equals(state)
                    && !tasks.isEmpty()
                    && tasks.stream().allMatch(task -> "PAUSED".equals(task.state()));
        }

        /** @return true when the connector or any task FAILED */
        public boolean isFailed() {
            return "FAILED".equals(state) || tasks.stream().anyMatch(task -> "FAILED".equals(task.state()));
        }

        /** @return a multi-line description including every trace, for error messages and the CLI */
        public String describe() {
            StringBuilder text =
                    new StringBuilder("connector ").append(name).append(": ").append(state);
            if (trace != null) {
                text.append('\n').append(trace);
            }
            if (tasks.isEmpty()) {
                text.append("\n  no tasks yet");
            }
            for (TaskStatus task : tasks) {
                text.append("\n  task ").append(task.id()).append(": ").append(task.state());
                if (task.trace() != null) {
                    text.append('\n').append(task.trace());
                }
            }
            return text.toString();
        }
    }

    /**
     * A connector task's state as the worker reports it.
     *
     * @param id    the task number
     * @param state UNASSIGNED, RUNNING, PAUSED, FAILED or RESTARTING
     * @param trace the failure's stack trace when FAILED, else null
     */
    public record TaskStatus(int id, String state, String trace) {}
}
