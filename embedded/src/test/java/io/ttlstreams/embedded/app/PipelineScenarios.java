package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.unset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.TopicReader;
import io.ttlstreams.processor.DeadLetters;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.ScheduleQueries;
import io.ttlstreams.state.ScheduleStores;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * The end-to-end scenarios every pipeline must pass, checked through the MongoDB driver: documents
 * expire after their deadline, never before, and within 2 s of it; renewals, removed TTL fields and
 * deletes by hand are respected; every id type works; a processor restart loses nothing; a malformed
 * event is dead-lettered. Subclasses provide the pipeline: one per class, each test with its own ids.
 *
 * <p>A scenario that must show that a document got <em>no</em> delete command waits for a barrier first: the
 * command of a later document in the same collection, due just after the tested deadline. The punctuator emits in
 * deadline order and the delete topic has one partition, so once the barrier's command is read, a command for the
 * tested document would have been read before it.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
abstract class PipelineScenarios {

    /** The processor configuration of every pipeline under test: one field rule on app.sessions. */
    static final Map<String, String> RULES = Map.of(
            "ttl.rules", "sessions",
            "ttl.rule.sessions.namespace", "app.sessions",
            "ttl.rule.sessions.field", "expireAt");

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    /** The promise: gone within 2 s of the deadline. */
    private static final Duration WITHIN = Duration.ofSeconds(2);
    /** How much later than the tested deadline a barrier document is due. */
    private static final Duration BARRIER_AFTER = Duration.ofMillis(100);
    /** Waits for things that take milliseconds when all is well (events processed, commands read). */
    private static final Duration WAIT = Duration.ofSeconds(30);

    private MongoCollection<Document> sessions;
    private TopicReader deletes;

    /** Starts the pipeline (before any scenario of the class). */
    protected abstract void startPipeline() throws Exception;

    /** Stops the pipeline (after every scenario of the class). */
    protected abstract void stopPipeline() throws Exception;

    /** A MongoDB client on the pipeline's database server. */
    protected abstract MongoClient mongo();

    /** The pipeline's Kafka cluster. */
    protected abstract String bootstrapServers();

    /** The running processor's configuration. */
    protected abstract TtlStreamsConfig processorConfig();

    /** The running processor. */
    protected abstract TtlStreamsApp processor();

    /** Stops the processor, keeping its local state, while the rest of the pipeline runs on. */
    protected abstract void stopProcessor();

    /** Starts the processor again. */
    protected abstract void startProcessor() throws InterruptedException;

    @BeforeAll
    @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
    void start() throws Exception {
        startPipeline();
        sessions = mongo().getDatabase(SESSIONS.database()).getCollection(SESSIONS.collection());
        deletes = new TopicReader(bootstrapServers(), processorConfig().deleteTopic());
    }

    @AfterAll
    @Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
    void stop() throws Exception {
        if (deletes != null) {
            deletes.close();
        }
        stopPipeline();
    }

    /** A deadline {@code seconds} from now, in the millisecond precision of a BSON date. */
    private static Instant deadlineIn(long seconds) {
        return Instant.now().plusSeconds(seconds).truncatedTo(ChronoUnit.MILLIS);
    }

    private void insertExpiring(Object id, Instant deadline) {
        sessions.insertOne(new Document("_id", id).append("expireAt", Date.from(deadline)));
    }

    private boolean exists(Object id) {
        return sessions.countDocuments(eq("_id", id)) > 0;
    }

    /** The document key {@code {"_id": id}} as BSON, as it appears in delete commands and the schedule. */
    private static BsonDocument documentKey(Object id) {
        return new Document("_id", id).toBsonDocument(Document.class, MongoClientSettings.getDefaultCodecRegistry());
    }

    private static boolean isCommandFor(ConsumerRecord<String, String> command, Object id) {
        return BsonDocument.parse(command.key()).equals(documentKey(id));
    }

