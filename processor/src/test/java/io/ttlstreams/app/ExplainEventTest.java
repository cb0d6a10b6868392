package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code explain --event}: a change event as the source connector publishes it, read by the processor's parser, its
 * document evaluated at its time; here the events of the renewal by pipeline update ({@code $$NOW}).
 */
class ExplainEventTest {

    private static final String CONFIG = TestConfigs.lines();

    /** A pipeline update as published from the embedded stack (the production pipeline keeps the rule's fields). */
    private static final String UPDATE = """
            {"_id": {"_data": "826B0FC89B000000056B0758C9AF9C4D67000000000000000500"}, "operationType": "update", \
            "clusterTime": {"$timestamp": {"t": 1796196507, "i": 5}}, \
            "wallTime": {"$date": {"$numberLong": "1796196507671"}}, \
            "fullDocument": {"_id": "large", "expireAt": {"$date": {"$numberLong": "1796200507581"}}}, \
            "ns": {"db": "app", "coll": "sessions"}, "documentKey": {"_id": "large"}, \
            "updateDescription": {"updatedFields": {"expireAt": {"$date": {"$numberLong": "1796200507581"}}}, \
            "removedFields": [], "truncatedArrays": [{"field": "roles", "newSize": {"$numberInt": "1"}}]}}""";

    @TempDir
    Path dir;

    private final CliRun explain = new CliRun("explain");

    private int explain(String... args) throws IOException {
        Path config = dir.resolve("processor.properties");
        Files.writeString(config, CONFIG);
        String[] all = new String[args.length + 2];
        all[0] = "--config";
        all[1] = config.toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return explain.run(all);
    }

    private BsonDocument answer() {
        return BsonDocument.parse(explain.out().trim());
    }

    @Test
    void shouldExplainThePipelineUpdateEventByItsDocumentAtItsWallTime() throws IOException {
        int code = explain("--namespace", "app.sessions", "--event", UPDATE);

        assertThat(code).as(explain.err()).isZero();
        BsonDocument answer = answer();
        assertThat(answer.getBoolean("expires").getValue()).isTrue();
        assertThat(answer.getString("deadline").getValue()).isEqualTo("2026-12-02T08:35:07.581Z");
        assertThat(answer.getDocument("event"))
                .isEqualTo(BsonDocument.parse("{operationType: 'update', documentKey: {_id: 'large'},"
                        + " changeTime: '2026-12-02T07:28:27.671Z'}"));
    }

    @Test
    void shouldExplainThatAnUpdateWhoseDocumentWasGoneOrADeleteSchedulesNothing() throws IOException {
        String gone = "{\"_id\": {\"_data\": \"82\"}, \"operationType\": \"update\", \"fullDocument\": null,"
                + " \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"}, \"documentKey\": {\"_id\": \"large\"}}";
        assertThat(explain("--namespace", "app.sessions", "--event", gone))
                .as(explain.err())
                .isZero();
        assertThat(answer().getString("reason").getValue()).contains("no full document");

        ExplainEventTest again = new ExplainEventTest();
        again.dir = dir;
        String delete = "{\"_id\": {\"_data\": \"82\"}, \"operationType\": \"delete\", \"ns\": {\"db\": \"app\","
                + " \"coll\": \"sessions\"}, \"documentKey\": {\"_id\": \"large\"}}";
        assertThat(again.explain("--namespace", "app.sessions", "--event", delete))
                .isZero();
        assertThat(again.answer().getBoolean("expires").getValue()).isFalse();
        assertThat(again.answer().getString("reason").getValue()).contains("delete event");
    }

    @Test
    void shouldRefuseAnEventOfAnotherNamespaceAndBothDocumentAndEvent() throws IOException {
        assertThat(explain("--namespace", "app.events", "--event", UPDATE)).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(explain.err()).contains("--event").contains("app.sessions");

        ExplainEventTest again = new ExplainEventTest();
        again.dir = dir;
        assertThat(again.explain("--namespace", "app.sessions", "--event", UPDATE, "--document", "{}"))
                .isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(again.explain.err()).contains("either --document or --event");
    }
}
