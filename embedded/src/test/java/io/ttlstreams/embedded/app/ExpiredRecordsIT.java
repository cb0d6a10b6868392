package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Projections.include;
import static com.mongodb.client.model.Updates.set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.TopicReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Expired records through the whole pipeline, across a failover: 1,000 documents of a collection that keeps
 * pre-images come due within a few seconds, one of them updated a second before its deadline, while one of the two
 * processor instances is killed with {@code kill -9}; 100 others are deleted by the application. Exactly one record
 * per expired document must reach {@code ttl.expired} (read committed), each carrying the document as it was just
 * before its delete, and none for the application's deletes.
 */
@Tag("integration")
class ExpiredRecordsIT {

    private static final String TOPIC = "ttl.expired";
    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final int EXPIRING = 1_000;
    private static final int DELETED_BY_APPLICATION = 100;
    private static final int MARKERS = 20;
    /** Deadlines from this long after the start, spread over {@link #SPREAD}; the kill comes at {@link #KILL_AT}. */
    private static final Duration FIRST_DEADLINE = Duration.ofSeconds(5);

    private static final Duration SPREAD = Duration.ofSeconds(5);
    private static final Duration KILL_AT = Duration.ofSeconds(7);
    private static final String UPDATED = "expiring-700";

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(PipelineScenarios.RULES)
            .and(EmbeddedOptions.EMBEDDED_PARTITIONS_CONFIG, "2")
            .and("ttl.expired.topic", TOPIC)
            .and("ttl.rule.sessions.expired.document", "pre-image");

