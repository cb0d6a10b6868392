package io.ttlstreams.embedded.standin;

import static io.ttlstreams.embedded.standin.StandInFixture.json;
import static io.ttlstreams.embedded.standin.StandInFixture.next;
import static io.ttlstreams.embedded.standin.StandInFixture.open;
import static io.ttlstreams.embedded.standin.StandInFixture.stable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.FullDocument;
import com.mongodb.client.model.changestream.FullDocumentBeforeChange;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * "Change Streams with Document Pre- and Post-Images" (MongoDB 6.0+): a collection created or modified with
 * {@code changeStreamPreAndPostImages: {enabled: true}} keeps, from then on, each changed document's version before
 * (updates, replaces, deletes) and after (updates); a stream gets them with {@code fullDocumentBeforeChange} and
 * {@code fullDocument} set to {@code whenAvailable} (null where there is none) or {@code required} (the stream fails
 * at an event without one); the {@code changeStreamOptions} cluster parameter bounds how long they are kept.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class PreAndPostImagesFidelityTest {

    @RegisterExtension
    final StandInFixture standIn = new StandInFixture();

    private MongoDatabase app;

    @BeforeEach
    void start() {
        app = standIn.app;
    }

    private MongoCollection<Document> createWithImages(String name) {
        app.createCollection(
                name,
                new CreateCollectionOptions()
                        .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));
        return app.getCollection(name);
    }

    private void collMod(String name, boolean enabled) {
        app.runCommand(
                new Document("collMod", name).append("changeStreamPreAndPostImages", new Document("enabled", enabled)));
    }

    @Test
    void shouldGiveTheDocumentBeforeEachUpdateReplaceAndDeleteWhenAvailable() {
        MongoCollection<Document> docs = createWithImages("docs");
        docs.insertOne(new Document("_id", 1).append("v", 1));
        try (var cursor = open(docs.watch().fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE))) {
            docs.insertOne(new Document("_id", 2).append("v", 1));
            docs.updateOne(Filters.eq("_id", 1), Updates.set("v", 2));
            docs.replaceOne(Filters.eq("_id", 1), new Document("r", true));
            docs.deleteOne(Filters.eq("_id", 1));

            List<BsonDocument> events =
                    next(cursor, 4).stream().map(StandInFixture::stable).toList();
            assertThat(events.get(0))
                    .as("an insert has no pre-image field")
                    .doesNotContainKey("fullDocumentBeforeChange");
            assertThat(events.subList(1, 4))
                    .extracting(event -> event.get("fullDocumentBeforeChange"))
                    .containsExactly(json("{_id: 1, v: 1}"), json("{_id: 1, v: 2}"), json("{_id: 1, r: true}"));
        }
    }

    /** The post-image is the document right after the update, not what an updateLookup reads later. */
    @Test
    void shouldGiveTheDocumentAsItWasRightAfterTheUpdateWithFullDocumentWhenAvailable() {
        MongoCollection<Document> docs = createWithImages("docs");
        docs.insertOne(new Document("_id", 1).append("v", 1));
        try (var postImages = open(docs.watch().fullDocument(FullDocument.WHEN_AVAILABLE));
                var lookups = open(docs.watch().fullDocument(FullDocument.UPDATE_LOOKUP))) {
            docs.updateOne(Filters.eq("_id", 1), Updates.set("v", 2));
            docs.updateOne(Filters.eq("_id", 1), Updates.set("v", 3));

            assertThat(next(postImages, 2))
                    .extracting(event -> event.get("fullDocument"))
                    .containsExactly(json("{_id: 1, v: 2}"), json("{_id: 1, v: 3}"));
            assertThat(next(lookups, 2))
                    .extracting(event -> event.get("fullDocument"))
                    .as("updateLookup reads the document when the event is read")
                    .containsExactly(json("{_id: 1, v: 3}"), json("{_id: 1, v: 3}"));
        }
    }

    @Test
    void shouldKeepImagesFromTheMomentCollModEnablesThemUntilItDisablesThem() {
        MongoCollection<Document> docs = app.getCollection("docs");
        docs.insertOne(new Document("_id", 1).append("v", 1));
        try (var cursor = open(docs.watch()
                .fullDocument(FullDocument.WHEN_AVAILABLE)
                .fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE))) {
            docs.updateOne(Filters.eq("_id", 1), Updates.set("v", 2));
            collMod("docs", true);
            docs.updateOne(Filters.eq("_id", 1), Updates.set("v", 3));
            collMod("docs", false);
            docs.updateOne(Filters.eq("_id", 1), Updates.set("v", 4));

            List<BsonDocument> events =
                    next(cursor, 3).stream().map(StandInFixture::stable).toList();
            assertThat(events)
                    .extracting(event -> event.get("fullDocumentBeforeChange"))
                    .containsExactly(BsonNull.VALUE, json("{_id: 1, v: 2}"), BsonNull.VALUE);
            assertThat(events)
                    .extracting(event -> event.get("fullDocument"))
                    .containsExactly(BsonNull.VALUE, json("{_id: 1, v: 3}"), BsonNull.VALUE);
        }
        Document listed = app.listCollections().first();
        assertThat(listed.get("options", Document.class)).doesNotContainKey("changeStreamPreAndPostImages");
    }

    /** "required": MongoDB fails the stream at the first event without the image (NoMatchingDocument, 47). */
    @Test
    void shouldFailAStreamThatRequiresAPreImageAtTheFirstEventWithoutOne() {
        MongoCollection<Document> docs = app.getCollection("docs");
        docs.insertOne(new Document("_id", 1).append("v", 1));
        try (var cursor = open(docs.watch().fullDocumentBeforeChange(FullDocumentBeforeChange.REQUIRED))) {
            docs.insertOne(new Document("_id", 2));
            assertThat(stable(cursor.next()).getString("operationType").getValue())
                    .as("an insert needs no pre-image")
                    .isEqualTo("insert");

            docs.deleteOne(Filters.eq("_id", 1));

            assertThatThrownBy(cursor::next)
                    .isInstanceOf(MongoException.class)
                    .satisfies(e -> assertThat(((MongoException) e).getCode()).isEqualTo(47));
        }
    }

    @Test
    void shouldServeRequiredImagesOfACollectionThatRecordsThem() {
        MongoCollection<Document> docs = createWithImages("docs");
        docs.insertOne(new Document("_id", 1).append("v", 1));
        try (var cursor = open(docs.watch()
                .fullDocument(FullDocument.REQUIRED)
                .fullDocumentBeforeChange(FullDocumentBeforeChange.REQUIRED))) {
            docs.updateOne(Filters.eq("_id", 1), Updates.inc("v", 1));

            assertThat(stable(next(cursor, 1).get(0)))
                    .isEqualTo(json("{operationType: 'update', fullDocument: {_id: 1, v: 2},"
                            + " ns: {db: 'app', coll: 'docs'}, documentKey: {_id: 1},"
                            + " updateDescription: {updatedFields: {v: 2}, removedFields: [], truncatedArrays: []},"
                            + " fullDocumentBeforeChange: {_id: 1, v: 1}}"));
        }
    }

    @Test
    void shouldListTheOptionAndRefuseCollModOfAMissingCollectionOrAnUnknownOption() {
        createWithImages("docs");

        assertThat(app.listCollections().first().get("options", Document.class))
                .isEqualTo(new Document("changeStreamPreAndPostImages", new Document("enabled", true)));
        assertThatThrownBy(() -> collMod("missing", true))
                .isInstanceOf(MongoCommandException.class)
                .satisfies(e ->
                        assertThat(((MongoCommandException) e).getErrorCode()).isEqualTo(26));
        assertThatThrownBy(() -> app.runCommand(new Document("collMod", "docs").append("frobnicate", 1)))
                .isInstanceOf(MongoCommandException.class)
                .satisfies(e ->
                        assertThat(((MongoCommandException) e).getErrorCode()).isEqualTo(40415));
    }

    /**
     * {@code changeStreamOptions.preAndPostImages.expireAfterSeconds}: an image older than that is gone, as if the
     * collection had not recorded it; {@code "off"} keeps images as long as their change is in the history.
     */
    @Test
    void shouldDropImagesOlderThanTheClusterParameterAllows() {
        MongoDatabase admin = standIn.client.getDatabase("admin");
        assertThat(admin.runCommand(new Document("getClusterParameter", "changeStreamOptions"))
                        .getList("clusterParameters", Document.class)
                        .get(0)
                        .get("preAndPostImages", Document.class)
                        .get("expireAfterSeconds"))
                .isEqualTo("off");
        MongoCollection<Document> docs = createWithImages("docs");
        docs.insertOne(new Document("_id", 1).append("v", 1));
        BsonTimestamp before;
        try (var cursor = open(docs.watch())) {
            docs.deleteOne(Filters.eq("_id", 1));
            before = next(cursor, 1).get(0).getTimestamp("clusterTime");
        }

        admin.runCommand(new Document(
                "setClusterParameter",
                new Document(
                        "changeStreamOptions",
                        new Document("preAndPostImages", new Document("expireAfterSeconds", 1)))));

        await("the delete's pre-image expired")
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    try (var replay = open(docs.watch()
                            .startAtOperationTime(before)
                            .fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE))) {
                        return replay.next().get("fullDocumentBeforeChange").isNull();
                    }
                });
        assertThatThrownBy(() -> admin.runCommand(new Document(
                        "setClusterParameter",
                        new Document(
                                "changeStreamOptions",
                                new Document("preAndPostImages", new Document("expireAfterSeconds", -5))))))
                .isInstanceOf(MongoCommandException.class);
    }
}
