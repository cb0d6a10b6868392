package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.unset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.contract.Namespace;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soft expiry through the whole pipeline: the processor's mark commands pass the sink guard and the sink connector
 * applies them with the guard plugin's write model, as conditional updateOne commands. Rule {@code sessions} marks
 * and keeps; rule {@code carts} marks and deletes 5 s after the mark, unless un-marked.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class SoftExpiryIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Namespace CARTS = Namespace.parse("app.carts");
    private static final Duration WAIT = Duration.ofSeconds(90);

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(TestConfigs.settings(
                    "ttl.rules", "sessions,carts",
                    "ttl.rule.sessions.action", "mark",
                    "ttl.rule.sessions.mark.field", "expiredAt",
                    "ttl.rule.carts.namespace", CARTS.toString(),
                    "ttl.rule.carts.field", "expireAt",
                    "ttl.rule.carts.action", "mark",
                    "ttl.rule.carts.mark.field", "expiredAt",
                    "ttl.rule.carts.delete.after.seconds", "5"))
            .and(EmbeddedOptions.EMBEDDED_PARTITIONS_CONFIG, "1");

    private static List<Document> dueBetween(String prefix, int count, Instant first, Duration spread) {
        List<Document> documents = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Instant deadline = first.plus(spread.multipliedBy(i).dividedBy(count));
            documents.add(new Document("_id", prefix + i).append("expireAt", Date.from(deadline)));
        }
        return documents;
    }

    /** Documents of {@code collection} whose expiredAt equals their expireAt: marked at their deadline. */
    private static long markedAtTheirDeadline(MongoCollection<Document> collection) {
        return collection.countDocuments(
                new Document("$expr", new Document("$eq", List.of("$expiredAt", "$expireAt"))));
    }

    @Test
    void shouldMarkEveryDocumentAtItsDeadlineAndDeleteNone() {
        MongoCollection<Document> sessions = PIPELINE.collection(SESSIONS);
        sessions.insertMany(dueBetween("soft-", 500, Instant.now().plusSeconds(3), Duration.ofSeconds(2)));

        await("500 documents marked at their deadline")
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> markedAtTheirDeadline(sessions) == 500);
        // A later marker travels the same path (one partition): once it is marked, every command before it was
        // applied, so a delete among them would show.
        sessions.insertOne(new Document("_id", "marker").append("expireAt", Date.from(Instant.now())));
        await("the marker marked")
                .atMost(WAIT)
                .until(() ->
                        sessions.countDocuments(eq("_id", "marker")) == 1 && markedAtTheirDeadline(sessions) == 501);

        assertThat(sessions.countDocuments()).as("none deleted").isEqualTo(501);
    }

    @Test
    void shouldDeleteMarkedDocumentsAfterTheGracePeriodAndKeepAndRescheduleOneUnmarkedMeanwhile() {
        MongoCollection<Document> carts = PIPELINE.collection(CARTS);
        carts.insertMany(dueBetween("cart-", 20, Instant.now().plusSeconds(2), Duration.ofSeconds(1)));
        await("20 carts marked at their deadline")
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> markedAtTheirDeadline(carts) == 20);

        // Taken back within its grace period: un-marked, with a new deadline.
        Instant renewed = Instant.now().plusSeconds(8);
        assertThat(carts.updateOne(
                                eq("_id", "cart-0"), combine(unset("expiredAt"), set("expireAt", Date.from(renewed))))
                        .getModifiedCount())
                .isEqualTo(1);

        await("the other 19 carts deleted after their grace period")
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> carts.countDocuments() == 1);
        assertThat(carts.find(eq("_id", "cart-0")).first())
                .as("the un-marked cart survives its old grace period")
                .isNotNull();
        await("the un-marked cart marked again at its new deadline: scheduled again")
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    Document cart = carts.find(eq("_id", "cart-0")).first();
                    return cart != null && Date.from(renewed).equals(cart.getDate("expiredAt"));
                });
    }
}