    @Test
    void shouldPublishExactlyOneRecordWithTheLastStatePerExpiryAndNoneForApplicationDeletesWhenAnInstanceIsKilled(
            @TempDir Path dir) throws Exception {
        MongoDatabase app = PIPELINE.mongo().getDatabase(SESSIONS.database());
        app.runCommand(new Document("create", SESSIONS.collection())
                .append("changeStreamPreAndPostImages", new Document("enabled", true)));
        MongoCollection<Document> sessions = PIPELINE.collection(SESSIONS);
        KafkaStreams first = PIPELINE.pipeline().processor().streams();
        Path log = dir.resolve("second-instance.log");
        Process second = PIPELINE.startRun(PIPELINE.instanceSettings(), log, "--status-interval", "1");
        try (TopicReader expired = new TopicReader(PIPELINE.pipeline().stack().bootstrapServers(), TOPIC)) {
            await("both instances own one active task each")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> ProcessorFailoverIT.tasks(first, true).size() == 1
                            && Files.readString(log).contains("ttl-streams ready"));

            Instant start = Instant.now();
            Map<String, Document> expected = new LinkedHashMap<>();
            List<Document> inserts = new ArrayList<>();
            for (int i = 0; i < EXPIRING; i++) {
                Instant deadline =
                        start.plus(FIRST_DEADLINE).plus(SPREAD.multipliedBy(i).dividedBy(EXPIRING));
                Document document = new Document("_id", "expiring-" + i)
                        .append("expireAt", Date.from(deadline))
                        .append("user", "user-" + i)
                        .append("v", 0);
                expected.put("expiring-" + i, document);
                inserts.add(document);
            }
            for (int i = 0; i < DELETED_BY_APPLICATION; i++) {
                inserts.add(new Document("_id", "app-" + i)
                        .append("expireAt", Date.from(start.plus(Duration.ofMinutes(10))))
                        .append("user", "app"));
            }
            sessions.insertMany(inserts);
            sessions.deleteMany(in("_id", ids("app-", DELETED_BY_APPLICATION)));
            Instant updateAt =
                    expected.get(UPDATED).getDate("expireAt").toInstant().minusSeconds(1);

            AtomicBoolean updated = new AtomicBoolean();
            AtomicBoolean killed = new AtomicBoolean();
            Set<String> gone = new HashSet<>();
            await("every expiring document deleted; one updated a second before its deadline; an instance killed")
                    .atMost(Duration.ofSeconds(120))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        Instant now = Instant.now();
                        if (!updated.get() && !now.isBefore(updateAt)) {
                            assertThat(sessions.updateOne(eq("_id", UPDATED), set("v", 1))
                                            .getModifiedCount())
                                    .as("the update came before the delete")
                                    .isEqualTo(1);
                            expected.get(UPDATED).put("v", 1);
                            updated.set(true);
                        }
                        if (!killed.get() && now.isAfter(start.plus(KILL_AT))) {
                            second.destroyForcibly(); // SIGKILL: its transaction left open
                            second.waitFor();
                            killed.set(true);
                        }
                        Set<Object> present = new HashSet<>();
                        sessions.find(in("_id", expected.keySet()))
                                .projection(include("_id"))
                                .forEach(d -> present.add(d.get("_id")));
                        expected.keySet().stream()
                                .filter(id -> !present.contains(id))
                                .forEach(gone::add);
                        return gone.size() == EXPIRING && killed.get();
                    });
            assertThat(updated).as("the update ran before the delete").isTrue();

            // Markers, inserted after every application delete and due now: once their records are read, and the
            // topic read to its end, a record for an application delete would have been read too.
            Instant markersDue = Instant.now().plusSeconds(1);
            sessions.insertMany(ids("marker-", MARKERS).stream()
                    .map(id -> new Document("_id", id).append("expireAt", Date.from(markersDue)))
                    .toList());
            await("every expired record and every marker's")
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> expired.poll(r -> true).stream()
                            .map(ExpiredRecordsIT::idOf)
                            .collect(Collectors.toSet())
                            .containsAll(union(expected.keySet(), ids("marker-", MARKERS))));
            List<ConsumerRecord<String, String>> records = expired.readToEnd(Duration.ofSeconds(30));

            Map<String, Long> perDocument =
                    records.stream().collect(Collectors.groupingBy(ExpiredRecordsIT::idOf, Collectors.counting()));
            assertThat(perDocument.entrySet().stream()
                            .filter(e -> e.getValue() > 1)
                            .toList())
                    .as("no duplicate")
                    .isEmpty();
            assertThat(perDocument.keySet().stream()
                            .filter(id -> id.startsWith("app-"))
                            .toList())
                    .as("no record for a delete of the application")
                    .isEmpty();
            assertThat(perDocument.keySet().stream()
                            .filter(id -> id.startsWith("expiring-"))
                            .count())
                    .isEqualTo(EXPIRING);
            Map<String, BsonDocument> values = records.stream()
                    .collect(Collectors.toMap(ExpiredRecordsIT::idOf, r -> BsonDocument.parse(r.value())));
            Map<String, BsonDocument> mismatched = new HashMap<>();
            expected.forEach((id, document) -> {
                BsonDocument value = values.get(id);
                BsonDocument last = document.toBsonDocument();
                if (!value.getString("documentState").getValue().equals("pre-image")
                        || !value.getDocument("document").equals(last)
                        || !value.getString("cause").getValue().equals("ttl")) {
                    mismatched.put(id, value);
                }
            });
            assertThat(mismatched)
                    .as("records whose document is not the last state before the delete")
                    .isEmpty();
            assertThat(values.get(UPDATED).getDocument("document").getInt32("v").getValue())
                    .as("the updated document with its update")
                    .isEqualTo(1);
        } finally {
            second.destroyForcibly();
        }
    }

    private static String idOf(ConsumerRecord<String, String> record) {
        return BsonDocument.parse(record.key())
                .getDocument("documentKey")
                .getString("_id")
                .getValue();
    }

    private static List<String> ids(String prefix, int count) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(prefix + i);
        }
        return ids;
    }

    private static Set<String> union(Set<String> some, List<String> others) {
        Set<String> all = new HashSet<>(some);
        all.addAll(others);
        return all;
    }
}
