package io.ttlstreams.embedded.standin;

import static io.ttlstreams.embedded.standin.StandInFixture.json;
import static io.ttlstreams.embedded.standin.StandInFixture.next;
import static io.ttlstreams.embedded.standin.StandInFixture.open;
import static io.ttlstreams.embedded.standin.StandInFixture.stable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.UpdateManyModel;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.changestream.FullDocument;
import com.mongodb.client.result.UpdateResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Updates with an aggregation pipeline (MongoDB 4.2+, "Updates with Aggregation Pipeline"), the natural way to renew a
 * TTL deadline from the server's clock, through every driver method that takes one, and their change events as
 * MongoDB describes them: an {@code update} event whose {@code updateDescription} has the fields that changed, a
 * field replaced whole in {@code updatedFields}, an array the pipeline shortened in {@code truncatedArrays}; a
 * {@code replace} event where MongoDB logs the update as a replacement (its delta not smaller than the document).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class PipelineUpdateFidelityTest {

    /** {@code expireAt} one hour after the server's clock. */
    private static final List<Bson> RENEW =
            List.of(new Document("$set", new Document("expireAt", new Document("$add", List.of("$$NOW", 3_600_000)))));

    @RegisterExtension
    final StandInFixture standIn = new StandInFixture();

    private MongoCollection<Document> sessions;

    @BeforeEach
    void start() {
        sessions = standIn.app.getCollection("sessions");
    }

    private static Document session(String id) {
        return new Document("_id", id)
                .append("user", "user-of-" + id)
                .append("expireAt", new Date(0))
                .append("roles", List.of("reader", "writer", "admin"));
    }

    private static void assertRenewedAt(Document document, Instant before, Instant after) {
        Instant expireAt = document.getDate("expireAt").toInstant();
        assertThat(expireAt)
                .isBetween(before.minusMillis(1).plus(Duration.ofHours(1)), after.plus(Duration.ofHours(1)));
    }

    @Test
    void shouldRenewADeadlineFromTheServerClockWithUpdateOneAndAPipeline() {
        sessions.insertOne(session("s1"));
        Instant before = Instant.now();

        UpdateResult result = sessions.updateOne(Filters.eq("_id", "s1"), RENEW);

        assertThat(result.getMatchedCount()).isEqualTo(1);
        assertThat(result.getModifiedCount()).isEqualTo(1);
        assertRenewedAt(sessions.find(Filters.eq("_id", "s1")).first(), before, Instant.now());
    }

    /** "$$NOW returns the same value ... throughout all stages": every document of one update gets one time. */
    @Test
    void shouldGiveEveryDocumentOfAnUpdateManyTheSameNow() {
        for (int i = 0; i < 20; i++) {
            sessions.insertOne(session("s" + i));
        }

        UpdateResult result = sessions.updateMany(Filters.exists("_id"), RENEW);

        assertThat(result.getModifiedCount()).isEqualTo(20);
        assertThat(sessions.distinct("expireAt", Date.class).into(new java.util.ArrayList<>()))
                .hasSize(1);
    }

    @Test
    void shouldRunAPipelineThroughFindOneAndUpdateAndBulkWrite() {
        sessions.insertOne(session("s1"));
        sessions.insertOne(session("s2"));
        Instant before = Instant.now();

        Document returned = sessions.findOneAndUpdate(
                Filters.eq("_id", "s1"), RENEW, new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER));
        var bulk = sessions.bulkWrite(List.of(
                new UpdateOneModel<>(Filters.eq("_id", "s2"), RENEW),
                new UpdateManyModel<>(Filters.eq("user", "nobody"), RENEW)));

        Instant after = Instant.now();
        assertRenewedAt(returned, before, after);
        assertThat(bulk.getModifiedCount()).isEqualTo(1);
        assertRenewedAt(sessions.find(Filters.eq("_id", "s2")).first(), before, after);
    }

    @Test
    void shouldReportAPipelineUpdateAsAnUpdateEventWithTheFieldsThatChanged() {
        sessions.insertOne(session("s1").append("meta", new Document("kind", "web").append("hits", 1)));
        try (var cursor = open(sessions.watch().fullDocument(FullDocument.UPDATE_LOOKUP))) {
            sessions.updateOne(
                    Filters.eq("_id", "s1"),
                    List.of(
                            new Document(
                                    "$set",
                                    new Document("expireAt", new Date(1_900_000_000_000L))
                                            .append("meta.hits", 2)
                                            .append("renewed", true)),
                            new Document("$unset", "user")));

            BsonDocument event = stable(next(cursor, 1).get(0));
            assertThat(event.getString("operationType").getValue()).isEqualTo("update");
            assertThat(event.getDocument("updateDescription"))
                    .isEqualTo(json("{updatedFields: {expireAt: {$date: 1900000000000}, 'meta.hits': 2,"
                            + " renewed: true}, removedFields: ['user'], truncatedArrays: []}"));
            assertThat(event.getDocument("fullDocument").getBoolean("renewed").getValue())
                    .isTrue();
        }
    }

    /** "truncatedArrays: array truncations performed with pipeline-based updates" ($set, $replaceWith, ...). */
    @Test
    void shouldReportAnArrayAPipelineShortenedInTruncatedArrays() {
        sessions.insertOne(session("s1"));
        try (var cursor = open(sessions.watch())) {
            sessions.updateOne(
                    Filters.eq("_id", "s1"),
                    List.of(new Document("$set", new Document("roles", new Document("$slice", List.of("$roles", 1))))));

            assertThat(stable(next(cursor, 1).get(0)))
                    .isEqualTo(json("{operationType: 'update', ns: {db: 'app', coll: 'sessions'},"
                            + " documentKey: {_id: 's1'}, updateDescription: {updatedFields: {},"
                            + " removedFields: [], truncatedArrays: [{field: 'roles', newSize: 1}]}}"));
        }
    }

    /**
     * "If the entire array is replaced, the truncations will be reported under updatedFields"; so is a sub-document
     * an expression replaced (a nested specification such as {@code {profile: {c: 1}}} merges instead).
     */
    @Test
    void shouldReportAFieldAPipelineReplacedWholeInUpdatedFields() {
        sessions.insertOne(session("s1").append("profile", new Document("a", 1).append("b", 2)));
        try (var cursor = open(sessions.watch())) {
            sessions.updateOne(
                    Filters.eq("_id", "s1"),
                    List.of(new Document(
                            "$set",
                            new Document("roles", List.of("owner"))
                                    .append(
                                            "profile",
                                            new Document("$literal", new Document("c", "completely different"))))));

            assertThat(stable(next(cursor, 1).get(0)).getDocument("updateDescription"))
                    .isEqualTo(json("{updatedFields: {roles: ['owner'], profile: {c: 'completely different'}},"
                            + " removedFields: [], truncatedArrays: []}"));
        }
    }

    /** MongoDB logs a pipeline update whose delta is not smaller than the new document as a replacement. */
    @Test
    void shouldReportAPipelineUpdateThatRewritesASmallDocumentAsAReplace() {
        sessions.insertOne(new Document("_id", "s1").append("a", 1));
        try (var cursor = open(sessions.watch())) {
            sessions.updateOne(Filters.eq("_id", "s1"), List.of(new Document("$replaceWith", new Document("b", 2))));

            assertThat(stable(next(cursor, 1).get(0)))
                    .isEqualTo(json("{operationType: 'replace', fullDocument: {_id: 's1', b: 2},"
                            + " ns: {db: 'app', coll: 'sessions'}, documentKey: {_id: 's1'}}"));
        }
    }

    @Test
    void shouldInsertThePipelineOutputOfTheFilterEqualitiesOnUpsert() {
        try (var cursor = open(sessions.watch())) {
            UpdateResult result = sessions.updateOne(
                    Filters.and(Filters.eq("_id", "s9"), Filters.eq("user", "u9")),
                    List.of(new Document("$set", new Document("seen", "$$NOW"))),
                    new UpdateOptions().upsert(true));

            assertThat(result.getUpsertedId()).isEqualTo(new org.bson.BsonString("s9"));
            BsonDocument event = stable(next(cursor, 1).get(0));
            assertThat(event.getString("operationType").getValue()).isEqualTo("insert");
            assertThat(event.getDocument("fullDocument").keySet()).containsExactly("_id", "user", "seen");
        }
    }

    @Test
    void shouldSubstituteTheCommandsLetVariablesInAnUpdatePipeline() {
        sessions.insertOne(session("s1"));

        sessions.updateOne(
                Filters.eq("_id", "s1"),
                List.of(new Document("$set", new Document("owner", "$$who"))),
                new UpdateOptions().let(new Document("who", "alice")));

        assertThat(sessions.find(Filters.eq("_id", "s1")).first().getString("owner"))
                .isEqualTo("alice");
    }

    @Test
    void shouldRefuseWhatMongoDbRefusesInAnUpdatePipeline() {
        sessions.insertOne(session("s1"));

        assertThatThrownBy(() -> sessions.updateOne(
                        Filters.eq("_id", "s1"), List.of(new Document("$match", new Document("x", 1)))))
                .as("a stage an update does not allow")
                .isInstanceOf(MongoWriteException.class)
                .satisfies(e -> assertThat(((MongoWriteException) e).getError().getCode())
                        .isEqualTo(72));
        assertThatThrownBy(() -> sessions.updateOne(
                        Filters.eq("_id", "s1"), List.of(new Document("$frobnicate", new Document()))))
                .as("a stage MongoDB does not know")
                .isInstanceOf(MongoWriteException.class)
                .satisfies(e -> assertThat(((MongoWriteException) e).getError().getCode())
                        .isEqualTo(40324));
        assertThatThrownBy(() -> sessions.updateOne(
                        Filters.eq("_id", "s1"), List.of(new Document("$set", new Document("_id", "other")))))
                .as("a pipeline that changes the _id")
                .isInstanceOf(MongoWriteException.class)
                .satisfies(e -> assertThat(((MongoWriteException) e).getError().getCode())
                        .isEqualTo(66));
    }
}
