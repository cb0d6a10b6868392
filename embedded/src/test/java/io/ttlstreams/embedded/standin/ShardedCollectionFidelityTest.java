package io.ttlstreams.embedded.standin;

import static io.ttlstreams.embedded.standin.StandInFixture.collectionUuid;
import static io.ttlstreams.embedded.standin.StandInFixture.json;
import static io.ttlstreams.embedded.standin.StandInFixture.listedUuid;
import static io.ttlstreams.embedded.standin.StandInFixture.next;
import static io.ttlstreams.embedded.standin.StandInFixture.open;
import static io.ttlstreams.embedded.standin.StandInFixture.stable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.FullDocument;
import io.ttlstreams.embedded.EmbeddedMongo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sharded collection, as the manual and MongoDB's sharding jstests describe it (read, not copied): {@code
 * shardCollection}, {@code refineCollectionShardKey} and {@code reshardCollection} sent to {@code admin} as {@code
 * mongosh}'s {@code sh.*} helpers send them; the {@code documentKey} of later events (shard key fields in the key's
 * order, then {@code _id} unless the key holds it; a missing field left out, SERVER-75993); the expanded events of the
 * three commands ("Change Events": shardCollection, refineCollectionShardKey, reshardCollection); and what an update
 * that changes a shard key value produces ({@link ShardKeys}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class ShardedCollectionFidelityTest {

    @RegisterExtension
    final StandInFixture standIn = new StandInFixture();

    private MongoCollection<Document> sessions() {
        return standIn.app.getCollection("sessions");
    }

    private Document admin(Document command) {
        return standIn.client.getDatabase("admin").runCommand(command);
    }

    private void shard(String command, Document key) {
        admin(new Document(command, "app.sessions").append("key", key));
    }

    private static List<BsonDocument> documentKeys(List<BsonDocument> events) {
        return events.stream().map(event -> event.getDocument("documentKey")).toList();
    }

    /** change_stream_resume_shard_key_change.js's sequence: unsharded, sharded, refined. */
    @Test
    void shouldKeyLaterEventsByTheShardKeyWhenTheCollectionIsShardedThenRefined() {
        try (var cursor = open(sessions().watch())) {
            sessions().insertOne(new Document("_id", 0).append("tenant", "a").append("region", "eu"));
            shard("shardCollection", new Document("tenant", 1));
            sessions().insertOne(new Document("_id", 1).append("tenant", "b").append("region", "eu"));
            shard("refineCollectionShardKey", new Document("tenant", 1).append("region", 1));
            sessions().insertOne(new Document("_id", 2).append("region", "us").append("tenant", "c"));
            sessions().updateOne(Filters.eq("_id", 0), Updates.set("v", 1));
            sessions().deleteOne(Filters.eq("_id", 1));

            assertThat(documentKeys(next(cursor, 5)))
                    .containsExactly(
                            json("{_id: 0}"),
                            json("{tenant: 'b', _id: 1}"),
                            json("{tenant: 'c', region: 'us', _id: 2}"),
                            json("{tenant: 'a', region: 'eu', _id: 0}"),
                            json("{tenant: 'b', region: 'eu', _id: 1}"));
        }
    }

    /** oplog_document_key.js: _id in its place when the key holds it; a hashed field with its value, not its hash. */
    @Test
    void shouldPlaceIdWhereTheShardKeyHoldsItAndKeepAHashedFieldsValue() {
        MongoCollection<Document> byIdX = standIn.app.getCollection("byIdX");
        MongoCollection<Document> hashed = standIn.app.getCollection("hashed");
        admin(new Document("shardCollection", "app.byIdX").append("key", new Document("_id", 1).append("x", 1)));
        admin(new Document("shardCollection", "app.hashed").append("key", new Document("x", "hashed")));
        try (var cursor = open(standIn.app.watch())) {
            byIdX.insertOne(new Document("y", 1).append("x", 54).append("_id", 14));
            hashed.insertOne(new Document("_id", 15).append("x", 55));

            assertThat(documentKeys(next(cursor, 2)))
                    .containsExactly(json("{_id: 14, x: 54}"), json("{x: 55, _id: 15}"));
        }
    }

    /**
     * SERVER-75993: a document without a shard key field has no such field in its documentKey, also in the event of
     * the update that sets it (keyed by the document before); a null is kept.
     */
    @Test
    void shouldLeaveOutAMissingShardKeyFieldAndKeepANullOne() {
        shard("shardCollection", new Document("tenant", 1).append("profile.region", 1));
        try (var cursor = open(sessions().watch())) {
            sessions().insertOne(new Document("_id", 1));
            sessions().insertOne(new Document("_id", 2).append("tenant", null));
            sessions().insertOne(new Document("_id", 3).append("profile", new Document("region", "eu")));
            // SERVER-75993's update: keyed by the document before it, which had no such field.
            sessions().updateOne(Filters.eq("_id", 1), Updates.set("profile.region", "us"));

            assertThat(documentKeys(next(cursor, 4)))
                    .containsExactly(
                            json("{_id: 1}"),
                            json("{tenant: null, _id: 2}"),
                            json("{'profile.region': 'eu', _id: 3}"),
                            json("{_id: 1}"));
        }
    }

    /** The three events with the manual's operationDescription fields, to expanded streams only. */
    @Test
    void shouldReportShardRefineAndReshardAsExpandedEvents() {
        sessions().insertOne(new Document("_id", 1).append("tenant", "a"));
        UUID original = listedUuid(standIn.app, "sessions");
        try (var expanded = open(sessions().watch().showExpandedEvents(true));
                var plain = open(sessions().watch())) {
            shard("shardCollection", new Document("tenant", 1));
            shard("refineCollectionShardKey", new Document("tenant", 1).append("region", 1));
            admin(new Document("reshardCollection", "app.sessions").append("key", new Document("owner", 1)));
            sessions().insertOne(new Document("_id", 2).append("owner", "o"));

            List<BsonDocument> events = next(expanded, 4);
            assertThat(stable(events.get(0)))
                    .isEqualTo(json("{operationType: 'shardCollection', ns: {db: 'app', coll: 'sessions'},"
                            + " operationDescription: {shardKey: {tenant: 1}, unique: false,"
                            + " presplitHashedZones: false}}"));
            assertThat(stable(events.get(1)))
                    .isEqualTo(json("{operationType: 'refineCollectionShardKey', ns: {db: 'app', coll: 'sessions'},"
                            + " operationDescription: {shardKey: {tenant: 1, region: 1}, oldShardKey: {tenant: 1}}}"));
            BsonDocument reshard = stable(events.get(2));
            UUID reshardUuid = reshard.getDocument("operationDescription")
                    .getBinary("reshardUUID")
                    .asUuid();
            reshard.getDocument("operationDescription").remove("reshardUUID");
            assertThat(reshard)
                    .isEqualTo(json("{operationType: 'reshardCollection', ns: {db: 'app', coll: 'sessions'},"
                            + " operationDescription: {shardKey: {owner: 1}, oldShardKey: {tenant: 1, region: 1},"
                            + " unique: false, numInitialChunks: {$numberLong: '1'}}}"));
            assertThat(List.of(collectionUuid(events.get(0)), collectionUuid(events.get(2))))
                    .containsOnly(original);
            assertThat(collectionUuid(events.get(3)))
                    .as("the resharded collection is the one made with the resharding's UUID")
                    .isEqualTo(reshardUuid)
                    .isEqualTo(listedUuid(standIn.app, "sessions"));
            assertThat(events.get(3).getDocument("documentKey")).isEqualTo(json("{owner: 'o', _id: 2}"));
            assertThat(next(plain, 1).get(0).getString("operationType").getValue())
                    .as("a stream without showExpandedEvents sees the insert only")
                    .isEqualTo("insert");
        }
    }

    /**
     * A change of the key's first field moves the document to another shard: a delete keyed by the old value and an
     * insert keyed by the new one, no update, at one cluster time (the manual's "Change a Document's Shard Key Value",
     * SERVER-39835).
     */
    @Test
    void shouldRecordADeleteAndAnInsertWhenAnUpdateMovesTheDocumentToAnotherShard() {
        shard("shardCollection", new Document("tenant", 1));
        sessions().insertOne(new Document("_id", 1).append("tenant", "a").append("v", 0));
        try (var cursor = open(sessions().watch().fullDocument(FullDocument.UPDATE_LOOKUP))) {
            sessions()
                    .updateOne(
                            Filters.and(Filters.eq("_id", 1), Filters.eq("tenant", "a")), Updates.set("tenant", "b"));

            List<BsonDocument> events = next(cursor, 2);
            assertThat(stable(events.get(0)))
                    .isEqualTo(json("{operationType: 'delete', ns: {db: 'app', coll: 'sessions'},"
                            + " documentKey: {tenant: 'a', _id: 1}}"));
            assertThat(stable(events.get(1)))
                    .isEqualTo(json("{operationType: 'insert', fullDocument: {_id: 1, tenant: 'b', v: 0},"
                            + " ns: {db: 'app', coll: 'sessions'}, documentKey: {tenant: 'b', _id: 1}}"));
            assertThat(events.get(1).get("clusterTime"))
                    .as("one transaction: its events share its commit time")
                    .isEqualTo(events.get(0).get("clusterTime"));
        }
    }

    /**
     * A change of a later field only keeps the document on its shard: an update keyed by the old value, whose
     * updateLookup (by the whole documentKey) finds nothing: {@code fullDocument: null}.
     */
    @Test
    void shouldKeyAnUpdateByTheOldValueAndLookUpNullWhenTheDocumentStaysOnItsShard() {
        shard("shardCollection", new Document("tenant", 1).append("region", 1));
        sessions().insertOne(new Document("_id", 1).append("tenant", "a").append("region", "eu"));
        sessions().insertOne(new Document("_id", 2).append("tenant", "a").append("region", "eu"));
        try (var cursor = open(sessions().watch().fullDocument(FullDocument.UPDATE_LOOKUP))) {
            sessions().updateOne(Filters.eq("_id", 1), Updates.set("region", "us"));
            sessions().updateOne(Filters.eq("_id", 2), Updates.set("v", 1));

            List<BsonDocument> events = next(cursor, 2);
            assertThat(stable(events.get(0)))
                    .isEqualTo(json("{operationType: 'update', fullDocument: null, ns: {db: 'app', coll: 'sessions'},"
                            + " documentKey: {tenant: 'a', region: 'eu', _id: 1}, updateDescription:"
                            + " {updatedFields: {region: 'us'}, removedFields: [], truncatedArrays: []}}"));
            assertThat(events.get(1).getDocument("fullDocument"))
                    .as("an update that keeps the key is looked up as before")
                    .isEqualTo(json("{_id: 2, tenant: 'a', region: 'eu', v: 1}"));
        }
    }

    /** A collection's shard key is part of the data kept on the data directory, like its UUID. */
    @Test
    void shouldKeepTheShardKeyWhenTheStandInRestartsOnItsDataDirectory(@TempDir Path dataDir) {
        try (EmbeddedMongo first = EmbeddedMongo.start(0, dataDir);
                MongoClient client = MongoClients.create(first.connectionString())) {
            client.getDatabase("admin")
                    .runCommand(new Document("shardCollection", "app.sessions")
                            .append("key", new Document("tenant", 1))
                            .append("unique", true));
        }
        try (EmbeddedMongo second = EmbeddedMongo.start(0, dataDir);
                MongoClient client = MongoClients.create(second.connectionString())) {
            MongoCollection<Document> sessions = client.getDatabase("app").getCollection("sessions");
            try (var cursor = open(sessions.watch())) {
                sessions.insertOne(new Document("_id", 1).append("tenant", "a"));

                assertThat(next(cursor, 1).get(0).getDocument("documentKey")).isEqualTo(json("{tenant: 'a', _id: 1}"));
            }
            assertThatThrownBy(() -> client.getDatabase("admin")
                            .runCommand(new Document("shardCollection", "app.sessions")
                                    .append("key", new Document("tenant", 1))))
                    .as("the same key without unique is another request")
                    .isInstanceOfSatisfying(
                            MongoCommandException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo(23));
        }
    }

    @Test
    void shouldRefuseWhatMongoDBRefusesWhenAShardKeyCommandIsWrong() {
        sessions().insertOne(new Document("_id", 1));
        assertThatThrownBy(() -> shard("refineCollectionShardKey", new Document("tenant", 1)))
                .isInstanceOfSatisfying(
                        MongoCommandException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(118));
        assertThatThrownBy(() -> admin(new Document("reshardCollection", "none.x").append("key", new Document("a", 1))))
                .isInstanceOfSatisfying(
                        MongoCommandException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(118));
        assertThat(standIn.client.listDatabaseNames().into(new ArrayList<>()))
                .as("a refused command creates no database")
                .doesNotContain("none");
        assertThatThrownBy(() -> shard("shardCollection", new Document("tenant", -1)))
                .isInstanceOfSatisfying(
                        MongoCommandException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(2));
        shard("shardCollection", new Document("tenant", 1));
        shard("shardCollection", new Document("tenant", 1)); // the same again: ok
        assertThatThrownBy(() -> shard("shardCollection", new Document("owner", 1)))
                .isInstanceOfSatisfying(
                        MongoCommandException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(23));
        assertThatThrownBy(() -> shard("refineCollectionShardKey", new Document("region", 1).append("tenant", 1)))
                .isInstanceOfSatisfying(
                        MongoCommandException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(72));
    }

    /**
     * The stand-in stays the primary of a replica set (see {@link ShardKeys}'s package docs in docs/embedded.md): no
     * {@code msg: "isdbgrid"}, and, like a replica set (or a shard's own member), no sharding catalog in {@code
     * config.collections}; {@code listCollections} shows no shard key, through mongos neither.
     */
    @Test
    void shouldStayAReplicaSetWithoutAShardingCatalogWhenACollectionIsSharded() {
        shard("shardCollection", new Document("tenant", 1));

        Document hello = admin(new Document("hello", 1));
        assertThat(hello).containsKey("setName").doesNotContainKey("msg");
        assertThat(standIn.client
                        .getDatabase("config")
                        .getCollection("collections")
                        .find()
                        .into(new ArrayList<>()))
                .isEmpty();
        BsonDocument listed = standIn.app
                .listCollections(BsonDocument.class)
                .into(new ArrayList<>())
                .get(0);
        assertThat(listed.getString("name").getValue()).isEqualTo("sessions");
        assertThat(listed.toJson()).doesNotContain("tenant");
    }
}
