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
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command docs/embedded.md gives for the Cosmos DB emulation, {@code ./ttl-streams run --embedded --set
 * embedded.profile=cosmosdb}, run as the launcher runs it (a JVM of its own, the development logging), on free ports:
 * it starts, prints its status line with the documents deleted (counted by the stand-in, as Cosmos DB's change streams
 * report no deletes), expires a document, and stops cleanly on SIGTERM.
 */
@Tag("integration")
class CosmosRunCommandIT {

    private static final Pattern MONGODB = Pattern.compile("MongoDB stand-in : (mongodb://\\S+)");
    private static final Duration START = Duration.ofMinutes(3);

    @TempDir
    Path dir;

    private Process run;

    @AfterEach
    void stopIfRunning() throws InterruptedException {
        if (run != null && run.isAlive()) {
            run.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    private String output(Path log) throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    @Test
    void shouldRunTheDocumentedCosmosDbEmulationCommandUntilStopped() throws Exception {
        Path log = dir.resolve("run.log");
        run = new ProcessBuilder(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx1g",
                        "-XX:TieredStopAtLevel=1",
                        "-Dlog4j2.configurationFile=log4j2-dev.xml",
                        "-cp",
                        System.getProperty("java.class.path"),
                        TtlStreamsCli.class.getName(),
                        "run",
                        "--embedded",
                        "--set",
                        "embedded.profile=cosmosdb",
                        "--set",
                        "embedded.kafka.port=0",
                        "--set",
                        "embedded.mongodb.port=0",
                        "--set",
                        "embedded.connect.port=0",
                        "--set",
                        "embedded.data.dir=" + dir.resolve("data"),
                        "--status-interval",
                        "1"))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();

        await("the status line")
                .atMost(START)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> !run.isAlive() || output(log).contains("status: "));
        assertThat(run.isAlive())
                .as("still running; it printed:%n%s", output(log))
                .isTrue();
        assertThat(output(log)).contains("ttl-streams ready").doesNotContain("Exception");

        Matcher uri = MONGODB.matcher(output(log));
        assertThat(uri.find()).as("the stand-in's address in:%n%s", output(log)).isTrue();
        try (MongoClient client = MongoClients.create(uri.group(1))) {
            client.getDatabase("app")
                    .getCollection("sessions")
                    .insertOne(new Document("_id", "cosmos-run")
                            .append("expireAt", Date.from(Instant.now().plusSeconds(2))));
        }
        await("the document expired and counted in the status line")
                .atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> output(log).contains(" deleted=1"));

        run.destroy(); // SIGTERM, as Ctrl-C or a supervisor stops it
        assertThat(run.waitFor(1, TimeUnit.MINUTES)).as("stopped").isTrue();
        assertThat(run.exitValue()).as("it printed:%n%s", output(log)).isZero();
        assertThat(output(log)).contains("ttl-streams: stopping...").doesNotContain("Exception");
    }
}
