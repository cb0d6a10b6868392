package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.model.Updates;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 19 on the embedded pipeline in its Cosmos DB emulation ({@code embedded.profile=cosmosdb}): the stand-in
 * refuses what Cosmos DB refuses and reports no deletes, the processor runs with {@code ttl.source.profile=cosmosdb}
 * and confirms every delete by reading it back. Documents with a date-field rule, which Cosmos DB's own TTL cannot
 * express, expire at their deadline, none early, each confirmed by a read; a renewal while the read is pending is
 * not deleted.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class CosmosEmulationIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final int DOCUMENTS = 1_000;
    private static final Duration READ_DELAY = Duration.ofMillis(500);
    private static final Duration WAIT = Duration.ofSeconds(90);

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(PipelineScenarios.RULES)
            .and("embedded.profile", "cosmosdb")
            .and(SchedulerOptions.CONFIRM_READ_DELAY_MS_CONFIG, Long.toString(READ_DELAY.toMillis()));

    private double total(String name) {
        return ExpiryFigures.of(PIPELINE.pipeline().processor().metrics()).total(name);
    }

    @Test
    void shouldExpireAThousandDocumentsAtTheirDeadlineEachConfirmedByReadBackWhenPlayingCosmosDb() {
        assertThat(PIPELINE.pipeline().processorConfig().confirmMode().configValue())
                .isEqualTo("read-back");
        double confirmedByRead = total(TtlMetrics.CONFIRMED_BY_READ);
        double confirmed = total(TtlMetrics.CONFIRMED);
        double readBacks = total(TtlMetrics.READ_BACKS);
        double unconfirmed = total(TtlMetrics.UNCONFIRMED);

        Instant first = Instant.now().plusSeconds(5).truncatedTo(ChronoUnit.MILLIS);
        List<String> ids = new ArrayList<>();
        Map<String, Instant> deadlines = new HashMap<>();
        List<Document> documents = new ArrayList<>();
        for (int i = 0; i < DOCUMENTS; i++) {
            String id = "cosmos-" + i;
            Instant deadline = first.plusMillis(i); // 1,000 deletes in one second
            ids.add(id);
            deadlines.put(id, deadline);
            documents.add(new Document("_id", id).append("expireAt", Date.from(deadline)));
        }
        PIPELINE.collection(SESSIONS).insertMany(documents);

        // Poll until every document is gone: one missing before its deadline was deleted early.
        Map<String, Instant> goneAt = new HashMap<>();
        Instant last = first.plusMillis(DOCUMENTS - 1);
        await("every document deleted, none before its deadline")
                .atMost(Duration.between(Instant.now(), last).plus(WAIT))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    Set<String> present = PIPELINE.collection(SESSIONS)
                            .find(in("_id", ids))
                            .map(d -> d.getString("_id"))
                            .into(new HashSet<>());
                    Instant read = Instant.now();
                    for (String id : ids) {
                        if (!present.contains(id) && !goneAt.containsKey(id)) {
                            assertThat(read)
                                    .as(id + " deleted before its deadline")
                                    .isAfterOrEqualTo(deadlines.get(id));
                            goneAt.put(id, read);
                        }
                    }
                    return present.isEmpty();
                });
        await("every delete confirmed by a read")
                .atMost(WAIT)
                .until(() -> total(TtlMetrics.CONFIRMED_BY_READ) - confirmedByRead, count -> count == DOCUMENTS);

        double reads = total(TtlMetrics.READ_BACKS) - readBacks;
        assertThat(reads).as("a read for every delete confirmed by one").isGreaterThanOrEqualTo(DOCUMENTS);
        assertThat(total(TtlMetrics.CONFIRMED) - confirmed).isEqualTo(DOCUMENTS);
        assertThat(total(TtlMetrics.UNCONFIRMED) - unconfirmed).isZero();
    }

    @Test
    void shouldNotDeleteADocumentRenewedWhileItsReadBackIsPending() {
        PIPELINE.pipeline().stack().connect().pause(ConnectorConfigs.SINK_NAME, WAIT);
        Instant deadline = Instant.now().plusSeconds(2).truncatedTo(ChronoUnit.MILLIS);
        PIPELINE.collection(SESSIONS).insertOne(new Document("_id", "renewed").append("expireAt", Date.from(deadline)));
        await("the command for the renewed document")
                .atMost(WAIT)
                .until(
                        () -> PIPELINE.deletes()
                                .poll(r -> DeleteCommand.parse(r.key(), r.value())
                                        .documentKey()
                                        .equals(ExpiryProbe.documentKey("renewed")))
                                .size(),
                        n -> n >= 1);
        // Renewed before the sink applies the command, while its read-back is due or under way.
        PIPELINE.collection(SESSIONS)
                .updateOne(eq("_id", "renewed"), Updates.set("expireAt", Date.from(deadline.plusSeconds(3_600))));
        PIPELINE.pipeline().stack().connect().resume(ConnectorConfigs.SINK_NAME, WAIT);

        // A later marker, deleted and confirmed: everything before it was applied.
        double confirmedByRead = total(TtlMetrics.CONFIRMED_BY_READ);
        PIPELINE.collection(SESSIONS)
                .insertOne(new Document("_id", "marker")
                        .append("expireAt", Date.from(Instant.now().plusSeconds(1))));
        await("the marker deleted and confirmed by a read")
                .atMost(WAIT)
                .until(() -> PIPELINE.collection(SESSIONS).countDocuments(eq("_id", "marker")) == 0
                        && total(TtlMetrics.CONFIRMED_BY_READ) - confirmedByRead >= 1);
        assertThat(PIPELINE.collection(SESSIONS).countDocuments(eq("_id", "renewed")))
                .as("the renewed document survived its command")
                .isEqualTo(1);
    }
}
