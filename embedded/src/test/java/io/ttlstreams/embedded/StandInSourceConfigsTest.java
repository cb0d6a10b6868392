package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.FullDocument;
import io.ttlstreams.contract.Namespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/** The stand-in source connector configuration, and its pipeline on a live stand-in. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class StandInSourceConfigsTest {

    @Test
    void shouldConfigureOneCollectionPerConnectorPublishingToItsNamespaceTopic() {
        Map<String, String> config =
                StandInSourceConfigs.forNamespace(Namespace.parse("app.user.sessions"), "mongodb://h:1");

        assertThat(config)
                .containsEntry("database", "app")
                .containsEntry("collection", "user.sessions")
                .containsEntry("connection.uri", "mongodb://h:1")
                .containsEntry("output.json.formatter", "com.mongodb.kafka.connect.source.json.formatter.ExtendedJson")
                .containsEntry("change.stream.full.document", "updateLookup")
                .containsEntry("startup.mode", "latest");
        assertThat(StandInSourceConfigs.topic(Namespace.parse("app.user.sessions")))
                .isEqualTo("app.user.sessions");
        assertThat(StandInSourceConfigs.connectorName(Namespace.parse("app.sessions")))
                .isEqualTo("mongo-source-app.sessions");
        assertThat(BsonArray.parse(config.get("pipeline"))).hasSize(5);
    }

    @Test
    void shouldQuoteNamesInsideThePipeline() {
        BsonArray pipeline = BsonArray.parse(StandInSourceConfigs.pipeline(Namespace.of("db", "we\"ird\\coll")));

        assertThat(pipeline.get(2).asDocument().getDocument("$addFields").getDocument("ns"))
                .isEqualTo(
                        new BsonDocument("db", new BsonString("db")).append("coll", new BsonString("we\"ird\\coll")));
    }

    /**
     * The pipeline on the real stand-in, with every event read only after all writes: the worst case, because the
     * stand-in evaluates updateLookup when the event is read.
     */
    @Test
    void shouldMakeStandInEventsLookLikeRealMongoDbEvents() {
        try (EmbeddedMongo mongo = EmbeddedMongo.start(0);
                MongoClient client = MongoClients.create(mongo.connectionString())) {
            MongoCollection<BsonDocument> docs = client.getDatabase("ttl").getCollection("docs", BsonDocument.class);
            List<BsonDocument> pipeline =
                    BsonArray.parse(StandInSourceConfigs.pipeline(Namespace.of("ttl", "docs"))).stream()
                            .map(BsonValue::asDocument)
                            .toList();
            List<BsonDocument> events = new ArrayList<>();
            try (MongoCursor<BsonDocument> cursor = docs.watch(pipeline)
                    .fullDocument(FullDocument.UPDATE_LOOKUP)
                    .maxAwaitTime(100, TimeUnit.MILLISECONDS)
                    .withDocumentClass(BsonDocument.class)
                    .cursor()) {
                docs.insertOne(BsonDocument.parse("{_id: 'kept', v: 1}"));
                docs.updateOne(Filters.eq("_id", "kept"), Updates.set("v", 2));
                docs.replaceOne(Filters.eq("_id", "kept"), BsonDocument.parse("{_id: 'kept', v: 3}"));
                docs.insertOne(BsonDocument.parse("{_id: 'gone', v: 1}"));
                docs.updateOne(Filters.eq("_id", "gone"), Updates.set("v", 2));
                docs.replaceOne(Filters.eq("_id", "gone"), BsonDocument.parse("{_id: 'gone', v: 3}"));
                docs.deleteOne(Filters.eq("_id", "gone"));
                for (int i = 0; i < 10; i++) {
                    BsonDocument next = cursor.tryNext();
                    if (next != null) {
                        events.add(next);
                    }
                }
            }

            BsonDocument ns = BsonDocument.parse("{db: 'ttl', coll: 'docs'}");
            assertThat(events)
                    .allSatisfy(event -> assertThat(event.getDocument("ns")).isEqualTo(ns));
            assertThat(events)
                    .extracting(e -> e.getString("operationType").getValue() + " "
                            + e.getDocument("documentKey").toJson() + " " + e.get("fullDocument"))
                    .containsExactly(
                            "insert {\"_id\": \"kept\"} {\"_id\": \"kept\", \"v\": 1}",
                            // looked up when read, so both already see the replacement
                            "update {\"_id\": \"kept\"} {\"_id\": \"kept\", \"v\": 3}",
                            "update {\"_id\": \"kept\"} {\"_id\": \"kept\", \"v\": 3}",
                            "insert {\"_id\": \"gone\"} {\"_id\": \"gone\", \"v\": 1}",
                            // the $set update of the deleted document has no recoverable _id: dropped;
                            // the replace (reported as an update) keeps its _id, the lookup found nothing
                            "update {\"_id\": \"gone\"} BsonNull",
                            "delete {\"_id\": \"gone\"} BsonNull");
        }
    }
}