    private static Instant deadlineOf(ConsumerRecord<String, String> command) {
        return Instant.ofEpochMilli(BsonDocument.parse(command.value())
                .getDateTime(DeleteCommand.DEADLINE_FIELD)
                .getValue());
    }

    /** Asserts the document is there until its deadline and gone within {@link #WITHIN} after it. */
    private void assertExpiresOnTime(Object id, Instant deadline) {
        assertExpireOnTime(List.of(id), deadline);
    }

    /**
     * Asserts that none of the documents is deleted before their common deadline and that all are gone within {@link
     * #WITHIN} after it. The collection is polled throughout: a query that has returned read the collection before
     * it returned, so a document it misses before the deadline was deleted early.
     */
    private void assertExpireOnTime(List<Object> ids, Instant deadline) {
        Duration left = Duration.between(Instant.now(), deadline.plus(WITHIN));
        await(ids + " deleted after their deadline " + deadline + " and within " + WITHIN)
                .atMost(left.isNegative() ? Duration.ofMillis(1) : left.plusMillis(1))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    long present = sessions.countDocuments(in("_id", ids));
                    Instant read = Instant.now();
                    if (present < ids.size() && read.isBefore(deadline)) {
                        throw new AssertionError(
                                "Deleted before the deadline " + deadline + " (seen at " + read + "): some of " + ids);
                    }
                    return present == 0;
                });
    }

    /**
     * Every delete command for {@code id} read before its command for {@code deadline}, which is the barrier: a
     * command for an earlier deadline would have been emitted, and read, before it.
     */
    private List<ConsumerRecord<String, String>> commandsBeforeItsCommand(Object id, Instant deadline) {
        return deletes
                .readUntil(
                        "the delete command for " + id + " at " + deadline,
                        r -> isCommandFor(r, id) && deadlineOf(r).equals(deadline),
                        WAIT)
                .stream()
                .filter(r -> isCommandFor(r, id))
                .toList();
    }

    /**
     * Every delete command for {@code id} read before the barrier: a document inserted now, due just after {@code
     * deadline}, whose command is awaited. The barrier is deleted too, and awaited, so that the sink has applied
     * whatever came before it.
     */
    private List<ConsumerRecord<String, String>> commandsBeforeBarrier(Object id, Instant deadline) {
        String barrier = id + "-barrier";
        insertExpiring(barrier, deadline.plus(BARRIER_AFTER));
        List<ConsumerRecord<String, String>> before =
                deletes.readUntil("the delete command for " + barrier, r -> isCommandFor(r, barrier), WAIT);
        await(barrier + " deleted").atMost(WAIT).until(() -> !exists(barrier));
        return before.stream().filter(r -> isCommandFor(r, id)).toList();
    }

    /** The deadline the running processor has scheduled for the document (interactive queries on its stores). */
    private Optional<Instant> scheduledDeadline(Object id) {
        KafkaStreams streams = processor().streams();
        return ScheduleQueries.find(
                        streams.store(StoreQueryParameters.fromNameAndType(
                                ScheduleStores.INDEX, QueryableStoreTypes.<Bytes, IndexEntry>keyValueStore())),
                        streams.store(StoreQueryParameters.fromNameAndType(
                                ScheduleStores.SCHEDULE, QueryableStoreTypes.<Bytes, ScheduleEntry>keyValueStore())),
                        SESSIONS,
                        documentKey(id))
                .map(ScheduleQueries.ScheduledDocument::deadline);
    }

    private void awaitScheduled(Object id, Instant deadline) {
        await(id + " scheduled for " + deadline)
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptionsInstanceOf(InvalidStateStoreException.class)
                .until(() -> scheduledDeadline(id), scheduled -> scheduled.equals(Optional.of(deadline)));
    }

    @Test
    void shouldDeleteAfterDeadlineNeverBeforeAndWithinTwoSeconds() {
        Instant deadline = deadlineIn(3);
        insertExpiring("on-time", deadline);

        assertExpiresOnTime("on-time", deadline);
    }

    @Test
    void shouldKeepDocumentRenewedBeforeItsDeadline() {
        Instant first = deadlineIn(3);
        insertExpiring("renewed", first);
        awaitScheduled("renewed", first);
        Instant renewed = first.plusSeconds(2);
        sessions.updateOne(eq("_id", "renewed"), set("expireAt", Date.from(renewed)));
        assertThat(Instant.now())
                .as("the scenario needs the renewal written before the first deadline")
                .isBefore(first);

        assertExpiresOnTime("renewed", renewed);
        assertThat(commandsBeforeItsCommand("renewed", renewed)).isEmpty();
    }

    @Test
    void shouldKeepDocumentWhoseTtlFieldWasRemoved() {
        Instant deadline = deadlineIn(2);
        insertExpiring("unset", deadline);
        sessions.updateOne(eq("_id", "unset"), unset("expireAt"));

        assertThat(commandsBeforeBarrier("unset", deadline)).isEmpty();
        assertThat(exists("unset")).isTrue();
    }

    @Test
    void shouldEmitNoDeleteCommandForDocumentDeletedByHand() {
        Instant deadline = deadlineIn(2);
        insertExpiring("by-hand", deadline);
        sessions.deleteOne(eq("_id", "by-hand"));

        assertThat(commandsBeforeBarrier("by-hand", deadline)).isEmpty();
    }

    @Test
    void shouldExpireEveryIdType() {
        Instant deadline = deadlineIn(2);
        List<Object> ids = List.of(new ObjectId(), "string-id", 1L << 40, new Document("tenant", "t1").append("n", 7));
        for (Object id : ids) {
            insertExpiring(id, deadline);
        }

        assertExpireOnTime(ids, deadline);
    }

    @Test
    void shouldLoseNoExpiryAndDeleteNothingEarlyAcrossProcessorRestart() throws InterruptedException {
        Instant deadline = deadlineIn(8);
        List<Object> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add("restart-" + i);
            insertExpiring("restart-" + i, deadline);
        }
        for (Object id : ids) {
            awaitScheduled(id, deadline);
        }

        stopProcessor();
        // A document renewed while the processor is down is caught up from the topic on restart.
        Instant renewed = deadline.plusSeconds(3);
        sessions.updateOne(eq("_id", "restart-0"), set("expireAt", Date.from(renewed)));
        startProcessor();

        assertExpireOnTime(ids.subList(1, ids.size()), deadline);
        assertExpiresOnTime("restart-0", renewed);
        assertThat(commandsBeforeItsCommand("restart-0", renewed)).isEmpty();
    }

    @Test
    void shouldDeadLetterMalformedEventAndKeepProcessing() throws Exception {
        String sourceTopic = processorConfig().sourceTopics().get(0);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        try (KafkaProducer<String, String> producer =
                        new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
                TopicReader dlq =
                        new TopicReader(bootstrapServers(), processorConfig().dlqTopic())) {
            producer.send(new ProducerRecord<>(sourceTopic, "{\"_id\": \"bad\"}", "{this is not json"))
                    .get();

            ConsumerRecord<String, String> dead = await("the malformed event in the dead-letter topic")
                    .atMost(WAIT)
                    .until(() -> dlq.poll(r -> true), records -> !records.isEmpty())
                    .get(0);
            assertThat(dead.value()).isEqualTo("{this is not json");
            assertThat(new String(
                            dead.headers()
                                    .lastHeader(DeadLetters.SOURCE_TOPIC_HEADER)
                                    .value(),
                            StandardCharsets.UTF_8))
                    .isEqualTo(sourceTopic);
        }

        Instant deadline = deadlineIn(2);
        insertExpiring("after-bad", deadline);
        assertExpiresOnTime("after-bad", deadline);
    }
}
