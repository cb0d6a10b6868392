package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.contract.Namespace;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The blast-radius guard on the embedded pipeline: a restart with a shortened offset makes 10,000 scheduled documents
 * due at once; past the rule's limit they are held (readiness and {@code /v1/status} say so) while a document of the
 * same rule due organically expires on time, and {@code ttl-streams approve} releases them all.
 */
@Tag("integration")
class BlastRadiusIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final String RULE = "sessions";
    private static final int MASS = 10_000;
    private static final int BATCH = 1_000;
    private static final int LIMIT = 100;
    /** How long the released mass may take to go, on a loaded 2-core machine. */
    private static final Duration RELEASE_WAIT = Duration.ofMinutes(2);

    private static final Pattern HOLDS = Pattern.compile("rule " + RULE + " holds (\\d+) documents");

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(settings(86_400));

    private final OperationsHttp http = new OperationsHttp(PIPELINE::pipeline);

    /** One field rule on app.sessions with {@code offsetSeconds} after expireAt, its guard limit {@link #LIMIT}. */
    private static Map<String, String> settings(long offsetSeconds) {
        return TestConfigs.settings(
                "ttl.rule.sessions.expire.after.seconds", Long.toString(offsetSeconds),
                "ttl.rule.sessions.guard.max.due.on.arrival", Integer.toString(LIMIT),
                "ttl.source.topics", SESSIONS.toString(),
                // One partition: the task's share of the limit is the whole limit, and the marker's order is the
                // events'.
                "embedded.partitions", "1");
    }

    @Test
    void shouldHoldAMassMadeDueByAShortenedOffsetUntilApproved() throws Exception {
        ExpiryProbe sessions = PIPELINE.probe(SESSIONS);
        MongoCollection<Document> collection = sessions.collection();
        Instant base = ExpiryProbe.deadlineIn(0);
        List<Document> batch = new ArrayList<>(BATCH);
        for (int i = 0; i < MASS; i++) {
            batch.add(new Document("_id", "mass-" + i)
                    .append("expireAt", Date.from(base))
                    .append("mass", true));
            if (batch.size() == BATCH) {
                collection.insertMany(batch);
                batch = new ArrayList<>(BATCH);
            }
        }
        Instant farAhead = base.plusSeconds(86_400);
        // One partition: the events are handled in order, so the last scheduled means all are.
        sessions.awaitScheduled("mass-0", farAhead);
        sessions.awaitScheduled("mass-" + (MASS - 1), farAhead);

        // Offset 0: every one of them is due on arrival at its expireAt, long passed.
        PIPELINE.runWith(settings(0));

        long held = await("the guard holds the mass past its limit")
                .atMost(ExpiryProbe.WAIT.multipliedBy(2))
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsInstanceOf(IOException.class)
                .until(
                        () -> heldIn(http.get("/health/ready").body()),
                        found -> found.isPresent() && found.getAsLong() + massDeleted(collection) == MASS)
                .getAsLong();

        // The marker: organic, same rule, due a few seconds ahead; a command for a held one would have come first.
        Instant markerDeadline = ExpiryProbe.deadlineIn(4);
        sessions.insertExpiring("organic", markerDeadline);
        sessions.assertExpiresOnTime("organic", markerDeadline);

        long deletedBeforeApprove = massDeleted(collection);
        assertThat(deletedBeforeApprove)
                .as("mass documents deleted before approve")
                .isLessThanOrEqualTo(LIMIT);
        HttpResponse<String> ready = http.get("/health/ready");
        assertThat(ready.statusCode())
                .as("readiness while held: " + ready.body())
                .isEqualTo(503);
        assertThat(heldIn(ready.body())).as("held, by readiness").hasValue(MASS - deletedBeforeApprove);
        String status = http.get("/v1/status").body();
        assertThat(heldIn(status)).as("held, by /v1/status: " + status).hasValue(MASS - deletedBeforeApprove);

        CommandRun approve = CommandRun.of(
                "approve",
                "--config",
                PIPELINE.propertiesFile(PIPELINE.processorSettings()).toString(),
                "--rule",
                RULE);
        assertThat(approve.exitCode()).as(approve.out() + approve.err()).isZero();
        await("every held document deleted after approve")
                .atMost(RELEASE_WAIT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> massDeleted(collection) == MASS);
        await("readiness up once nothing is held")
                .atMost(ExpiryProbe.WAIT)
                .ignoreExceptionsInstanceOf(IOException.class)
                .until(http::readyStatus, code -> code == 200);

        System.out.printf(
                "BlastRadiusIT: %d due on arrival, limit %d: %d deleted before approve, %d held (first seen held %d)%n",
                MASS, LIMIT, deletedBeforeApprove, MASS - deletedBeforeApprove, held);
    }

    /** The held count a readiness or status body gives for the rule, if it gives one. */
    private static OptionalLong heldIn(String body) {
        Matcher matcher = HOLDS.matcher(body);
        return matcher.find() ? OptionalLong.of(Long.parseLong(matcher.group(1))) : OptionalLong.empty();
    }

    private static long massDeleted(MongoCollection<Document> collection) {
        return MASS - collection.countDocuments(eq("mass", true));
    }
}
