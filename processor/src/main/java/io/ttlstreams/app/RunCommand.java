package io.ttlstreams.app;

import io.ttlstreams.config.ConnectOptions;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectRestClient;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.connect.ManagedConnectors;
import io.ttlstreams.platform.AccessDenied;
import io.ttlstreams.resync.ResyncSweep;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ttl-streams run}: runs the processor against the Kafka cluster named in the configuration, or, with {@code
 * --embedded} or without {@code --config}, against the embedded development stack (module {@code embedded}, which
 * only the launcher script puts on the classpath). Runs until SIGTERM or Ctrl-C ({@link StopSignals}), which stop it
 * with exit code 0, during start-up too.
 *
 * <p>A configuration file without {@code bootstrap.servers} is an error, not a cue to start the embedded stack: in
 * a container that lost one key, that would be an expiry engine pointed at an empty in-memory MongoDB.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Run the processor against the Kafka cluster named by bootstrap.servers in --config.",
            "With --embedded, or without --config, first start the embedded development stack (Kafka, Kafka"
                    + " Connect with the MongoDB connectors, a MongoDB stand-in) on loopback.",
            "With ttl.resync.interval.ms set, also resync every rule's documents from ttl.mongodb.uri each interval."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:stopped by SIGTERM or Ctrl-C (also during start-up; a second signal exits at once with 130)",
            "2:invalid configuration or arguments; no Kafka broker in bootstrap.servers answered, or Kafka Connect"
                    + " refused the connectors or stayed unavailable, within ttl.startup.timeout.ms; Kafka stopped"
                    + " answering while the topics were provisioned; Kafka refused an operation for want of an ACL,"
                    + " at start-up or later (the message names the principal, the operation, the resource and the"
                    + " ACL ttl-streams platform renders for it); the cluster does not offer the streams rebalance"
                    + " protocol that group.protocol=streams asks for, at start-up or when a broker refuses it",
            "3:the processor failed (Kafka Streams state ERROR, e.g. stream threads failed more often than"
                    + " ttl.thread.replacements.max allows): restart it"
        })
public final class RunCommand implements Callable<Integer> {

    /** Exit code when Kafka Streams reached state ERROR: the processor stopped working and must be restarted. */
    static final int EXIT_PROCESSOR_FAILED = 3;

    @Spec
    private CommandSpec spec;

