package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import io.ttlstreams.config.ResyncOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.PercentEncoding;
import io.ttlstreams.embedded.TopicReader;
import io.ttlstreams.resync.KafkaResyncPublisher;
import io.ttlstreams.resync.Resync;
import io.ttlstreams.resync.ResyncProgress;
import io.ttlstreams.resync.ResyncReport;
import io.ttlstreams.resync.ResyncSelection;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 44 on the embedded pipeline, source topics of {@value #PARTITIONS} partitions: a collection sharded while it
 * is watched ({@code shardCollection}, then {@code refineCollectionShardKey}), whose documents' {@code documentKey}
 * changes shape under a {@code last-modified} rule without a witness, and a document whose shard key value changes.
 * Every event of a document reaches one partition (the source connectors key records by {@code _id}), so each
 * document has one entry, counted from its last touch: none is deleted before its last touch plus the TTL, every one
 * after, by one delete command.
 *
 * <p>The documents are chosen so that the whole {@code documentKey} of each shape would pick another partition than
 * {@code {"_id": ...}} under Kafka's default partitioner: keyed by it (as the connector keys records by default), a
 * document's events after a change of shape would reach another task, whose entry is independent of the first, and
 * the first entry, pinning nothing but the key, would delete the document at its old deadline.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class ShardedCollectionsIT {

    private static final int PARTITIONS = 4;
    private static final long TTL_SECONDS = 12;
    /** Between two touches: more than the second a deadline counted from a clusterTime may round up by. */
    private static final Duration BETWEEN_TOUCHES = Duration.ofSeconds(3);
    /** A last-modified deadline counts from the end of the clusterTime's second: up to a second after the touch. */
    private static final Duration WITHIN = ExpiryProbe.WITHIN.plusSeconds(1);

    private static final Namespace DEVICES = Namespace.parse("app.devices");
    private static final Namespace MOVES = Namespace.parse("app.moves");
    private static final Namespace ACCOUNTS = Namespace.parse("app.accounts");
    private static final Namespace REFINES = Namespace.parse("app.refines");
    /**
     * A document whose update's lookup missed it is scheduled from a read of it, applied after the event crossed the
     * pipeline: its deadline counts from then, later than the update's clusterTime by that crossing.
     */
    private static final Duration WITHIN_AFTER_READ = WITHIN.plusSeconds(5);

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(settings());

    private static Map<String, String> settings() {
        Map<String, String> settings = new HashMap<>();
        settings.put("ttl.rules", "devices,moves,accounts,refines");
        for (Namespace namespace : List.of(DEVICES, MOVES, REFINES)) {
            String rule = "ttl.rule." + namespace.collection() + ".";
            settings.put(rule + "namespace", namespace.toString());
            settings.put(rule + "mode", "last-modified");
            settings.put(rule + "expire.after.seconds", Long.toString(TTL_SECONDS));
        }
        settings.put("ttl.rule.accounts.namespace", ACCOUNTS.toString());
        settings.put("ttl.rule.accounts.field", "expireAt");
        settings.put("embedded.partitions", Integer.toString(PARTITIONS));
        // The automatic resync of a collection that appeared would move its last-modified deadlines to the resync's
        // time plus the TTL (later, by design), which the bounds here do not allow for: it is not what is tested.
        settings.put(ResyncOptions.REWRITE_CHECK_INTERVAL_MS_CONFIG, "0");
        return settings;
    }

    @Test
    void shouldDeleteEachDocumentOnceAfterItsLastTouchWhenItsCollectionIsShardedThenRefinedMidRun() throws Exception {
        MongoCollection<Document> devices = PIPELINE.collection(DEVICES);
        List<String> ids = idsMovedByEveryShape(
                "device-", id -> List.of(key(id), key(id, "tenant", "t1"), key(id, "tenant", "t1", "region", "eu")), 3);
        ids.forEach(id -> devices.insertOne(new Document("_id", id)
                .append("tenant", "t1")
                .append("region", "eu")
                .append("n", 0)));
        awaitScheduled(DEVICES, ids);

        Instant firstSharded = waitBetweenTouches(Instant.now());
        admin(new Document("shardCollection", DEVICES.toString()).append("key", new Document("tenant", 1)));
        ids.forEach(id -> devices.updateOne(eq("_id", id), inc("n", 1)));

        Instant lastTouch = waitBetweenTouches(firstSharded);
        admin(new Document("refineCollectionShardKey", DEVICES.toString())
                .append("key", new Document("tenant", 1).append("region", 1)));
        ids.forEach(id -> devices.updateOne(eq("_id", id), inc("n", 1)));
        OperationsHttp http = new OperationsHttp(PIPELINE::pipeline);
        for (String id : ids) {
            // /v1/documents finds the owner of a document by its _id, whatever document key it is asked with.
            for (BsonDocument documentKey : List.of(key(id), key(id, "tenant", "t1", "region", "eu"))) {
                String path = "/v1/documents/" + DEVICES + "/" + PercentEncoding.encode(CanonicalJson.of(documentKey));
                // Awaited: a query that falls between the old entry's removal and the new one's write misses it.
                HttpResponse<String> found = await(documentKey + " found by " + path)
                        .atMost(Duration.ofSeconds(5))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> http.get(path), response -> response.statusCode() == 200);
                assertThat(BsonDocument.parse(found.body())
                                .getInt32("partition")
                                .getValue())
                        .as("%s: %s", documentKey, found.body())
                        .isEqualTo(partitionOf(key(id)));
            }
        }

        ExpiryProbe.assertExpireOnTime(devices, ids, lastTouch.plusSeconds(TTL_SECONDS), WITHIN);
        assertOnePartitionAndOneCommandEach(DEVICES, ids, 3);
    }

    @Test
    void shouldDeleteADocumentAfterItsShardKeyValueChangedWhenTheChangeMovedItToAnotherShard() {
        MongoCollection<Document> moves = PIPELINE.collection(MOVES);
        List<String> ids = idsMovedByEveryShape(
                "move-", id -> List.of(key(id), key(id, "tenant", "t1"), key(id, "tenant", "t2")), 2);
        ids.forEach(id -> moves.insertOne(new Document("_id", id).append("tenant", "t1")));
        awaitScheduled(MOVES, ids);
        admin(new Document("shardCollection", MOVES.toString()).append("key", new Document("tenant", 1)));

        Instant lastTouch = waitBetweenTouches(Instant.now());
        // A new value of the shard key's first field: a delete on the old shard and an insert on the new one.
        ids.forEach(id -> moves.updateOne(eq("_id", id), set("tenant", "t2")));

        ExpiryProbe.assertExpireOnTime(moves, ids, lastTouch.plusSeconds(TTL_SECONDS), WITHIN);
        // The insert, then the move's delete and insert.
        assertOnePartitionAndOneCommandEach(MOVES, ids, 3);
    }

    /**
     * Issue 44 point 2: an update of a shard key field a refine added leaves the document on its shard, and its event's
     * {@code documentKey} holds the old value, so the lookup finds nothing and the event comes without the document.
     * The document is read again by {@code _id} and expires after its last touch plus the TTL, never before.
     */
    @Test
    void shouldDeleteADocumentAfterItsLastTouchWhenAnUpdateOfItsRefinedShardKeyFieldCameWithoutIt() {
        MongoCollection<Document> refines = PIPELINE.collection(REFINES);
        List<String> ids =
                idsMovedByEveryShape("refine-", id -> List.of(key(id), key(id, "tenant", "t1", "region", "eu")), 2);
        ids.forEach(id ->
                refines.insertOne(new Document("_id", id).append("tenant", "t1").append("region", "eu")));
        awaitScheduled(REFINES, ids);
        admin(new Document("shardCollection", REFINES.toString()).append("key", new Document("tenant", 1)));
        admin(new Document("refineCollectionShardKey", REFINES.toString())
                .append("key", new Document("tenant", 1).append("region", 1)));

        Instant lastTouch = waitBetweenTouches(Instant.now());
        ids.forEach(id -> refines.updateOne(eq("_id", id), set("region", "us")));

        ExpiryProbe.assertExpireOnTime(refines, ids, lastTouch.plusSeconds(TTL_SECONDS), WITHIN_AFTER_READ);
        // The insert, then the update without its document.
        assertOnePartitionAndOneCommandEach(REFINES, ids, 2);
    }

    /**
     * A resync of a sharded collection reads it by {@code _id} and publishes {@code {"_id": ...}}-keyed events: they
     * reach the entries the shard-keyed change events made, so each document is scheduled once and deleted once.
     */
    @Test
    void shouldScheduleEachDocumentOnceWhenAShardedCollectionIsResynced() {
        MongoCollection<Document> accounts = PIPELINE.collection(ACCOUNTS);
        List<String> ids = idsMovedByEveryShape("account-", id -> List.of(key(id), key(id, "tenant", "t1")), 3);
        admin(new Document("shardCollection", ACCOUNTS.toString()).append("key", new Document("tenant", 1)));
        Instant deadline = ExpiryProbe.deadlineIn(15);
        ids.forEach(id -> accounts.insertOne(
                new Document("_id", id).append("tenant", "t1").append("expireAt", Date.from(deadline))));
        awaitScheduled(ACCOUNTS, ids);

        TtlStreamsConfig config = PIPELINE.pipeline().processorConfig();
        ResyncReport report;
        try (KafkaResyncPublisher publisher = KafkaResyncPublisher.create(config)) {
            report = new Resync(config, PIPELINE.mongo(), Clock.systemUTC())
                    .run(
                            new ResyncSelection(Optional.of(ACCOUNTS), Optional.empty()),
                            Optional.of(publisher),
                            ResyncProgress.none());
        }
        assertThat(report.skipped()).as(report.summary()).isEmpty();
        assertThat(report.eventsPublished()).as(report.summary()).isEqualTo(ids.size());

        ExpiryProbe.assertExpireOnTime(accounts, ids, deadline, ExpiryProbe.WITHIN);
        // The insert, then the resync.
        assertOnePartitionAndOneCommandEach(ACCOUNTS, ids, 2);
    }

    /**
     * {@code count} ids starting with {@code prefix} each of whose document keys ({@code shapes}) but the first, as the
     * connector writes them, Kafka's default partitioner puts on another partition than the first, {@code {"_id":
     * ...}}.
     */
    private static List<String> idsMovedByEveryShape(
            String prefix, Function<String, List<BsonDocument>> shapes, int count) {
        List<String> ids = IntStream.range(0, 10_000)
                .mapToObj(i -> prefix + i)
                .filter(id -> {
                    List<Integer> partitions = shapes.apply(id).stream()
                            .map(ShardedCollectionsIT::partitionOf)
                            .toList();
                    return partitions.subList(1, partitions.size()).stream().noneMatch(partitions.get(0)::equals);
                })
                .limit(count)
                .toList();
        assertThat(ids).hasSize(count);
        return ids;
    }

    /** The partition Kafka's default partitioner gives a record keyed by {@code documentKey} as the connector writes it. */
    private static int partitionOf(BsonDocument documentKey) {
        byte[] key = CanonicalJson.of(documentKey).getBytes(StandardCharsets.UTF_8);
        return Utils.toPositive(Utils.murmur2(key)) % PARTITIONS;
    }

    /** A document key: the shard key's fields (name, value, ...), then {@code _id}. */
    private static BsonDocument key(String id, String... fields) {
        BsonDocument key = new BsonDocument();
        for (int i = 0; i < fields.length; i += 2) {
            key.append(fields[i], new BsonString(fields[i + 1]));
        }
        return key.append("_id", new BsonString(id));
    }

    private static void admin(Document command) {
        PIPELINE.mongo().getDatabase("admin").runCommand(command);
    }

    private static void awaitScheduled(Namespace namespace, List<String> ids) {
        ExpiryProbe probe = PIPELINE.probe(namespace);
        for (String id : ids) {
            await(id + " scheduled")
                    .atMost(ExpiryProbe.WAIT)
                    .pollInterval(Duration.ofMillis(50))
                    .ignoreExceptionsInstanceOf(InvalidStateStoreException.class)
                    .until(() -> probe.scheduledDeadline(id).isPresent());
        }
    }

    /**
     * Waits until {@link #BETWEEN_TOUCHES} after {@code previous}, so that deadlines counted from two touches differ by
     * more than the rounding of a clusterTime; returns the time of the next touch, which starts now.
     */
    private static Instant waitBetweenTouches(Instant previous) {
        Instant next = previous.plus(BETWEEN_TOUCHES);
        await("the next touch, " + BETWEEN_TOUCHES + " after the previous one")
                .atMost(BETWEEN_TOUCHES.plusSeconds(1))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> !Instant.now().isBefore(next));
        return Instant.now();
    }

    /**
     * Asserts that the change events of each document, at least {@code events} of them before the delete event of its
     * expiry, all sit in one partition of its source topic, and
     * that the delete topic holds exactly one command for each (every one is deleted by now, and a second entry's
     * command would have come due before the document's last deadline).
     */
    private static void assertOnePartitionAndOneCommandEach(Namespace namespace, List<String> ids, int events) {
        String bootstrap = PIPELINE.pipeline().stack().bootstrapServers();
        Map<String, List<ConsumerRecord<String, String>>> eventsById;
        try (TopicReader source = new TopicReader(bootstrap, namespace.toString())) {
            eventsById = source.readToEnd(ExpiryProbe.WAIT).stream()
                    .collect(Collectors.groupingBy(r -> BsonDocument.parse(r.value())
                            .getDocument("documentKey")
                            .getString("_id")
                            .getValue()));
        }
        for (String id : ids) {
            List<ConsumerRecord<String, String>> documentEvents = eventsById.getOrDefault(id, List.of());
            assertThat(documentEvents).as("the change events of %s", id).hasSizeGreaterThanOrEqualTo(events);
            Set<Integer> partitions =
                    documentEvents.stream().map(ConsumerRecord::partition).collect(Collectors.toSet());
            assertThat(partitions)
                    .as("the partitions of %s's change events", id)
                    .hasSize(1);
        }
        List<ConsumerRecord<String, String>> commands =
                new ArrayList<>(PIPELINE.deletes().readToEnd(ExpiryProbe.WAIT));
        for (String id : ids) {
            assertThat(commands.stream()
                            .filter(r -> BsonDocument.parse(r.key())
                                    .getString("_id", new BsonString(""))
                                    .getValue()
                                    .equals(id)))
                    .as("the delete commands of %s", id)
                    .hasSize(1);
        }
    }
}
