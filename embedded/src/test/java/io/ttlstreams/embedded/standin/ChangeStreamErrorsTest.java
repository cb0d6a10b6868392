package io.ttlstreams.embedded.standin;

import static io.ttlstreams.embedded.standin.StandInFixture.json;
import static io.ttlstreams.embedded.standin.StandInFixture.next;
import static io.ttlstreams.embedded.standin.StandInFixture.open;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
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
 * What MongoDB answers to a change stream asked for something wrong, and to a reshaping pipeline: its error codes and
 * the {@code errorLabels} by which drivers decide whether to resume.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class ChangeStreamErrorsTest {

    @RegisterExtension
    final StandInFixture standIn = new StandInFixture();

    private MongoCollection<Document> docs;

    @BeforeEach
    void start() {
        docs = standIn.app.getCollection("docs");
    }

    private static int codeOf(Throwable error) {
        return ((MongoException) error).getCode();
    }

    /**
     * "Modifying the _id field of an event makes it impossible to resume the stream": MongoDB fails the stream when the
     * first such event comes out, with ChangeStreamFatalError and a label that forbids resuming.
     */
    @Test
    void shouldFailTheStreamNotResumablyWhenThePipelineProjectsOutTheResumeToken() {
        try (var cursor = open(docs.watch(List.of(new Document("$project", new Document("_id", 0)))))) {
            docs.insertOne(new Document("_id", 1));

            assertThatThrownBy(cursor::next).isInstanceOf(MongoException.class).satisfies(e -> {
                assertThat(codeOf(e)).isEqualTo(280);
                assertThat(((MongoException) e).getErrorLabels()).contains("NonResumableChangeStreamError");
            });
        }
    }

    @Test
    void shouldFailTheStreamWhenThePipelineRewritesTheResumeToken() {
        try (var cursor = open(docs.watch(
                List.of(new Document("$addFields", new Document("_id", new Document("_data", "forged"))))))) {
            docs.insertOne(new Document("_id", 1));

            assertThatThrownBy(cursor::next)
                    .isInstanceOf(MongoException.class)
                    .satisfies(e -> assertThat(codeOf(e)).isEqualTo(280));
        }
    }

    /** An unknown stage is "Unrecognized pipeline stage name" (40324); a known one a stream forbids, IllegalOperation. */
    @Test
    void shouldRefuseUnknownAndForbiddenStagesWithMongoDbsCodes() {
        assertThatThrownBy(() -> open(docs.watch(List.of(new Document("$frobnicate", 1)))))
                .isInstanceOf(MongoCommandException.class)
                .satisfies(e -> assertThat(codeOf(e)).isEqualTo(40324));
        assertThatThrownBy(() -> open(docs.watch(List.of(new Document("$group", new Document("_id", null))))))
                .isInstanceOf(MongoCommandException.class)
                .satisfies(e -> assertThat(codeOf(e)).isEqualTo(20));
        assertThatThrownBy(() -> open(docs.watch(
                        List.of(new Document("$match", new Document()).append("$project", new Document("_id", 1))))))
                .as("a stage of two fields")
                .isInstanceOf(MongoCommandException.class)
                .satisfies(e -> assertThat(codeOf(e)).isEqualTo(40323));
    }

    @Test
    void shouldRefuseAnUnknownChangeStreamOptionAndTwoResumePoints() {
        MongoCommandException unknown = (MongoCommandException) org.assertj.core.api.Assertions.catchThrowable(() ->
                standIn.app.runCommand(new Document("aggregate", "docs")
                        .append("pipeline", List.of(new Document("$changeStream", new Document("fullDocuments", 1))))
                        .append("cursor", new Document())));
        assertThat(unknown.getErrorCode()).isEqualTo(40415);

        BsonDocument token;
        try (var cursor = open(docs.watch())) {
            docs.insertOne(new Document("_id", 1));
            token = next(cursor, 1).get(0).getDocument("_id");
        }
        assertThatThrownBy(() -> standIn.app.runCommand(new Document("aggregate", "docs")
                        .append(
                                "pipeline",
                                List.of(new Document(
                                        "$changeStream",
                                        new Document("resumeAfter", token).append("startAfter", token))))
                        .append("cursor", new Document())))
                .isInstanceOf(MongoCommandException.class)
                .satisfies(e -> assertThat(codeOf(e)).isEqualTo(40674));
    }

    /** A computed dotted path lands in its sub-document, as in MongoDB (mongo-java-server 1.47 makes a dotted key). */
    @Test
    void shouldProjectAComputedDottedPathIntoItsSubDocument() {
        try (var cursor = open(docs.watch(List.of(new Document(
                "$project",
                new Document("operationType", 1)
                        .append("ns.db", 1)
                        .append("ns.viewOn", new Document("$concat", List.of("$ns.db", ".view")))))))) {
            docs.insertOne(new Document("_id", 1));

            BsonDocument event = new BsonDocument();
            next(cursor, 1).get(0).forEach(event::put);
            event.remove("_id");
            assertThat(event).isEqualTo(json("{operationType: 'insert', ns: {db: 'app', viewOn: 'app.view'}}"));
        }
    }
}
