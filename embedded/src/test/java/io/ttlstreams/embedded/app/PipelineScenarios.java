package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.unset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.TopicReader;
import io.ttlstreams.processor.DeadLetters;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

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
abstract class PipelineScenarios {

    /** The processor configuration of every pipeline under test: one field rule on app.sessions. */
    static final Map<String, String> RULES = TestConfigs.settings();

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");

    private MongoCollection<Document> sessions;
    private TopicReader deletes;
    private ExpiryProbe probe;

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
    void start() throws Exception {
        startPipeline();
        deletes = new TopicReader(bootstrapServers(), processorConfig().deleteTopic());
        probe = new ExpiryProbe(mongo(), SESSIONS, deletes, this::processor);
        sessions = probe.collection();
    }

    @AfterAll
    void stop() throws Exception {
        if (deletes != null) {
            deletes.close();
        }
        stopPipeline();
    }

    @Test
    void shouldDeleteAfterDeadlineNeverBeforeAndWithinTwoSeconds() {
        Instant deadline = ExpiryProbe.deadlineIn(3);
        probe.insertExpiring("on-time", deadline);

        probe.assertExpiresOnTime("on-time", deadline);
    }

    @Test
    void shouldKeepDocumentRenewedBeforeItsDeadline() {
        Instant first = ExpiryProbe.deadlineIn(3);
        probe.insertExpiring("renewed", first);
        probe.awaitScheduled("renewed", first);
        Instant renewed = first.plusSeconds(2);
        sessions.updateOne(eq("_id", "renewed"), set("expireAt", Date.from(renewed)));
        assertThat(Instant.now())
                .as("the scenario needs the renewal written before the first deadline")
                .isBefore(first);

        probe.assertExpiresOnTime("renewed", renewed);
        assertThat(probe.commandsBeforeItsCommand("renewed", renewed)).isEmpty();
    }

    /**
     * The renewal MongoDB users write most: an update with an aggregation pipeline that moves the deadline from the
     * server's clock ({@code $$NOW}). A small document's update is logged (and published) as a replace, a larger one's
     * as an update with a delta; either way, neither is deleted at its old deadline, and both expire at the new one.
     */
    @Test
    void shouldKeepDocumentsRenewedByAPipelineUpdateUntilTheirNewDeadline() {
        Instant first = ExpiryProbe.deadlineIn(3);
        List<Object> ids = List.of("pipeline-small", "pipeline-large");
        probe.insertExpiring("pipeline-small", first);
        sessions.insertOne(new Document("_id", "pipeline-large")
                .append("expireAt", Date.from(first))
                .append("user", "someone-with-a-long-name@example.com")
                .append("roles", List.of("reader", "writer", "administrator")));
        ids.forEach(id -> probe.awaitScheduled(id, first));

        sessions.updateMany(
                in("_id", ids),
                List.of(new Document("$set", new Document("expireAt", new Document("$add", List.of("$$NOW", 4_000))))));
        assertThat(Instant.now())
                .as("the scenario needs the renewal written before the first deadline")
                .isBefore(first);
        Instant renewed = sessions.find(eq("_id", "pipeline-small"))
                .first()
                .getDate("expireAt")
                .toInstant();
        assertThat(sessions.find(eq("_id", "pipeline-large"))
                        .first()
                        .getDate("expireAt")
                        .toInstant())
                .as("one $$NOW for the whole update")
                .isEqualTo(renewed)
                .isAfter(first);

        probe.assertExpireOnTime(ids, renewed);
        ids.forEach(id -> assertThat(probe.commandsBeforeItsCommand(id, renewed))
                .as("delete commands of %s before the one for its new deadline", id)
                .isEmpty());
    }

    @Test
    void shouldKeepDocumentWhoseTtlFieldWasRemoved() {
        Instant deadline = ExpiryProbe.deadlineIn(2);
        probe.insertExpiring("unset", deadline);
        sessions.updateOne(eq("_id", "unset"), unset("expireAt"));

        assertThat(probe.commandsBeforeBarrier("unset", deadline)).isEmpty();
        assertThat(probe.exists("unset")).isTrue();
    }

    @Test
    void shouldEmitNoDeleteCommandForDocumentDeletedByHand() {
        Instant deadline = ExpiryProbe.deadlineIn(2);
        probe.insertExpiring("by-hand", deadline);
        sessions.deleteOne(eq("_id", "by-hand"));

        assertThat(probe.commandsBeforeBarrier("by-hand", deadline)).isEmpty();
    }

    @Test
    void shouldExpireEveryIdType() {
        Instant deadline = ExpiryProbe.deadlineIn(2);
        List<Object> ids = List.of(new ObjectId(), "string-id", 1L << 40, new Document("tenant", "t1").append("n", 7));
        for (Object id : ids) {
            probe.insertExpiring(id, deadline);
        }

        probe.assertExpireOnTime(ids, deadline);
    }

    @Test
    void shouldLoseNoExpiryAndDeleteNothingEarlyAcrossProcessorRestart() throws InterruptedException {
        Instant deadline = ExpiryProbe.deadlineIn(8);
        List<Object> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add("restart-" + i);
            probe.insertExpiring("restart-" + i, deadline);
        }
        for (Object id : ids) {
            probe.awaitScheduled(id, deadline);
        }

        stopProcessor();
        // A document renewed while the processor is down is caught up from the topic on restart.
        Instant renewed = deadline.plusSeconds(3);
        sessions.updateOne(eq("_id", "restart-0"), set("expireAt", Date.from(renewed)));
        startProcessor();

        probe.assertExpireOnTime(ids.subList(1, ids.size()), deadline);
        probe.assertExpiresOnTime("restart-0", renewed);
        assertThat(probe.commandsBeforeItsCommand("restart-0", renewed)).isEmpty();
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
                    .atMost(ExpiryProbe.WAIT)
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

        Instant deadline = ExpiryProbe.deadlineIn(2);
        probe.insertExpiring("after-bad", deadline);
        probe.assertExpiresOnTime("after-bad", deadline);
    }
}
