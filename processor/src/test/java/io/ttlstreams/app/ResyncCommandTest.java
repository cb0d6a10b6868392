package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.resync.StandInMongo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.io.TempDir;

/** {@code ttl-streams resync} against the in-process MongoDB stand-in; publishing is the embedded ITs' part. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class ResyncCommandTest {

    private static final String RULES = TestConfigs.lines();

    @TempDir
    Path dir;

    private final CliRun cli = new CliRun("resync");
    private StandInMongo mongo;

    @BeforeEach
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
    void start() {
        mongo = new StandInMongo();
    }

    @AfterEach
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
    void stop() {
        mongo.close();
    }

    private Path config(String text) throws IOException {
        return Files.writeString(dir.resolve("processor.properties"), RULES + text);
    }

    @Test
    void shouldShowProgressAndWhatADryRunWouldSchedulePerRule() throws IOException {
        Instant past = Instant.parse("2020-01-01T00:00:00Z");
        Instant future = Instant.parse("2100-01-01T00:00:00Z");
        var sessions = mongo.client().getDatabase("app").getCollection("sessions");
        sessions.insertOne(new Document("_id", "gone").append("expireAt", Date.from(past)));
        sessions.insertOne(new Document("_id", "later").append("expireAt", Date.from(future)));
        sessions.insertOne(new Document("_id", "never"));
        Path config = config("ttl.mongodb.uri=" + mongo.connectionString() + "\n");

        assertThat(cli.run("--config", config.toString(), "--dry-run")).isZero();

        assertThat(cli.out())
                .contains("app.sessions: reading about 3 documents, publishing to topic app.sessions")
                .contains("app.sessions: 3/3 documents read (100%)")
                .contains("Resync summary (dry run: nothing published):")
                .contains("rule sessions: 2 to schedule, deadlines 2020-01-01T00:00:00.000Z to"
                        + " 2100-01-01T00:00:00.000Z, 1 already due")
                .contains("no rule expires 1 document: 1 × ");
        assertThat(cli.err()).isEmpty();
    }

    @Test
    void shouldSayWhyNoRuleExpiresDocumentsCountedByReasonWhenADryRunReadsThem() throws IOException {
        var sessions = mongo.client().getDatabase("app").getCollection("sessions");
        sessions.insertOne(new Document("_id", "no-field"));
        sessions.insertOne(new Document("_id", "also-no-field"));
        sessions.insertOne(new Document("_id", "string-date").append("expireAt", "2030-01-01"));
        Path config = config("ttl.mongodb.uri=" + mongo.connectionString() + "\n");

        assertThat(cli.run("--config", config.toString(), "--dry-run")).isZero();

        String summary = cli.out()
                .lines()
                .filter(line -> line.contains("no rule expires"))
                .findFirst()
                .orElseThrow();
        assertThat(summary)
                .startsWith("    no rule expires 3 documents: 2 × ")
                .contains("missing")
                .contains("1 × ");
    }

    @Test
    void shouldRefuseWithoutAMongoConnectionStringNamingTheOption() throws IOException {
        Path config = config("bootstrap.servers=127.0.0.1:9092\n");

        assertThat(cli.run("--config", config.toString())).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(cli.err()).contains("ttl.mongodb.uri is not set");
    }

    @Test
    void shouldRefuseToPublishWithoutAKafkaCluster() throws IOException {
        Path config = config("ttl.mongodb.uri=" + mongo.connectionString() + "\n");

        assertThat(cli.run("--config", config.toString())).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(cli.err()).contains("sets no bootstrap.servers").contains("--dry-run");
    }

    @Test
    void shouldRefuseAnUnknownRuleOrAMalformedNamespace() throws IOException {
        Path config = config("ttl.mongodb.uri=" + mongo.connectionString() + "\n");

        assertThat(cli.run("--config", config.toString(), "--dry-run", "--rule", "carts"))
                .isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(cli.run("--config", config.toString(), "--dry-run", "--namespace", "app"))
                .isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(cli.err())
                .contains("No rule is named carts (rules: sessions on app.sessions)")
                .contains("--namespace must be DB.COLL");
    }

    @Test
    void shouldFailWithExitOneAndNoCredentialsWhenMongoDbIsUnreachable() throws IOException {
        Path config = config("ttl.mongodb.uri=mongodb://ttl:s3cret@127.0.0.1:1/?serverSelectionTimeoutMS=200"
                + "&connectTimeoutMS=200\n");

        assertThat(cli.run("--config", config.toString(), "--dry-run")).isEqualTo(1);
        assertThat(cli.err()).startsWith("ttl-streams resync: ").doesNotContain("s3cret");
    }

    @Test
    void shouldFailWithExitOneAndNeitherUserNameNorPasswordWhenAuthenticationFails() throws IOException {
        // The stand-in knows no authentication: the driver reports it as its own authentication failure, quoting
        // the credential it tried.
        Path config = config("ttl.mongodb.uri="
                + mongo.connectionString().replace("mongodb://", "mongodb://ttl-reader:s3%2Fcret@")
                + "/?authSource=admin&serverSelectionTimeoutMS=2000\n");

        assertThat(cli.run("--config", config.toString(), "--dry-run")).isEqualTo(1);
        assertThat(cli.err())
                .startsWith("ttl-streams resync: ")
                .contains("userName='***'")
                .doesNotContain("ttl-reader")
                .doesNotContain("s3");
    }
}
