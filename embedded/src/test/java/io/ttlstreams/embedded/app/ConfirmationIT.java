package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.in;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ttlstreams.config.SchedulerOptions;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.processor.TtlMetrics;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 10's closed loop on the embedded pipeline: with the delete sink paused through Connect's REST API, due
 * documents get their delete commands, no delete event confirms them, and after {@code ttl.confirm.timeout.ms} the
 * same commands go out again; once the sink resumes, every document is deleted, none before its deadline, and the
 * change stream's delete events confirm every one.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class ConfirmationIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    /** Short, so that the paused sink outlasts it within seconds. */
    private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(2);

    private static final int DOCUMENTS = 10;
    /** Waits for things that take milliseconds to a few confirmation timeouts when all is well. */
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(PipelineScenarios.RULES)
            .and(SchedulerOptions.CONFIRM_TIMEOUT_MS_CONFIG, Long.toString(CONFIRM_TIMEOUT.toMillis()));

    /** A counter of the processor's, summed over its tasks ({@code <name>-total}). */
    private double total(String name) {
        return ExpiryFigures.of(PIPELINE.pipeline().processor().metrics()).total(name);
    }

    /** The delete commands read so far, by the document id they delete. */
    private Map<String, List<DeleteCommand>> commandsById(List<String> ids) {
        return PIPELINE.deletes().poll(r -> true).stream()
                .map(ConfirmationIT::command)
                .filter(c -> c.documentKey().get("_id").isString()
                        && ids.contains(c.documentKey().getString("_id").getValue()))
                .collect(Collectors.groupingBy(
                        c -> c.documentKey().getString("_id").getValue()));
    }

    private static DeleteCommand command(ConsumerRecord<String, String> record) {
        return DeleteCommand.parse(record.key(), record.value());
    }

    private long present(List<String> ids) {
        return PIPELINE.collection(SESSIONS).countDocuments(in("_id", ids));
    }

    /**
     * Polls the collection until the last deadline: a read that misses a document before that document's deadline
     * proves it was deleted early (the read saw the collection before it returned).
     */
    private void assertNoneDeletedBeforeItsDeadline(List<String> ids, List<Instant> deadlines) {
        Instant last = deadlines.get(deadlines.size() - 1);
        await("every document present until its deadline, the last " + last)
                .atMost(Duration.between(Instant.now(), last).plus(WAIT))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    List<String> found = PIPELINE.collection(SESSIONS)
                            .find(in("_id", ids))
                            .map(d -> d.getString("_id"))
                            .into(new ArrayList<>());
                    Instant read = Instant.now();
                    for (int i = 0; i < ids.size(); i++) {
                        if (!found.contains(ids.get(i)) && read.isBefore(deadlines.get(i))) {
                            throw new AssertionError(ids.get(i) + " deleted before its deadline " + deadlines.get(i)
                                    + " (seen at " + read + ")");
                        }
                    }
                    return !read.isBefore(last);
                });
    }

    @Test
    void shouldEmitAgainWhileTheSinkIsPausedAndConfirmEveryDeleteOnceItResumes() {
        double emitted = total(TtlMetrics.EMITTED);
        double reemitted = total(TtlMetrics.REEMITTED);
        double confirmed = total(TtlMetrics.CONFIRMED);
        double unconfirmed = total(TtlMetrics.UNCONFIRMED);
        PIPELINE.pipeline().stack().connect().pause(ConnectorConfigs.SINK_NAME, WAIT);

        Instant first = Instant.now().plusSeconds(2).truncatedTo(ChronoUnit.MILLIS);
        List<String> ids = new ArrayList<>();
        List<Instant> deadlines = new ArrayList<>();
        for (int i = 0; i < DOCUMENTS; i++) {
            ids.add("paused-" + i);
            deadlines.add(first.plusMillis(100L * i));
            PIPELINE.collection(SESSIONS)
                    .insertOne(new Document("_id", ids.get(i)).append("expireAt", Date.from(deadlines.get(i))));
        }
        assertNoneDeletedBeforeItsDeadline(ids, deadlines);

        // No delete event can come while the sink is paused, so each command is emitted again after the timeout.
        Map<String, List<DeleteCommand>> commands = await("every document's delete command emitted twice")
                .atMost(WAIT)
                .until(
                        () -> commandsById(ids),
                        byId -> byId.size() == DOCUMENTS
                                && byId.values().stream().allMatch(c -> c.size() >= 2));
        for (int i = 0; i < DOCUMENTS; i++) {
            assertThat(commands.get(ids.get(i)))
                    .as("the commands for " + ids.get(i) + ": the same conditional filter every time")
                    .extracting(DeleteCommand::filter)
                    .containsOnly(new BsonDocument("_id", new BsonString(ids.get(i)))
                            .append(
                                    "expireAt",
                                    new BsonDocument(
                                            "$eq",
                                            new BsonDateTime(deadlines.get(i).toEpochMilli()))));
        }
        assertThat(total(TtlMetrics.EMITTED) - emitted).isEqualTo(DOCUMENTS);
        assertThat(total(TtlMetrics.REEMITTED) - reemitted).isGreaterThanOrEqualTo(DOCUMENTS);
        assertThat(present(ids)).as("documents left while the sink is paused").isEqualTo(DOCUMENTS);

        PIPELINE.pipeline().stack().connect().resume(ConnectorConfigs.SINK_NAME, WAIT);

        await("every document deleted once the sink resumed").atMost(WAIT).until(() -> present(ids) == 0);
        await("every delete confirmed by its change event")
                .atMost(WAIT)
                .until(() -> total(TtlMetrics.CONFIRMED) - confirmed, count -> count == DOCUMENTS);
        assertThat(total(TtlMetrics.UNCONFIRMED) - unconfirmed).isZero();
    }
}
