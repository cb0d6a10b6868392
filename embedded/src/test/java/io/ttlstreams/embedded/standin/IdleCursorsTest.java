package io.ttlstreams.embedded.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoCursorNotFoundException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import java.time.Duration;
import java.util.stream.IntStream;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** MongoDB's idle cursor timeout on the stand-in, its clock driven by the test. */
class IdleCursorsTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(10);

    private DrivenStandIn standIn;
    private MongoCollection<Document> docs;

    @BeforeEach
    void start() {
        standIn = new DrivenStandIn(new StandInSettings(ServerVersion.DEFAULT, TIMEOUT, Duration.ZERO));
        docs = standIn.client.getDatabase("app").getCollection("docs");
        docs.insertMany(
                IntStream.range(0, 5).mapToObj(i -> new Document("_id", i)).toList());
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    /** Through the driver's cursor (which reports any CursorNotFound as its own code, -5) and on the wire (43). */
    @Test
    void shouldAnswerCursorNotFoundWhenTheCursorStayedIdleLongerThanTheTimeout() {
        try (var cursor = docs.find().batchSize(1).cursor()) {
            cursor.next();
            standIn.advance(TIMEOUT.plusMillis(1));

            assertThatThrownBy(cursor::next).isInstanceOf(MongoCursorNotFoundException.class);
        }
        MongoDatabase app = standIn.client.getDatabase("app");
        long id = app.runCommand(new Document("find", "docs").append("batchSize", 1))
                .get("cursor", Document.class)
                .getLong("id");
        standIn.advance(TIMEOUT.plusMillis(1));

        assertThatThrownBy(() -> app.runCommand(new Document("getMore", id).append("collection", "docs")))
                .isInstanceOf(MongoCommandException.class)
                .hasMessageContaining("cursor id " + id + " not found")
                .satisfies(
                        e -> assertThat(((MongoCommandException) e).getCode()).isEqualTo(43));
    }

    @Test
    void shouldKeepACursorUsedWithinTheTimeoutWhateverItsAge() {
        try (var cursor = docs.find().batchSize(1).cursor()) {
            assertThat(cursor.next().getInteger("_id")).isZero();
            for (int i = 1; i < 5; i++) {
                standIn.advance(TIMEOUT.minusMinutes(1));
                // A getMore each: the cursor is 36 minutes old at the end, never idle for 10.
                assertThat(cursor.next().getInteger("_id")).isEqualTo(i);
            }
        }
    }

    @Test
    void shouldKeepACursorOpenedWithNoCursorTimeout() {
        try (var cursor = docs.find().batchSize(2).noCursorTimeout(true).cursor()) {
            cursor.next();
            cursor.next();
            standIn.advance(TIMEOUT.multipliedBy(3));

            assertThat(cursor.next().getInteger("_id")).isEqualTo(2);
        }
    }
}
