package io.ttlstreams.embedded.standin;

import static io.ttlstreams.embedded.standin.StandInFixture.collectionUuid;
import static io.ttlstreams.embedded.standin.StandInFixture.json;
import static io.ttlstreams.embedded.standin.StandInFixture.listedUuid;
import static io.ttlstreams.embedded.standin.StandInFixture.next;
import static io.ttlstreams.embedded.standin.StandInFixture.open;
import static io.ttlstreams.embedded.standin.StandInFixture.stable;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoNamespace;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.RenameCollectionOptions;
import com.mongodb.client.model.Updates;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * "Expanded Events" (MongoDB 6.0+): a stream opened with {@code showExpandedEvents: true} sees {@code
 * collectionUUID} on events, the DDL events {@code create}, {@code createIndexes}, {@code dropIndexes} and {@code
 * modify}, the {@code operationDescription} of renames, and {@code updateDescription.disambiguatedPaths} (6.1);
 * without the option it sees none of them ({@code shardCollection}, {@code refineCollectionShardKey} and {@code
 * reshardCollection}: {@link ShardedCollectionFidelityTest}). {@code nsType} is MongoDB 8.1's, not 7.0's.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class ExpandedEventsFidelityTest {

    @RegisterExtension
    final StandInFixture standIn = new StandInFixture();

    private MongoCollection<Document> docs() {
        return standIn.app.getCollection("docs");
    }

    @Test
    void shouldReportTheCreateOfACollectionByItsFirstWriteAndByCreate() {
        try (var cursor = open(standIn.app.watch().showExpandedEvents(true))) {
            docs().insertOne(new Document("_id", 1));
            standIn.app.createCollection(
                    "images",
                    new CreateCollectionOptions()
                            .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));

            List<BsonDocument> events = next(cursor, 3);
            assertThat(stable(events.get(0)))
                    .isEqualTo(json("{operationType: 'create', ns: {db: 'app', coll: 'docs'},"
                            + " operationDescription: {idIndex: {v: 2, key: {_id: 1}, name: '_id_'}}}"));
            assertThat(stable(events.get(1)).getString("operationType").getValue())
                    .isEqualTo("insert");
            assertThat(stable(events.get(2)))
                    .isEqualTo(json("{operationType: 'create', ns: {db: 'app', coll: 'images'},"
                            + " operationDescription: {changeStreamPreAndPostImages: {enabled: true},"
                            + " idIndex: {v: 2, key: {_id: 1}, name: '_id_'}}}"));
            assertThat(collectionUuid(events.get(0)))
                    .isEqualTo(collectionUuid(events.get(1)))
                    .isEqualTo(listedUuid(standIn.app, "docs"));
        }
    }

    /** An update or findAndModify that matches nothing and inserts nothing creates no collection, in MongoDB. */
    @Test
    void shouldCreateNoCollectionForAWriteThatMatchesNothingAndInsertsNothing() {
        try (var cursor = open(standIn.app.watch().showExpandedEvents(true))) {
            docs().updateOne(Filters.eq("_id", 1), Updates.set("v", 1));
            docs().updateOne(Filters.eq("_id", 1), List.of(new Document("$set", new Document("v", 1))));
            docs().findOneAndUpdate(Filters.eq("_id", 1), Updates.set("v", 1));
            standIn.app.getCollection("marker").insertOne(new Document("_id", 1));

            assertThat(stable(next(cursor, 1).get(0)).getDocument("ns"))
                    .as("the first event is the marker collection's create")
                    .isEqualTo(json("{db: 'app', coll: 'marker'}"));
            assertThat(standIn.app.listCollectionNames().into(new java.util.ArrayList<>()))
                    .containsExactly("marker");
        }
    }

    @Test
    void shouldReportCreateIndexesAndDropIndexesWithTheIndexSpecifications() {
        docs().insertOne(new Document("_id", 1));
        try (var cursor = open(docs().watch().showExpandedEvents(true))) {
            docs().createIndex(Indexes.ascending("email"), new IndexOptions().unique(true));
            docs().dropIndex("email_1");

            assertThat(next(cursor, 2))
                    .extracting(StandInFixture::stable)
                    .containsExactly(
                            json("{operationType: 'createIndexes', ns: {db: 'app', coll: 'docs'},"
                                    + " operationDescription: {indexes: [{v: 2, key: {email: 1}, name: 'email_1',"
                                    + " unique: true}]}}"),
                            json("{operationType: 'dropIndexes', ns: {db: 'app', coll: 'docs'},"
                                    + " operationDescription: {indexes: [{v: 2, key: {email: 1}, name: 'email_1',"
                                    + " unique: true}]}}"));
        }
    }

    @Test
    void shouldReportCollModAsModifyWithTheOptionsBefore() {
        docs().insertOne(new Document("_id", 1));
        UUID uuid = listedUuid(standIn.app, "docs");
        try (var cursor = open(docs().watch().showExpandedEvents(true))) {
            standIn.app.runCommand(new Document("collMod", "docs")
                    .append("changeStreamPreAndPostImages", new Document("enabled", true)));

            BsonDocument event = next(cursor, 1).get(0);
            assertThat(stable(event))
                    .isEqualTo(json("{operationType: 'modify', ns: {db: 'app', coll: 'docs'},"
                            + " operationDescription: {changeStreamPreAndPostImages: {enabled: true}},"
                            + " stateBeforeChange: {collectionOptions: {uuid: {$uuid: '" + uuid + "'}}}}"));
        }
    }

    /**
     * A rename with {@code dropTarget} is one {@code rename} (MongoDB logs no separate drop of the target), with
     * {@code operationDescription.to} and the replaced collection's UUID in {@code dropTarget}; it invalidates streams
     * on the source and on the target.
     */
    @Test
    void shouldDescribeARenameWithItsTargetAndTheCollectionItReplaced() {
        docs().insertOne(new Document("_id", 1));
        standIn.app.getCollection("target").insertOne(new Document("_id", 2));
        UUID replaced = listedUuid(standIn.app, "target");
        try (var database = open(standIn.app.watch().showExpandedEvents(true));
                var target = open(standIn.app.getCollection("target").watch())) {
            docs().renameCollection(
                            new MongoNamespace("app", "target"), new RenameCollectionOptions().dropTarget(true));

            assertThat(stable(next(database, 1).get(0)))
                    .isEqualTo(json("{operationType: 'rename', ns: {db: 'app', coll: 'docs'},"
                            + " to: {db: 'app', coll: 'target'}, operationDescription: {to: {db: 'app',"
                            + " coll: 'target'}, dropTarget: {$uuid: '" + replaced + "'}}}"));
            assertThat(next(target, 2))
                    .extracting(event -> event.getString("operationType").getValue())
                    .containsExactly("rename", "invalidate");
        }
    }

    /** 6.1: "disambiguatedPaths" for a path through a numeric field name of a sub-document, expanded streams only. */
    @Test
    void shouldDisambiguateANumericFieldNameOfASubDocumentForExpandedStreamsOnly() {
        docs().insertOne(
                        new Document("_id", 1).append("a", new Document("0", 0)).append("arr", List.of(0)));
        try (var expanded = open(docs().watch().showExpandedEvents(true));
                var plain = open(docs().watch())) {
            docs().updateOne(Filters.eq("_id", 1), Updates.combine(Updates.set("a.0", 1), Updates.set("arr.0", 1)));

            assertThat(stable(next(expanded, 1).get(0)).getDocument("updateDescription"))
                    .isEqualTo(json("{updatedFields: {'a.0': 1, 'arr.0': 1}, removedFields: [],"
                            + " truncatedArrays: [], disambiguatedPaths: {'a.0': ['a', '0']}}"));
            assertThat(stable(next(plain, 1).get(0)).getDocument("updateDescription"))
                    .doesNotContainKey("disambiguatedPaths");
        }
    }

    @Test
    void shouldShowNoExpandedEventsOrFieldsWithoutTheOption() {
        try (var cursor = open(standIn.app.watch())) {
            docs().insertOne(new Document("_id", 1));
            docs().createIndex(Indexes.ascending("x"));
            standIn.app.runCommand(new Document("collMod", "docs")
                    .append("changeStreamPreAndPostImages", new Document("enabled", true)));
            docs().renameCollection(new MongoNamespace("app", "renamed"));

            List<BsonDocument> events = next(cursor, 2);
            assertThat(events)
                    .extracting(event -> event.getString("operationType").getValue())
                    .containsExactly("insert", "rename");
            assertThat(events)
                    .allSatisfy(event ->
                            assertThat(event).doesNotContainKeys("collectionUUID", "operationDescription", "nsType"));
        }
    }
}
