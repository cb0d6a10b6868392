package io.ttlstreams.embedded.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoSocketReadException;
import com.mongodb.MongoSocketReadTimeoutException;
import com.mongodb.MongoWriteConcernException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MongoDB's {@code failCommand} fail point on the stand-in, driven through the official Java driver as a test or a
 * script would drive it against a real replica set: the failures it injects, and the driver reacting as it reacts to
 * MongoDB's (one retry of a retryable write on a label the server attaches).
 */
class FailCommandTest {

    private static final String FAILED = "Failing command via 'failCommand' failpoint";

    @RegisterExtension
    final StandInFixture standIn = new StandInFixture();

    private MongoCollection<Document> docs;

    @BeforeEach
    void start() {
        docs = standIn.app.getCollection("docs");
        docs.insertOne(new Document("_id", 1));
    }

    private Document configure(String mode, Document data) {
        return configure((Object) mode, data);
    }

    private Document configure(Object mode, Document data) {
        Document command = new Document("configureFailPoint", "failCommand").append("mode", mode);
        if (data != null) {
            command.append("data", data);
        }
        return standIn.client.getDatabase("admin").runCommand(command);
    }

    private long off() {
        return ((Number) configure("off", null).get("count")).longValue();
    }

    /** A client that neither retries writes nor reads: each operation is one command. */
    private MongoClient clientWithoutRetries(String extraOptions) {
        return MongoClients.create(
                standIn.mongo.connectionString() + "/?retryWrites=false&retryReads=false" + extraOptions);
    }

    private static Document failing(String command, int code) {
        return new Document("failCommands", List.of(command)).append("errorCode", code);
    }

    @Test
    void shouldFailEveryDeleteWithNotWritablePrimaryWhileAlwaysOn() {
        configure("alwaysOn", failing("delete", 10107));

        assertThatThrownBy(() -> docs.deleteOne(Filters.eq("_id", 1)))
                .isInstanceOf(MongoServerException.class)
                .hasMessageContaining(FAILED)
                .satisfies(e -> {
                    assertThat(((MongoServerException) e).getCode()).isEqualTo(10107);
                    // Attached by the server, as MongoDB 4.4+ does for a retryable write.
                    assertThat(((MongoServerException) e).getErrorLabels()).contains("RetryableWriteError");
                });
        assertThat(docs.countDocuments()).isEqualTo(1);
        // The driver retried the retryable delete once, as against MongoDB: two attempts, both failed.
        assertThat(off()).isEqualTo(2);
    }

    @Test
    void shouldFailTwiceThenSucceedWhenModeIsTimesTwo() {
        configure(new Document("times", 2), failing("delete", 11602));
        try (MongoClient client = clientWithoutRetries("")) {
            MongoCollection<Document> collection = client.getDatabase("app").getCollection("docs");

            for (int attempt = 0; attempt < 2; attempt++) {
                assertThatThrownBy(() -> collection.deleteOne(Filters.eq("_id", 1)))
                        .isInstanceOf(MongoServerException.class)
                        .satisfies(e ->
                                assertThat(((MongoServerException) e).getCode()).isEqualTo(11602));
            }
            assertThat(collection.deleteOne(Filters.eq("_id", 1)).getDeletedCount())
                    .isEqualTo(1);
        }
    }

    @Test
    void shouldSkipTheFirstCommandsWhenModeIsSkip() {
        configure(new Document("skip", 1), failing("find", 2));

        assertThat(docs.find().first()).isNotNull();
        assertThatThrownBy(() -> docs.find().first()).isInstanceOf(MongoServerException.class);
    }

    @Test
    void shouldSucceedAgainWhenTheFailPointIsTurnedOff() {
        configure("alwaysOn", failing("delete", 10107));
        assertThatThrownBy(() -> docs.deleteOne(Filters.eq("_id", 1))).isInstanceOf(MongoServerException.class);

        off();

        assertThat(docs.deleteOne(Filters.eq("_id", 1)).getDeletedCount()).isEqualTo(1);
    }

    @Test
    void shouldRetryOnceAndSucceedWhenARetryableDeleteFailsOnce() {
        configure(new Document("times", 1), failing("delete", 10107));

        assertThat(docs.deleteOne(Filters.eq("_id", 1)).getDeletedCount()).isEqualTo(1);
        assertThat(off()).isEqualTo(1);
    }

    @Test
    void shouldNotRetryWhenTheFailPointOverridesTheLabelsWithNone() {
        configure(new Document("times", 1), failing("delete", 10107).append("errorLabels", List.of()));

        assertThatThrownBy(() -> docs.deleteOne(Filters.eq("_id", 1)))
                .isInstanceOf(MongoServerException.class)
                .satisfies(e ->
                        assertThat(((MongoServerException) e).getErrorLabels()).isEmpty());
        assertThat(docs.countDocuments()).isEqualTo(1);
    }

