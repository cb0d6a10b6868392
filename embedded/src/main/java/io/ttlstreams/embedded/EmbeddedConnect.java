package io.ttlstreams.embedded;

import io.ttlstreams.contract.PercentEncoding;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.kafka.connect.errors.NotFoundException;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.Herder;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.util.FutureCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone Kafka Connect worker in this JVM, with its REST API on 127.0.0.1 and its source offsets in
 * {@code <dataDir>/connect/connect.offsets}: the operations the embedded stack and its tests make on it.
 *
 * <p>The MongoDB connectors and the sink guard are plugins on the worker's {@code plugin.path}
 * ({@code <dataDir>/connect/plugins}), as on a production worker: the connectors' {@code all} jar with the MongoDB
 * driver they pin (4.7) and the guard's plugin directory, each in a class loader of its own ({@link ConnectPlugins}),
 * so that the processor beside them in this JVM runs on its own driver. Plugins are discovered with {@code
 * plugin.discovery=service_load}, which only reads {@code META-INF/services} files: mongo-kafka-connect 2.0.1 ships
 * none, so the build adds a jar of them to its directory. The default, reflective discovery ({@code hybrid_warn})
 * finds the connectors too, but scans every class of the plugins and the classpath: 3-5 s and over 200 MB of heap at
 * every start, against well under a second and a few MB here.
 *
 * <p>Keys and values are plain strings (extended JSON produced by the source connector, delete commands
 * consumed by the sink connector).
 *
 * <p>Secrets reach connectors as in production, through a {@code file} config provider: {@link #secretReference}
 * stores one in a file of the worker's, readable by its owner only, and returns the {@code ${file:...}} reference to
 * put in a connector's configuration, which is what the REST API then shows; {@link #storeProductionSecret} stores
 * one where production's {@code ${file:/secrets/<name>.properties:<key>}} references find it
 * ({@link SecretsConfigProvider}). The provider reads files in that directory only. The REST API has no
 * authentication: it listens on the loopback interface only, so it is as open as the machine's other local users
 * make it.
 */
public final class EmbeddedConnect implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedConnect.class);

    private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

    private final Connect<?> connect;
    private final int port;
    private final WorkerSecrets secrets;
    private boolean closed;

    private EmbeddedConnect(Connect<?> connect, int port, WorkerSecrets secrets) {
        this.connect = connect;
        this.port = port;
        this.secrets = secrets;
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
        return start(bootstrapServers, dataDir, port, Optional.empty());
    }

    /**
     * Starts the worker and returns once its REST API is up: standalone, or, with {@code users}, distributed and
     * logging in as the plan's Connect user.
     *
     * @param users the Kafka users of a broker that enforces security; empty for one that does not
     * @throws EmbeddedStackException if the worker fails to start
     */
    public static EmbeddedConnect start(String bootstrapServers, Path dataDir, int port, Optional<KafkaUsers> users) {
        Path directory = dataDir.resolve("connect").toAbsolutePath();
        WorkerSecrets secrets = WorkerSecrets.in(directory.resolve("secrets"));
        int restPort = LocalPorts.resolve(port);
        long startNanos = System.nanoTime();
        Connect<?> connect = ConnectWorker.start(bootstrapServers, directory, secrets.directory(), restPort, users);
        log.debug(
                "Embedded Connect worker at http://{}:{} (started in {} ms)",
                LocalPorts.HOST,
                restPort,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        return new EmbeddedConnect(connect, restPort, secrets);
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
        return secrets.store(name, "value", value);
    }

    /**
     * Stores a secret where a production reference, {@code ${file:/secrets/<name>.properties:<key>}}, finds it on
     * this worker ({@link SecretsConfigProvider}): such as the sink guard's key in what {@code connect-config} renders.
     *
     * @throws IllegalArgumentException when {@code reference} is not of that form
     * @throws EmbeddedStackException if the file cannot be written
     */
    public void storeProductionSecret(String reference, String value) {
        secrets.storeAt(reference, value);
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
            String connector = "connector '" + entry.getKey() + "'";
            await(
                    entry.getValue(),
                    remainingMillis(deadline),
                    "Connect rejected " + connector,
                    "Connect did not accept " + connector + " within " + timeout,
                    "Interrupted while creating " + connector);
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
        WorkerRest.put(uri, timeout);
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
        await(
                callback,
                timeout.toMillis(),
                "Could not delete connector '" + name + "'",
                "Connector '" + name + "' was not deleted within " + timeout,
                "Interrupted while deleting connector '" + name + "'");
    }

    /**
     * The source offsets the worker has stored for a connector, as {@code GET /connectors/<name>/offsets} shows them:
     * what a re-created connector resumes from.
     *
     * @param name    the connector name
     * @param timeout how long to wait for the worker to answer
     * @return each source partition's stored offset
     * @throws EmbeddedStackException if the connector does not exist or the worker does not answer in time
     */
    public List<Map<String, ?>> storedOffsets(String name, Duration timeout) {
        FutureCallback<ConnectorOffsets> callback = new FutureCallback<>();
        herder().connectorOffsets(name, callback);
        return await(
                        callback,
                        timeout.toMillis(),
                        "Could not read the offsets of connector '" + name + "'",
                        "The offsets of connector '" + name + "' were not read within " + timeout,
                        "Interrupted while reading the offsets of connector '" + name + "'")
                .offsets()
                .stream()
                .<Map<String, ?>>map(ConnectorOffset::offset)
                .toList();
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

    private Herder herder() {
        return connect.herder();
    }

    /**
     * Waits up to {@code millis} for the herder to complete {@code callback}; failing, names the operation with
     * {@code failed} (followed by the cause's message), {@code late} or {@code interrupted}.
     */
    private static <T> T await(
            FutureCallback<T> callback, long millis, String failed, String late, String interrupted) {
        try {
            return callback.get(millis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new EmbeddedStackException(failed + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new EmbeddedStackException(late, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException(interrupted, e);
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
}
