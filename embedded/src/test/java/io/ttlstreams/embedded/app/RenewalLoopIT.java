package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.inc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.TopicReader;
import io.ttlstreams.embedded.app.RenewalLoop.Tracked;
import io.ttlstreams.embedded.app.RenewalLoop.Write;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.ChangeEventParser;
import io.ttlstreams.event.OperationType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 10's renewal loop on the embedded pipeline: documents of two collections with the same last-modified rule
 * (expire 3 s after the last modification) are touched at random intervals of 0.2–4 s, so that many come due just
 * as they are touched. {@code app.witnessed} names the counter every touch increments as its {@code modified.field};
 * {@code app.unwitnessed} does not. A document deleted before its last acknowledged modification's deadline is an
 * <em>early delete</em>: the witness must leave none, whereas without it the race between a touch and a delete
 * command already on its way is only counted, and printed with the pipeline's latencies.
 *
 * <p>"Before its deadline" is judged as the processor counts: from the change event's time, read with the
 * processor's own {@link ChangeEventParser} (its {@code wallTime}). A write's event is matched by order within its
 * document (each document's writes are sequential); the delete's time is its delete event's.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class RenewalLoopIT {

    private static final Namespace WITNESSED = Namespace.parse("app.witnessed");
    private static final Namespace UNWITNESSED = Namespace.parse("app.unwitnessed");
    /** The counter every touch increments; the witness of app.witnessed, an ordinary field of app.unwitnessed. */
    private static final String COUNTER = "rev";

    private static final int TTL_SECONDS = 3;
    /**
     * The lagging-connector scenario's TTL: longer than pausing the source connector takes (its task leaves a
     * waiting change-stream getMore, up to poll.await.time.ms, before it pauses), so that the first touch comes
     * before the insert's deadline.
     */
    private static final int LAGGING_TTL_SECONDS = 10;

    private static final Namespace LAGGING = Namespace.parse("app.lagging");
    private static final int DOCUMENTS = 50;
    private static final int TOUCHES = 1_000;
    private static final Duration MIN_INTERVAL = Duration.ofMillis(200);
    private static final Duration MAX_INTERVAL = Duration.ofSeconds(4);
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(settings());

    /**
     * The same last-modified rule on both collections, app.witnessed's with {@link #COUNTER} as its witness, and a
     * witnessed rule with a longer TTL on app.lagging.
     */
    private static Map<String, String> settings() {
        Map<String, String> settings = new HashMap<>();
        for (Namespace namespace : List.of(WITNESSED, UNWITNESSED)) {
            String rule = "ttl.rule." + namespace.collection() + ".";
            settings.put(rule + "namespace", namespace.toString());
            settings.put(rule + "mode", "last-modified");
            settings.put(rule + "expire.after.seconds", Integer.toString(TTL_SECONDS));
        }
        settings.put("ttl.rule.witnessed.modified.field", COUNTER);
        settings.put("ttl.rules", "witnessed,unwitnessed,lagging");
        settings.put("ttl.rule.lagging.namespace", LAGGING.toString());
        settings.put("ttl.rule.lagging.mode", "last-modified");
        settings.put("ttl.rule.lagging.expire.after.seconds", Integer.toString(LAGGING_TTL_SECONDS));
        settings.put("ttl.rule.lagging.modified.field", COUNTER);
        return settings;
    }

    @Test
    void shouldDeleteNoDocumentBeforeItsLastModificationsDeadlineWhenTheWitnessIsPinned() throws Exception {
        long seed = System.nanoTime();
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(4);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        RenewalLoop witnessed =
                new RenewalLoop(PIPELINE.collection(WITNESSED), COUNTER, "w", MIN_INTERVAL, MAX_INTERVAL, executor);
        RenewalLoop unwitnessed =
                new RenewalLoop(PIPELINE.collection(UNWITNESSED), COUNTER, "u", MIN_INTERVAL, MAX_INTERVAL, executor);
        List<RenewalLoop> loops = List.of(witnessed, unwitnessed);
        try {
            witnessed.start(DOCUMENTS, seed);
            unwitnessed.start(DOCUMENTS, seed);
            await(TOUCHES + " touches in each collection")
                    .atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> loops.stream().allMatch(loop -> {
                        loop.failure().ifPresent(e -> {
                            throw new AssertionError("a touch failed", e);
                        });
                        return loop.touches() >= TOUCHES;
                    }));
        } finally {
            loops.forEach(RenewalLoop::stop);
            executor.shutdown();
            assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        for (RenewalLoop loop : loops) {
            assertThat(loop.failure()).isEmpty();
        }
        // Untouched now, every document expires.
        await("every document expired once the loop stopped")
                .atMost(WAIT)
                .until(() -> PIPELINE.collection(WITNESSED).countDocuments()
                                + PIPELINE.collection(UNWITNESSED).countDocuments()
                        == 0);

        Figures witnessedFigures = figures(WITNESSED, witnessed);
        Figures unwitnessedFigures = figures(UNWITNESSED, unwitnessed);
        System.out.println("renewal loop, seed " + seed + ", " + DOCUMENTS + " documents per collection touched every "
                + MIN_INTERVAL.toMillis() + "-" + MAX_INTERVAL.toMillis() + " ms, expire.after.seconds "
                + TTL_SECONDS);
        System.out.println(witnessedFigures.summary(WITNESSED + " (modified.field " + COUNTER + ")"));
        System.out.println(unwitnessedFigures.summary(UNWITNESSED + " (no witness)"));

        assertThat(witnessedFigures.touches).isGreaterThanOrEqualTo(TOUCHES);
        assertThat(witnessedFigures.earlyDeletes)
                .as("documents of " + WITNESSED + " deleted before their last modification's deadline")
                .isEmpty();
    }

    /**
     * The witness against a lagging source connector: while the connector is paused, a document is touched, then
     * touched again more than the TTL later. On resuming, the first touch's update event is read with its
     * {@code fullDocument} looked up <em>now</em> (updateLookup, on real MongoDB too), so it carries the second
     * touch's counter with the first touch's time: a deadline already past, pinned to the current value. Unless the
     * second touch's event is applied before the next punctuation, the delete matches and the document goes although
     * it was modified a moment ago.
     */
    @Test
    void shouldKeepADocumentModifiedWhileTheSourceConnectorWasPaused() {
        MongoCollection<Document> documents = PIPELINE.collection(LAGGING);
        String id = "lagged";
        String connector = ConnectorConfigs.SOURCE_NAME + "-" + LAGGING.database();
        try (TopicReader source = new TopicReader(
                PIPELINE.pipeline().stack().bootstrapServers(),
                PIPELINE.pipeline().stack().sourceTopics().get(LAGGING))) {
            documents.insertOne(new Document("_id", id).append(COUNTER, 0));
            Instant inserted = Instant.now();
            await("the insert of " + id + " published")
                    .atMost(WAIT)
                    .until(
                            () -> source.poll(r -> r.value().contains("\"" + id + "\"")
                                    && r.value().contains("\"insert\"")),
                            found -> !found.isEmpty());
            PIPELINE.pipeline().stack().connect().pause(connector, WAIT);
            documents.updateOne(eq("_id", id), inc(COUNTER, 1));
            Instant first = Instant.now();
            assertThat(first)
                    .as("the first touch, while the connector is paused, before the insert's deadline")
                    .isBefore(inserted.plusSeconds(LAGGING_TTL_SECONDS));
            await("the first touch's deadline passed")
                    .atMost(Duration.ofSeconds(LAGGING_TTL_SECONDS + 10))
                    .until(() -> Instant.now().isAfter(first.plusSeconds(LAGGING_TTL_SECONDS + 1)));
            Instant sent = Instant.now();
            documents.updateOne(eq("_id", id), inc(COUNTER, 1));
            PIPELINE.pipeline().stack().connect().resume(connector, WAIT);
            Instant deadline = Instant.ofEpochSecond(sent.getEpochSecond() + LAGGING_TTL_SECONDS);
            await(id + " present until its last modification's deadline " + deadline)
                    .atMost(WAIT)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        long present = documents.countDocuments(eq("_id", id));
                        Instant read = Instant.now();
                        if (present == 0 && read.isBefore(deadline)) {
                            throw new AssertionError(id + " (last modified at " + sent + ") deleted at " + read
                                    + ", before " + deadline + "; its delete commands: " + commandsFor(id));
                        }
                        return !read.isBefore(deadline);
                    });
        }
    }

    /** The delete commands for document {@code id} read so far: value and when it was emitted. */
    private List<String> commandsFor(String id) {
        try (TopicReader deletes = new TopicReader(
                PIPELINE.pipeline().stack().bootstrapServers(),
                PIPELINE.pipeline().stack().deleteTopic())) {
            return await("the delete topic read")
                    .atMost(WAIT)
                    .until(() -> deletes.poll(r -> r.key().contains("\"" + id + "\"")), found -> !found.isEmpty())
                    .stream()
                    .map(r -> r.value() + " emitted at " + Instant.ofEpochMilli(r.timestamp()))
                    .toList();
        }
    }

    /**
     * One change event of a document, as the source connector published it and the processor reads it.
     *
     * @param time its time as the processor counts it, epoch ms
     * @param timestamp when the source connector published it, epoch ms
     */
    private record Event(OperationType operationType, long time, long timestamp) {}

    /** A delete command as the processor emitted it. */
    private record Command(DeleteCommand command, long timestamp) {}

    /**
     * Reads the collection's change events and the delete commands of its documents, once every document created has
     * its delete event and the command that deleted it, and measures.
     */
    private Figures figures(Namespace namespace, RenewalLoop loop) {
        Collection<Tracked> documents = loop.documents();
        Map<String, List<Event>> events;
        Map<String, List<Command>> commands;
        try (TopicReader source = new TopicReader(
                        PIPELINE.pipeline().stack().bootstrapServers(),
                        PIPELINE.pipeline().stack().sourceTopics().get(namespace));
                TopicReader deletes = new TopicReader(
                        PIPELINE.pipeline().stack().bootstrapServers(),
                        PIPELINE.pipeline().stack().deleteTopic())) {
            events = await("a delete event in " + namespace + " for each of its " + documents.size() + " documents")
                    .atMost(WAIT)
                    .until(
                            () -> eventsById(source),
                            byId -> documents.stream()
                                    .allMatch(d -> byId.containsKey(d.id()) && deleteOf(byId.get(d.id())) != null));
            commands = await("the delete command that deleted each document of " + namespace)
                    .atMost(WAIT)
                    .until(
                            () -> commandsById(deletes, namespace),
                            byId -> documents.stream().allMatch(d -> deletingCommand(d, byId.get(d.id())) != null));
        }
        return new Figures(loop.touches(), documents, events, commands);
    }

    private Map<String, List<Event>> eventsById(TopicReader source) {
        ChangeEventParser parser = new ChangeEventParser(
                PIPELINE.pipeline().processorConfig().topicNamespaceMapping(),
                OperationsOptions.DOCUMENT_KEY_MAX_BYTES_DEFAULT,
                SourceProfile.MONGODB);
        Map<String, List<Event>> byId = new HashMap<>();
        for (ConsumerRecord<String, String> record : source.poll(r -> true)) {
            ChangeEvent event = parser.parse(record.topic(), record.key(), record.value(), record.timestamp());
            byId.computeIfAbsent(idOf(event.documentKey()), id -> new ArrayList<>())
                    .add(new Event(event.operationType(), event.eventTime().toEpochMilli(), record.timestamp()));
        }
        return byId;
    }

    private static Map<String, List<Command>> commandsById(TopicReader deletes, Namespace namespace) {
        return deletes.poll(r -> true).stream()
                .map(r -> new Command(DeleteCommand.parse(r.key(), r.value()), r.timestamp()))
                .filter(c -> c.command().namespace().equals(namespace))
                .collect(Collectors.groupingBy(c -> idOf(c.command().documentKey())));
    }

    private static String idOf(BsonDocument documentKey) {
        return documentKey.getString("_id").getValue();
    }

    private static Event deleteOf(List<Event> events) {
        return events.stream()
                .filter(e -> e.operationType() == OperationType.DELETE)
                .findFirst()
                .orElse(null);
    }

    /**
     * The first command whose filter matches the document as it was last written: with the witness pinned, only
     * the command made from its last modification; without, the first.
     */
    private static Command deletingCommand(Tracked document, List<Command> commands) {
        if (commands == null) {
            return null;
        }
        return commands.stream()
                .filter(c -> {
                    BsonValue pinned = c.command().filter().get(COUNTER);
                    return pinned == null
                            || pinned.asDocument().get("$eq").asNumber().intValue() == document.counter();
                })
                .findFirst()
                .orElse(null);
    }

    /** What one collection's run measured. */
    private static final class Figures {
        private final int touches;
        private final int documents;
        private final int commands;
        private final List<String> earlyDeletes = new ArrayList<>();
        /**
         * For each early delete, when its last write was acknowledged relative to the deleting command's emission, in
         * ms: negative when the processor had not applied the write's change event in time (source connector and
         * processor latency), positive when the write came while the command was on its way to MongoDB (sink).
         */
        private final List<Long> earlyWriteAfterCommand = new ArrayList<>();
        /** Documents whose last write's change event never reached the topic: its time is taken from the client. */
        private int timesFromClient;

        private final List<Long> sourceLatencies = new ArrayList<>();
        private final List<Long> commandToDeleteEvent = new ArrayList<>();

        Figures(
                int touches,
                Collection<Tracked> documents,
                Map<String, List<Event>> events,
                Map<String, List<Command>> commands) {
            this.touches = touches;
            this.documents = documents.size();
            this.commands = documents.stream()
                    .mapToInt(d -> commands.get(d.id()).size())
                    .sum();
            for (Tracked document : documents) {
                List<Write> writes = document.writes();
                List<Event> changes = events.get(document.id()).stream()
                        .filter(e -> e.operationType() != OperationType.DELETE)
                        .toList();
                Event delete = deleteOf(events.get(document.id()));
                Command deleting = deletingCommand(document, commands.get(document.id()));
                // The stand-in drops the change event of a write whose document is gone by the time the source
                // connector reads it (the last writes only): the writes with an event pair up in order.
                for (int i = 0; i < Math.min(writes.size(), changes.size()); i++) {
                    sourceLatencies.add(changes.get(i).timestamp()
                            - writes.get(i).acknowledged().toEpochMilli());
                }
                Write last = writes.get(writes.size() - 1);
                long lastTime;
                if (changes.size() == writes.size()) {
                    lastTime = changes.get(changes.size() - 1).time();
                } else {
                    // The write happened before its acknowledgement: this errs towards calling a delete early.
                    lastTime = last.acknowledged().toEpochMilli();
                    timesFromClient++;
                }
                long deadline = lastTime + TTL_SECONDS * 1000L;
                commandToDeleteEvent.add(delete.timestamp() - deleting.timestamp());
                // The delete happened at its event's time (wallTime, which the stand-in gives as MongoDB does).
                if (delete.time() < deadline) {
                    earlyWriteAfterCommand.add(last.acknowledged().toEpochMilli() - deleting.timestamp());
                    earlyDeletes.add(document.id() + " (last write acknowledged " + last.acknowledged()
                            + ", its deadline " + Instant.ofEpochMilli(deadline) + ", deleted at "
                            + Instant.ofEpochMilli(delete.time()) + ", command emitted at "
                            + Instant.ofEpochMilli(deleting.timestamp()) + ")");
                }
            }
        }

        String summary(String what) {
            return String.format(
                    "%s: touches=%d documents=%d (all deleted) early-deletes=%d (%.1f%% of touches; last write"
                            + " acknowledged before the command was emitted: %d, after: %d; from %s to %s ms after it)"
                            + " delete-commands=%d (%d found the document renewed)"
                            + " source-latency-ms(write acknowledged->change event in Kafka) p50=%d p99=%d max=%d"
                            + " command->delete-event-in-Kafka-ms p50=%d p99=%d max=%d%s",
                    what,
                    touches,
                    documents,
                    earlyWriteAfterCommand.size(),
                    100.0 * earlyWriteAfterCommand.size() / touches,
                    earlyWriteAfterCommand.stream().filter(ms -> ms < 0).count(),
                    earlyWriteAfterCommand.stream().filter(ms -> ms >= 0).count(),
                    earlyWriteAfterCommand.isEmpty() ? "-" : percentile(earlyWriteAfterCommand, 0),
                    earlyWriteAfterCommand.isEmpty() ? "-" : percentile(earlyWriteAfterCommand, 100),
                    commands,
                    commands - documents,
                    percentile(sourceLatencies, 50),
                    percentile(sourceLatencies, 99),
                    percentile(sourceLatencies, 100),
                    percentile(commandToDeleteEvent, 50),
                    percentile(commandToDeleteEvent, 99),
                    percentile(commandToDeleteEvent, 100),
                    timesFromClient == 0 ? "" : " (last write's time from the client: " + timesFromClient + ")");
        }

        /** Nearest rank. */
        private static long percentile(List<Long> values, int percentile) {
            List<Long> sorted = values.stream().sorted().toList();
            int rank = (int) Math.ceil(percentile / 100.0 * sorted.size());
            return sorted.get(Math.max(0, rank - 1));
        }
    }
}
