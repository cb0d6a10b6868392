package io.ttlstreams.embedded;

import io.ttlstreams.connect.ConnectRestClient;
import io.ttlstreams.connect.ConnectorStatus;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.runtime.Connect;

/**
 * The stack's Connect worker in a JVM of its own, as an SRE's Connect pod is: distributed (its connector configs,
 * source offsets, the change streams' resume tokens, and statuses in topics of its own), started with the stack's
 * wiring ({@link ConnectWorker}: the same properties and plugins, installed in its own directory),
 * so that a chaos test can {@link #kill() kill -9} it and {@link #start() start} it again. {@link
 * EmbeddedStack#moveConnectToOwnJvm} makes one.
 *
 * <p>The worker exits when the JVM that started it does, so that a stack killed or stopped with Ctrl-C leaves none
 * behind.
 */
public final class ConnectProcess implements AutoCloseable {

    /** How long a stopped worker has to leave its group and stop its tasks before it is killed. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

    private static final String LOG_CONFIG = "log4j2.configurationFile";

    private final List<String> command;
    private final Path log;
    private final String url;
    private final ConnectRestClient rest;
    private Process process;

    private ConnectProcess(List<String> command, Path log, String url) {
        this.command = List.copyOf(command);
        this.log = log;
        this.url = url;
        this.rest = new ConnectRestClient(url);
    }

    /**
     * Starts a distributed worker in a new JVM on this JVM's classpath; returns once it runs (its REST API answers).
     *
     * @param directory         the worker's directory: its plugin manifests, and its secrets in {@code secrets}
     * @param replicationFactor of the worker's config, offset and status topics
     * @param heap              the worker JVM's {@code -Xmx}, such as {@code 256m}
     * @param log               where the worker's output goes (appended to at each start)
     * @throws EmbeddedStackException if it does not run within {@code timeout}
     */
    static ConnectProcess start(
            String bootstrapServers, Path directory, int replicationFactor, String heap, Path log, Duration timeout) {
        int port = LocalPorts.resolve(0);
        List<String> command = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heap));
        // Logging as this JVM's (the development launcher's quiet settings for the worker).
        Optional.ofNullable(System.getProperty(LOG_CONFIG))
                .ifPresent(file -> command.add("-D" + LOG_CONFIG + "=" + file));
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                ConnectProcess.class.getName(),
                bootstrapServers,
                directory.toAbsolutePath().toString(),
                Integer.toString(port),
                Integer.toString(replicationFactor)));
        ConnectProcess worker = new ConnectProcess(command, log, "http://" + LocalPorts.HOST + ":" + port);
        worker.start();
        try {
            worker.awaitConnectors(List.of(), timeout);
        } catch (RuntimeException e) {
            worker.kill();
            throw e;
        }
        return worker;
    }

    /** @return the worker's REST API, {@code http://127.0.0.1:<port>}, the same across restarts */
    public String url() {
        return url;
    }

    /** @return where the worker's output goes */
    public Path log() {
        return log;
    }

    /** @return the worker JVM's process id; -1 when it does not run */
    public synchronized long pid() {
        return process != null && process.isAlive() ? process.pid() : -1;
    }

    /**
     * Starts the worker again (after {@link #kill()}) on the same port and directory; it rejoins its group and reads
     * its connectors and offsets back from its topics. Returns at once: {@link #awaitConnectors} says when they run.
     *
     * @throws EmbeddedStackException if the JVM cannot be started, or the worker still runs
     */
    public synchronized void start() {
        if (process != null && process.isAlive()) {
            throw new EmbeddedStackException("The Connect worker (pid " + process.pid() + ") still runs");
        }
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new EmbeddedStackException("Could not start the Connect worker's JVM: " + e.getMessage(), e);
        }
    }

    /** SIGKILL, as a node's loss or the OOM killer ends a pod: no goodbye to the group, no last offset flush. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        waitFor(process);
    }

    /**
     * Waits until the worker's REST API answers and each of {@code connectors} and all its tasks are RUNNING.
     *
     * @return how long it took
     * @throws EmbeddedStackException if the worker exits, or they do not run within {@code timeout} (with the last
     *     status seen)
     */
    public Duration awaitConnectors(List<String> connectors, Duration timeout) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        String last = "its REST API did not answer";
        while (System.nanoTime() < deadline) {
            Process current;
            synchronized (this) {
                current = process;
            }
            if (current == null || !current.isAlive()) {
                throw new EmbeddedStackException("The Connect worker exited; see " + log);
            }
            try {
                last = notRunning(connectors);
                if (last == null) {
                    return Duration.ofNanos(System.nanoTime() - start);
                }
            } catch (IOException e) {
                last = e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EmbeddedStackException("Interrupted while waiting for the Connect worker", e);
            }
            sleep();
        }
        throw new EmbeddedStackException(
                "The Connect worker's connectors were not RUNNING within " + timeout + ": " + last + "; see " + log);
    }

    /** The first of {@code connectors} that does not run, described; null when all do and the worker serves. */
    private String notRunning(List<String> connectors) throws IOException, InterruptedException {
        // Connect listens before it serves: until its resources are in place, every request is answered 404.
        HttpResponse<Void> root = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .build()
                .send(
                        HttpRequest.newBuilder(URI.create(url + "/"))
                                .timeout(Duration.ofSeconds(10))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
        if (root.statusCode() != 200) {
            return "its REST API answered " + root.statusCode();
        }
        for (String name : connectors) {
            Optional<ConnectorStatus> status = rest.status(name);
            if (status.isEmpty()) {
                return "connector " + name + " not known yet";
            }
            if (!status.get().running()) {
                return status.get().toString();
            }
        }
        return null;
    }

    /** SIGTERM, and SIGKILL if the worker has not stopped 30 s later. Idempotent. */
    @Override
    public synchronized void close() {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }

    private static void waitFor(Process process) {
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted while the Connect worker was stopping", e);
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(POLL_INTERVAL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted while waiting for the Connect worker", e);
        }
    }

    /**
     * The worker's JVM: {@code <bootstrap servers> <directory> <REST port> <replication factor>}. Runs until SIGTERM
     * (stopping the worker cleanly) or until the JVM that started it ends.
     */
    public static void main(String[] args) {
        if (args.length != 4) {
            System.err.println(
                    "usage: ConnectProcess <bootstrap servers> <directory> <REST port> <replication factor>");
            System.exit(2);
        }
        Path directory = Path.of(args[1]);
        Connect<?> connect = ConnectWorker.startDistributed(
                args[0],
                directory,
                WorkerSecrets.in(directory.resolve("secrets")).directory(),
                Integer.parseInt(args[2]),
                Integer.parseInt(args[3]));
        Runtime.getRuntime().addShutdownHook(new Thread(connect::stop, "connect-process-stop"));
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> System.exit(1)));
        connect.awaitStop();
    }
}
