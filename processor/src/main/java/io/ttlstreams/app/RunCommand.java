package io.ttlstreams.app;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

import io.ttlstreams.config.TtlStreamsConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ttl-streams run}: runs the processor against the Kafka cluster named in the configuration,
 * until SIGTERM or Ctrl-C.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run the processor against the Kafka cluster named in the configuration (bootstrap.servers).")
final class RunCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "The processor's properties file.")
    private Path config;

    @Option(names = "--status-interval", paramLabel = "SECONDS", defaultValue = "5",
            description = "Seconds between two status lines (default: ${DEFAULT-VALUE}).")
    private long statusIntervalSeconds;

    @Override
    public Integer call() throws InterruptedException {
        TtlStreamsConfig ttlConfig;
        try {
            ttlConfig = TtlStreamsConfig.load(config);
            if (ttlConfig.streamsProperties().getProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG) == null) {
                throw new ConfigException(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, null,
                        "the Kafka cluster to run against must be named");
            }
        } catch (ConfigException e) {
            spec.commandLine().getErr().println("ttl-streams run: " + e.getMessage());
            return TtlStreamsCli.EXIT_BAD_INPUT;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        try (TtlStreamsApp app = new TtlStreamsApp(ttlConfig);
             StatusReporter status = new StatusReporter(app.streams(), System.out)) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                app.close();
                stopped.countDown();
            }, "ttl-streams-shutdown"));
            app.start().awaitRunning(Duration.ofMinutes(2));
            System.out.println("ttl-streams processor running; reading " + ttlConfig.sourceTopics());
            status.start(statusIntervalSeconds);
            stopped.await();
        }
        return 0;
    }
}
