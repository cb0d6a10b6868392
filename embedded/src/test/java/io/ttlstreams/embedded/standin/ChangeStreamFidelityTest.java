package io.ttlstreams.embedded.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoNamespace;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.DeleteOneModel;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.InsertOneModel;
import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.FullDocument;
import io.ttlstreams.embedded.EmbeddedMongo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * The fidelity corpus: operations made with the official Java driver against the stand-in, and the change events
 * MongoDB's manual documents for them ("Change Events"), compared field by field. The resume token, {@code
 * clusterTime} and {@code wallTime} vary per run: each event must have them, of the right BSON types, and they are
 * compared apart. docs/embedded.md lists what the stand-in still does differently.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class ChangeStreamFidelityTest {

    private EmbeddedMongo mongo;
    private MongoClient client;
    private MongoDatabase app;
    private MongoCollection<Document> docs;

    @BeforeEach
    void start() {
        mongo = EmbeddedMongo.start(0, 50);
        client = MongoClients.create(mongo.connectionString());
        app = client.getDatabase("app");
        docs = app.getCollection("docs");
    }

    @AfterEach
    void stop() {
        client.close();
        mongo.close();
    }

    /** The next {@code count} raw events of a stream, waiting for each (the stream's getMore awaits). */
    private static List<BsonDocument> next(MongoCursor<RawBsonDocument> cursor, int count) {
        List<BsonDocument> events = new ArrayList<>();
        while (events.size() < count) {
            events.add(cursor.next());
        }
        return events;
    }

    private MongoCursor<RawBsonDocument> watchDocs(FullDocument fullDocument) {
        return docs.watch()
                .fullDocument(fullDocument)
                .maxAwaitTime(200, TimeUnit.MILLISECONDS)
                .withDocumentClass(RawBsonDocument.class)
                .cursor();
    }

    /** The event without the fields that vary per run, after checking they are there and of the right types. */
    private static BsonDocument stable(BsonDocument event) {
        return StandInFixture.stable(event);
    }

    private static BsonDocument json(String json) {
        return BsonDocument.parse(json);
    }

    @Test
    void shouldReportAnInsertWithItsDocumentNamespaceAndKey() {
        try (var cursor = watchDocs(FullDocument.DEFAULT)) {
            docs.insertOne(new Document("_id", "d1").append("v", 1));

            assertThat(stable(next(cursor, 1).get(0)))
                    .isEqualTo(json("{operationType: 'insert', fullDocument: {_id: 'd1', v: 1},"
                            + " ns: {db: 'app', coll: 'docs'}, documentKey: {_id: 'd1'}}"));
        }
    }

    @Test
    void shouldDescribeAnUpdateWithSetAndUnsetAndLookUpTheDocumentOnlyWhenAsked() {
        docs.insertOne(new Document("_id", "d1")
                .append("a", 1)
                .append("b", new Document("c", 1))
                .append("gone", 1));
        try (var plain = watchDocs(FullDocument.DEFAULT);
                var lookup = watchDocs(FullDocument.UPDATE_LOOKUP)) {
            docs.updateOne(
                    Filters.eq("_id", "d1"),
                    Updates.combine(Updates.set("a", 2), Updates.set("b.c", 3), Updates.unset("gone")));

            BsonDocument expected = json("{operationType: 'update', ns: {db: 'app', coll: 'docs'},"
                    + " documentKey: {_id: 'd1'}, updateDescription: {updatedFields: {a: 2, 'b.c': 3},"
                    + " removedFields: ['gone'], truncatedArrays: []}}");
            assertThat(stable(next(plain, 1).get(0))).isEqualTo(expected);
            assertThat(stable(next(lookup, 1).get(0)))
                    .isEqualTo(expected.clone().append("fullDocument", json("{_id: 'd1', a: 2, b: {c: 3}}")));
        }
    }

    /** updateLookup reads the document when the event is read: gone by then, MongoDB gives null. */
    @Test
    void shouldLookUpNullWhenTheUpdatedDocumentIsGoneBeforeTheEventIsRead() {
        docs.insertOne(new Document("_id", "d1").append("a", 1));
        try (var cursor = watchDocs(FullDocument.UPDATE_LOOKUP)) {
            docs.updateOne(Filters.eq("_id", "d1"), Updates.set("a", 2));
            docs.deleteOne(Filters.eq("_id", "d1"));

            List<BsonDocument> events = next(cursor, 2);
            assertThat(stable(events.get(0)))
                    .isEqualTo(json("{operationType: 'update', fullDocument: null, ns: {db: 'app', coll: 'docs'},"
                            + " documentKey: {_id: 'd1'}, updateDescription: {updatedFields: {a: 2},"
                            + " removedFields: [], truncatedArrays: []}}"));
            assertThat(stable(events.get(1)))
                    .isEqualTo(json(
                            "{operationType: 'delete', ns: {db: 'app', coll: 'docs'}," + " documentKey: {_id: 'd1'}}"));
        }
    }

    @Test
    void shouldReportAReplaceAsReplaceWithTheNewDocument() {
        docs.insertOne(new Document("_id", "d1").append("a", 1));
        try (var cursor = watchDocs(FullDocument.UPDATE_LOOKUP)) {
            docs.replaceOne(Filters.eq("_id", "d1"), new Document("b", 2));

            assertThat(stable(next(cursor, 1).get(0)))
                    .isEqualTo(json("{operationType: 'replace', fullDocument: {_id: 'd1', b: 2},"
                            + " ns: {db: 'app', coll: 'docs'}, documentKey: {_id: 'd1'}}"));
        }
    }

    @Test
    void shouldReportFindAndModifyLikeTheWritesItMakes() {
        docs.insertOne(new Document("_id", "d1").append("a", 1));
        docs.insertOne(new Document("_id", "d2").append("a", 1));
        try (var cursor = watchDocs(FullDocument.DEFAULT)) {
            docs.findOneAndUpdate(Filters.eq("_id", "d1"), Updates.inc("a", 1));
            docs.findOneAndReplace(Filters.eq("_id", "d2"), new Document("r", true));
            docs.findOneAndDelete(Filters.eq("_id", "d1"));
            docs.findOneAndUpdate(
                    Filters.eq("_id", "d3"),
                    Updates.set("u", 1),
                    new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.BEFORE));

            assertThat(next(cursor, 4))
                    .extracting(ChangeStreamFidelityTest::stable)
                    .containsExactly(
                            json("{operationType: 'update', ns: {db: 'app', coll: 'docs'}, documentKey: {_id: 'd1'},"
                                    + " updateDescription: {updatedFields: {a: 2}, removedFields: [],"
                                    + " truncatedArrays: []}}"),
                            json("{operationType: 'replace', fullDocument: {_id: 'd2', r: true},"
                                    + " ns: {db: 'app', coll: 'docs'}, documentKey: {_id: 'd2'}}"),
                            json("{operationType: 'delete', ns: {db: 'app', coll: 'docs'}, documentKey: {_id: 'd1'}}"),
                            json("{operationType: 'insert', fullDocument: {_id: 'd3', u: 1},"
                                    + " ns: {db: 'app', coll: 'docs'}, documentKey: {_id: 'd3'}}"));
        }
    }

    /** A bulk write's operations in order; a duplicate key stops an ordered bulk write and has no event. */
    @Test
    void shouldReportABulkWriteOperationByOperationAndNothingForARefusedInsert() {
        docs.insertOne(new Document("_id", "dup"));
        try (var cursor = watchDocs(FullDocument.DEFAULT)) {
            docs.bulkWrite(List.of(
                    new InsertOneModel<>(new Document("_id", "b1")),
                    new UpdateOneModel<>(Filters.eq("_id", "b1"), Updates.set("x", 1)),
                    new ReplaceOneModel<>(Filters.eq("_id", "b1"), new Document("y", 2)),
                    new UpdateOneModel<>(
                            Filters.eq("_id", "b2"), Updates.set("z", 3), new UpdateOptions().upsert(true)),
                    new DeleteOneModel<>(Filters.eq("_id", "b1"))));
            assertThatThrownBy(() -> docs.insertMany(List.of(new Document("_id", "dup"), new Document("_id", "after"))))
                    .hasMessageContaining("duplicate key");
            docs.insertOne(new Document("_id", "marker"));

            assertThat(next(cursor, 6))
                    .extracting(event -> event.getString("operationType").getValue() + " "
                            + event.getDocument("documentKey")
                                    .get("_id")
                                    .asString()
                                    .getValue())
                    .containsExactly("insert b1", "update b1", "replace b1", "insert b2", "delete b1", "insert marker");
        }
    }

    @Test
    void shouldEndACollectionStreamWithDropAndInvalidate() {
        docs.insertOne(new Document("_id", "d1"));
        try (var cursor = watchDocs(FullDocument.DEFAULT)) {
            docs.drop();

            List<BsonDocument> events = next(cursor, 2);
            assertThat(stable(events.get(0))).isEqualTo(json("{operationType: 'drop', ns: {db: 'app', coll: 'docs'}}"));
            assertThat(stable(events.get(1))).isEqualTo(json("{operationType: 'invalidate'}"));
            assertThat(cursor.tryNext()).isNull();
            assertThat(cursor.getServerCursor()).as("closed by the server").isNull();
        }
    }

    @Test
    void shouldReportARenameWithItsTargetAndInvalidateTheCollectionStream() {
        docs.insertOne(new Document("_id", "d1"));
        try (var cursor = watchDocs(FullDocument.DEFAULT)) {
            docs.renameCollection(new MongoNamespace("app", "renamed"));

            List<BsonDocument> events = next(cursor, 2);
            assertThat(stable(events.get(0)))
                    .isEqualTo(json("{operationType: 'rename', ns: {db: 'app', coll: 'docs'},"
                            + " to: {db: 'app', coll: 'renamed'}}"));
            assertThat(stable(events.get(1))).isEqualTo(json("{operationType: 'invalidate'}"));
        }
    }

    /** One stream per database: what one source connector per database watches. */
    @Test
    void shouldWatchEveryCollectionOfADatabaseUntilItIsDropped() {
        app.getCollection("a").insertOne(new Document("_id", 1));
        try (var cursor = app.watch()
                .maxAwaitTime(200, TimeUnit.MILLISECONDS)
                .withDocumentClass(RawBsonDocument.class)
                .cursor()) {
            app.getCollection("a").insertOne(new Document("_id", 2));
            client.getDatabase("other").getCollection("x").insertOne(new Document("_id", 3));
            app.getCollection("b").insertOne(new Document("_id", 4));
            app.drop();

            assertThat(next(cursor, 6))
                    .extracting(event -> {
                        BsonDocument stable = stable(event);
                        stable.remove("fullDocument");
                        return stable;
                    })
                    .containsExactly(
                            json("{operationType: 'insert', ns: {db: 'app', coll: 'a'}, documentKey: {_id: 2}}"),
                            json("{operationType: 'insert', ns: {db: 'app', coll: 'b'}, documentKey: {_id: 4}}"),
                            json("{operationType: 'drop', ns: {db: 'app', coll: 'a'}}"),
                            json("{operationType: 'drop', ns: {db: 'app', coll: 'b'}}"),
                            json("{operationType: 'dropDatabase', ns: {db: 'app'}}"),
                            json("{operationType: 'invalidate'}"));
        }
    }

    @Test
    void shouldWatchTheWholeDeployment() {
        try (var cursor = client.watch()
                .maxAwaitTime(200, TimeUnit.MILLISECONDS)
                .withDocumentClass(RawBsonDocument.class)
                .cursor()) {
            app.getCollection("a").insertOne(new Document("_id", 1));
            client.getDatabase("other").getCollection("x").insertOne(new Document("_id", 2));

            assertThat(next(cursor, 2))
                    .extracting(event -> event.getDocument("ns"))
                    .containsExactly(json("{db: 'app', coll: 'a'}"), json("{db: 'other', coll: 'x'}"));
        }
    }

    @Test
    void shouldResumeAfterAnEventAndFromAnOperationTime() {
        BsonDocument firstToken;
        BsonTimestamp secondTime;
        try (var cursor = watchDocs(FullDocument.DEFAULT)) {
            docs.insertOne(new Document("_id", 1));
            docs.insertOne(new Document("_id", 2));
            List<BsonDocument> events = next(cursor, 2);
            firstToken = events.get(0).getDocument("_id");
            secondTime = events.get(1).getTimestamp("clusterTime");
        }
        Function<Bson, Object> keyOf =
                event -> ((BsonDocument) event).getDocument("documentKey").get("_id");
        try (var resumed = docs.watch()
                .resumeAfter(firstToken)
                .withDocumentClass(RawBsonDocument.class)
                .cursor()) {
            assertThat(keyOf.apply(resumed.next())).isEqualTo(new org.bson.BsonInt32(2));
        }
        try (var fromTime = docs.watch()
                .startAtOperationTime(secondTime)
                .withDocumentClass(RawBsonDocument.class)
                .cursor()) {
            assertThat(keyOf.apply(fromTime.next())).isEqualTo(new org.bson.BsonInt32(2));
        }
    }

    /** The history is bounded (50 changes here): a token older than it fails as MongoDB's does (286). */
    @Test
    void shouldRefuseToResumeFromATokenTheHistoryNoLongerHolds() {
        BsonDocument oldToken;
        try (var cursor = watchDocs(FullDocument.DEFAULT)) {
            docs.insertOne(new Document("_id", 0));
            oldToken = cursor.next().getDocument("_id");
        }
        for (int i = 1; i <= 60; i++) {
            docs.insertOne(new Document("_id", i));
        }

        assertThatThrownBy(() -> docs.watch().resumeAfter(oldToken).cursor().tryNext())
                .isInstanceOf(MongoCommandException.class)
                .satisfies(e ->
                        assertThat(((MongoCommandException) e).getErrorCode()).isEqualTo(286));
    }

    /** The production pipeline's key-size guard: {@code $bsonSize}, which mongo-java-server itself lacks. */
    @Test
    void shouldEvaluateBsonSizeOfTheDocumentKeyInTheStreamPipeline() {
        Bson smallKeys = Aggregates.match(
                Filters.expr(new Document("$lte", List.of(new Document("$bsonSize", "$documentKey"), 30))));
        try (var cursor = docs.watch(List.of(smallKeys))
                .maxAwaitTime(200, TimeUnit.MILLISECONDS)
                .withDocumentClass(RawBsonDocument.class)
                .cursor()) {
            docs.insertOne(new Document("_id", "x".repeat(100)));
            docs.insertOne(new Document("_id", "small"));

            BsonDocument event = cursor.next();
            assertThat(event.getDocument("documentKey")).isEqualTo(json("{_id: 'small'}"));
            assertThat(event.keySet()).as("no helper field left").allMatch(key -> !key.startsWith("__standin"));
        }
    }
}
