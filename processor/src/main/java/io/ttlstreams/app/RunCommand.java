package io.ttlstreams.app;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectRestClient;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.connect.ConnectorDefinition;
import io.ttlstreams.embedded.EmbeddedStack;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ttl-streams run}: runs the processor against the Kafka cluster named in the configuration,
 * or, when it names none (or with {@code --embedded}), against an embedded Kafka, Kafka Connect with
 * the MongoDB connectors and a MongoDB stand-in, all started here. Runs until SIGTERM or Ctrl-C.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Run the processor against the Kafka cluster named in the configuration (bootstrap.servers).",
            "Without bootstrap.servers, or with --embedded, first start an embedded Kafka, Kafka Connect with the",
            "MongoDB source and sink connectors, and a MongoDB stand-in, all on loopback."
        })
final class RunCommand implements Callable<Integer> {

    private static final String DEFAULT_CONFIG = "embedded-default.properties";

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "The processor's properties file (default: a bundled embedded configuration).")
    private Path config;

    @Option(names = "--embedded", description = "Start the embedded stack even if the configuration names a cluster.")
    private boolean embedded;

    @Option(
            names = "--mongodb-uri",
            paramLabel = "URI",
            description = "connection.uri of the connectors registered at ttl.connect.url (default: a Connect config"
                    + " provider reference, $${file:/secrets/mongo.properties:uri}).")
    private String mongodbUri;

    @Option(
            names = "--copy-existing",
            description = "Have the source connector registered at ttl.connect.url copy existing documents first.")
    private boolean copyExisting;

    @Option(
            names = "--status-interval",
            paramLabel = "SECONDS",
            defaultValue = "5",
            description = "Seconds between two status lines (default: ${DEFAULT-VALUE}).")
    private long statusIntervalSeconds;

    @Override
    public Integer call() throws Exception {
        TtlStreamsConfig ttlConfig;
        try {
            ttlConfig = config == null ? bundledConfig() : TtlStreamsConfig.load(config);
        } catch (ConfigException e) {
            spec.commandLine().getErr().println("ttl-streams run: " + e.getMessage());
            return TtlStreamsCli.EXIT_BAD_INPUT;
        }
        boolean namesCluster =
                ttlConfig.streamsProperties().getProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG) != null;
        PrintStream out = System.out;
        CountDownLatch stopped = new CountDownLatch(1);
        AutoCloseable running;
        TtlStreamsApp app;
        DeletionCounter deletions = null;
        if (embedded || !namesCluster) {
            out.println("ttl-streams: starting the embedded stack (Kafka, Kafka Connect, MongoDB stand-in)...");
            EmbeddedPipeline pipeline = EmbeddedPipeline.start(ttlConfig);
            printEmbedded(out, pipeline.stack());
            deletions = new DeletionCounter(
                    pipeline.stack().mongoConnectionString(), pipeline.stack().namespaces());
            DeletionCounter counter = deletions;
            running = () -> {
                counter.close();
                pipeline.close();
            };
            app = pipeline.processor();
        } else {
            registerConnectors(ttlConfig, out);
            app = new TtlStreamsApp(ttlConfig).start();
            running = app;
            app.awaitRunning(Duration.ofMinutes(2));
        }
        out.println("ttl-streams ready: processor RUNNING, reading " + ttlConfig.sourceTopics()
                + ", writing delete commands to " + ttlConfig.deleteTopic());
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            out.println("ttl-streams: stopping...");
                            closeQuietly(running);
                            stopped.countDown();
                        },
                        "ttl-streams-shutdown"));
        try (StatusReporter status = new StatusReporter(
                app.streams(), out, Clock.systemUTC(), deletions == null ? null : deletions::deleted)) {
            status.start(statusIntervalSeconds);
            stopped.await();
        }
        return 0;
    }

    /** Creates or updates the source and sink connectors at ttl.connect.url, rendered from the rules. */
    private void registerConnectors(TtlStreamsConfig ttlConfig, PrintStream out) throws Exception {
        if (ttlConfig.connectUrl().isEmpty()) {
            return;
        }
        ConnectorConfigs connectors = ConnectorConfigs.render(
                ttlConfig, mongodbUri == null ? ConnectorConfigs.DEFAULT_MONGODB_URI : mongodbUri, copyExisting);
        ConnectRestClient connect = new ConnectRestClient(ttlConfig.connectUrl().get());
        for (ConnectorDefinition connector : connectors.files().values()) {
            connect.put(connector);
            out.println("ttl-streams: connector " + connector.name() + " registered at "
                    + ttlConfig.connectUrl().get());
        }
    }

    static TtlStreamsConfig bundledConfig() {
        Properties props = new Properties();
        try (InputStream in = RunCommand.class.getResourceAsStream(DEFAULT_CONFIG)) {
            props.load(in);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read the bundled " + DEFAULT_CONFIG, e);
        }
        return new TtlStreamsConfig(props);
    }

    static void printEmbedded(PrintStream out, EmbeddedStack stack) {
        out.println(
                "  MongoDB stand-in : " + stack.mongoConnectionString() + "  (watched: " + stack.namespaces() + ")");
        out.println("  Kafka            : " + stack.bootstrapServers());
        out.println(
                "  Kafka Connect    : " + stack.connectUrl() + "  connectors " + stack.connectorNames() + " RUNNING");
        out.println("  data directory   : " + stack.dataDir()
                + (stack.deletesDataDirOnClose() ? " (deleted on exit)" : ""));
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            System.err.println("ttl-streams: error while stopping: " + e);
        }
    }
}
