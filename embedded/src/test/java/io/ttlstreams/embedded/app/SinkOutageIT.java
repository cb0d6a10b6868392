package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.in;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ttlstreams.config.ConnectOptions;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.SchedulerOptions;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.connect.ConnectorStatus;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.processor.TtlMetrics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 43, MongoDB failing the sink's deletes through the stand-in's {@code failCommand} fail point for longer than
 * the whole confirmation schedule, shortened here to two attempts two seconds apart: once every delete is refused as
 * a primary that stepped down does ({@code NotWritablePrimary}, 10107), and the sink's task fails with its commands
 * unapplied; once every delete comes back with a write-concern error ({@code WriteConcernFailed}, 64, as w:majority
 * timing out), and the sink parks its commands in {@code ttl.sink.dlq}. Either way the processor spends no attempt
 * meanwhile and paces its commands; once the fail point is off, every document is deleted, none before its deadline,
 * every delete is confirmed and none is given up on.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class SinkOutageIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(2);
    /** Two commands: the schedule ends CONFIRM_TIMEOUT + 2 * CONFIRM_TIMEOUT after the deadline. */
    private static final int MAX_ATTEMPTS = 2;
    /** Twice the whole schedule. */
    private static final Duration OUTAGE = CONFIRM_TIMEOUT.multipliedBy(6);

    private static final int DOCUMENTS = 10;
    /** The fault cleared, the next restart comes within the longest pause so far (16 s here), then the deletes. */
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(PipelineScenarios.RULES)
            .and(SchedulerOptions.CONFIRM_TIMEOUT_MS_CONFIG, Long.toString(CONFIRM_TIMEOUT.toMillis()))
            .and(SchedulerOptions.CONFIRM_MAX_ATTEMPTS_CONFIG, Integer.toString(MAX_ATTEMPTS))
            .and(OperationsOptions.HEALTH_INTERVAL_MS_CONFIG, "250")
            .and(ConnectOptions.CONNECT_SINK_RECOVERY_MS_CONFIG, "3000");

    private double total(String name) {
        return ExpiryFigures.of(PIPELINE.pipeline().processor().metrics()).total(name);
    }

    private long present(List<String> ids) {
        return PIPELINE.collection(SESSIONS).countDocuments(in("_id", ids));
    }

    /** MongoDB's test hook: every {@code delete} command fails as on a primary that stepped down, until turned off. */
    private void failDeletes(boolean on) {
        failPointOnDeletes(on ? new Document("errorCode", 10107) : null);
    }

    /**
     * MongoDB's test hook: every {@code delete} runs, but its reply carries a write-concern error, as when w:majority
     * times out with members down or lagging, until turned off.
     */
    private void writeConcernErrorsOnDeletes(boolean on) {
        failPointOnDeletes(
                on
                        ? new Document(
                                "writeConcernError",
                                new Document("code", 64)
                                        .append("codeName", "WriteConcernFailed")
                                        .append("errmsg", "waiting for replication timed out")
                                        .append("errInfo", new Document("wtimeout", true)))
                        : null);
    }

    /** The {@code failCommand} fail point on every {@code delete}, failing it as {@code how} says; null: off. */
    private static void failPointOnDeletes(Document how) {
        Document command =
                new Document("configureFailPoint", "failCommand").append("mode", how == null ? "off" : "alwaysOn");
        if (how != null) {
            Document data = new Document("failCommands", List.of("delete"));
            data.putAll(how);
            command.append("data", data);
        }
        PIPELINE.mongo().getDatabase("admin").runCommand(command);
    }

    /** Inserts {@link #DOCUMENTS} documents expiring at {@code deadline}, named {@code prefix} and a number. */
    private static List<String> insertDue(String prefix, Instant deadline) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < DOCUMENTS; i++) {
            ids.add(prefix + i);
            PIPELINE.collection(SESSIONS)
                    .insertOne(new Document("_id", ids.get(i)).append("expireAt", Date.from(deadline)));
        }
        return ids;
    }

    /**
     * Once the fault is off: every document gone, every delete confirmed by its change event since {@code confirmed}
     * was read, and none given up on since {@code unconfirmed} was.
     */
    private void assertDeletedAndConfirmed(List<String> ids, double confirmed, double unconfirmed) {
        await("every document deleted once deletes succeed again").atMost(WAIT).until(() -> present(ids) == 0);
        await("every delete confirmed by its change event")
                .atMost(WAIT)
                .until(() -> total(TtlMetrics.CONFIRMED) - confirmed, count -> count == DOCUMENTS);
        assertThat(total(TtlMetrics.UNCONFIRMED) - unconfirmed)
                .as("deletes given up on")
                .isZero();
    }

    /** The sink's dead letters this instance counted with {@code reason}. */
    private double sinkDeadLetters(String reason) {
        return ExpiryFigures.of(PIPELINE.pipeline().processor().metrics())
                .sinkDeadLetters()
                .byReason()
                .getOrDefault(reason, 0.0);
    }

    private ConnectorStatus sinkStatus() throws Exception {
        return PIPELINE.pipeline()
                .connectors()
                .connect()
                .status(ConnectorConfigs.SINK_NAME)
                .orElseThrow();
    }

    @Test
    void shouldDeleteEveryDueDocumentAfterAnOutageLongerThanTheConfirmationScheduleNoneEarlyNoneUnconfirmed()
            throws Exception {
        double confirmed = total(TtlMetrics.CONFIRMED);
        double unconfirmed = total(TtlMetrics.UNCONFIRMED);
        AtomicBoolean sinkFailed = new AtomicBoolean();
        Instant deadline = ExpiryProbe.deadlineIn(2);
        failDeletes(true);
        List<String> ids;
        try {
            ids = insertDue("outage-", deadline);
            Instant cleared = deadline.plus(OUTAGE);
            await("every document still present while MongoDB refuses deletes, until " + cleared)
                    .atMost(Duration.between(Instant.now(), cleared).plus(WAIT))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        assertThat(present(ids)).as("documents present").isEqualTo(DOCUMENTS);
                        assertThat(total(TtlMetrics.UNCONFIRMED) - unconfirmed)
                                .as("deletes given up on during the outage")
                                .isZero();
                        if (sinkStatus().tasks().stream()
                                .anyMatch(task -> task.trace().orElse("").contains("10107"))) {
                            sinkFailed.set(true);
                        }
                        return !Instant.now().isBefore(cleared);
                    });
        } finally {
            failDeletes(false);
        }

        assertDeletedAndConfirmed(ids, confirmed, unconfirmed);
        assertThat(sinkFailed)
                .as("the sink's task seen FAILED on NotWritablePrimary (then restarted)")
                .isTrue();
        await("the sink running again").atMost(WAIT).until(() -> sinkStatus().running());
    }

    @Test
    void shouldDeleteEveryDueDocumentWhenDeletesReturnWriteConcernErrorsNoneRefusedNoneEarlyNoneUnconfirmed() {
        double confirmed = total(TtlMetrics.CONFIRMED);
        double unconfirmed = total(TtlMetrics.UNCONFIRMED);
        double refused = sinkDeadLetters("mongodb");
        double writeConcern = sinkDeadLetters("write-concern");
        Instant deadline = ExpiryProbe.deadlineIn(2);
        writeConcernErrorsOnDeletes(true);
        List<String> ids;
        try {
            ids = insertDue("write-concern-", deadline);
            Instant cleared = deadline.plus(OUTAGE);
            await("every command parked as a write-concern error, none before its deadline, until " + cleared)
                    .atMost(Duration.between(Instant.now(), cleared).plus(WAIT))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        long present = present(ids);
                        if (present < DOCUMENTS && Instant.now().isBefore(deadline)) {
                            throw new AssertionError("Deleted before the deadline " + deadline);
                        }
                        assertThat(total(TtlMetrics.UNCONFIRMED) - unconfirmed)
                                .as("deletes given up on while MongoDB reports write-concern errors")
                                .isZero();
                        return !Instant.now().isBefore(cleared)
                                && sinkDeadLetters("write-concern") - writeConcern >= DOCUMENTS;
                    });
        } finally {
            writeConcernErrorsOnDeletes(false);
        }

        assertDeletedAndConfirmed(ids, confirmed, unconfirmed);
        assertThat(sinkDeadLetters("mongodb") - refused)
                .as("commands counted as refused by MongoDB")
                .isZero();
    }
}
