package io.ttlstreams.resync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.EmbeddedMongo;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A resync whose cursor MongoDB loses mid-read, as after ten idle minutes while Kafka stalled: the stand-in's
 * {@code failCommand} fail point answers the read's {@code getMore} with CursorNotFound (43), as MongoDB answers the
 * {@code getMore} of a cursor it timed out.
 */
class ResyncLostCursorTest {

    private static final Namespace DOCS = Namespace.parse("app.docs");

    /** Numbers, then strings: a resume after a number must still find every string. */
    private static final List<BsonValue> IDS = IntStream.range(0, 10)
            .mapToObj(i -> i < 5 ? (BsonValue) new BsonInt32(i) : new BsonString("s" + i))
            .toList();

    private EmbeddedMongo mongo;
    private MongoClient client;

    @BeforeEach
    void start() {
        mongo = EmbeddedMongo.start(0, 200);
        client = MongoClients.create(mongo.connectionString());
        // Inserted in reverse, so that the natural order is not the _id order.
        for (int i = IDS.size() - 1; i >= 0; i--) {
            client.getDatabase("app")
                    .getCollection("docs", BsonDocument.class)
                    .insertOne(new BsonDocument("_id", IDS.get(i)).append("expireAt", new BsonInt32(i)));
        }
    }

    @AfterEach
    void stop() {
        client.close();
        mongo.close();
    }

    private Resync resync() {
        TtlStreamsConfig config = new TtlStreamsConfig(Map.of(
                "ttl.rules", "docs",
                "ttl.rule.docs.namespace", DOCS.toString(),
                "ttl.rule.docs.field", "expireAt",
                "ttl.resync.batch.size", "3",
                "ttl.mongodb.uri", mongo.connectionString()));
        return new Resync(config, client, Clock.systemUTC());
    }

    /** Fails the read's getMores with CursorNotFound, as MongoDB fails the getMore of a cursor it killed. */
    private void loseCursors(Object mode) {
        client.getDatabase("admin")
                .runCommand(new Document("configureFailPoint", "failCommand")
                        .append("mode", mode)
                        .append("data", new Document("failCommands", List.of("getMore")).append("errorCode", 43)));
    }

    private long failPointOff() {
        return ((Number) client.getDatabase("admin")
                        .runCommand(new Document("configureFailPoint", "failCommand").append("mode", "off"))
                        .get("count"))
                .longValue();
    }

    private static List<BsonValue> ids(ListSink sink) {
        return sink.events.stream()
                .map(event -> BsonDocument.parse(event.value())
                        .getDocument("documentKey")
                        .get("_id"))
                .toList();
    }

    @Test
    void shouldPublishEveryDocumentOnceInIdOrderWhenTheCursorIsLostMidRead() {
        // The first batch (3) is read, the getMore for the second fails: the read resumes after _id 2.
        loseCursors(new Document("times", 1));
        ListSink sink = new ListSink();

        ResyncReport report = resync().run(ResyncSelection.ALL, Optional.of(sink), ResyncProgress.none());

        assertThat(failPointOff()).as("getMores failed").isEqualTo(1);
        assertThat(ids(sink)).containsExactlyElementsOf(IDS);
        assertThat(report.namespaces().get(DOCS).read()).isEqualTo(IDS.size());
        assertThat(report.namespaces().get(DOCS).published()).isEqualTo(IDS.size());
        assertThat(report.namespaces().get(DOCS).resumed()).isEqualTo(1);
        assertThat(report.summary()).contains("cursor lost once, the read resumed after the last _id it had read");
    }

    @Test
    void shouldResumeAfterEachLossWhileEachReadMakesProgress() {
        // Every getMore fails: each resumed read gets its first batch from its find, and goes on from there.
        loseCursors("alwaysOn");
        ListSink sink = new ListSink();

        ResyncReport report = resync().run(ResyncSelection.ALL, Optional.of(sink), ResyncProgress.none());

        assertThat(ids(sink)).containsExactlyElementsOf(IDS);
        assertThat(report.namespaces().get(DOCS).resumed()).isEqualTo(3);
        assertThat(failPointOff()).isEqualTo(3);
    }

    @Test
    void shouldFailThePassWhenTheCursorIsLostAgainAndAgainWithoutProgress() {
        // The finds fail too: no read gets anywhere, and after the bound the pass fails as any MongoDB failure does.
        client.getDatabase("admin")
                .runCommand(new Document("configureFailPoint", "failCommand")
                        .append("mode", "alwaysOn")
                        .append(
                                "data",
                                new Document("failCommands", List.of("find", "getMore")).append("errorCode", 43)));
        ListSink sink = new ListSink();

        assertThatThrownBy(() -> resync().run(ResyncSelection.ALL, Optional.of(sink), ResyncProgress.none()))
                .isInstanceOf(MongoException.class);

        assertThat(failPointOff()).as("finds failed").isEqualTo(1 + Resync.RESUMES_WITHOUT_PROGRESS_MAX);
        assertThat(sink.events).isEmpty();
    }
}
