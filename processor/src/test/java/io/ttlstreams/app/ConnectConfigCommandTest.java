package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.connect.RepositoryFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ConnectConfigCommandTest {

    private static final String EXAMPLE = RepositoryFiles.root()
            .resolve("connect-config/example-processor.properties")
            .toString();

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine commandLine = TtlStreamsCli.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        String[] full = new String[args.length + 1];
        full[0] = "connect-config";
        System.arraycopy(args, 0, full, 1, args.length);
        return commandLine.execute(full);
    }

    private BsonArray printed() {
        return BsonArray.parse(out.toString());
    }

    private static BsonDocument config(BsonArray connectors, int index) {
        return connectors.get(index).asDocument().getDocument("config");
    }

    @Test
    void shouldPrintTheSourceAndSinkWithTheConfigProviderUriByDefault() {
        assertThat(run("--config", EXAMPLE)).isZero();

        BsonArray connectors = printed();
        assertThat(connectors)
                .extracting(c -> c.asDocument().getString("name").getValue())
                .containsExactly("mongo-source-app", "mongo-ttl-sink");
        assertThat(config(connectors, 0).getString("connection.uri").getValue())
                .isEqualTo("${file:/secrets/mongo.properties:uri}");
        assertThat(config(connectors, 0).getString("startup.mode").getValue()).isEqualTo("latest");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void shouldTakeTheUriAndCopyExistingFromTheCommandLine() {
        assertThat(run("--config", EXAMPLE, "--mongodb-uri", "mongodb://m:27017/?replicaSet=rs0", "--copy-existing"))
                .isZero();

        BsonArray connectors = printed();
        assertThat(config(connectors, 0).getString("startup.mode").getValue()).isEqualTo("copy_existing");
        assertThat(config(connectors, 1).getString("connection.uri").getValue())
                .isEqualTo("mongodb://m:27017/?replicaSet=rs0");
    }

    @Test
    void shouldWriteOneFilePerConnector(@TempDir Path dir) throws IOException {
        Path target = dir.resolve("connectors");

        assertThat(run("--config", EXAMPLE, "--out", target.toString())).isZero();

        assertThat(target.resolve("mongo-source.json")).exists();
        assertThat(BsonDocument.parse(Files.readString(target.resolve("mongo-ttl-sink.json")))
                        .getString("name")
                        .getValue())
                .isEqualTo("mongo-ttl-sink");
        assertThat(out.toString()).contains("mongo-source.json", "mongo-ttl-sink.json");
    }

    @Test
    void shouldExitWithTwoOnABadConfiguration(@TempDir Path dir) throws IOException {
        Path bad = Files.writeString(dir.resolve("bad.properties"), "ttl.rules=s\nttl.rule.s.namespace=nodot\n");

        assertThat(run("--config", bad.toString())).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);

        assertThat(err.toString()).startsWith("ttl-streams connect-config:").contains("ttl.rule.s.namespace");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void shouldExitWithTwoOnAMissingFile(@TempDir Path dir) {
        assertThat(run("--config", dir.resolve("absent.properties").toString()))
                .isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(err.toString()).contains("absent.properties");
    }

    @Test
    void shouldExitWithTwoOnABadConnectUrlWithoutShowingItsPassword(@TempDir Path dir) throws IOException {
        Path bad = Files.writeString(
                dir.resolve("bad.properties"),
                "ttl.rules=s\nttl.rule.s.namespace=app.s\nttl.rule.s.field=expireAt\n"
                        + "ttl.connect.url=ftp://admin:s3cret@connect\n");

        assertThat(run("--config", bad.toString())).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);

        assertThat(err.toString())
                .startsWith("ttl-streams connect-config:")
                .contains("ttl.connect.url", "ftp://***@connect")
                .doesNotContain("s3cret");
        assertThat(err.toString().lines()).hasSize(1);
    }
}
