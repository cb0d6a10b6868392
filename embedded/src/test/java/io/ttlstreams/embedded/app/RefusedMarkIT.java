package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import io.ttlstreams.config.SchedulerOptions;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.contract.Namespace;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 43: one command MongoDB refuses does not hold back the next one of its batch. A mark whose {@code $set} cannot
 * apply (the mark field {@code meta.expiredAt} under a {@code meta} that is a string: a write error, as a validator's
 * refusal is) is followed, in the same punctuation and partition, by a mark that can; with the connector's default
 * ordered bulk write the second would be reported skipped to the dead-letter topic and wait for its re-emission, a
 * confirmation timeout later. Unordered, it is applied at once.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class RefusedMarkIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    /** Far longer than the allowance below: a command skipped and re-emitted would come this late. */
    private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(30);

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(TestConfigs.settings(
                    "ttl.rules", "sessions",
                    "ttl.rule.sessions.action", "mark",
                    "ttl.rule.sessions.mark.field", "meta.expiredAt"))
            .and(EmbeddedOptions.EMBEDDED_PARTITIONS_CONFIG, "1")
            .and(SchedulerOptions.CONFIRM_TIMEOUT_MS_CONFIG, Long.toString(CONFIRM_TIMEOUT.toMillis()));

    @Test
    void shouldApplyTheNextMarkOfABatchAtOnceWhenMongoRefusesTheMarkBeforeIt() {
        MongoCollection<Document> sessions = PIPELINE.collection(SESSIONS);
        Instant deadline = ExpiryProbe.deadlineIn(3);
        sessions.insertOne(new Document("_id", "refused")
                .append("expireAt", Date.from(deadline))
                .append("meta", "a string"));
        sessions.insertOne(new Document("_id", "next").append("expireAt", Date.from(deadline.plusMillis(1))));

        await("the next document marked within " + ExpiryProbe.WITHIN + " of its deadline")
                .atMost(Duration.between(Instant.now(), deadline.plus(ExpiryProbe.WITHIN)))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> sessions.countDocuments(and(eq("_id", "next"), exists("meta.expiredAt"))) == 1);
        assertThat(sessions.find(eq("_id", "refused")).first())
                .as("the refused document, unchanged")
                .isNotNull()
                .satisfies(document -> assertThat(document.get("meta")).isEqualTo("a string"));
    }
}
