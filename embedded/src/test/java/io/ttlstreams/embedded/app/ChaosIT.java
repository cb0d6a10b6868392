package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Projections.include;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.ConnectProcess;
import io.ttlstreams.embedded.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.StreamsConfig;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The short form of {@code bench chaos} (issue 33): three brokers (replication factor 3, {@code min.insync.replicas=2}),
 * two processor instances (this JVM's and one of its own, sharing the stack's signing key) and a steady stream of
 * documents, one in ten renewed before its deadline, while (a) the broker that is the processor's transaction
 * coordinator (or, the coordinators being equal, leads the most changelog partitions) is stopped hard and started
 * again 15 s later, (b) both instances are restarted one after the other, as a StatefulSet rolls them (SIGTERM,
 * start, wait for readiness), and (c) the Connect worker, moved into a JVM of its own before anything is written, is
 * killed ({@code kill -9}: the sink's commands in flight, the source's last resume token unflushed) and started again
 * 10 s later. Every document's deadline, first delete command, deletion and renewal are recorded; none may be deleted
 * (or commanded) early, none missed, no renewed one deleted.
 */
@Tag("integration")
class ChaosIT {

    private static final Logger log = LoggerFactory.getLogger(ChaosIT.class);

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Duration INSERT_EVERY = Duration.ofMillis(100);
    /** Deadlines this long after the insert, and up to {@link #DEADLINE_SPREAD} more. */
    private static final Duration FIRST_DEADLINE = Duration.ofSeconds(5);

    private static final Duration DEADLINE_SPREAD = Duration.ofSeconds(4);
    /** Renewed (deadline moved an hour on) this long after the insert, before the first deadline. */
    private static final Duration RENEW_AFTER = Duration.ofSeconds(2);

    private static final Duration BROKER_DOWN_AT = Duration.ofSeconds(8);
    private static final Duration BROKER_DOWN_FOR = Duration.ofSeconds(15);
    private static final Duration WRITE_FOR = Duration.ofSeconds(75);
    private static final Duration CONNECT_DOWN_FOR = Duration.ofSeconds(10);
    /** Writing goes on this long after the Connect worker's connectors run again. */
    private static final Duration WRITE_AFTER_CONNECT = Duration.ofSeconds(10);
    /** After the last deadline, how long deletions may take before a document counts as missed. */
    private static final Duration MISSED_AFTER = Duration.ofSeconds(60);

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(PipelineScenarios.RULES)
            .and(EmbeddedOptions.EMBEDDED_PARTITIONS_CONFIG, "4")
            .and(EmbeddedOptions.EMBEDDED_KAFKA_BROKERS_CONFIG, "3");

    /** One document's life: when it was due, commanded, gone, and whether it was renewed. */
    private static final class Life {
        final Instant deadline;
        volatile boolean renewed;
        Instant firstCommand;
        int commands;
        Instant gone;

        Life(Instant deadline) {
            this.deadline = deadline;
        }
    }

