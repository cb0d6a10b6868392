package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.SigningKey;
import io.ttlstreams.resync.ResyncEvent;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The embedded stack end to end, with the MongoDB sync driver against the stand-in and plain Kafka clients:
 * change events out of the source connectors, delete commands (in the API contract's format) into the sink.
 * One stack for the whole class; every test uses its own document ids and leaves the connectors as it found them,
 * so the tests run in any order.
 */
@Tag("integration")
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
class EmbeddedStackIT {

    private static final Namespace DOCS = Namespace.parse("ttl.docs");
    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final long FAR_FUTURE = 1_900_000_000_000L;
    // Canonical extended JSON, which the BSON library calls EXTENDED.
    private static final JsonWriterSettings CANONICAL =
            JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration IDLE_WINDOW = Duration.ofSeconds(2);

    private static EmbeddedStack stack;
    private static MongoClient client;
    private static KafkaProducer<String, String> commands;
    private static final AtomicInteger sequence = new AtomicInteger();

    @BeforeAll
    @Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
    static void startStack() {
        Runtime runtime = Runtime.getRuntime();
        stack = EmbeddedStack.builder()
                .rules(TestRules.expireAt(DOCS, SESSIONS))
                .start();
        System.out.printf(
                "[measure] stack start-up: %d ms (max heap %d MB, heap used after start %d MB)%n",
                stack.startupDuration().toMillis(),
                runtime.maxMemory() >> 20,
                (runtime.totalMemory() - runtime.freeMemory()) >> 20);
        client = MongoClients.create(stack.mongoConnectionString());

        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "embedded-stack-it");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        commands = new KafkaProducer<>(props);
        commands.initTransactions();
    }

    @AfterAll
    @Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
    static void stopStack() throws Exception {
        List<Integer> ports = new ArrayList<>();
        if (stack != null) {
            ports.add(stack.mongo().port());
            ports.add(stack.kafka().port());
            ports.add(Integer.parseInt(
                    stack.connectUrl().substring(stack.connectUrl().lastIndexOf(':') + 1)));
        }
        Path dataDir = stack == null ? null : stack.dataDir();
        if (commands != null) {
            commands.close(Duration.ofSeconds(5));
        }
        if (client != null) {
            client.close();
        }
        long start = System.nanoTime();
        if (stack != null) {
            stack.close();
        }
        System.out.printf("[measure] stack close: %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));

        if (dataDir != null) {
            assertThat(dataDir).doesNotExist();
        }
        for (int port : ports) {
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(LocalPorts.HOST, port));
            }
        }
        System.out.println("[measure] threads alive after close: "
                + Thread.getAllStackTraces().keySet().stream()
                        .filter(Thread::isAlive)
                        .map(Thread::getName)
                        .sorted()
                        .collect(Collectors.joining(", ")));
    }

    @Test
    void shouldRunEveryConnectorAndReportItsStatus() {
        assertThat(stack.connect().connectors()).containsExactlyInAnyOrderElementsOf(stack.connectorNames());
        for (String name : stack.connectorNames()) {
            assertThat(stack.connect().status(name).isRunning()).as(name).isTrue();
        }
        assertThat(stack.sourceTopics()).containsEntry(DOCS, "ttl.docs").containsEntry(SESSIONS, "app.sessions");
        assertThatThrownBy(() -> stack.connect().status("no-such-connector"))
                .isInstanceOf(EmbeddedStackException.class)
                .hasMessageContaining("no-such-connector");
    }

    @Test
    void shouldShowTheSinkGuardsKeyThroughTheRestApiAsAReferenceOnly() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String sink = stack.connectUrl() + "/connectors/" + ConnectorConfigs.SINK_NAME;
        // The configuration as Connect stores it, and the connector info, which carries it too.
        for (String url : List.of(sink + "/config", sink, stack.connectUrl() + "/connectors?expand=info")) {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create(url)).timeout(WAIT).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).as(url).isEqualTo(200);
            assertThat(response.body())
                    .as(url)
                    .doesNotContain(stack.commandSigningKey())
                    .contains("\"transforms.guard.signing.key\":\"" + ConnectorConfigs.DEFAULT_SIGNING_KEY + "\"");
        }
        Path secret = stack.dataDir().resolve("connect/secrets/ttl-signing.properties");
        assertThat(Files.getPosixFilePermissions(secret))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        assertThat(Files.getPosixFilePermissions(secret.getParent()))
                .containsExactlyInAnyOrder(
                        PosixFilePermission.OWNER_READ,
                        PosixFilePermission.OWNER_WRITE,
                        PosixFilePermission.OWNER_EXECUTE);
        // The guard resolved the reference to the key itself: a command signed with it deletes.
        BsonValue id = new BsonString(uniqueId("by-reference"));
        insertExpiring(DOCS, id, FAR_FUTURE);
        sendCommitted(deleteCommand(DOCS, id, "expireAt", new BsonDateTime(FAR_FUTURE)));
        awaitGone(DOCS, id);
    }

    @Test
    void shouldPublishInsertUpdateAndDeleteAsChangeEvents() {
        String id = uniqueId("evt");
        BsonDocument key = new BsonDocument("_id", new BsonString(id));
        MongoCollection<BsonDocument> docs = collection(DOCS);
        BsonDocument ns = new BsonDocument("db", new BsonString("ttl")).append("coll", new BsonString("docs"));

        try (TopicReader reader = new TopicReader(stack.bootstrapServers(), DOCS.toString())) {
            // One write at a time: the full document of an update is looked up when the event is read, so an update
            // read after the delete would carry none (as on MongoDB).
            docs.insertOne(new BsonDocument("_id", new BsonString(id))
                    .append("expireAt", new BsonDateTime(FAR_FUTURE))
                    .append("v", new BsonInt32(1)));
            ConsumerRecord<String, String> insert = awaitEvent(reader, key, 1);
            docs.updateOne(Filters.eq("_id", id), Updates.set("v", 2));
            ConsumerRecord<String, String> update = awaitEvent(reader, key, 2);
            docs.deleteOne(Filters.eq("_id", id));
            ConsumerRecord<String, String> delete = awaitEvent(reader, key, 3);

            List<BsonDocument> values = List.of(
                    BsonDocument.parse(insert.value()),
                    BsonDocument.parse(update.value()),
                    BsonDocument.parse(delete.value()));
            assertThat(values)
                    .extracting(v -> v.getString("operationType").getValue())
                    .containsExactly("insert", "update", "delete");
            for (BsonDocument value : values) {
                assertThat(value.getDocument("ns")).isEqualTo(ns);
                assertThat(value.getDocument("documentKey")).isEqualTo(key);
                assertThat(value.get("clusterTime").isTimestamp()).isTrue();
                assertThat(value.getDocument("_id").containsKey("_data"))
                        .as("resume token")
                        .isTrue();
            }
            // The production pipeline's $project: only what the rules read crosses Kafka, v does not.
            BsonDocument projected =
                    new BsonDocument("_id", new BsonString(id)).append("expireAt", new BsonDateTime(FAR_FUTURE));
            assertThat(values.get(0).getDocument("fullDocument")).isEqualTo(projected);
            assertThat(values.get(1).getDocument("fullDocument")).isEqualTo(projected);
            assertThat(values.get(2).get("fullDocument"))
                    .satisfiesAnyOf(
                            v -> assertThat(v).isNull(),
                            v -> assertThat(v.isNull()).isTrue());
            // Canonical extended JSON, so the processor reads the types back exactly.
            assertThat(insert.value()).contains("{\"$date\": {\"$numberLong\": \"1900000000000\"}}");
        }
    }

    @Test
    void shouldKeyEveryChangeEventByItsDocumentEvenWhenWritesRace() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String id = uniqueId("race");
            ids.add(id);
            collection(DOCS).insertOne(new BsonDocument("_id", new BsonString(id)).append("v", new BsonInt32(1)));
            collection(DOCS).updateOne(Filters.eq("_id", id), Updates.set("v", 2));
            collection(DOCS)
                    .replaceOne(
                            Filters.eq("_id", id),
                            new BsonDocument("_id", new BsonString(id)).append("v", new BsonInt32(3)));
            collection(DOCS).deleteOne(Filters.eq("_id", id));
        }

        try (TopicReader reader = new TopicReader(stack.bootstrapServers(), DOCS.toString())) {
            // The last delete is the barrier: every event of the earlier writes is published before it.
            String last = ids.get(ids.size() - 1);
            reader.readUntil(
                    "the delete event of " + last,
                    r -> r.value().contains("\"delete\"") && r.key().contains(last),
                    WAIT);
            List<ConsumerRecord<String, String>> mine =
                    reader.poll(r -> ids.stream().anyMatch(r.key()::contains));
            for (ConsumerRecord<String, String> record : mine) {
                BsonDocument value = BsonDocument.parse(record.value());
                BsonDocument key = BsonDocument.parse(record.key());
                assertThat(key.keySet()).as(record.value()).containsExactly("_id");
                assertThat(value.getDocument("documentKey")).as(record.value()).isEqualTo(key);
                BsonValue fullDocument = value.get("fullDocument");
                if (fullDocument != null && !fullDocument.isNull()) {
                    assertThat(fullDocument.asDocument().get("_id"))
                            .as(record.value())
                            .isEqualTo(key.get("_id"));
                }
            }
            for (String type : List.of("insert", "update", "replace", "delete")) {
                assertThat(mine)
                        .as(type)
                        .filteredOn(r -> r.value().contains("\"" + type + "\""))
                        .hasSize(ids.size());
            }
        }
    }

    @Test
    void shouldKeyChangeEventsAsTheProcessorKeysAResyncWhenTheIdIsADoubleWithAPositiveExponent() {
        // The connector writes its keys with its own driver's BSON library (4.7), the processor with its own (5.x);
        // they differ on such doubles ("1.0E7" against "1.0E+7") unless CanonicalJson pins the form, and a resync
        // keyed otherwise would land on another partition than the document's change events.
        BsonDocument key = new BsonDocument("_id", new BsonDouble(1.0E7 + sequence.incrementAndGet()));
        collection(DOCS).insertOne(key.clone().append("v", new BsonInt32(1)));

        try (TopicReader reader = new TopicReader(stack.bootstrapServers(), DOCS.toString())) {
            ConsumerRecord<String, String> insert = awaitEvent(reader, key, 1);

            assertThat(insert.key())
                    .isEqualTo(ResyncEvent.of(DOCS.toString(), DOCS, key, new BsonTimestamp(1, 0))
                            .key());
        }
    }

    @Test
    void shouldDeleteTheDocumentWhenTheCommandConditionMatches() {
        BsonValue id = new BsonString(uniqueId("match"));
        insertExpiring(DOCS, id, FAR_FUTURE);

        sendCommitted(deleteCommand(DOCS, id, "expireAt", new BsonDateTime(FAR_FUTURE)));

        awaitGone(DOCS, id);
    }

    @Test
    void shouldNotDeleteTheDocumentWhenItsExpiryChangedSinceTheCommand() {
        BsonValue changed = new BsonString(uniqueId("changed"));
        BsonValue unset = new BsonString(uniqueId("unset"));
        insertExpiring(DOCS, changed, FAR_FUTURE);
        insertExpiring(DOCS, unset, FAR_FUTURE);
        collection(DOCS)
                .updateOne(Filters.eq("_id", changed), Updates.set("expireAt", new BsonDateTime(FAR_FUTURE + 1)));
        collection(DOCS).updateOne(Filters.eq("_id", unset), Updates.unset("expireAt"));

        sendCommittedThenAwaitApplied(
                deleteCommand(DOCS, changed, "expireAt", new BsonDateTime(FAR_FUTURE)),
                deleteCommand(DOCS, unset, "expireAt", new BsonDateTime(FAR_FUTURE)));

        assertThat(find(DOCS, changed)).isNotNull();
        assertThat(find(DOCS, unset)).isNotNull();
    }

    @Test
    void shouldMatchADottedConditionAgainstTheNestedField() {
        BsonValue due = new BsonString(uniqueId("nested-due"));
        BsonValue extended = new BsonString(uniqueId("nested-extended"));
        BsonValue flat = new BsonString(uniqueId("flat"));
        for (BsonValue id : List.of(due, extended)) {
            collection(SESSIONS)
                    .insertOne(new BsonDocument("_id", id)
                            .append(
                                    "session",
                                    new BsonDocument("expiresAt", new BsonDateTime(FAR_FUTURE))
                                            .append("user", new BsonString("u"))));
        }
        collection(SESSIONS)
                .updateOne(
                        Filters.eq("_id", extended),
                        Updates.set("session.expiresAt", new BsonDateTime(FAR_FUTURE + 60_000)));
        // A top-level field literally named "session.expiresAt" is not the nested field.
        collection(SESSIONS)
                .insertOne(
                        new BsonDocument("_id", flat).append("session", new BsonDocument("user", new BsonString("u"))));

        sendCommittedThenAwaitApplied(
                deleteCommand(SESSIONS, extended, "session.expiresAt", new BsonDateTime(FAR_FUTURE)),
                deleteCommand(SESSIONS, flat, "session.expiresAt", new BsonDateTime(FAR_FUTURE)));
        sendCommitted(deleteCommand(SESSIONS, due, "session.expiresAt", new BsonDateTime(FAR_FUTURE)));

        awaitGone(SESSIONS, due);
        assertThat(find(SESSIONS, extended)).isNotNull();
        assertThat(find(SESSIONS, flat)).isNotNull();
    }

    @Test
    void shouldApplyAPartialFilterConditionCarriedAsAnd() {
        BsonValue active = new BsonString(uniqueId("active"));
        BsonValue archived = new BsonString(uniqueId("archived"));
        for (BsonValue id : List.of(active, archived)) {
            collection(DOCS)
                    .insertOne(new BsonDocument("_id", id)
                            .append("expireAt", new BsonDateTime(FAR_FUTURE))
                            .append("status", new BsonString(id == active ? "active" : "archived")));
        }
        BsonDocument partialFilter = new BsonDocument("status", new BsonString("active"));

        sendCommittedThenAwaitApplied(
                withAnd(deleteCommand(DOCS, archived, "expireAt", new BsonDateTime(FAR_FUTURE)), partialFilter));
        sendCommitted(withAnd(deleteCommand(DOCS, active, "expireAt", new BsonDateTime(FAR_FUTURE)), partialFilter));

        awaitGone(DOCS, active);
        assertThat(find(DOCS, archived)).isNotNull();
    }

    static List<BsonValue> idsOfEveryType() {
        return List.of(
                new BsonDocument("tenant", new BsonString("t-" + sequence.incrementAndGet()))
                        .append("n", new BsonInt64(42)),
                new BsonObjectId(new ObjectId()),
                new BsonString(uniqueId("string")),
                new BsonInt64(9_000_000_000L + sequence.incrementAndGet()));
    }

    @ParameterizedTest(name = "_id {0}")
    @MethodSource("idsOfEveryType")
    void shouldDeleteByDocumentKeyOfAnyIdType(BsonValue id) {
        BsonValue twin = twinOf(id);
        insertExpiring(DOCS, id, FAR_FUTURE);
        insertExpiring(DOCS, twin, FAR_FUTURE);

        sendCommitted(deleteCommand(DOCS, id, "expireAt", new BsonDateTime(FAR_FUTURE)));

        awaitGone(DOCS, id);
        assertThat(find(DOCS, twin))
                .as("a document with another _id of the same type")
                .isNotNull();
    }

    @Test
    void shouldIgnoreCommandsOfAbortedTransactions() {
        BsonValue aborted = new BsonString(uniqueId("aborted"));
        insertExpiring(DOCS, aborted, FAR_FUTURE);

        commands.beginTransaction();
        send(deleteCommand(DOCS, aborted, "expireAt", new BsonDateTime(FAR_FUTURE)));
        commands.flush();
        commands.abortTransaction();
        sendCommittedThenAwaitApplied();

        assertThat(find(DOCS, aborted)).isNotNull();
    }

    @Test
    void shouldSendCommandsItCannotApplyToTheDeadLetterTopicAndKeepRunning() {
        String notJson = uniqueId("not-json");
        String noNamespace = "{\"_id\": {\"_id\": \"" + uniqueId("no-ns") + "\"}, \"rule\": \"docs\"}";
        String idNotADocument =
                "{\"_id\": \"" + uniqueId("not-a-document") + "\", \"ns\": {\"db\": \"ttl\", \"coll\": \"docs\"}}";
        BsonValue survivor = new BsonString(uniqueId("survivor"));
        insertExpiring(DOCS, survivor, FAR_FUTURE);

        commands.beginTransaction();
        commands.send(new ProducerRecord<>(stack.deleteTopic(), "k1", notJson));
        commands.send(new ProducerRecord<>(stack.deleteTopic(), "k2", noNamespace));
        commands.send(new ProducerRecord<>(stack.deleteTopic(), "k3", idNotADocument));
        commands.commitTransaction();
        sendCommittedThenAwaitApplied();

        try (TopicReader reader = new TopicReader(stack.bootstrapServers(), stack.deadLetterTopic())) {
            List<String> mine = List.of(notJson, noNamespace, idNotADocument);
            List<ConsumerRecord<String, String>> dead = await("the three commands in the dead-letter topic")
                    .atMost(WAIT)
                    .until(() -> reader.poll(r -> mine.contains(r.value())), list -> list.size() == 3);
            for (ConsumerRecord<String, String> record : dead) {
                Map<String, String> headers = new java.util.HashMap<>();
                for (Header header : record.headers()) {
                    headers.put(
                            header.key(),
                            header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8));
                }
                assertThat(headers)
                        .containsEntry("__connect.errors.topic", stack.deleteTopic())
                        .containsKey("__connect.errors.exception.message")
                        .containsEntry("__connect.errors.connector.name", ConnectorConfigs.SINK_NAME);
                System.out.printf(
                        "[dlq] %s -> %s%n", record.value(), headers.get("__connect.errors.exception.message"));
            }
        }
        assertThat(find(DOCS, survivor)).isNotNull();
        assertThat(stack.connect().status(ConnectorConfigs.SINK_NAME).isRunning())
                .isTrue();
        assertThat(collection(Namespace.of(
                                ConnectorConfigs.UNUSED_DEFAULT_NAMESPACE, ConnectorConfigs.UNUSED_DEFAULT_NAMESPACE))
                        .countDocuments())
                .isZero();
    }

    @Test
    void shouldExplainAConnectorThatIsRejectedOrFails() {
        ConnectorConfigs rendered = ConnectorConfigs.render(
                TestRules.expireAt(Namespace.parse("broken.docs")), stack.mongoConnectionString(), false);
        Map<String, String> invalid =
                new java.util.HashMap<>(rendered.sources().get(0).config());
        invalid.put("output.format.value", "bogus");
        assertThatThrownBy(() -> stack.connect().createConnector("invalid-source", invalid, WAIT))
                .isInstanceOf(EmbeddedStackException.class)
                .hasMessageContaining("'invalid-source'")
                .hasMessageContaining("output.format.value");

        // Valid for the connector, but its task cannot build a consumer: the task FAILS.
        Map<String, String> failing = new java.util.HashMap<>(ConnectorConfigs.sink(
                "ttl.broken",
                "ttl.broken.dlq",
                stack.mongoConnectionString(),
                List.of(new io.ttlstreams.contract.NamespacePattern("ttl", "docs")),
                stack.connect().secretReference("failing-sink-signing", stack.commandSigningKey())));
        failing.put("consumer.override.security.protocol", "SASL_PLAINTEXT");
        failing.put("consumer.override.sasl.mechanism", "NO-SUCH-MECHANISM");
        try {
            assertThatThrownBy(() -> stack.connect().createConnector("failing-sink", failing, WAIT))
                    .isInstanceOf(EmbeddedStackException.class)
                    .hasMessageContaining("'failing-sink' failed")
                    .hasMessageContaining("task 0: FAILED")
                    .hasMessageContaining("Failed to construct kafka consumer");
        } finally {
            stack.connect().deleteConnector("failing-sink", WAIT);
        }
        assertThat(stack.connect().connectors()).doesNotContain("invalid-source", "failing-sink");
    }

    @Test
    void shouldResumeFromTheStoredOffsetWhenASourceConnectorIsRecreated() {
        String name = ConnectorConfigs.SOURCE_NAME + "-" + SESSIONS.database();
        Map<String, String> config =
                ConnectorConfigs.render(TestRules.expireAt(DOCS, SESSIONS), stack.mongoConnectionString(), false)
                        .sources()
                        .stream()
                        .filter(source -> source.name().equals(name))
                        .findFirst()
                        .orElseThrow()
                        .config();
        String before = uniqueId("before-stop");
        String during = uniqueId("while-stopped");
        BsonDocument beforeKey = new BsonDocument("_id", new BsonString(before));
        BsonDocument duringKey = new BsonDocument("_id", new BsonString(during));
        try (TopicReader reader = new TopicReader(stack.bootstrapServers(), SESSIONS.toString())) {
            collection(SESSIONS).insertOne(beforeKey);
            String beforeToken = resumeData(
                    BsonDocument.parse(awaitEvent(reader, beforeKey, 1).value()).getDocument("_id"));
            // The worker stores offsets every second and once more when the task stops, that last time within a
            // timeout a loaded machine can miss: waiting until the stored offset has reached the event's resume
            // token (tokens sort as their hex, MongoDB's and the stand-in's alike) makes "no replay" a statement
            // about resuming, not about the timing of the last flush.
            await("the stored offset of " + before)
                    .atMost(WAIT)
                    .until(() -> stack.connect().storedOffsets(name, WAIT).stream()
                            .map(offset -> offset.get("_id"))
                            .anyMatch(token -> token instanceof String json
                                    && resumeData(BsonDocument.parse(json)).compareTo(beforeToken) >= 0));

            stack.connect().deleteConnector(name, WAIT);
            try {
                collection(SESSIONS).insertOne(duringKey);
            } finally {
                // Recreated whatever happens: the other tests need every connector.
                stack.connect().createConnector(name, config, WAIT);
            }

            // A replay would publish the old event again before the missed one.
            assertThat(reader.readUntil(
                            "the change event of " + during,
                            r -> BsonDocument.parse(r.key()).equals(duringKey),
                            WAIT))
                    .as("no replay of what was published")
                    .filteredOn(r -> BsonDocument.parse(r.key()).equals(beforeKey))
                    .hasSize(1);
        }
        assertThat(stack.connect().status(name).isRunning()).isTrue();
    }

    @Test
    void measureInsertToTopicLatency() {
        List<Long> micros = new ArrayList<>();
        try (TopicReader reader = new TopicReader(stack.bootstrapServers(), DOCS.toString())) {
            for (int i = 0; i < 25; i++) {
                String id = uniqueId("latency");
                BsonDocument key = new BsonDocument("_id", new BsonString(id));
                long start = System.nanoTime();
                insertExpiring(DOCS, new BsonString(id), FAR_FUTURE);
                await("the change event of " + id)
                        .atMost(WAIT)
                        .pollInterval(Duration.ofMillis(1))
                        .until(
                                () -> reader.poll(
                                        r -> BsonDocument.parse(r.key()).equals(key)),
                                list -> !list.isEmpty());
                micros.add(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start));
            }
        }
        report("insert -> change event in topic", micros.subList(5, micros.size()));
    }

    @Test
    void measureCommandToDeletedLatency() {
        List<Long> micros = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            BsonValue id = new BsonString(uniqueId("latency-delete"));
            insertExpiring(DOCS, id, FAR_FUTURE);
            long start = System.nanoTime();
            sendCommitted(deleteCommand(DOCS, id, "expireAt", new BsonDateTime(FAR_FUTURE)));
            awaitGone(DOCS, id, Duration.ofMillis(2));
            micros.add(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start));
        }
        report("command produced (committed) -> document deleted", micros.subList(5, micros.size()));
    }

    /**
     * Waits for a window in which the whole test JVM is nearly idle, however busy the test before was: spinning
     * change streams (the stand-in's stock getMore) cost well over a core here in every window.
     */
    @Test
    void shouldStayNearlyIdleWhenNothingHappens() {
        ProcessCpu cpu = new ProcessCpu();
        double cores = await("a " + IDLE_WINDOW.toSeconds() + " s window in which the test JVM uses under half a core")
                .atMost(Duration.ofSeconds(30))
                .pollDelay(IDLE_WINDOW)
                .pollInterval(IDLE_WINDOW)
                .until(cpu::coresSinceLastCall, used -> used < 0.5);
        System.out.printf(
                "[measure] idle CPU of the whole test JVM (stack with %d source connectors): %.1f%% of one core%n",
                stack.namespaces().size(), cores * 100);
    }

    // ---- helpers ----

    private static ConsumerRecord<String, String> awaitEvent(TopicReader reader, BsonDocument key, int nth) {
        List<ConsumerRecord<String, String>> events = await("change event " + nth + " of " + key.toJson())
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(10))
                .until(() -> reader.poll(r -> BsonDocument.parse(r.key()).equals(key)), list -> list.size() >= nth);
        return events.get(nth - 1);
    }

    /**
     * The hex of a resume token: an event's {@code _id}, or the {@code _id} of the source connector's stored offset.
     */
    private static String resumeData(BsonDocument token) {
        return token.getString("_data").getValue();
    }

    private static String uniqueId(String prefix) {
        return prefix + "-" + sequence.incrementAndGet() + "-"
                + UUID.randomUUID().toString().substring(0, 8);
    }

    private static BsonValue twinOf(BsonValue id) {
        return switch (id.getBsonType()) {
            case DOCUMENT -> id.asDocument().clone().append("n", new BsonInt64(43));
            case OBJECT_ID -> new BsonObjectId(new ObjectId());
            case STRING -> new BsonString(id.asString().getValue() + "-twin");
            case INT64 -> new BsonInt64(id.asInt64().getValue() + 1);
            default -> throw new IllegalArgumentException("unexpected id type " + id.getBsonType());
        };
    }

    private static MongoCollection<BsonDocument> collection(Namespace namespace) {
        return client.getDatabase(namespace.database()).getCollection(namespace.collection(), BsonDocument.class);
    }

    private static void insertExpiring(Namespace namespace, BsonValue id, long expireAtMillis) {
        collection(namespace)
                .insertOne(new BsonDocument("_id", id)
                        .append("expireAt", new BsonDateTime(expireAtMillis))
                        .append("v", new BsonInt32(1)));
    }

    private static BsonDocument find(Namespace namespace, BsonValue id) {
        return collection(namespace).find(new BsonDocument("_id", id)).first();
    }

    private static void awaitGone(Namespace namespace, BsonValue id) {
        awaitGone(namespace, id, Duration.ofMillis(20));
    }

    private static void awaitGone(Namespace namespace, BsonValue id, Duration pollInterval) {
        await(id + " deleted from " + namespace)
                .atMost(WAIT)
                .pollInterval(pollInterval)
                .until(() -> find(namespace, id) == null);
    }

    /**
     * A delete command exactly as "The delete command" in the API contract describes it, due and issued now and
     * signed with the stack's key, as the processor would sign it.
     */
    private static ProducerRecord<String, String> deleteCommand(
            Namespace namespace, BsonValue id, String field, BsonValue condition) {
        BsonDocument key = new BsonDocument("_id", id);
        long now = System.currentTimeMillis();
        DeleteCommand command = new DeleteCommand(
                key,
                key.clone().append(field, new BsonDocument("$eq", condition)),
                namespace,
                namespace.collection(),
                now,
                OptionalLong.of(now));
        return signed(command.keyJson(), command.valueJson());
    }

    private static ProducerRecord<String, String> signed(String key, String value) {
        SigningKey signer = SigningKey.of(stack.commandSigningKey());
        return CommandSignatures.signed(new ProducerRecord<>(stack.deleteTopic(), key, value), signer.id(), signer);
    }

    /** Adds {@code "$and": [expression]} to the command's filter, as the contract does for partial filters. */
    private static ProducerRecord<String, String> withAnd(
            ProducerRecord<String, String> command, BsonDocument expression) {
        BsonDocument value = BsonDocument.parse(command.value());
        value.getDocument("_id").append("$and", new org.bson.BsonArray(List.of(expression)));
        return signed(command.key(), value.toJson(CANONICAL));
    }

    private static void send(ProducerRecord<String, String> record) {
        commands.send(record);
    }

    @SafeVarargs
    private static void sendCommitted(ProducerRecord<String, String>... records) {
        commands.beginTransaction();
        for (ProducerRecord<String, String> record : records) {
            send(record);
        }
        commands.commitTransaction();
    }

    /**
     * Sends the records, then a command for a fresh document, and waits until that document is gone: the delete
     * topic has one partition, so the sink has then processed the records too.
     */
    @SafeVarargs
    private static void sendCommittedThenAwaitApplied(ProducerRecord<String, String>... records) {
        BsonValue barrier = new BsonString(uniqueId("barrier"));
        insertExpiring(DOCS, barrier, FAR_FUTURE);
        List<ProducerRecord<String, String>> all = new ArrayList<>(List.of(records));
        all.add(deleteCommand(DOCS, barrier, "expireAt", new BsonDateTime(FAR_FUTURE)));
        sendCommitted(all.toArray(ProducerRecord[]::new));
        awaitGone(DOCS, barrier);
    }

    private static void report(String what, List<Long> micros) {
        List<Long> sorted = new ArrayList<>(micros);
        Collections.sort(sorted);
        System.out.printf(
                "[measure] %s over %d samples: p50 %.1f ms, min %.1f ms, max %.1f ms%n",
                what,
                sorted.size(),
                sorted.get(sorted.size() / 2) / 1000.0,
                sorted.get(0) / 1000.0,
                sorted.get(sorted.size() - 1) / 1000.0);
    }

    /** CPU time of this JVM per wall-clock time, in cores, between consecutive calls. */
    private static final class ProcessCpu {
        private final com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        private long cpuNanos = os.getProcessCpuTime();
        private long wallNanos = System.nanoTime();

        double coresSinceLastCall() {
            long cpu = os.getProcessCpuTime();
            long wall = System.nanoTime();
            double cores = (double) (cpu - cpuNanos) / (wall - wallNanos);
            cpuNanos = cpu;
            wallNanos = wall;
            return cores;
        }
    }
}
