package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.secrets.LogCapture;
import java.beans.PropertyChangeListener;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.logging.log4j.core.LoggerContext;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import sun.misc.Signal;

class TtlStreamsCliTest {

    /** Configuration keys and file names as they appear in help text, e.g. ttl.connect.url. */
    private static final Pattern DOTTED = Pattern.compile("[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)+");

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine commandLine = TtlStreamsCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        // The narrowest help picocli lays out, whatever terminal runs the tests.
        commandLine.setUsageHelpAutoWidth(false).setUsageHelpWidth(80);
        return commandLine.execute(args);
    }

    static Stream<String> subcommands() {
        return TtlStreamsCli.commandLine().getSubcommands().keySet().stream();
    }

    @ParameterizedTest
    @MethodSource("subcommands")
    void shouldWrapHelpAtWordBoundariesNeverInsideAKey(String subcommand) {
        CommandLine command = TtlStreamsCli.commandLine().getSubcommands().get(subcommand);
        String descriptions = String.join(
                " ",
                command.getCommandSpec().options().stream()
                        .flatMap(option -> Stream.of(option.description()))
                        .toList());

        assertThat(run(subcommand, "--help")).isZero();

        String help = out.toString().replaceAll("\\s+", " ");
        Matcher keys = DOTTED.matcher(descriptions);
        while (keys.find()) {
            assertThat(help)
                    .as("help of %s keeps %s on one line", subcommand, keys.group())
                    .contains(keys.group());
        }
    }

    /** A configuration of its own, unlike the bundled one in its rule, namespace and so topic and connector. */
    private static final String OTHER_CONFIG = "ttl.rules=filerule\nttl.rule.filerule.namespace=other.docs\n"
            + "ttl.rule.filerule.field=expireAt\nbootstrap.servers=127.0.0.1:1\n";

    private static final String FAR_FUTURE = "{\"expireAt\": {\"$date\": \"2100-01-01T00:00:00Z\"}}";

    /**
     * Per command that reads a configuration without starting a stack: its arguments and what its output shows on the
     * bundled configuration, then the same for {@link #OTHER_CONFIG} given with --config.
     */
    static Stream<Arguments> configReadingCommands() {
        return Stream.of(
                Arguments.of(
                        List.of("explain", "--namespace", "app.sessions", "--document", FAR_FUTURE),
                        "\"rule\": \"sessions\"",
                        List.of("explain", "--namespace", "other.docs", "--document", FAR_FUTURE),
                        "\"rule\": \"filerule\""),
                Arguments.of(
                        List.of("connect-config"), "mongo-source-app", List.of("connect-config"), "mongo-source-other"),
                Arguments.of(
                        List.of("platform", "--format", "json"),
                        "\"app.sessions\"",
                        List.of("platform", "--format", "json"),
                        "\"other.docs\""),
                Arguments.of(
                        List.of("approve", "--rule", "sessions", "--dry-run"),
                        "for rule sessions",
                        List.of("approve", "--rule", "filerule", "--dry-run"),
                        "for rule filerule"));
    }

    @ParameterizedTest
    @MethodSource("configReadingCommands")
    void shouldReadTheBundledConfigurationWhenNoConfigIsGiven(
            List<String> bundledArgs, String bundledShows, List<String> fileArgs, String fileShows) {
        assertThat(run(bundledArgs.toArray(String[]::new))).as(err.toString()).isZero();

        assertThat(out.toString()).contains(bundledShows);
    }

    @ParameterizedTest
    @MethodSource("configReadingCommands")
    void shouldReadTheFileAndNotTheBundledConfigurationWhenConfigIsGiven(
            List<String> bundledArgs, String bundledShows, List<String> fileArgs, String fileShows, @TempDir Path dir)
            throws Exception {
        Path config = Files.writeString(dir.resolve("other.properties"), OTHER_CONFIG);

        assertThat(run(Stream.concat(fileArgs.stream(), Stream.of("--config", config.toString()))
                        .toArray(String[]::new)))
                .as(err.toString())
                .isZero();

        assertThat(out.toString()).contains(fileShows).doesNotContain(bundledShows);
    }

    @Test
    void shouldNameTheBundledConfigurationWhenItLacksWhatTheCommandNeeds() {
        assertThat(run("approve", "--rule", "nosuch", "--dry-run")).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);

        assertThat(err.toString()).contains("no rule nosuch in the bundled configuration (" + BundledConfig.PATH + ")");
    }

    @Test
    void shouldPrintTheBuildVersionWithKafkaAndConnectorVersions() {
        assertThat(run("-V")).isZero();

        assertThat(out.toString())
                .containsPattern("ttl-streams \\d+\\.\\d+\\.\\d+")
                .contains("Kafka Streams 4.")
                .contains("MongoDB Kafka connector 2.")
                .doesNotContain("null");
    }

    @Test
    void shouldRefuseAConfigWithoutBootstrapServersNamingTheOptionAndEmbedded(@TempDir Path dir) throws Exception {
        Path config = oneRuleConfig(dir, "no-cluster.properties", "");

        assertThat(run("run", "--config", config.toString())).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);

        assertThat(err.toString()).contains("bootstrap.servers").contains("--embedded");
    }

    @Test
    void shouldExitWithOneLineNamingBootstrapServersWhenNoBrokerAnswers(@TempDir Path dir) throws Exception {
        int closedPort = closedPort();
        Path config = unreachableBrokerConfig(dir, closedPort);

        int exitCode = run("run", "--config", config.toString(), "--set", "ttl.startup.timeout.ms=500");

        assertThat(exitCode).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(err.toString().lines()).hasSize(1);
        assertThat(err.toString())
                .startsWith("ttl-streams run: Invalid value 127.0.0.1:" + closedPort
                        + " for configuration bootstrap.servers: no Kafka broker answered within 500 ms"
                        + " (ttl.startup.timeout.ms)");
    }

    @Test
    void shouldExitWithZeroAndSayStoppingWhenSignalledDuringStartUp(@TempDir Path dir) throws Exception {
        Path config = unreachableBrokerConfig(dir, closedPort());
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        PrintStream originalOut = System.out;
        System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
        try (io.ttlstreams.secrets.LogCapture log = LogCapture.start()) {
            // Ten minutes to wait for the broker: only the signal can end this start-up in the test's time.
            CompletableFuture<Integer> exitCode = CompletableFuture.supplyAsync(
                    () -> run("run", "--config", config.toString(), "--set", "ttl.startup.timeout.ms=600000"));
            // The probe's client logs its settings once run handles the signals, and before it waits.
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> log.text().contains(KafkaProbe.CLIENT_ID));

            Signal.raise(new Signal("TERM"));

            assertThat(exitCode.get(60, TimeUnit.SECONDS)).isZero();
        } finally {
            System.setOut(originalOut);
        }
        assertThat(stdout.toString(StandardCharsets.UTF_8)).contains("ttl-streams: stopping...");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void shouldWarnOfAMisspeltKafkaSettingNamingTheClosestOne(@TempDir Path dir) throws Exception {
        Path config = oneRuleConfig(dir, "typo.properties", "");

        try (LogCapture log = LogCapture.start()) {
            // Stopped right after reading the configuration: no bootstrap.servers.
            run("run", "--config", config.toString(), "--set", "num.stream.thread=2");

            assertThat(log.text())
                    .contains("Unknown Kafka setting num.stream.thread")
                    .contains("did you mean num.stream.threads?");
        }
    }

    @Test
    void shouldSwitchToTheConfiguredLogFormatBeforeWarningOfAMisspeltKafkaSetting(@TempDir Path dir) throws Exception {
        Path config = oneRuleConfig(dir, "typo.properties", "");
        LoggerContext context = LoggerContext.getContext(false);
        List<String> loggedBeforeTheSwitch = new ArrayList<>();
        AtomicReference<LogCapture> afterTheSwitch = new AtomicReference<>();
        try (LogCapture before = LogCapture.start()) {
            // ttl.log.format=json reconfigures log4j: what was logged by then went out in the old format.
            // (updateLoggers, which a capture calls, signals too, with the same configuration.)
            PropertyChangeListener switched = event -> {
                if (event.getNewValue() != event.getOldValue() && loggedBeforeTheSwitch.isEmpty()) {
                    loggedBeforeTheSwitch.add(before.text());
                    afterTheSwitch.set(LogCapture.start());
                }
            };
            context.addPropertyChangeListener(switched);
            try {
                // Stopped right after reading the configuration: no bootstrap.servers.
                run(
                        "run",
                        "--config",
                        config.toString(),
                        "--set",
                        "ttl.log.format=json",
                        "--set",
                        "num.stream.thread=2");
            } finally {
                context.removePropertyChangeListener(switched);
                System.clearProperty(LogFormat.PROPERTY);
            }
        }
        try (LogCapture after = afterTheSwitch.get()) {
            assertThat(loggedBeforeTheSwitch).singleElement().asString().doesNotContain("num.stream.thread");
            assertThat(after.text()).contains("Unknown Kafka setting num.stream.thread");
        }
    }

    @Test
    void shouldRefuseEmbeddedWhereTheBuildHasNoEmbeddedStack() {
        // The processor module alone is the production artifact: no embedded stack on its classpath.
        assertThat(run("run", "--embedded")).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);

        assertThat(err.toString()).contains("embedded development stack is not part of this build");
    }

    /** A local port that nothing listens on (it was free a moment ago). */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** A configuration file of one rule whose broker is 127.0.0.1:{@code port}, with an ephemeral HTTP port. */
    private static Path unreachableBrokerConfig(Path dir, int port) throws IOException {
        return oneRuleConfig(
                dir, "unreachable.properties", "bootstrap.servers=127.0.0.1:" + port + "\nttl.http.port=0\n");
    }

    /** A configuration file {@code name} in {@code dir}: one field rule "s" on app.sessions, then {@code moreLines}. */
    private static Path oneRuleConfig(Path dir, String name, String moreLines) throws IOException {
        return Files.writeString(
                dir.resolve(name),
                "ttl.rules=s\nttl.rule.s.namespace=app.sessions\nttl.rule.s.field=expireAt\n" + moreLines);
    }
}
