package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.unset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.embedded.TopicReader;
import io.ttlstreams.processor.DeadLetters;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
import org.bson.BsonDocument;
import org.bson.BsonValue;
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
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
abstract class PipelineScenarios {

    /** The processor configuration of every pipeline under test: one field rule on app.sessions. */
    static final Map<String, String> RULES = Map.of(
            "ttl.rules", "sessions",
            "ttl.rule.sessions.namespace", "app.sessions",
            "ttl.rule.sessions.field", "expireAt");

    /** The promise: gone within 2 s of the deadline. */
    private static final Duration WITHIN = Duration.ofSeconds(2);

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
    void start() throws Exception {
        startPipeline();
        sessions = mongo().getDatabase("app").getCollection("sessions");
        deletes = new TopicReader(bootstrapServers(), processorConfig().deleteTopic());
    }

    @AfterAll
    void stop() throws Exception {
        if (deletes != null) {
            deletes.close();
        }
        stopPipeline();
    }

    private boolean exists(Object id) {
        return sessions.countDocuments(eq("_id", id)) > 0;
    }

    /** Asserts the document is there until its deadline and gone within {@link #WITHIN} after it. */
    private void assertExpiresOnTime(Object id, Instant deadline) throws InterruptedException {
        while (Instant.now().isBefore(deadline.minusMillis(100))) {
            assertThat(exists(id))
                    .as("%s must not be deleted before its deadline %s", id, deadline)
                    .isTrue();
            Thread.sleep(50);
        }
        await().atMost(Duration.between(Instant.now(), deadline.plus(WITHIN)).plusMillis(1))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> !exists(id));
    }

    private List<ConsumerRecord<String, String>> commandsFor(BsonValue id) {
        return deletes.poll(r -> BsonDocument.parse(r.key()).get("_id").equals(id));
    }

    @Test
    void shouldDeleteAfterDeadlineNeverBeforeAndWithinTwoSeconds() throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(3);
        sessions.insertOne(new Document("_id", "on-time").append("expireAt", Date.from(deadline)));

        assertExpiresOnTime("on-time", deadline);
    }

    @Test
    void shouldKeepDocumentRenewedBeforeItsDeadline() throws InterruptedException {
        Instant first = Instant.now().plusSeconds(2);
        sessions.insertOne(new Document("_id", "renewed").append("expireAt", Date.from(first)));
        Thread.sleep(500);
        Instant renewed = Instant.now().plusSeconds(4);
        sessions.updateOne(eq("_id", "renewed"), set("expireAt", Date.from(renewed)));

        assertExpiresOnTime("renewed", renewed);
    }

    @Test
    void shouldKeepDocumentWhoseTtlFieldWasRemoved() throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(2);
        sessions.insertOne(new Document("_id", "unset").append("expireAt", Date.from(deadline)));
        sessions.updateOne(eq("_id", "unset"), unset("expireAt"));

        Thread.sleep(Duration.between(Instant.now(), deadline.plus(WITHIN)).toMillis());
        assertThat(exists("unset")).isTrue();
        assertThat(commandsFor(new org.bson.BsonString("unset"))).isEmpty();
    }

    @Test
    void shouldEmitNoDeleteCommandForDocumentDeletedByHand() throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(2);
        sessions.insertOne(new Document("_id", "by-hand").append("expireAt", Date.from(deadline)));
        sessions.deleteOne(eq("_id", "by-hand"));

        Thread.sleep(Duration.between(Instant.now(), deadline.plus(WITHIN)).toMillis());
        assertThat(commandsFor(new org.bson.BsonString("by-hand"))).isEmpty();
    }

    @Test
    void shouldExpireEveryIdType() throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(2);
        List<Object> ids = List.of(new ObjectId(), "string-id", 1L << 40, new Document("tenant", "t1").append("n", 7));
        for (Object id : ids) {
            sessions.insertOne(new Document("_id", id).append("expireAt", Date.from(deadline)));
        }
        for (Object id : ids) {
            assertExpiresOnTime(id, deadline);
        }
    }

    @Test
    void shouldLoseNoExpiryAndDeleteNothingEarlyAcrossProcessorRestart() throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(8);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add("restart-" + i);
            sessions.insertOne(new Document("_id", "restart-" + i).append("expireAt", Date.from(deadline)));
        }
        // The metric is per task, and the documents are spread over the partitions' tasks.
        await().atMost(Duration.ofSeconds(5))
                .until(() -> processor().streams().metrics().entrySet().stream()
                                .filter(e -> e.getKey().name().equals("documents-scheduled-total"))
                                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                                .sum()
                        >= 20);

        stopProcessor();
        // A document renewed while the processor is down is caught up from the topic on restart.
        Instant renewed = deadline.plusSeconds(3);
        sessions.updateOne(eq("_id", "restart-0"), set("expireAt", Date.from(renewed)));
        startProcessor();

        for (String id : ids.subList(1, ids.size())) {
            assertExpiresOnTime(id, deadline);
        }
        assertExpiresOnTime("restart-0", renewed);
    }

    @Test
    void shouldDeadLetterMalformedEventAndKeepProcessing() throws InterruptedException {
        String sourceTopic = processorConfig().sourceTopics().get(0);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        try (KafkaProducer<String, String> producer =
                        new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
                TopicReader dlq =
                        new TopicReader(bootstrapServers(), processorConfig().dlqTopic())) {
            producer.send(new ProducerRecord<>(sourceTopic, "{\"_id\": \"bad\"}", "{this is not json"))
                    .get();

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !dlq.poll(r -> true).isEmpty());
            ConsumerRecord<String, String> dead = dlq.poll(r -> true).get(0);
            assertThat(dead.value()).isEqualTo("{this is not json");
            assertThat(new String(
                            dead.headers()
                                    .lastHeader(DeadLetters.SOURCE_TOPIC_HEADER)
                                    .value(),
                            StandardCharsets.UTF_8))
                    .isEqualTo(sourceTopic);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError(e);
        }

        Instant deadline = Instant.now().plusSeconds(2);
        sessions.insertOne(new Document("_id", "after-bad").append("expireAt", Date.from(deadline)));
        assertExpiresOnTime("after-bad", deadline);
    }
}