    /** What has started and must be closed on the way out; null before anything has. */
    private AutoCloseable running;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "The processor's properties file. Without it, the embedded stack runs on a bundled"
                    + " configuration.")
    private Path config;

    @Mixin
    private ConfigOverrides overrides;

    @Option(names = "--embedded", description = "Start the embedded development stack and run against it.")
    private boolean embedded;

    @Option(
            names = "--mongodb-uri",
            paramLabel = "URI",
            description = "The MongoDB connection string of the connectors that run registers with Kafka Connect"
                    + " (when the configuration names a Connect URL). Default: a Connect config provider reference"
                    + " to the file /secrets/mongo.properties on the worker.")
    private String mongodbUri;

    @Option(
            names = "--copy-existing",
            description = "Have the source connectors that run registers with Kafka Connect copy the existing"
                    + " documents first.")
    private boolean copyExisting;

    @Option(
            names = "--status-interval",
            paramLabel = "SECONDS",
            defaultValue = "5",
            description = "Seconds between two status lines (default: ${DEFAULT-VALUE}).")
    private long statusIntervalSeconds;

    @Override
    public Integer call() throws Exception {
        try (StopSignals signals = StopSignals.install(System.out)) {
            try {
                return runUntilStopped(signals);
            } catch (Exception e) {
                // Bad input (a signal or not), said by the command line's exception handler; or start-up interrupted
                // by SIGTERM or Ctrl-C, a clean stop. Either way what had started is closed.
                boolean badInput = e instanceof ConfigException;
                if (!badInput && !signals.requested()) {
                    throw e;
                }
                Thread.interrupted();
                if (running != null) {
                    closeQuietly(running);
                }
                if (badInput) {
                    throw e;
                }
                return 0;
            }
        }
    }

    private int runUntilStopped(StopSignals signals) throws Exception {
        PrintStream out = System.out;
        boolean useEmbedded = embedded || config == null;
        Optional<EmbeddedRuntime> runtime =
                useEmbedded ? ServiceLoader.load(EmbeddedRuntime.class).findFirst() : Optional.empty();
        if (useEmbedded && runtime.isEmpty()) {
            return fail("the embedded development stack is not part of this build; give --config FILE naming a"
                    + " Kafka cluster in bootstrap.servers (the ./ttl-streams launcher of a source checkout"
                    + " includes the embedded stack)");
        }
        TtlStreamsConfig ttlConfig = overrides.load(config);
        // The format first, so that the configuration's warnings are the first lines in it.
        LogFormat.apply(ttlConfig);
        ConfigOverrides.warned(ttlConfig);
        if (!useEmbedded && ttlConfig.streamsProperties().getProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG) == null) {
            return fail(config + " sets no bootstrap.servers (nor does TTL_STREAMS_BOOTSTRAP_SERVERS or --set): name"
                    + " the Kafka cluster to run against, or add --embedded to start the embedded development stack");
        }
        TtlStreamsApp app;
        Supplier<OptionalLong> deleted = OptionalLong::empty;
        if (useEmbedded) {
            out.println("ttl-streams: starting the embedded stack (Kafka, Kafka Connect, MongoDB stand-in)...");
            EmbeddedRuntime.Running local = runtime.orElseThrow().start(ttlConfig, out); // e.g. ttl.http.port taken
            running = local;
            app = local.processor();
            deleted = local::deletedDocuments;
        } else {
            ResyncSweep.check(ttlConfig);
            Optional<ManagedConnectors> connectors;
            try {
                connectors = registerConnectors(ttlConfig, mongodbUri, copyExisting, out);
            } catch (IOException | IllegalArgumentException e) {
                return fail("cannot register the connectors: " + e.getMessage());
            }
            KafkaProbe.check(ttlConfig);
            // A ConfigException here: e.g. ttl.http.port taken, or a throttle below the partitions.
            app = new TtlStreamsApp(ttlConfig, connectors);
            running = app.start();
            out.println("ttl-streams: HTTP on " + app.httpUrl() + " (health, metrics, status page)");
            try {
                app.awaitRunning(Duration.ofMinutes(2));
            } catch (IllegalStateException notRunning) {
                if (app.failed().isDone()) {
                    return exitFailed(app);
                }
                throw notRunning;
            }
        }
        Optional<ResyncSweep> sweep = ResyncSweep.start(app.config());
        signals.started();
        if (!signals.requested()) {
            out.println("ttl-streams ready: processor RUNNING, reading " + ttlConfig.sourceTopics()
                    + ", writing delete commands to " + ttlConfig.deleteTopic());
        }
        // Released by SIGTERM or Ctrl-C, or by Kafka Streams failing for good.
        app.failed().thenRun(signals::release);
        try (StatusReporter status = new StatusReporter(
                app.streams(), app.metrics(), app::threadsReplaced, out, Clock.systemUTC(), deleted)) {
            status.start(Duration.ofSeconds(statusIntervalSeconds));
            signals.awaitStop();
        }
        sweep.ifPresent(RunCommand::closeQuietly);
        if (app.failed().isDone() && !signals.requested()) {
            return exitFailed(app);
        }
        closeQuietly(running);
        return 0;
    }

    /**
     * Says why the processor failed, stops it and returns the exit code that gets it restarted; or, when the broker
     * refused it an operation or the streams rebalance protocol, names the missing ACL or {@code group.protocol} and
     * returns the exit code of a bad configuration, since a restart alone would meet the same refusal.
     */
    private int exitFailed(TtlStreamsApp app) {
        Optional<String> refused = app.accessDenied().map(AccessDenied::message).or(app::protocolRefused);
        if (refused.isEmpty()) {
            spec.commandLine()
                    .getErr()
                    .println("ttl-streams run: " + app.failed().getNow("") + "; exiting with code "
                            + EXIT_PROCESSOR_FAILED + " so that it is restarted");
        }
        closeQuietly(running);
        return refused.isPresent() ? fail(refused.get()) : EXIT_PROCESSOR_FAILED;
    }

    /** Reports {@code message} as {@link CommandFailure} does; returns the exit code of bad input. */
    private int fail(String message) {
        return CommandFailure.report(spec, message, TtlStreamsCli.EXIT_BAD_INPUT);
    }

    /**
     * Creates or updates the source and sink connectors at ttl.connect.url, rendered from the rules, before Kafka
     * Streams starts: a Connect that cannot be reached or refuses stops {@code run} at once. The embedded stack
     * registers its connectors with this too, so that it runs what production runs.
     *
     * @param mongodbUri the connectors' {@code connection.uri}, null for {@link ConnectorConfigs#DEFAULT_MONGODB_URI}
     * @param copyExisting whether the sources first publish the existing documents
     * @return the connectors to watch; empty without ttl.connect.url
     * @throws IOException when Kafka Connect cannot be reached or refuses a connector
     * @throws IllegalArgumentException when the connectors cannot be rendered
     * @throws ConfigException naming the rule's option when a rule wants pre-images from a MongoDB before 6.0
     */
    public static Optional<ManagedConnectors> registerConnectors(
            TtlStreamsConfig ttlConfig, String mongodbUri, boolean copyExisting, PrintStream out)
            throws IOException, InterruptedException {
        if (ttlConfig.connectUrl().isEmpty()) {
            return Optional.empty();
        }
        if (ttlConfig.commandSigningKey().isEmpty()) {
            // The rendered sink's guard applies signed commands only: every unsigned command would be refused into
            // the sink's dead-letter topic, and each document deleted late or never.
            throw new IllegalArgumentException("the sink connector run registers (" + ConnectorConfigs.SINK_GUARD
                    + " with signing.key) applies only signed delete commands, and "
                    + OperationsOptions.COMMAND_SIGNING_KEY_CONFIG
                    + " is not set: set it to the key the sink guard has (see docs/trust-model.md), or remove "
                    + ConnectOptions.CONNECT_URL_CONFIG + " and register the connectors yourself");
        }
        // A pre-image rule against MongoDB before 6.0 would register a source connector the server fails.
        PreImageServerCheck.check(ttlConfig);
        ConnectorConfigs connectors = ConnectorConfigs.render(
                ttlConfig, mongodbUri == null ? ConnectorConfigs.DEFAULT_MONGODB_URI : mongodbUri, copyExisting);
        ConnectRestClient connect = new ConnectRestClient(ttlConfig.connectUrl().get(), ttlConfig.connectCredentials());
        return Optional.of(ManagedConnectors.register(
                connect,
                connectors,
                ttlConfig.startupTimeout(),
                name -> out.println("ttl-streams: connector " + name + " registered at " + connect.url())));
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            System.err.println("ttl-streams: error while stopping: " + e);
        }
    }
}