    @Test
    void shouldReportAWriteConcernErrorAfterApplyingTheWrite() {
        configure(
                "alwaysOn",
                new Document("failCommands", List.of("insert"))
                        .append(
                                "writeConcernError",
                                new Document("code", 64)
                                        .append("codeName", "WriteConcernTimeout")
                                        .append("errmsg", "waiting for replication timed out")
                                        .append("errInfo", new Document("wtimeout", true))));

        assertThatThrownBy(() -> docs.insertOne(new Document("_id", 2)))
                .isInstanceOf(MongoWriteConcernException.class)
                .satisfies(e -> {
                    MongoWriteConcernException error = (MongoWriteConcernException) e;
                    assertThat(error.getWriteConcernError().getCode()).isEqualTo(64);
                    assertThat(error.getWriteConcernError()
                                    .getDetails()
                                    .getBoolean("wtimeout")
                                    .getValue())
                            .isTrue();
                });
        off();
        assertThat(docs.countDocuments(Filters.eq("_id", 2))).isEqualTo(1);
    }

    @Test
    void shouldCloseTheConnectionWithoutAReplyWhenCloseConnectionIsSet() {
        configure(
                new Document("times", 1),
                new Document("failCommands", List.of("insert")).append("closeConnection", true));
        try (MongoClient client = clientWithoutRetries("")) {
            MongoCollection<Document> collection = client.getDatabase("app").getCollection("docs");

            assertThatThrownBy(() -> collection.insertOne(new Document("_id", 2)))
                    .isInstanceOf(MongoSocketReadException.class);
            assertThat(collection.countDocuments(Filters.eq("_id", 2))).isZero();
            collection.insertOne(new Document("_id", 2));
        }
    }

    /**
     * No wall-clock assert: a reply delayed past the client's socket timeout is not read. (An insert, which a client
     * told not to retry writes does not retry: the 4.7 driver retried a find on a new connection even with
     * {@code retryReads=false}.)
     */
    @Test
    void shouldDelayTheReplyWhenBlockConnectionIsSet() {
        configure(
                new Document("times", 1),
                new Document("failCommands", List.of("insert"))
                        .append("blockConnection", true)
                        .append("blockTimeMS", 2_000));
        try (MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(standIn.mongo.connectionString() + "/?retryWrites=false"))
                .applyToSocketSettings(socket -> socket.readTimeout(200, TimeUnit.MILLISECONDS))
                .build())) {
            MongoCollection<Document> collection = client.getDatabase("app").getCollection("docs");

            assertThatThrownBy(() -> collection.insertOne(new Document("_id", 2)))
                    .isInstanceOf(MongoSocketReadTimeoutException.class);
        }
    }

    /** The server labels the failed getMore ResumableChangeStreamError, so the driver resumes as against MongoDB. */
    @Test
    void shouldLetTheDriverResumeAChangeStreamWhenItsGetMoreFailsWithAStepDown() {
        try (var cursor = StandInFixture.open(docs.watch())) {
            configure(new Document("times", 1), failing("getMore", 11602));
            docs.insertOne(new Document("_id", 2));

            assertThat(StandInFixture.next(cursor, 1).get(0).getDocument("documentKey"))
                    .isEqualTo(StandInFixture.json("{\"_id\": 2}"));
            assertThat(off()).isEqualTo(1);
        }
    }

    @Test
    void shouldLeaveCommandsItDoesNotNameAlone() {
        configure("alwaysOn", failing("delete", 10107));

        docs.insertOne(new Document("_id", 2));
        docs.updateOne(Filters.eq("_id", 2), new Document("$set", new Document("v", 1)));
        assertThat(docs.find(Filters.eq("_id", 2)).first()).containsEntry("v", 1);
        assertThat(off()).isZero();
    }

    @Test
    void shouldFailOnlyTheNamedApplicationWhenAppNameIsSet() {
        configure("alwaysOn", failing("find", 2).append("appName", "sink"));
        try (MongoClient sink = clientWithoutRetries("&appName=sink")) {
            assertThatThrownBy(() ->
                            sink.getDatabase("app").getCollection("docs").find().first())
                    .isInstanceOf(MongoServerException.class);
        }
        assertThat(docs.find().first()).isNotNull();
    }

    @Test
    void shouldNeverFailConfigureFailPointItself() {
        configure("alwaysOn", failing("configureFailPoint", 2));

        assertThat(off()).isZero();
    }

    @Test
    void shouldRefuseConfigureFailPointWhenNotOnTheAdminDatabaseOrMalformed() {
        Document command = new Document("configureFailPoint", "failCommand").append("mode", "off");
        assertThatThrownBy(() -> standIn.app.runCommand(command))
                .isInstanceOf(MongoCommandException.class)
                .satisfies(
                        e -> assertThat(((MongoCommandException) e).getCode()).isEqualTo(13));
        assertThatThrownBy(() -> configure("sometimes", failing("find", 2)))
                .satisfies(
                        e -> assertThat(((MongoCommandException) e).getCode()).isEqualTo(2));
        assertThatThrownBy(() -> configure(
                        "alwaysOn", new Document("failCommands", List.of("find")).append("blockConnection", true)))
                .satisfies(
                        e -> assertThat(((MongoCommandException) e).getCode()).isEqualTo(72));
        assertThatThrownBy(() -> configure("alwaysOn", failing("find", 2).append("namespace", "app.docs")))
                .satisfies(
                        e -> assertThat(((MongoCommandException) e).getCode()).isEqualTo(238));
        assertThat(docs.find().first()).isNotNull();
    }
}
