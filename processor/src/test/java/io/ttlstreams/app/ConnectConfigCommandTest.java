package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConnectConfigCommandTest {

    private static final String EXAMPLE = CliRun.EXAMPLE;

    private final CliRun cli = new CliRun("connect-config");

    private BsonArray printed() {
        return BsonArray.parse(cli.out());
    }

    private static BsonDocument config(BsonArray connectors, int index) {
        return connectors.get(index).asDocument().getDocument("config");
    }

    @Test
    void shouldPrintTheSourceAndSinkWithTheConfigProviderUriByDefault() {
        assertThat(cli.run("--config", EXAMPLE)).isZero();

        BsonArray connectors = printed();
        assertThat(connectors)
                .extracting(c -> c.asDocument().getString("name").getValue())
                .containsExactly("mongo-source-app", "mongo-ttl-sink");
        assertThat(config(connectors, 0).getString("connection.uri").getValue())
                .isEqualTo("${file:/secrets/mongo.properties:uri}");
        assertThat(config(connectors, 0).getString("startup.mode").getValue()).isEqualTo("latest");
        assertThat(cli.err()).isEmpty();
    }

    @Test
    void shouldTakeTheUriAndCopyExistingFromTheCommandLine() {
        assertThat(cli.run(
                        "--config", EXAMPLE, "--mongodb-uri", "mongodb://m:27017/?replicaSet=rs0", "--copy-existing"))
                .isZero();

        BsonArray connectors = printed();
        assertThat(config(connectors, 0).getString("startup.mode").getValue()).isEqualTo("copy_existing");
        assertThat(config(connectors, 1).getString("connection.uri").getValue())
                .isEqualTo("mongodb://m:27017/?replicaSet=rs0");
    }

    @Test
    void shouldWriteOneFilePerConnector(@TempDir Path dir) throws IOException {
        Path target = dir.resolve("connectors");

        assertThat(cli.run("--config", EXAMPLE, "--out", target.toString())).isZero();

        assertThat(target.resolve("mongo-source.json")).exists();
        assertThat(BsonDocument.parse(Files.readString(target.resolve("mongo-ttl-sink.json")))
                        .getString("name")
                        .getValue())
                .isEqualTo("mongo-ttl-sink");
        assertThat(cli.out()).contains("mongo-source.json", "mongo-ttl-sink.json");
    }

    @Test
    void shouldExitWithTwoOnABadConfiguration(@TempDir Path dir) throws IOException {
        Path bad = Files.writeString(dir.resolve("bad.properties"), "ttl.rules=s\nttl.rule.s.namespace=nodot\n");

        assertThat(cli.run("--config", bad.toString())).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);

        assertThat(cli.err()).startsWith("ttl-streams connect-config:").contains("ttl.rule.s.namespace");
        assertThat(cli.out()).isEmpty();
    }

    @Test
    void shouldExitWithTwoOnAMissingFile(@TempDir Path dir) {
        assertThat(cli.run("--config", dir.resolve("absent.properties").toString()))
                .isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(cli.err()).contains("absent.properties");
    }

    @Test
    void shouldExitWithTwoOnABadConnectUrlWithoutShowingItsPassword(@TempDir Path dir) throws IOException {
        Path bad = Files.writeString(
                dir.resolve("bad.properties"),
                "ttl.rules=s\nttl.rule.s.namespace=app.s\nttl.rule.s.field=expireAt\n"
                        + "ttl.connect.url=ftp://admin:s3cret@connect\n");

        assertThat(cli.run("--config", bad.toString())).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);

        assertThat(cli.err())
                .startsWith("ttl-streams connect-config:")
                .contains("ttl.connect.url", "ftp://***@connect")
                .doesNotContain("s3cret");
        assertThat(cli.err().lines()).hasSize(1);
    }
}
