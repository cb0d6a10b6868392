package io.ttlstreams.embedded.standin;

import static io.ttlstreams.embedded.standin.StandInFixture.collectionUuid;
import static io.ttlstreams.embedded.standin.StandInFixture.json;
import static io.ttlstreams.embedded.standin.StandInFixture.listedUuid;
import static io.ttlstreams.embedded.standin.StandInFixture.next;
import static io.ttlstreams.embedded.standin.StandInFixture.open;
import static io.ttlstreams.embedded.standin.StandInFixture.stable;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoNamespace;
import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.FullDocument;
import com.mongodb.client.model.changestream.FullDocumentBeforeChange;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The corpus of the manual's "Change Events" pages, one operation each, as an application on MongoDB 7.0 receives
 * them with everything switched on: a collection recording pre- and post-images, a stream with {@code
 * showExpandedEvents}, {@code fullDocument: whenAvailable} and {@code fullDocumentBeforeChange: whenAvailable}. Each
 * event is compared whole; its {@code collectionUUID} is the one {@code listCollections} reports. The same operations
 * without these options are in {@link ChangeStreamFidelityTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class DocumentedEventShapesTest {

    private static final String NS = "ns: {db: 'app', coll: 'docs'}";

    @RegisterExtension
    final StandInFixture standIn = new StandInFixture();

    private MongoCollection<Document> docs;
    private UUID uuid;

    @BeforeEach
    void start() {
        standIn.app.createCollection(
                "docs",
                new CreateCollectionOptions()
                        .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));
        docs = standIn.app.getCollection("docs");
        docs.insertOne(new Document("_id", "d1")
                .append("v", 1)
                .append("user", "alice@example.com")
                .append("tags", List.of("a", "b", "c")));
        uuid = listedUuid(standIn.app, "docs");
    }

    private static MongoCursor<RawBsonDocument> everything(ChangeStreamIterable<?> stream) {
        return open(stream.showExpandedEvents(true)
                .fullDocument(FullDocument.WHEN_AVAILABLE)
                .fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE));
    }

    /** The event's stable fields, after checking its {@code collectionUUID} is the collection's. */
    private BsonDocument ofDocs(BsonDocument event) {
        assertThat(collectionUuid(event)).as("collectionUUID of %s", event).isEqualTo(uuid);
        return stable(event);
    }

    @Test
    void shouldShapeAnInsertEventWithoutAPreImage() {
        try (var cursor = everything(docs.watch())) {
            docs.insertOne(new Document("_id", "d2").append("v", 1));

            assertThat(ofDocs(next(cursor, 1).get(0)))
                    .isEqualTo(json("{operationType: 'insert', fullDocument: {_id: 'd2', v: 1}, " + NS
                            + ", documentKey: {_id: 'd2'}}"));
        }
    }

    @Test
    void shouldShapeAnUpdateByOperatorsWithItsPreAndPostImages() {
        try (var cursor = everything(docs.watch())) {
            docs.updateOne(Filters.eq("_id", "d1"), Updates.combine(Updates.inc("v", 1), Updates.unset("tags")));

            assertThat(ofDocs(next(cursor, 1).get(0)))
                    .isEqualTo(
                            json(
                                    "{operationType: 'update', fullDocument: {_id: 'd1', v: 2, user: 'alice@example.com'}, "
                                            + NS
                                            + ", documentKey: {_id: 'd1'}, updateDescription: {updatedFields: {v: 2},"
                                            + " removedFields: ['tags'], truncatedArrays: []},"
                                            + " fullDocumentBeforeChange: {_id: 'd1', v: 1, user: 'alice@example.com', tags: ['a', 'b', 'c']}}"));
        }
    }

    @Test
    void shouldShapeAnUpdateByPipelineWithATruncatedArrayAndItsImages() {
        try (var cursor = everything(docs.watch())) {
            docs.updateOne(
                    Filters.eq("_id", "d1"),
                    List.of(new Document(
                            "$set",
                            new Document("tags", new Document("$slice", List.of("$tags", 2)))
                                    .append("note", "renewed by a pipeline update"))));

            assertThat(ofDocs(next(cursor, 1).get(0)))
                    .isEqualTo(
                            json(
                                    "{operationType: 'update', fullDocument: {_id: 'd1', v: 1, user: 'alice@example.com', tags: ['a', 'b'],"
                                            + " note: 'renewed by a pipeline update'}, " + NS
                                            + ", documentKey: {_id: 'd1'},"
                                            + " updateDescription: {updatedFields: {note: 'renewed by a pipeline update'},"
                                            + " removedFields: [], truncatedArrays: [{field: 'tags', newSize: 2}]},"
                                            + " fullDocumentBeforeChange: {_id: 'd1', v: 1, user: 'alice@example.com', tags: ['a', 'b', 'c']}}"));
        }
    }

    @Test
    void shouldShapeAReplaceWithTheNewDocumentAndThePreImage() {
        try (var cursor = everything(docs.watch())) {
            docs.replaceOne(Filters.eq("_id", "d1"), new Document("w", true));

            assertThat(ofDocs(next(cursor, 1).get(0)))
                    .isEqualTo(
                            json(
                                    "{operationType: 'replace', fullDocument: {_id: 'd1', w: true}, " + NS
                                            + ", documentKey: {_id: 'd1'},"
                                            + " fullDocumentBeforeChange: {_id: 'd1', v: 1, user: 'alice@example.com', tags: ['a', 'b', 'c']}}"));
        }
    }

    @Test
    void shouldShapeADeleteWithThePreImage() {
        try (var cursor = everything(docs.watch())) {
            docs.deleteOne(Filters.eq("_id", "d1"));

            assertThat(ofDocs(next(cursor, 1).get(0)))
                    .isEqualTo(
                            json(
                                    "{operationType: 'delete', " + NS + ", documentKey: {_id: 'd1'},"
                                            + " fullDocumentBeforeChange: {_id: 'd1', v: 1, user: 'alice@example.com', tags: ['a', 'b', 'c']}}"));
        }
    }

    @Test
    void shouldShapeADropAndTheInvalidateThatEndsACollectionStream() {
        try (var cursor = everything(docs.watch())) {
            docs.drop();

            List<BsonDocument> events = next(cursor, 2);
            assertThat(ofDocs(events.get(0))).isEqualTo(json("{operationType: 'drop', " + NS + "}"));
            assertThat(stable(events.get(1))).isEqualTo(json("{operationType: 'invalidate'}"));
        }
    }

    @Test
    void shouldShapeARenameWithItsOperationDescription() {
        try (var cursor = everything(docs.watch())) {
            docs.renameCollection(new MongoNamespace("app", "renamed"));

            List<BsonDocument> events = next(cursor, 2);
            assertThat(ofDocs(events.get(0)))
                    .isEqualTo(json("{operationType: 'rename', " + NS + ", to: {db: 'app', coll: 'renamed'},"
                            + " operationDescription: {to: {db: 'app', coll: 'renamed'}}}"));
            assertThat(stable(events.get(1))).isEqualTo(json("{operationType: 'invalidate'}"));
        }
        assertThat(listedUuid(standIn.app, "renamed"))
                .as("a rename keeps the UUID")
                .isEqualTo(uuid);
    }

    @Test
    void shouldShapeADropDatabaseAfterTheDropsOfItsCollections() {
        try (var cursor = everything(standIn.app.watch())) {
            standIn.app.drop();

            List<BsonDocument> events = next(cursor, 3);
            assertThat(ofDocs(events.get(0))).isEqualTo(json("{operationType: 'drop', " + NS + "}"));
            assertThat(stable(events.get(1)))
                    .as("a database has no collectionUUID")
                    .isEqualTo(json("{operationType: 'dropDatabase', ns: {db: 'app'}}"));
            assertThat(stable(events.get(2))).isEqualTo(json("{operationType: 'invalidate'}"));
        }
    }
}
