package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code explain} on a rule with expiry events: its settings, and what a document would produce. */
class ExplainExpiryEventsTest {

    private static final String CONFIG = String.join(
            "\n",
            "ttl.rules=sessions",
            "ttl.rule.sessions.namespace=app.sessions",
            "ttl.rule.sessions.field=expireAt",
            "ttl.rule.sessions.action=mark",
            "ttl.rule.sessions.mark.field=expiredAt",
            "ttl.rule.sessions.delete.after.seconds=86400",
            "ttl.rule.sessions.notice.before.seconds=3600",
            "ttl.rule.sessions.expired.document=pre-image",
            "ttl.expired.topic=ttl.expired",
            "");

    @TempDir
    Path dir;

    private BsonDocument explain(String document) throws IOException {
        Path file = dir.resolve("processor.properties");
        Files.writeString(file, CONFIG);
        StringWriter out = new StringWriter();
        CommandLine cli = TtlStreamsCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(new StringWriter(), true));
        int code = cli.execute(
                "explain",
                "--config",
                file.toString(),
                "--namespace",
                "app.sessions",
                "--event-time",
                "2026-01-01T00:00:00Z",
                "--document",
                document);
        assertThat(code).isZero();
        return BsonDocument.parse(out.toString().trim()).getDocument("expiry.events");
    }

    @Test
    void shouldShowTheRulesSettingsAndTheNoticeMarkAndRecordADocumentWouldProduce() throws IOException {
        BsonDocument events = explain("{\"_id\": 1, \"expireAt\": {\"$date\": \"2026-01-02T00:00:00Z\"}}");

        assertThat(events.getString("topic").getValue()).isEqualTo("ttl.expired");
        assertThat(events.getDocument("rule"))
                .isEqualTo(BsonDocument.parse("{\"action\": \"mark\", \"mark.field\": \"expiredAt\","
                        + " \"delete.after.seconds\": 86400, \"notice.before.seconds\":"
                        + " 3600, \"expired.document\": \"pre-image\"}"));
        assertThat(events.getArray("produces"))
                .containsExactly(
                        new BsonString("an EXPIRING notice at 2026-01-01T23:00:00.000Z"),
                        new BsonString("a mark command at 2026-01-02T00:00:00.000Z: sets expiredAt to the deadline"),
                        new BsonString("an EXPIRED record once the mark is confirmed, with the document as it was"
                                + " before (its pre-image)"));
    }

    @Test
    void shouldShowNoNoticeForADeadlineCloserThanTheNoticePeriod() throws IOException {
        BsonDocument events = explain("{\"_id\": 1, \"expireAt\": {\"$date\": \"2026-01-01T00:30:00Z\"}}");

        assertThat(events.getArray("produces").get(0))
                .isEqualTo(new BsonString("no EXPIRING notice: the deadline is closer than 3600 s"));
    }

    @Test
    void shouldShowTheDeleteAfterTheGracePeriodAndItsNoticeForAMarkedDocument() throws IOException {
        BsonDocument events = explain("{\"_id\": 1, \"expireAt\": {\"$date\": \"2026-01-01T00:00:00Z\"},"
                + " \"expiredAt\": {\"$date\": \"2026-01-01T00:00:00Z\"}}");

        assertThat(events.getArray("produces"))
                .containsExactly(
                        new BsonString("an EXPIRING notice at 2026-01-01T23:00:00.000Z"),
                        new BsonString("a delete command at 2026-01-02T00:00:00.000Z, the grace period after its mark"),
                        new BsonString("a PURGED record once the delete is confirmed, with the document as it was"
                                + " before (its pre-image)"));
    }
}
