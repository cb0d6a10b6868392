package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.OutputTopicOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.TopicReader;
import io.ttlstreams.processor.DeadLetters;
import io.ttlstreams.state.DocumentRef;
import io.ttlstreams.state.ScheduleKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The records that once stopped all expiry of a task (issue 8), produced straight to the topics of a live embedded
 * pipeline, as an operator would: each lands in the dead-letter topic (truncated where it must be), whether a parser
 * rejected it or the scheduler threw on it (Kafka Streams' processing exception handler), and documents due afterwards
 * in every partition are still deleted on time. A dead-letter topic too small for a dead letter stops
 * start-up; a processor whose stream thread keeps failing ends {@code run} with a non-zero exit code instead of
 * looking healthy.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class PoisonRecordsIT {

    private static final Duration WITHIN = Duration.ofSeconds(2);

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(PipelineScenarios.RULES);

    private KafkaProducer<byte[], byte[]> producer() {
        Properties props = new Properties();
        props.put(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                PIPELINE.pipeline().stack().bootstrapServers());
        // The oversize event itself must get through; it is its dead letter that must fit the processor's limit.
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(2 * 1024 * 1024));
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static byte[] utf8(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldDeadLetterEveryPoisonRecordAndKeepExpiringInEveryPartition() throws Exception {
        TtlStreamsConfig config = PIPELINE.pipeline().processorConfig();
        String source = config.sourceTopics().get(0);
        String control = config.controlTopic();
        int partitions = EmbeddedOptions.partitions(config);
        String deep = "{\"operationType\": \"insert\", \"fullDocument\": " + "{\"a\": [".repeat(5_000)
                + "]}".repeat(5_000) + "}";
        // Just under what the broker stores by default; its dead letter, with headers, would be over the producer's
        // 1 MiB limit.
        String oversize = "{\"operationType\": \"insert\", \"junk\": \"" + "x".repeat(1_048_000);
        String nulDatabase = "{\"operationType\": \"dropDatabase\", \"ns\": {\"db\": \"app\\u0000x\"}}";
        String forged = "{\"operationType\": \"insert\", \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"},"
                + " \"documentKey\": {\"_id\": {\"$exists\": true, \"$ne\": \"n1\"}},"
                + " \"fullDocument\": {\"_id\": \"n2\", \"expireAt\": {\"$date\": \"2020-01-01T00:00:00Z\"}}}";
        String controlNul = "{\"operationType\": \"DROP_DATABASE\", \"namespace\": \"app\\u0000x\","
                + " \"documentKey\": null, \"fullDocument\": null, \"eventTime\": \"2026-01-01T00:00:00Z\","
                + " \"clusterTime\": null}";
        List<String> expectedDead = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int partition = 0; partition < partitions; partition++) {
                for (String poison : List.of(deep, oversize, nulDatabase, forged)) {
                    producer.send(new ProducerRecord<>(source, partition, utf8("{\"_id\": \"p\"}"), utf8(poison)))
                            .get();
                    expectedDead.add(source + ":" + poison.length());
                }
                // Parsed, but its delete command would be too large to send: the scheduler throws on it, and Kafka
                // Streams' processing exception handler dead-letters it, in the task's transaction.
                producer.send(new ProducerRecord<>(
                                source,
                                partition,
                                utf8("{\"_id\": \"too-large-" + partition + "\"}"),
                                utf8(tooLargeToDelete("too-large-" + partition))))
                        .get();
                for (String poison : List.of("not json", controlNul)) {
                    producer.send(new ProducerRecord<>(control, partition, utf8("app"), utf8(poison)))
                            .get();
                    expectedDead.add(control + ":" + poison.length());
                }
            }
        }

        MongoCollection<Document> sessions = PIPELINE.collection(Namespace.parse("app.sessions"));
        Instant deadline = Instant.now().plusSeconds(4);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ids.add("after-poison-" + i);
            sessions.insertOne(new Document("_id", "after-poison-" + i).append("expireAt", Date.from(deadline)));
        }

        try (TopicReader dlq = new TopicReader(PIPELINE.pipeline().stack().bootstrapServers(), config.dlqTopic())) {
            await("every poison record in the dead-letter topic")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> dlq.poll(r -> true).size() >= expectedDead.size());
            await("the scheduler's dead letters too")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> dlq.poll(r -> true).size() >= expectedDead.size() + partitions);
            List<ConsumerRecord<String, String>> all = dlq.poll(r -> true);
            List<ConsumerRecord<String, String>> thrown = all.stream()
                    .filter(r -> String.valueOf(header(r, DeadLetters.ERROR_HEADER))
                            .contains("its delete command would take"))
                    .toList();
            assertThat(thrown)
                    .as("one per partition, from the scheduler through the processing exception handler")
                    .hasSize(partitions)
                    .allSatisfy(r -> {
                        assertThat(header(r, DeadLetters.SOURCE_TOPIC_HEADER)).isEqualTo(source);
                        assertThat(header(r, DeadLetters.ERROR_CLASS_HEADER))
                                .isEqualTo(IllegalArgumentException.class.getName());
                        assertThat(r.key()).startsWith("{\"_id\": \"too-large-");
                    });
            List<ConsumerRecord<String, String>> dead =
                    all.stream().filter(r -> !thrown.contains(r)).toList();
            assertThat(dead)
                    .extracting(r -> header(r, DeadLetters.SOURCE_TOPIC_HEADER) + ":" + originalSize(r))
                    .containsExactlyInAnyOrderElementsOf(expectedDead);
            assertThat(dead)
                    .filteredOn(r -> "true".equals(header(r, DeadLetters.TRUNCATED_HEADER)))
                    .hasSize(partitions)
                    .allSatisfy(r -> assertThat(oversize).startsWith(r.value()));
        }

        // Every document due after the poison: none deleted before the deadline, all within WITHIN after it.
        ExpiryProbe.assertExpireOnTime(sessions, ids, deadline, WITHIN);
        assertThat(sourcePartitionsOf(ids)).as("documents in every partition").hasSize(partitions);
    }

    /**
     * An insert of a document whose expireAt holds 35,000 dates an hour ahead: under 1 MB as the event's relaxed JSON,
     * over the producer's limit as the delete command's pinned values (canonical JSON), so the scheduler refuses it.
     */
    private static String tooLargeToDelete(String id) {
        long inAnHour = Instant.now().plus(Duration.ofHours(1)).toEpochMilli();
        StringBuilder dates = new StringBuilder();
        for (int i = 0; i < 35_000; i++) {
            dates.append(i == 0 ? "" : ",")
                    .append("{\"$date\":")
                    .append(inAnHour + i * 1_000L)
                    .append('}');
        }
        return "{\"operationType\": \"insert\", \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"},"
                + " \"documentKey\": {\"_id\": \"" + id + "\"}, \"fullDocument\": {\"_id\": \"" + id + "\","
                + " \"expireAt\": [" + dates + "]}}";
    }

    /** The partitions of the source topic the documents' events landed in. */
    private Set<Integer> sourcePartitionsOf(List<String> ids) {
        Set<Integer> seen = new HashSet<>();
        try (TopicReader reader = new TopicReader(
                PIPELINE.pipeline().stack().bootstrapServers(),
                PIPELINE.pipeline().processorConfig().sourceTopics().get(0))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                for (ConsumerRecord<String, String> record : reader.poll(r -> r.key() != null)) {
                    BsonDocument key = BsonDocument.parse(record.key());
                    if (key.isString("_id") && ids.contains(key.getString("_id").getValue())) {
                        seen.add(record.partition());
                    }
                }
                return seen.size()
                        == EmbeddedOptions.partitions(PIPELINE.pipeline().processorConfig());
            });
        }
        return seen;
    }

    /** The size of the value that was dead-lettered: the original's when truncated (ASCII here: bytes are chars). */
    private static String originalSize(ConsumerRecord<String, String> record) {
        String original = header(record, DeadLetters.ORIGINAL_VALUE_BYTES_HEADER);
        return original != null ? original : Integer.toString(record.value().length());
    }

    private static String header(ConsumerRecord<String, String> record, String name) {
        return record.headers().lastHeader(name) == null
                ? null
                : new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldRefuseToStartOnADeadLetterTopicThatCannotTakeWhatTheProducerSends() throws Exception {
        try (Admin admin = Admin.create(
                Map.of("bootstrap.servers", PIPELINE.pipeline().stack().bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("ttl.dlq.small", 1, (short) 1)
                            .configs(Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "100000"))))
                    .all()
                    .get();
        }
        Map<String, Object> props =
                new HashMap<>(PIPELINE.pipeline().processorConfig().originals());
        props.put(OutputTopicOptions.DLQ_TOPIC_CONFIG, "ttl.dlq.small");

        assertThatThrownBy(() -> new TtlStreamsApp(new TtlStreamsConfig(props), java.util.Optional.empty()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("topic ttl.dlq.small: max.message.bytes expected at least ")
                .hasMessageContaining(", actual 100000")
                .hasMessageContaining("producer.max.request.size");
    }

    /**
     * A processor whose punctuation keeps failing (here: a schedule entry corrupted in the changelog) has its stream
     * thread replaced up to ttl.thread.replacements.max times (0 here), then stops: {@code run} exits with code 3.
     */
    @Test
    void shouldEndRunWithANonZeroExitCodeWhenKafkaStreamsReachesError(@TempDir Path dir) throws Exception {
        String applicationId = "ttl-streams-broken";
        String changelog = applicationId + "-schedule-changelog";
        int partitions = EmbeddedOptions.partitions(PIPELINE.pipeline().processorConfig());
        try (Admin admin = Admin.create(
                Map.of("bootstrap.servers", PIPELINE.pipeline().stack().bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(changelog, partitions, (short) 1)
                            .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT))))
                    .all()
                    .get();
        }
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int partition = 0; partition < partitions; partition++) {
                // Due long ago, with a value no decoder accepts.
                byte[] key = ScheduleKey.of(
                                ScheduleKey.Timeline.DEADLINES,
                                0,
                                DocumentRef.of(
                                        DocumentRef.collectionPrefix(0, 0),
                                        new BsonDocument("_id", new BsonString("corrupt-" + partition))))
                        .get();
                producer.send(new ProducerRecord<>(changelog, partition, key, utf8("garbage")))
                        .get();
            }
        }
        // A processor whose schedule changelog holds a corrupt entry.
        Map<String, String> props = PIPELINE.instanceSettings();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(OperationsOptions.THREAD_REPLACEMENTS_MAX_CONFIG, "0");
        props.put(OutputTopicOptions.CONTROL_TOPIC_CONFIG, "ttl.control.broken");
        props.put(OutputTopicOptions.DELETE_TOPIC_CONFIG, "ttl.deletes.broken");
        Path log = dir.resolve("broken.log");
        Process run = PIPELINE.startRun(props, log);
        try {
            assertThat(run.waitFor(120, TimeUnit.SECONDS))
                    .as("run ends by itself; output:%n%s", Files.readString(log))
                    .isTrue();
            String output = Files.readString(log);
            assertThat(run.exitValue()).as("exit code; output:%n%s", output).isEqualTo(3);
            assertThat(output)
                    .contains("Punctuation of task")
                    .contains("Stream thread failed and will not be replaced")
                    .contains("Kafka Streams reached state ERROR")
                    .contains("exiting with code 3");
        } finally {
            run.destroyForcibly();
        }
    }
}
