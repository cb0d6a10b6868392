package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Projections.include;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.TopicReader;
import io.ttlstreams.topology.TtlTopology;
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
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;
import org.awaitility.core.ConditionTimeoutException;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failover: two processor instances share two partitions, one in this JVM and one in a JVM of its own, started as
 * production starts it ({@code ttl-streams run --config}). Documents come due before, across and after a {@code
 * kill -9} of the second instance; every one must be deleted, none before its deadline, and the survivor must take
 * over fast enough that the worst lateness stays within {@link #MAX_LATENESS}.
 *
 * <p>What bounds the lateness: the session timeout (10 s by default here), after which the group rebalances, and the
 * killed instance's open transaction, which read_committed consumers (the delete sink) wait out until the broker
 * aborts it (transaction.timeout.ms, 10 s under exactly-once, plus the broker's check interval). The survivor holds a
 * standby copy of the killed instance's stores (num.standby.replicas=1), so it restores next to nothing.
 */
@Tag("integration")
class ProcessorFailoverIT {

    private static final Duration MAX_LATENESS = Duration.ofSeconds(15);
    private static final int DOCUMENTS = 50;
    /** Deadlines start this long after the inserts, one every {@link #SPACING}; the kill comes at {@link #KILL_AT}. */
    private static final Duration FIRST_DEADLINE = Duration.ofSeconds(4);

    private static final Duration SPACING = Duration.ofMillis(400);
    private static final Duration KILL_AT = Duration.ofSeconds(7);

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(PipelineScenarios.RULES)
            .and(EmbeddedOptions.EMBEDDED_PARTITIONS_CONFIG, "2");

    @Test
    void shouldDeleteEveryDocumentNoneEarlyAndWithinBoundedLatenessWhenAnInstanceIsKilled(@TempDir Path dir)
            throws Exception {
        EmbeddedPipeline pipeline = PIPELINE.pipeline();
        KafkaStreams first = pipeline.processor().streams();
        Path log = dir.resolve("second-instance.log");
        Process second = PIPELINE.startRun(PIPELINE.instanceSettings(), log, "--status-interval", "1");
        try {
            await("both instances own one active task each, the first a standby of the other's")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> tasks(first, true).size() == 1
                            && tasks(first, false).size() == 1
                            && Files.readString(log).contains("ttl-streams ready"));
            int killedPartition = partitionOf(tasks(first, false).iterator().next());

            MongoCollection<Document> sessions = PIPELINE.collection(Namespace.parse("app.sessions"));
            Instant start = Instant.now();
            Map<String, Instant> deadlines = new LinkedHashMap<>();
            for (int i = 0; i < DOCUMENTS; i++) {
                Instant deadline = start.plus(FIRST_DEADLINE).plus(SPACING.multipliedBy(i));
                deadlines.put("failover-" + i, deadline);
                sessions.insertOne(new Document("_id", "failover-" + i).append("expireAt", Date.from(deadline)));
            }

            Map<String, Instant> deletedAt = new HashMap<>();
            AtomicReference<Instant> killed = new AtomicReference<>();
            Instant giveUp = deadlines.get("failover-" + (DOCUMENTS - 1)).plus(Duration.ofSeconds(40));
            try {
                // Polled every 50 ms: each deletion is timed by the poll that first misses the document.
                await("every document deleted, the second instance killed on the way")
                        .atMost(Duration.between(Instant.now(), giveUp))
                        .pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> {
                            if (killed.get() == null && Instant.now().isAfter(start.plus(KILL_AT))) {
                                second.destroyForcibly(); // SIGKILL: no goodbye to the group, the transaction open
                                second.waitFor();
                                killed.set(Instant.now());
                            }
                            List<String> remaining = deadlines.keySet().stream()
                                    .filter(id -> !deletedAt.containsKey(id))
                                    .toList();
                            Set<Object> present = new HashSet<>();
                            sessions.find(in("_id", remaining))
                                    .projection(include("_id"))
                                    .forEach(d -> present.add(d.get("_id")));
                            Instant now = Instant.now();
                            remaining.stream()
                                    .filter(id -> !present.contains(id))
                                    .forEach(id -> deletedAt.put(id, now));
                            return deletedAt.size() == DOCUMENTS;
                        });
            } catch (ConditionTimeoutException e) {
                // The assertions below say what was deleted and when.
            }
            Instant killedAt = killed.get();

            Map<String, Integer> partitions = sourcePartitions(pipeline, deadlines.keySet());
            String table = table(deadlines, deletedAt, partitions, killedAt);
            assertThat(deletedAt.keySet())
                    .as(() -> "every document is deleted\n" + table)
                    .isEqualTo(deadlines.keySet());
            deletedAt.forEach((id, at) -> assertThat(at)
                    .as("%s must not be deleted before its deadline", id)
                    .isAfterOrEqualTo(deadlines.get(id)));
            Instant kill = killedAt;
            assertThat(deadlines.keySet().stream()
                            .filter(id -> partitions.get(id) == killedPartition)
                            .filter(id -> deadlines.get(id).isAfter(kill)))
                    .as("documents of the killed instance came due after the kill")
                    .isNotEmpty();
            for (boolean takenOver : new boolean[] {true, false}) {
                Duration worst = deadlines.keySet().stream()
                        .filter(id -> (partitions.get(id) == killedPartition) == takenOver)
                        .map(id -> Duration.between(deadlines.get(id), deletedAt.get(id)))
                        .max(Duration::compareTo)
                        .orElseThrow();
                assertThat(worst)
                        .as(() -> "worst lateness on "
                                + (takenOver
                                        ? "the killed instance's partition (taken over)"
                                        : "the survivor's own partition")
                                + "\n" + table)
                        .isLessThanOrEqualTo(MAX_LATENESS);
            }
            assertThat(tasks(first, true)).as("the survivor took over").hasSize(2);
            assertThat(Files.readString(log).lines().filter(line -> line.startsWith("status: ")))
                    .as("the killed instance reported status until it was killed, across its rebalances")
                    .hasSizeGreaterThan(2)
                    .anyMatch(line -> line.contains("state=RUNNING active=0_" + killedPartition));
        } finally {
            second.destroyForcibly();
        }
    }

    /** The ids of the active (or standby) schedule tasks of an instance (not the sink dead letters' task). */
    static Set<String> tasks(KafkaStreams streams, boolean active) {
        Set<String> ids = new HashSet<>();
        for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
            (active ? thread.activeTasks() : thread.standbyTasks())
                    .stream()
                            .filter(task -> task.taskId().subtopology() == TtlTopology.SCHEDULE_SUBTOPOLOGY)
                            .forEach(task -> ids.add(task.taskId().toString()));
        }
        return ids;
    }

    /** Task "0_1" processes partition 1 of every source topic. */
    static int partitionOf(String taskId) {
        return Integer.parseInt(taskId.substring(taskId.indexOf('_') + 1));
    }

    /** The source-topic partition each document's insert landed in. */
    private static Map<String, Integer> sourcePartitions(EmbeddedPipeline pipeline, Set<String> ids) {
        Map<String, Integer> partitions = new HashMap<>();
        try (TopicReader reader = new TopicReader(
                pipeline.stack().bootstrapServers(),
                pipeline.processorConfig().sourceTopics().get(0))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                for (ConsumerRecord<String, String> record : reader.poll(r -> true)) {
                    String id =
                            BsonDocument.parse(record.key()).getString("_id").getValue();
                    partitions.putIfAbsent(id, record.partition());
                }
                return partitions.keySet().containsAll(ids);
            });
        }
        return partitions;
    }

    /** Each document's partition, deadline and deletion, for the message of an assertion that fails. */
    private static String table(
            Map<String, Instant> deadlines,
            Map<String, Instant> deletedAt,
            Map<String, Integer> partitions,
            Instant killedAt) {
        List<String> lines = new ArrayList<>();
        deadlines.forEach((id, deadline) -> {
            Instant deleted = deletedAt.get(id);
            lines.add(String.format(
                    "  %s partition %d deadline %+6d ms from kill, deleted %s",
                    id,
                    partitions.get(id),
                    Duration.between(killedAt, deadline).toMillis(),
                    deleted == null
                            ? "NEVER"
                            : Duration.between(deadline, deleted).toMillis() + " ms after it"));
        });
        return String.join("\n", lines);
    }
}
