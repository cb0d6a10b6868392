package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bson.Document;
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

    private static final Duration START = Duration.ofMinutes(3);

    @TempDir
    Path dir;

    @Test
    void shouldRunTheDocumentedCosmosDbEmulationCommandUntilStopped() throws Exception {
        try (LauncherRun run = LauncherRun.start(
                dir.resolve("data"), dir.resolve("run.log"), "log4j2-dev.xml", "embedded.profile=cosmosdb")) {
            run.awaitStatusLine(START);
            assertThat(run.output()).contains("ttl-streams ready").doesNotContain("Exception");

            try (MongoClient client = run.mongo()) {
                client.getDatabase("app")
                        .getCollection("sessions")
                        .insertOne(new Document("_id", "cosmos-run")
                                .append("expireAt", Date.from(Instant.now().plusSeconds(2))));
            }
            run.awaitOutput("the document expired and counted in the status line", " deleted=1");

            assertThat(run.stop())
                    .as("exit code; it printed:%n%s", run.output())
                    .isZero();
            assertThat(run.output()).contains("ttl-streams: stopping...").doesNotContain("Exception");
        }
    }
}
