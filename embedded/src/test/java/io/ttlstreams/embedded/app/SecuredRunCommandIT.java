package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import io.ttlstreams.platform.AclPlan;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.stream.Stream;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command docs/embedded.md gives for a broker that enforces the plan, {@code ./ttl-streams run --embedded --set
 * embedded.kafka.security=scram-acls}, run as the launcher runs it (a JVM of its own), on free ports, with everything
 * logged at INFO and the code that handles credentials at DEBUG: its first screen says which user each part runs as, a
 * document expires, it stops cleanly on SIGTERM, and nothing it printed or logged holds a user's SCRAM password or
 * JAAS line, read afterwards from the users' secret files.
 */
@Tag("integration")
class SecuredRunCommandIT {

    private static final Duration START = Duration.ofMinutes(3);

    @TempDir
    Path dir;

    @Test
    void shouldRunAsThePlansUsersAndPrintOrLogNoSecretWhenTheBrokerEnforcesThem() throws Exception {
        Path data = dir.resolve("data");
        String everything;
        try (LauncherRun run = LauncherRun.start(
                data, dir.resolve("run.log"), "log4j2-everything.xml", "embedded.kafka.security=scram-acls")) {
            run.awaitStatusLine(START);
            assertThat(run.output())
                    .contains("ttl-streams ready")
                    .contains("(SASL_PLAINTEXT, SCRAM-SHA-512; ACLs enforced: exactly those ttl-streams platform"
                            + " renders)")
                    .containsPattern("processor, resync +User:" + AclPlan.PROCESSOR_USER
                            + " +\\(its clients: SASL_PLAINTEXT, SCRAM-SHA-512, as User:" + AclPlan.PROCESSOR_USER
                            + "\\)")
                    .containsPattern("source connectors +User:" + AclPlan.SOURCE_USER)
                    .containsPattern("sink connector +User:" + AclPlan.SINK_USER)
                    .containsPattern("Connect worker +User:" + AclPlan.CONNECT_USER)
                    .containsPattern("approve \\(operators\\) +User:" + AclPlan.OPERATOR_USER);

            try (MongoClient client = run.mongo()) {
                client.getDatabase("app")
                        .getCollection("sessions")
                        .insertOne(new Document("_id", "secured-run")
                                .append("expireAt", Date.from(Instant.now().plusSeconds(2))));
            }
            run.awaitOutput("the document expired, its delete confirmed", " deleted=1 confirmed=1");

            assertThat(run.stop())
                    .as("exit code; it printed:%n%s", run.output())
                    .isZero();
            everything = run.output();
        }

        // The check has something to look at: Kafka's clients dumped their settings, credentials hidden by Kafka.
        assertThat(everything).contains("sasl.jaas.config = [hidden]");
        List<String> secrets = new ArrayList<>();
        try (Stream<Path> files = Files.walk(data.resolve("kafka-users"))) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                String secret = Files.readString(file, StandardCharsets.UTF_8);
                secrets.add(secret);
                if (file.getFileName().toString().equals("password")) {
                    // Each half too, in case a line broke it or something quoted part of it.
                    secrets.add(secret.substring(0, secret.length() / 2));
                    secrets.add(secret.substring(secret.length() / 2));
                }
            }
        }
        assertThat(secrets).as("the users' secret files").hasSize(5 * 4);
        for (String secret : secrets) {
            assertThat(everything).as("printed or logged: a user's secret").doesNotContain(secret);
        }
        assertThat(everything).as("a JAAS password in clear").doesNotContainPattern("password=\"[^*\"]");
        System.out.printf(
                "SecuredRunCommandIT: %d lines printed or logged, none with one of the %d users' passwords or JAAS"
                        + " lines%n",
                everything.lines().count(), secrets.size() / 4);
    }
}
