package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.ttlstreams.app.TtlStreamsCli;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ttl-streams run --embedded} as the launcher runs it for a person: a JVM of its own with the development
 * stack's JVM options, on free ports, its data in a given directory, its output and logs in a file, a status line
 * every second; stopped with SIGTERM as Ctrl-C or a supervisor stops it.
 */
final class LauncherRun implements AutoCloseable {

    private static final Pattern MONGODB = Pattern.compile("MongoDB stand-in : (mongodb://\\S+)");

    private final Process process;
    private final Path log;

    private LauncherRun(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Starts it with {@code settings} ({@code key=value}, each given with {@code --set}).
     *
     * @param logConfiguration the Log4j configuration on the classpath, e.g. the launcher's {@code log4j2-dev.xml}
     */
    static LauncherRun start(Path dataDir, Path log, String logConfiguration, String... settings) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g",
                "-XX:TieredStopAtLevel=1",
                "-Dlog4j2.configurationFile=" + logConfiguration,
                "-cp",
                System.getProperty("java.class.path"),
                TtlStreamsCli.class.getName(),
                "run",
                "--embedded",
                "--status-interval",
                "1"));
        List<String> all = new ArrayList<>(List.of(settings));
        all.addAll(List.of(
                "embedded.kafka.port=0",
                "embedded.mongodb.port=0",
                "embedded.connect.port=0",
                "embedded.data.dir=" + dataDir));
        for (String setting : all) {
            command.add("--set");
            command.add(setting);
        }
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        return new LauncherRun(process, log);
    }

    /** Everything it printed and logged so far. */
    String output() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    /** Waits for its first status line, and asserts it is still running then. */
    void awaitStatusLine(Duration atMost) throws IOException {
        await("the status line")
                .atMost(atMost)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> !process.isAlive() || output().contains("status: "));
        assertThat(process.isAlive())
                .as("still running; it printed:%n%s", output())
                .isTrue();
    }

    /** A MongoDB client on the stand-in whose address the first screen printed. */
    MongoClient mongo() throws IOException {
        Matcher uri = MONGODB.matcher(output());
        assertThat(uri.find()).as("the stand-in's address in:%n%s", output()).isTrue();
        return MongoClients.create(uri.group(1));
    }

    /** Waits until it printed {@code text}. */
    void awaitOutput(String what, String text) {
        await(what)
                .atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> output().contains(text));
    }

    /** Sends SIGTERM, as Ctrl-C does, and returns the exit code once it stopped. */
    int stop() throws InterruptedException, IOException {
        process.destroy();
        assertThat(process.waitFor(1, TimeUnit.MINUTES))
                .as("stopped; it printed:%n%s", output())
                .isTrue();
        return process.exitValue();
    }

    /** Kills it if it still runs. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }
}
