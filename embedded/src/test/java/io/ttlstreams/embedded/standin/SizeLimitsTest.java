package io.ttlstreams.embedded.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoServerException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocument;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.types.Binary;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MongoDB's 16 MB limits on the stand-in: updates whose result it refuses to store, and change events it cannot
 * return, which fail the stream every time it is resumed at the same point. (A document over 16 MiB sent whole never
 * reaches the stand-in's checks: the Java driver refuses it client-side, and mongo-java-server's wire decoder closes
 * the connection on any BSON document over 16 MiB; see docs/embedded.md.)
 */
class SizeLimitsTest {

    private static final int MIB = 1024 * 1024;

    @RegisterExtension
    final StandInFixture standIn = new StandInFixture();

    private MongoCollection<Document> docs;

    @BeforeEach
    void start() {
        docs = standIn.app.getCollection("docs");
    }

    private static Binary bytes(int size) {
        return new Binary(new byte[size]);
    }

    @Test
    void shouldRefuseAnUpdateWhoseResultIsTooLargeAndLeaveTheDocumentAsItWas() {
        docs.insertOne(new Document("_id", 1).append("a", bytes(9 * MIB)));
        try (var cursor = StandInFixture.open(docs.watch())) {
            assertThatThrownBy(() -> docs.updateOne(Filters.eq("_id", 1), Updates.set("b", bytes(9 * MIB))))
                    .isInstanceOf(MongoWriteException.class)
                    .satisfies(e -> {
                        assertThat(((MongoWriteException) e).getCode()).isEqualTo(10334);
                        assertThat(e.getMessage()).contains("Resulting document after update is larger than 16777216");
                    });
            assertThat(docs.find(Filters.eq("_id", 1)).first()).doesNotContainKey("b");

            docs.insertOne(new Document("_id", "marker"));
            // The refused update left no event: the next one is the marker's.
            assertThat(StandInFixture.next(cursor, 1)
                            .get(0)
                            .getString("operationType")
                            .getValue())
                    .isEqualTo("insert");
        }
    }

    /**
     * An update event with updateLookup carries the change (6 MiB) and the whole document (11 MiB): 17 MiB, more than
     * MongoDB returns. The stream fails, not resumably, and resuming before the event fails again.
     */
    @Test
    void shouldFailTheStreamAtAnEventOverSixteenMebibytesAndAgainWhenResumedBeforeIt() {
        docs.insertOne(new Document("_id", 1).append("a", bytes(5 * MIB)));
        MongoChangeStreamCursor<ChangeStreamDocument<Document>> stream = docs.watch()
                .fullDocument(FullDocument.UPDATE_LOOKUP)
                .maxAwaitTime(200, TimeUnit.MILLISECONDS)
                .cursor();
        docs.insertOne(new Document("_id", "before"));
        stream.next();
        BsonDocument beforeTheLargeEvent = stream.getResumeToken();
        docs.updateOne(Filters.eq("_id", 1), Updates.set("b", bytes(6 * MIB)));

        assertThatThrownBy(stream::next)
                .isInstanceOf(MongoServerException.class)
                .satisfies(e -> {
                    assertThat(((MongoServerException) e).getCode()).isEqualTo(10334);
                    assertThat(((MongoServerException) e).getErrorLabels()).isEmpty();
                });
        stream.close();

        // The aggregate resuming there meets the event in its first batch, as MongoDB's does.
        assertThatThrownBy(() -> docs.watch()
                        .fullDocument(FullDocument.UPDATE_LOOKUP)
                        .resumeAfter(beforeTheLargeEvent)
                        .cursor())
                .isInstanceOf(MongoServerException.class)
                .satisfies(e -> assertThat(((MongoServerException) e).getCode()).isEqualTo(10334));
    }

    /** The size counted is the event's as the stream's pipeline returns it: a projection that drops the bulk passes. */
    @Test
    void shouldReturnTheEventWhenTheStreamsPipelineProjectsItBelowTheLimit() {
        docs.insertOne(new Document("_id", 1).append("a", bytes(5 * MIB)));
        try (var stream = docs.watch(List.of(new Document("$project", new Document("fullDocument", 0))))
                .fullDocument(FullDocument.UPDATE_LOOKUP)
                .maxAwaitTime(200, TimeUnit.MILLISECONDS)
                .cursor()) {
            docs.updateOne(Filters.eq("_id", 1), Updates.set("b", bytes(6 * MIB)));

            assertThat(stream.next().getOperationTypeString()).isEqualTo("update");
        }
    }
}