    @Test
    void shouldDeleteNothingEarlyMissNothingAndKeepRenewedDocumentsWhenABrokerDiesTheInstancesRollAndConnectIsKilled(
            @TempDir Path dir) throws Exception {
        EmbeddedPipeline pipeline = PIPELINE.pipeline();
        ConnectProcess connect = pipeline.stack().moveConnectToOwnJvm("256m", dir.resolve("connect.log"));
        EmbeddedKafka kafka = pipeline.stack().kafka();
        assertThat(pipeline.processorConfig().streamsProperties().getProperty(StreamsConfig.REPLICATION_FACTOR_CONFIG))
                .as("Kafka Streams' own topics replicated as the plan's")
                .isEqualTo("3");
        Process second = PIPELINE.startRun(PIPELINE.instanceSettings(), dir.resolve("second-1.log"));
        awaitReady(dir.resolve("second-1.log"));
        MongoCollection<Document> sessions = PIPELINE.collection(SESSIONS);
        Map<String, Life> lives = new ConcurrentHashMap<>();
        ScheduledExecutorService writer = Executors.newScheduledThreadPool(1);
        Instant start = Instant.now();
        Map<String, Instant> disturbances = new HashMap<>();
        try {
            int[] next = {0};
            writer.scheduleAtFixedRate(
                    () -> {
                        int i = next[0]++;
                        String id = "chaos-" + i;
                        Instant deadline = Instant.now()
                                .plus(FIRST_DEADLINE)
                                .plusMillis(i * 397L % DEADLINE_SPREAD.toMillis())
                                .truncatedTo(ChronoUnit.MILLIS);
                        // Tracked once inserted: the watch takes a tracked document it does not find for deleted.
                        sessions.insertOne(new Document("_id", id).append("expireAt", Date.from(deadline)));
                        lives.put(id, new Life(deadline));
                        if (i % 10 == 0) {
                            writer.schedule(
                                    () -> renew(sessions, lives, id), RENEW_AFTER.toMillis(), TimeUnit.MILLISECONDS);
                        }
                    },
                    0,
                    INSERT_EVERY.toMillis(),
                    TimeUnit.MILLISECONDS);

            {
                Watch watch = new Watch(sessions, lives);
                watch.until(start.plus(BROKER_DOWN_AT));
                int broker = kafka.transactionCoordinatorBroker();
                disturbances.put("broker " + broker + " stopped hard", Instant.now());
                kafka.killBroker(broker);
                watch.until(Instant.now().plus(BROKER_DOWN_FOR));
                kafka.startBroker(broker);
                disturbances.put("broker " + broker + " started again", Instant.now());
                watch.until(Instant.now().plusSeconds(5));

                disturbances.put("rolling restart begins", Instant.now());
                second.destroy(); // SIGTERM, as Kubernetes stops a pod
                assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
                second = PIPELINE.startRun(PIPELINE.instanceSettings(), dir.resolve("second-2.log"));
                Path log = dir.resolve("second-2.log");
                watch.until(() -> Files.exists(log) && Files.readString(log).contains("ttl-streams ready"));
                pipeline.stopProcessor();
                pipeline.startProcessor();
                disturbances.put("rolling restart done", Instant.now());
                watch.until(Instant.now().plusSeconds(5));

                disturbances.put("Connect worker killed", Instant.now());
                connect.kill();
                watch.until(Instant.now().plus(CONNECT_DOWN_FOR));
                connect.start();
                disturbances.put("Connect worker started again", Instant.now());
                List<String> connectors = pipeline.stack().connectorNames();
                CompletableFuture<Duration> back =
                        CompletableFuture.supplyAsync(() -> connect.awaitConnectors(connectors, Duration.ofMinutes(2)));
                watch.until(back::isDone);
                back.join(); // its failure, if any
                disturbances.put("Connect worker's connectors RUNNING", Instant.now());
                Instant writeUntil = Instant.now().plus(WRITE_AFTER_CONNECT);
                watch.until(writeUntil.isAfter(start.plus(WRITE_FOR)) ? writeUntil : start.plus(WRITE_FOR));
                writer.shutdown();
                assertThat(writer.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
                Instant lastDeadline = lives.values().stream()
                        .map(life -> life.deadline)
                        .max(Comparator.naturalOrder())
                        .orElseThrow();
                // The marker that lets the absence of a renewed document's deletion count: every other document,
                // due after it, is gone.
                watch.until(
                        () -> watch.pendingExpiries() == 0 || Instant.now().isAfter(lastDeadline.plus(MISSED_AFTER)));
            }
        } finally {
            writer.shutdownNow();
            second.destroyForcibly();
        }

        String report = report(lives, disturbances, start);
        List<String> early = lives.entrySet().stream()
                .filter(e -> e.getValue().gone != null && e.getValue().gone.isBefore(e.getValue().deadline)
                        || e.getValue().firstCommand != null
                                && e.getValue().firstCommand.isBefore(e.getValue().deadline))
                .map(Map.Entry::getKey)
                .toList();
        List<String> missed = lives.entrySet().stream()
                .filter(e -> !e.getValue().renewed && e.getValue().gone == null)
                .map(Map.Entry::getKey)
                .toList();
        List<String> renewedDeleted = lives.entrySet().stream()
                .filter(e -> e.getValue().renewed && e.getValue().gone != null)
                .map(Map.Entry::getKey)
                .toList();
        assertThat(lives).as(report).hasSizeGreaterThan(500);
        assertThat(early)
                .as(() -> "deleted or commanded before the deadline\n" + report + describe(early, lives, start))
                .isEmpty();
        assertThat(missed)
                .as(() -> "never deleted\n" + report + describe(missed, lives, start))
                .isEmpty();
        assertThat(renewedDeleted)
                .as(() -> "renewed, and deleted all the same\n" + report + describe(renewedDeleted, lives, start))
                .isEmpty();
        assertThat(lives.values().stream().filter(life -> life.renewed))
                .as(report)
                .hasSizeGreaterThan(50);
    }

    /** Moves the deadline an hour on, so that a command made for the old one matches nothing. */
    private static void renew(MongoCollection<Document> sessions, Map<String, Life> lives, String id) {
        Life life = lives.get(id);
        if (sessions.updateOne(
                                Filters.eq("_id", id),
                                Updates.set("expireAt", Date.from(life.deadline.plus(Duration.ofHours(1)))))
                        .getModifiedCount()
                == 1) {
            life.renewed = true;
        }
    }

    private static void awaitReady(Path log) {
        await("the second instance ready")
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> Files.exists(log) && Files.readString(log).contains("ttl-streams ready"));
    }

