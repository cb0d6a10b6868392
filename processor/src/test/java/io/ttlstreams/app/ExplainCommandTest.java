package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ExplainCommandTest {

    private static final String CONFIG = String.join(
            "\n",
            "ttl.rules=sessions,events",
            "ttl.rule.sessions.namespace=app.sessions            # db.collection; db.* matches every collection",
            "ttl.rule.sessions.field=expireAt",
            "ttl.rule.sessions.expire.after.seconds=10",
            "ttl.rule.events.namespace=app.events",
            "ttl.rule.events.mode=last-modified",
            "ttl.rule.events.expire.after.seconds=3600",
            "ttl.rule.events.document.ttl.field=ttl",
            "");

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int explain(String config, String... args) throws IOException {
        Path file = dir.resolve("processor.properties");
        Files.writeString(file, config);
        CommandLine cli = TtlStreamsCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        String[] all = new String[args.length + 3];
        all[0] = "explain";
        all[1] = "--config";
        all[2] = file.toString();
        System.arraycopy(args, 0, all, 3, args.length);
        return cli.execute(all);
    }

    private BsonDocument answer() {
        String text = out.toString().trim();
        assertThat(text.lines()).as("exactly one JSON object on stdout").hasSize(1);
        return BsonDocument.parse(text);
    }

    @Test
    void shouldExplainFieldRuleDeadlineWithMilliseconds() throws IOException {
        int code = explain(
                CONFIG,
                "--namespace",
                "app.sessions",
                "--document",
                "{\"_id\": 1, \"expireAt\": {\"$date\": \"2026-01-01T00:00:00Z\"}}");

        assertThat(code).isZero();
        BsonDocument answer = answer();
        assertThat(answer.getBoolean("expires").getValue()).isTrue();
        assertThat(answer.getString("deadline").getValue()).isEqualTo("2026-01-01T00:00:10.000Z");
        assertThat(answer.getString("rule").getValue()).isEqualTo("sessions");
        assertThat(answer.getString("reason").getValue()).contains("expireAt");
        assertThat(answer.keySet()).containsExactly("expires", "deadline", "rule", "reason", "source", "expiry.events");
        assertThat(answer.getDocument("source"))
                .isEqualTo(BsonDocument.parse("{\"profile\": \"mongodb\", \"service\": \"MongoDB\","
                        + " \"confirm.mode\": \"change-stream\", \"delete.events\": true, \"watch\": \"database\","
                        + " \"pipeline\": \"full: operation and collection filter, document-key bound, projection of"
                        + " the rules' fields\"}"));
    }

    @Test
    void shouldExplainLastModifiedRuleFromEventTimeAndDocumentTtl() throws IOException {
        int code = explain(
                CONFIG,
                "--namespace",
                "app.events",
                "--document",
                "{\"ttl\": {\"$numberLong\": \"20\"}}",
                "--event-time",
                "2026-01-01T00:00:00Z");

        assertThat(code).isZero();
        assertThat(answer().getString("deadline").getValue()).isEqualTo("2026-01-01T00:00:20.000Z");
    }

    @Test
    void shouldSayNeverWithNullDeadlineAndReason() throws IOException {
        int code = explain(CONFIG, "--namespace", "app.sessions", "--document", "{\"expireAt\": \"soon\"}");

        assertThat(code).isZero();
        BsonDocument answer = answer();
        assertThat(answer.getBoolean("expires").getValue()).isFalse();
        assertThat(answer.isNull("deadline")).isTrue();
        assertThat(answer.isNull("rule")).isTrue();
        assertThat(answer.getString("reason").getValue()).isNotBlank();
    }

    @Test
    void shouldReadDocumentFromFile() throws IOException {
        Path document = dir.resolve("doc.json");
        Files.writeString(document, "{\"expireAt\": {\"$date\": \"2030-05-01T12:00:00.250Z\"}}");

        int code = explain(CONFIG, "--namespace", "app.sessions", "--document", "@" + document);

        assertThat(code).isZero();
        assertThat(answer().getString("deadline").getValue()).isEqualTo("2030-05-01T12:00:10.250Z");
    }

    @Test
    void shouldExitTwoOnInvalidDocument() throws IOException {
        int code = explain(CONFIG, "--namespace", "app.sessions", "--document", "{broken");

        assertThat(code).isEqualTo(2);
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString()).contains("--document");
    }

    @Test
    void shouldExitTwoNamingTheOptionOnInvalidConfig() throws IOException {
        int code = explain(
                CONFIG.replace("expire.after.seconds=10", "expire.after.seconds=NaN"),
                "--namespace",
                "app.sessions",
                "--document",
                "{}");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("ttl.rule.sessions.expire.after.seconds");
    }

    @Test
    void shouldSayWhatCosmosDbSupportsWhenItsProfileIsSet() throws IOException {
        int code = explain(
                CONFIG + "\nttl.source.profile=cosmosdb\nttl.mongodb.uri=mongodb://cosmos:10255\n",
                "--namespace",
                "app.sessions",
                "--document",
                "{\"_id\": 1, \"expireAt\": {\"$date\": \"2026-01-01T00:00:00Z\"}}");

        assertThat(code).as(err.toString()).isZero();
        BsonDocument source = answer().getDocument("source");
        assertThat(source.getString("service").getValue()).isEqualTo("Azure Cosmos DB for MongoDB (RU)");
        assertThat(source.getString("confirm.mode").getValue()).isEqualTo("read-back");
        assertThat(source.getBoolean("delete.events").getValue()).isFalse();
        assertThat(source.getString("watch").getValue()).isEqualTo("collection");
    }
}
