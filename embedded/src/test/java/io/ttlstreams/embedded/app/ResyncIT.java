package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Updates.set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.TopicReader;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.resync.KafkaResyncPublisher;
import io.ttlstreams.resync.Resync;
import io.ttlstreams.resync.ResyncEvent;
import io.ttlstreams.resync.ResyncProgress;
import io.ttlstreams.resync.ResyncSelection;
import io.ttlstreams.resync.ResyncSink;
import io.ttlstreams.rules.Deadlines;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 11 on the embedded pipeline: documents the processor saw no rule for are scheduled by {@code ttl-streams
 * resync} once a rule for them is added, and deleted at their deadlines (those long passed at once), none early; the
 * resync events are keyed and partitioned exactly as the connector's change events of the same documents; and a resync
 * that read a document before a renewal, but arrives after it, does not undo the renewal.
 *
 * <p>The stack watches app.sessions (a rule in every configuration) and legacy.tokens (a rule only once it is added).
 * Before that rule, no source connector watches database legacy (connectors are rendered from the rules, one per
 * database), so its documents reach the processor only through the resync: the connector registered with the rule
 * starts at the present.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class ResyncIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Namespace TOKENS = Namespace.parse("legacy.tokens");
    private static final Duration WAIT = ExpiryProbe.WAIT;

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(settings(false));

    private EmbeddedPipeline pipeline;
    private MongoClient client;
    private ExpiryProbe sessions;
    private ExpiryProbe tokens;

    /** A rule on app.sessions, and with {@code tokens} one on legacy.tokens too; both topics read either way. */
    private static Map<String, String> settings(boolean tokens) {
        return RuleSettings.expireAtRules(
                tokens ? List.of(SESSIONS, TOKENS) : List.of(SESSIONS), List.of(SESSIONS, TOKENS));
    }

    @BeforeAll
    void start() {
        pipeline = PIPELINE.pipeline();
        client = PIPELINE.mongo();
        sessions = PIPELINE.probe(SESSIONS);
        tokens = PIPELINE.probe(TOKENS);
    }

    @Test
    void shouldScheduleTheExistingDocumentsOfANewRuleOnResyncAndDeleteEachAtItsDeadline() throws Exception {
        PIPELINE.runWith(settings(false));
        Instant longGone = ExpiryProbe.deadlineIn(-3600);
        Instant justGone = ExpiryProbe.deadlineIn(-1);
        Instant deadline = ExpiryProbe.deadlineIn(25);
        List<Object> passed = List.of("long-gone", new ObjectId());
        List<Object> future = List.of(1L << 40, new Document("tenant", "t1").append("n", 7));
        tokens.insertExpiring(passed.get(0), longGone);
        tokens.insertExpiring(passed.get(1), justGone);
        future.forEach(id -> tokens.insertExpiring(id, deadline));
        tokens.collection().insertOne(new Document("_id", "no-expiry"));
        List<Object> all = new ArrayList<>(passed);
        all.addAll(future);
        all.add("no-expiry");
        try (TopicReader source = new TopicReader(pipeline.stack().bootstrapServers(), TOKENS.toString())) {
            PIPELINE.runWith(settings(true));
            for (Object id : all) {
                assertThat(await("the stores of the restarted processor")
                                .atMost(WAIT)
                                .ignoreExceptionsInstanceOf(InvalidStateStoreException.class)
                                .until(() -> tokens.scheduledDeadline(id), found -> true))
                        .as("%s scheduled before the resync", id)
                        .isEmpty();
            }

            Path config = cliConfig();
            CommandRun dryRun = CommandRun.of("resync", "--config", config.toString(), "--rule", "tokens", "--dry-run");
            assertThat(dryRun.exitCode()).as(dryRun.err()).isZero();
            assertThat(dryRun.out())
                    .contains("legacy.tokens: reading about 5 documents, publishing to topic legacy.tokens")
                    .contains("rule tokens: 4 to schedule, deadlines " + Deadlines.format(longGone) + " to "
                            + Deadlines.format(deadline) + ", 2 already due")
                    .contains("no rule expires 1 document:");

            CommandRun resync =
                    CommandRun.of("resync", "--config", config.toString(), "--namespace", TOKENS.toString());
            assertThat(resync.exitCode()).as(resync.err()).isZero();
            assertThat(resync.out())
                    .contains("legacy.tokens: 5/5 documents read (100%)")
                    .contains("legacy.tokens: 5 documents read, 5 resync events published to topic legacy.tokens")
                    .contains("rule tokens: 4 to schedule")
                    .contains("Stamped with MongoDB's operationTime on a causally consistent session");
            await(passed + " deleted at once")
                    .atMost(ExpiryProbe.WITHIN)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> tokens.collection().countDocuments(in("_id", passed)) == 0);
            assertThat(Instant.now())
                    .as("the scenario needs the resync done before the future deadline")
                    .isBefore(deadline);
            tokens.assertExpireOnTime(future, deadline);
            assertThat(tokens.commandsBeforeBarrier("no-expiry", deadline)).isEmpty();
            assertThat(tokens.exists("no-expiry")).isTrue();

            // One resync event per document, the real run's (the dry run published none); the one left has the same
            // key bytes, hence the same partition, as the connector's change event of it.
            for (Object id : all) {
                await("the resync event of " + id)
                        .atMost(WAIT)
                        .until(() -> source.poll(r -> isEventFor(r, "resync", id)), found -> !found.isEmpty());
                only(source.poll(r -> isEventFor(r, "resync", id)));
            }
            tokens.collection().updateOne(eq("_id", "no-expiry"), set("touched", true));
            ConsumerRecord<String, String> update = only(await("the update of no-expiry")
                    .atMost(WAIT)
                    .until(() -> source.poll(r -> isEventFor(r, "update", "no-expiry")), found -> !found.isEmpty()));
            ConsumerRecord<String, String> resynced = only(source.poll(r -> isEventFor(r, "resync", "no-expiry")));
            assertThat(resynced.key()).isEqualTo(update.key());
            assertThat(resynced.partition()).isEqualTo(update.partition());
        }
    }

    @Test
    void shouldNotUndoARenewalThatRacedTheResync() throws Exception {
        Instant first = ExpiryProbe.deadlineIn(8);
        sessions.insertExpiring("raced", first);
        sessions.awaitScheduled("raced", first);
        BsonTimestamp inserted;
        try (TopicReader source = new TopicReader(pipeline.stack().bootstrapServers(), SESSIONS.toString())) {
            inserted = clusterTimeOf(only(await("the insert of raced")
                    .atMost(WAIT)
                    .until(() -> source.poll(r -> isEventFor(r, "insert", "raced")), found -> !found.isEmpty())));
        }
        // Read now, published later: a resync stamped after the insert, so that only the renewal can make it stale.
        ResyncEvent read = await("a resync of raced stamped after its insert")
                .atMost(WAIT)
                .until(this::readRaced, event -> stampOf(event).compareTo(inserted) > 0);
        Instant renewed = first.plusSeconds(4);
        sessions.collection().updateOne(eq("_id", "raced"), set("expireAt", Date.from(renewed)));
        sessions.awaitScheduled("raced", renewed);
        assertThat(Instant.now())
                .as("the scenario needs the renewal applied before the first deadline")
                .isBefore(first);
        double stale = resyncsStale();

        try (KafkaResyncPublisher publisher = KafkaResyncPublisher.create(pipeline.processorConfig())) {
            publisher.publish(read);
            publisher.flush();
        }

        await("the resync ignored as older than the renewal").atMost(WAIT).until(() -> resyncsStale() > stale);
        assertThat(sessions.scheduledDeadline("raced")).contains(renewed);
        sessions.assertExpiresOnTime("raced", renewed);
        assertThat(sessions.commandsBeforeItsCommand("raced", renewed)).isEmpty();
    }

    /** Resyncs app.sessions into a sink that keeps the events, and returns that of document raced. */
    private ResyncEvent readRaced() {
        List<ResyncEvent> held = new ArrayList<>();
        ResyncSink holding = new ResyncSink() {
            @Override
            public void publish(ResyncEvent event) {
                held.add(event);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        new Resync(pipeline.processorConfig(), client, Clock.systemUTC())
                .run(
                        new ResyncSelection(Optional.of(SESSIONS), Optional.empty()),
                        Optional.of(holding),
                        ResyncProgress.none());
        return held.stream()
                .filter(event -> event.key().equals("{\"_id\": \"raced\"}"))
                .findFirst()
                .orElseThrow();
    }

    private static BsonTimestamp stampOf(ResyncEvent event) {
        return BsonDocument.parse(event.value()).getTimestamp("clusterTime");
    }

    private static BsonTimestamp clusterTimeOf(ConsumerRecord<String, String> event) {
        return BsonDocument.parse(event.value()).getTimestamp("clusterTime");
    }

    /** Whether a source record is the {@code operationType} event of document {@code id}. */
    private static boolean isEventFor(ConsumerRecord<String, String> record, String operationType, Object id) {
        BsonDocument event = BsonDocument.parse(record.value());
        return event.getString("operationType").getValue().equals(operationType)
                && event.getDocument("documentKey").equals(ExpiryProbe.documentKey(id));
    }

    private static ConsumerRecord<String, String> only(List<ConsumerRecord<String, String>> records) {
        assertThat(records).hasSize(1);
        return records.get(0);
    }

    /** The running processor's resyncs-stale-total, over its tasks. */
    private double resyncsStale() {
        return ExpiryFigures.of(pipeline.processor().metrics()).total(TtlMetrics.RESYNC_STALE);
    }

    /** The processor's configuration as a file, for the command line. */
    private Path cliConfig() throws IOException {
        return PIPELINE.propertiesFile(PIPELINE.processorSettings());
    }
}
