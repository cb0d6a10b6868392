package io.ttlstreams.embedded.standin;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A stand-in playing a primary whose clock is off its clients': every time it stamps follows its own clock, the
 * machine's (driven by the test) plus the offset.
 */
class ClockOffsetTest {

    @ParameterizedTest(name = "offset {0} ms")
    @ValueSource(longs = {60_000, -60_000})
    void shouldStampEveryTimeFromItsOwnClockWhenItIsOffTheMachines(long offsetMillis) {
        StandInSettings settings = new StandInSettings(
                ServerVersion.DEFAULT, StandInSettings.DEFAULT_CURSOR_TIMEOUT, Duration.ofMillis(offsetMillis));
        try (DrivenStandIn standIn = new DrivenStandIn(settings)) {
            Instant primary = standIn.clock.instant().plusMillis(offsetMillis);
            MongoDatabase app = standIn.client.getDatabase("app");
            MongoCollection<Document> docs = app.getCollection("docs");
            try (var stream = docs.watch()
                    .maxAwaitTime(200, TimeUnit.MILLISECONDS)
                    .withDocumentClass(BsonDocument.class)
                    .cursor()) {
                docs.insertOne(new Document("_id", 1));
                docs.updateOne(Filters.eq("_id", 1), Updates.currentDate("lastModified"));

                BsonDocument insert = stream.next();
                assertThat(insert.getTimestamp("clusterTime").getTime()).isEqualTo(primary.getEpochSecond());
                assertThat(insert.getDateTime("wallTime").getValue()).isEqualTo(primary.toEpochMilli());
            }
            assertThat(docs.find().first().getDate("lastModified")).isEqualTo(Date.from(primary));
            Document now = docs.aggregate(List.of(new Document("$addFields", new Document("now", "$$NOW"))))
                    .first();
            assertThat(now.getDate("now")).isEqualTo(Date.from(primary));
            Document hello = app.runCommand(new Document("hello", 1));
            assertThat(hello.getDate("localTime")).isEqualTo(Date.from(primary));
            assertThat(((BsonTimestamp) hello.get("operationTime")).getTime()).isEqualTo(primary.getEpochSecond());
        }
    }
}
