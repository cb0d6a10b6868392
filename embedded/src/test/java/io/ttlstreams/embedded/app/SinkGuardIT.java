package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.model.Filters;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.SigningKey;
import io.ttlstreams.embedded.CommandSignatures;
import io.ttlstreams.embedded.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 9 on the embedded pipeline ({@code run --embedded}, signing key set, guard on): the forged commands of the
 * issue, unsigned or even signed with the right key, a command signed with a wrong key, a tampered signature, a
 * namespace outside the allow-list and a command due in the future all land in the sink's dead-letter topic with
 * the guard's reason and delete nothing, while a real expiry still happens.
 *
 * <p>"Deleted nothing" is proven after a barrier: the forged commands go first, then a valid signed command for a
 * marker document; the delete topic has one partition, so once the marker is gone the sink has handled every forged
 * command before it.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class SinkGuardIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Namespace USERS = Namespace.parse("prod.users");
    private static final long FAR_FUTURE = 1_900_000_000_000L;
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** The forged filters of issue 9, each with the reason the guard gives when it is signed with the right key. */
    private static final Map<String, String> FORGED_FILTERS = Map.of(
            "{}", "must start with the document key's field '_id'",
            "{\"_id\": {\"$exists\": true}}", "differs from the record key's",
            "{\"_id\": {\"$gt\": \"\"}}", "differs from the record key's",
            "{\"_id\": {\"$regex\": \"^users-\"}}", "differs from the record key's",
            "{\"$expr\": {\"$eq\": [1, 1]}}", "found '$expr'");

    // One partition: a barrier (a later marker that must be handled first) proves nothing across partitions.
    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE =
            EmbeddedPipelineExtension.with(PipelineScenarios.RULES).and("embedded.partitions", "1");

    private EmbeddedPipeline pipeline;
    private KafkaProducer<String, String> producer;
    private SigningKey rightKey;

    @BeforeAll
    void start() {
        pipeline = PIPELINE.pipeline();
        rightKey = SigningKey.of(pipeline.stack().commandSigningKey());
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, pipeline.stack().bootstrapServers());
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    @AfterAll
    void stop() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
    }

    /** A forged command: the filter with a real-looking key and namespace, due now. */
    private static String value(String filter, Namespace namespace, long deadline) {
        BsonDocument ns = new BsonDocument("db", new BsonString(namespace.database()))
                .append("coll", new BsonString(namespace.collection()));
        return "{\"_id\": " + filter + ", \"ns\": " + ns.toJson() + ", \"rule\": \"sessions\", \"deadline\": "
                + new BsonDocument("d", new BsonDateTime(deadline)).toJson().replaceFirst("^\\{\"d\": ", "");
    }

    /** The command the processor would emit for document {@code id} of {@code namespace}, due at {@code deadline}. */
    private static DeleteCommand wellFormed(Namespace namespace, String id, long deadline) {
        return wellFormed(namespace, id, deadline, OptionalLong.of(System.currentTimeMillis()));
    }

    private static DeleteCommand wellFormed(Namespace namespace, String id, long deadline, OptionalLong issuedAt) {
        BsonDocument key = new BsonDocument("_id", new BsonString(id));
        BsonDocument filter = key.clone().append("expireAt", new BsonDocument("$eq", new BsonDateTime(FAR_FUTURE)));
        return new DeleteCommand(key, filter, namespace, "sessions", deadline, issuedAt);
    }

    private ProducerRecord<String, String> unsigned(String key, String value) {
        return new ProducerRecord<>(pipeline.stack().deleteTopic(), key, value);
    }

    private ProducerRecord<String, String> signed(String keyId, SigningKey signer, String key, String value) {
        return CommandSignatures.signed(unsigned(key, value), keyId, signer);
    }

    private ProducerRecord<String, String> signed(DeleteCommand command) {
        return signed(rightKey.id(), rightKey, command.keyJson(), command.valueJson());
    }

    @Test
    void shouldParkEveryForgedCommandInTheSinkDlqAndDeleteNothingWhileRealExpiriesGoOn() throws Exception {
        for (int i = 0; i < 5; i++) {
            PIPELINE.collection(SESSIONS)
                    .insertOne(new Document("_id", "users-" + i).append("expireAt", new Date(FAR_FUTURE)));
        }
        for (int i = 0; i < 20; i++) {
            PIPELINE.collection(USERS)
                    .insertOne(new Document("_id", "users-" + i).append("expireAt", new Date(FAR_FUTURE)));
        }
        PIPELINE.collection(SESSIONS).insertOne(new Document("_id", "marker").append("expireAt", new Date(FAR_FUTURE)));
        Instant realDeadline = Instant.now().plusSeconds(3);
        PIPELINE.collection(SESSIONS)
                .insertOne(new Document("_id", "expiring").append("expireAt", Date.from(realDeadline)));

        long now = System.currentTimeMillis();
        String key = "{\"_id\": \"users-1\"}";
        SigningKey wrongKey = SigningKey.of("a-wrong-key-that-somebody-made-up-for-this");
        // Each forged record with the start of the reason the guard must give.
        List<ProducerRecord<String, String>> forged = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        FORGED_FILTERS.forEach((filter, grammarReason) -> {
            for (Namespace namespace : List.of(SESSIONS, USERS)) {
                forged.add(unsigned(key, value(filter, namespace, now)));
                reasons.add("unsigned: the record has no ttl.signature header");
            }
            forged.add(signed(rightKey.id(), rightKey, key, value(filter, SESSIONS, now)));
            reasons.add(grammarReason);
        });
        for (int i = 0; i < 20; i++) {
            forged.add(unsigned("{\"_id\": \"users-" + i + "\"}", value("{}", USERS, now)));
            reasons.add("unsigned");
        }
        DeleteCommand valid = wellFormed(SESSIONS, "users-2", now);
        forged.add(signed(wrongKey.id(), wrongKey, valid.keyJson(), valid.valueJson()));
        reasons.add("signed with key id '" + wrongKey.id() + "', which this sink does not trust");
        forged.add(signed(rightKey.id(), wrongKey, valid.keyJson(), valid.valueJson()));
        reasons.add("bad signature for key id " + rightKey.id());
        forged.add(signed(wellFormed(USERS, "users-3", now)));
        reasons.add("namespace prod.users is not in allowed.namespaces [app.sessions]");
        forged.add(signed(wellFormed(SESSIONS, "users-4", now + 3_600_000)));
        reasons.add("is later than the sink's clock");
        // Replays: a command recorded three hours ago, and one of a processor that wrote no issue time.
        forged.add(signed(wellFormed(SESSIONS, "users-0", now, OptionalLong.of(now - 3 * 3_600_000))));
        reasons.add("a stale or replayed command");
        forged.add(signed(wellFormed(SESSIONS, "users-0", now, OptionalLong.empty())));
        reasons.add("the command has no issue time");

        try (TopicReader dlq = new TopicReader(
                pipeline.stack().bootstrapServers(), pipeline.stack().deadLetterTopic())) {
            for (ProducerRecord<String, String> record : forged) {
                producer.send(record);
            }
            producer.send(signed(wellFormed(SESSIONS, "marker", now))).get();

            await("the barrier: the marker document deleted by a valid signed command")
                    .atMost(WAIT)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> PIPELINE.collection(SESSIONS).countDocuments(eq("_id", "marker")) == 0);
            assertThat(PIPELINE.collection(SESSIONS).countDocuments(Filters.regex("_id", "^users-")))
                    .as("app.sessions victims")
                    .isEqualTo(5);
            assertThat(PIPELINE.collection(USERS).countDocuments())
                    .as("prod.users")
                    .isEqualTo(20);

            List<ConsumerRecord<String, String>> dead = await("every forged command in " + dlq)
                    .atMost(WAIT)
                    .until(() -> dlq.poll(r -> true), list -> list.size() >= forged.size());
            assertThat(dead).hasSize(forged.size());
            for (int i = 0; i < forged.size(); i++) {
                ConsumerRecord<String, String> record = dead.get(i);
                assertThat(record.value()).isEqualTo(forged.get(i).value());
                assertThat(header(record, "__connect.errors.exception.message"))
                        .as("dead letter %d: %s", i, record.value())
                        .startsWith("Delete command refused by the sink guard: ")
                        .contains(reasons.get(i));
                assertThat(header(record, "__connect.errors.topic"))
                        .isEqualTo(pipeline.stack().deleteTopic());
                // The dead letter keeps the original headers, so that it can be sent again once a key is fixed.
                assertThat(header(record, SigningKey.SIGNATURE_HEADER))
                        .isEqualTo(originalHeader(forged.get(i), SigningKey.SIGNATURE_HEADER));
            }
            System.out.printf(
                    "[guard] %d forged commands dead-lettered, e.g. %s%n",
                    dead.size(), header(dead.get(forged.size() - 1), "__connect.errors.exception.message"));

            await("the real expiry of 'expiring', due " + realDeadline)
                    .atMost(WAIT)
                    .until(() -> PIPELINE.collection(SESSIONS).countDocuments(eq("_id", "expiring")) == 0);
            assertThat(Instant.now()).isAfterOrEqualTo(realDeadline);
            assertThat(dlq.poll(r -> true))
                    .as("the processor's own command passed the guard")
                    .hasSize(forged.size());
        } catch (ExecutionException e) {
            throw new AssertionError(e);
        }
        assertThat(PIPELINE.collection(USERS).countDocuments()).isEqualTo(20);
    }

    private static String originalHeader(ProducerRecord<String, String> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static String header(ConsumerRecord<String, String> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
