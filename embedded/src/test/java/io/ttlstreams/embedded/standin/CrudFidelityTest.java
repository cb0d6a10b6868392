package io.ttlstreams.embedded.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoNamespace;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Collation;
import com.mongodb.client.model.CollationStrength;
import com.mongodb.client.model.DeleteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.InsertManyOptions;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Writes and reads as MongoDB answers them where mongo-java-server 1.47 answers otherwise: how many documents a bulk
 * insert inserted, where an ordered write stops, what a duplicate-key error names, the {@code let} variables of a
 * command, a rename into another database, and collations (refused where the stand-in cannot apply them, rather than
 * ignored).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class CrudFidelityTest {

    @RegisterExtension
    final StandInFixture standIn = new StandInFixture();

    private MongoCollection<Document> docs;

    @BeforeEach
    void start() {
        docs = standIn.app.getCollection("docs");
    }

    @Test
    void shouldCountWhatAnUnorderedInsertManyInsertedBesideItsDuplicate() {
        docs.insertOne(new Document("_id", "dup"));

        MongoBulkWriteException error = catchThrowableOfType(
                () -> docs.insertMany(
                        List.of(new Document("_id", "a"), new Document("_id", "dup"), new Document("_id", "b")),
                        new InsertManyOptions().ordered(false)),
                MongoBulkWriteException.class);

        assertThat(error.getWriteResult().getInsertedCount()).isEqualTo(2);
        assertThat(error.getWriteErrors()).singleElement().satisfies(writeError -> {
            assertThat(writeError.getIndex()).isEqualTo(1);
            assertThat(writeError.getCode()).isEqualTo(11000);
        });
        assertThat(docs.countDocuments()).isEqualTo(3);
    }

    @Test
    void shouldStopOrderedWritesAtTheirFirstError() {
        docs.insertOne(new Document("_id", "dup").append("v", 0));

        MongoBulkWriteException insert = catchThrowableOfType(
                () -> docs.insertMany(
                        List.of(new Document("_id", "a"), new Document("_id", "dup"), new Document("_id", "b"))),
                MongoBulkWriteException.class);
        MongoBulkWriteException update = catchThrowableOfType(
                () -> docs.bulkWrite(List.of(
                        new UpdateOneModel<>(Filters.eq("_id", "a"), Updates.set("v", 1)),
                        new UpdateOneModel<>(Filters.eq("_id", "a"), Updates.set("_id", "changed")),
                        new UpdateOneModel<>(Filters.eq("_id", "dup"), Updates.set("v", 3)))),
                MongoBulkWriteException.class);

        assertThat(insert.getWriteResult().getInsertedCount()).isEqualTo(1);
        assertThat(docs.find(Filters.eq("_id", "b")).first())
                .as("after the ordered insert's error")
                .isNull();
        assertThat(update.getWriteErrors())
                .singleElement()
                .satisfies(e -> assertThat(e.getIndex()).isEqualTo(1));
        assertThat(docs.find(Filters.eq("_id", "dup")).first().getInteger("v"))
                .as("after the ordered update's error")
                .isZero();
    }

    /** The Java driver keeps these fields of a write error to itself; other drivers show them, so the raw reply is read. */
    @Test
    void shouldNameTheKeyPatternAndKeyValueOfADuplicateKey() {
        docs.createIndex(Indexes.ascending("email"), new IndexOptions().unique(true));
        docs.insertOne(new Document("_id", 1).append("email", "a@example.com"));
        docs.insertOne(new Document("_id", 2).append("email", "b@example.com"));

        Document onInsert = standIn.app.runCommand(
                new Document("insert", "docs").append("documents", List.of(new Document("_id", 1))));
        Document onUpdate = standIn.app.runCommand(new Document("update", "docs")
                .append(
                        "updates",
                        List.of(new Document("q", new Document("_id", 2))
                                .append("u", new Document("$set", new Document("email", "a@example.com"))))));
        MongoCommandException onFindAndModify = catchThrowableOfType(
                () -> docs.findOneAndUpdate(Filters.eq("_id", 2), Updates.set("email", "a@example.com")),
                MongoCommandException.class);

        assertThat(onInsert.getList("writeErrors", Document.class).get(0))
                .containsEntry("code", 11000)
                .containsEntry("keyPattern", new Document("_id", 1))
                .containsEntry("keyValue", new Document("_id", 1));
        assertThat(onUpdate.getList("writeErrors", Document.class).get(0))
                .containsEntry("code", 11000)
                .containsEntry("keyPattern", new Document("email", 1))
                .containsEntry("keyValue", new Document("email", "a@example.com"));
        assertThat(onFindAndModify.getResponse())
                .containsEntry("keyPattern", BsonDocument.parse("{email: 1}"))
                .containsEntry("keyValue", BsonDocument.parse("{email: 'a@example.com'}"));
    }

    @Test
    void shouldEvaluateTheLetVariablesOfFindAggregateAndDelete() {
        docs.insertMany(List.of(new Document("_id", 1).append("v", 1), new Document("_id", 2).append("v", 2)));
        Document let = new Document("wanted", 2);

        Document found = standIn.app.runCommand(new Document("find", "docs")
                .append("filter", new Document("$expr", new Document("$eq", List.of("$v", "$$wanted"))))
                .append("let", let));
        List<Document> aggregated = docs.aggregate(List.of(new Document(
                        "$match", new Document("$expr", new Document("$eq", List.of("$v", "$$wanted"))))))
                .let(let)
                .into(new ArrayList<>());
        long deleted = docs.deleteMany(
                        Filters.expr(new Document("$eq", List.of("$v", "$$wanted"))), new DeleteOptions().let(let))
                .getDeletedCount();

        assertThat(found.get("cursor", Document.class).getList("firstBatch", Document.class))
                .extracting(document -> document.get("_id"))
                .containsExactly(2);
        assertThat(aggregated).extracting(document -> document.get("_id")).containsExactly(2);
        assertThat(deleted).isEqualTo(1);
    }

    @Test
    void shouldDropAnIndexedCollectionRenamedIntoAnotherDatabase() {
        docs.insertOne(new Document("_id", 1).append("email", "a@example.com"));
        docs.createIndex(Indexes.ascending("email"), new IndexOptions().unique(true));

        docs.renameCollection(new MongoNamespace("archive", "docs"));
        MongoCollection<Document> archived =
                standIn.client.getDatabase("archive").getCollection("docs");

        assertThat(archived.listIndexes().into(new ArrayList<>()))
                .extracting(index -> index.getString("name"))
                .containsExactlyInAnyOrder("_id_", "email_1");
        archived.drop();
        assertThat(standIn.client.getDatabase("archive").listCollectionNames().into(new ArrayList<>()))
                .isEmpty();
    }

    /** mongo-java-server compares strings by code point; a locale's collation is refused rather than ignored. */
    @Test
    void shouldRefuseACollationItCannotApplyAndTakeTheSimpleOne() {
        docs.insertOne(new Document("_id", 1).append("name", "Ärger"));
        Collation caseInsensitive = Collation.builder()
                .locale("de")
                .collationStrength(CollationStrength.SECONDARY)
                .build();

        assertThatThrownBy(() -> docs.find(Filters.eq("name", "ärger"))
                        .collation(caseInsensitive)
                        .first())
                .isInstanceOf(MongoException.class)
                .satisfies(e -> assertThat(((MongoException) e).getCode()).isEqualTo(238));
        assertThat(docs.find(Filters.eq("name", "Ärger"))
                        .collation(Collation.builder().locale("simple").build())
                        .first())
                .isNotNull();
    }
}