    /** Polls the collection and the delete topic, recording each document's deletion and commands. */
    private static final class Watch {
        private final MongoCollection<Document> sessions;
        private final Map<String, Life> lives;

        Watch(MongoCollection<Document> sessions, Map<String, Life> lives) {
            this.sessions = sessions;
            this.lives = lives;
        }

        void until(Instant end) {
            until(() -> Instant.now().isAfter(end));
        }

        void until(java.util.concurrent.Callable<Boolean> done) {
            await().atMost(Duration.ofMinutes(3))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        look();
                        commands(PIPELINE.deletes().poll(record -> true));
                        return done.call();
                    });
        }

        /** Documents neither renewed nor gone yet. */
        long pendingExpiries() {
            return lives.values().stream()
                    .filter(life -> !life.renewed && life.gone == null)
                    .count();
        }

        private void look() {
            List<String> tracked = lives.entrySet().stream()
                    .filter(e -> e.getValue().gone == null)
                    .map(Map.Entry::getKey)
                    .toList();
            Set<Object> present = new HashSet<>();
            sessions.find(in("_id", tracked)).projection(include("_id")).forEach(d -> present.add(d.get("_id")));
            Instant now = Instant.now();
            tracked.stream().filter(id -> !present.contains(id)).forEach(id -> lives.get(id).gone = now);
        }

        private final Set<String> counted = new HashSet<>();

        void commands(List<ConsumerRecord<String, String>> records) {
            for (ConsumerRecord<String, String> record : records) {
                if (!counted.add(record.partition() + "@" + record.offset())) {
                    continue;
                }
                String id = BsonDocument.parse(record.key()).getString("_id").getValue();
                Life life = lives.get(id);
                if (life != null) {
                    life.commands++;
                    Instant at = Instant.ofEpochMilli(record.timestamp());
                    if (life.firstCommand == null || at.isBefore(life.firstCommand)) {
                        life.firstCommand = at;
                    }
                }
            }
        }
    }

    /** Each document's record, times from the start, for the message of a failing assertion. */
    private static String describe(List<String> ids, Map<String, Life> lives, Instant start) {
        StringBuilder text = new StringBuilder();
        for (String id : ids) {
            Life life = lives.get(id);
            text.append(String.format(
                    "%n  %s deadline +%d ms, first command %s, %d command(s), gone %s%s",
                    id,
                    Duration.between(start, life.deadline).toMillis(),
                    since(start, life.firstCommand),
                    life.commands,
                    since(start, life.gone),
                    life.renewed ? ", renewed" : ""));
        }
        return text.toString();
    }

    private static String since(Instant start, Instant at) {
        return at == null ? "never" : "+" + Duration.between(start, at).toMillis() + " ms";
    }

    /** The figures and disturbances, for the message of a failing assertion and the test's output. */
    private static String report(Map<String, Life> lives, Map<String, Instant> disturbances, Instant start) {
        List<Long> lateness = lives.values().stream()
                .filter(life -> life.gone != null && !life.renewed)
                .map(life -> Duration.between(life.deadline, life.gone).toMillis())
                .sorted()
                .toList();
        List<String> lines = new ArrayList<>();
        disturbances.entrySet().stream()
                .sorted(Map.Entry.comparingByValue())
                .forEach(e -> lines.add(String.format(
                        "  +%6d ms %s", Duration.between(start, e.getValue()).toMillis(), e.getKey())));
        long commands = lives.values().stream().mapToLong(life -> life.commands).sum();
        lines.add(String.format(
                "  %d documents, %d renewed, %d deleted; %d commands; lateness p50 %d ms, p99 %d ms, max %d ms",
                lives.size(),
                lives.values().stream().filter(life -> life.renewed).count(),
                lateness.size(),
                commands,
                lateness.isEmpty() ? -1 : lateness.get(lateness.size() / 2),
                lateness.isEmpty() ? -1 : lateness.get((int) Math.min(lateness.size() - 1, lateness.size() * 0.99)),
                lateness.isEmpty() ? -1 : lateness.get(lateness.size() - 1)));
        String report = String.join("\n", lines);
        log.info("Figures:\n{}", report);
        return report;
    }
}
