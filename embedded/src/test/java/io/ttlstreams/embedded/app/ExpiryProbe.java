package io.ttlstreams.embedded.app;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;
import static org.awaitility.Awaitility.await;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.TopicReader;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.state.ScheduleQueries;
import io.ttlstreams.state.ScheduleStores;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.bson.BsonDocument;
import org.bson.Document;

/**
 * Watches the documents of one collection expire through a running pipeline: inserts them with a deadline in
 * {@code expireAt}, asserts that they are deleted after it, never before, and within {@link #WITHIN}; reads the
 * delete commands up to a barrier; asks the running processor's stores what it scheduled.
 *
 * <p>A barrier proves that a document got <em>no</em> delete command: the command of a later document, due just
 * after the tested deadline, is awaited first. The punctuator emits in deadline order and the delete topic has one
 * partition, so once the barrier's command is read, a command for the tested document would have been read before
 * it.
 */
final class ExpiryProbe {

    /** The promise: gone within 2 s of the deadline. */
    static final Duration WITHIN = Duration.ofSeconds(2);
    /** How much later than the tested deadline a barrier document is due. */
    static final Duration BARRIER_AFTER = Duration.ofMillis(100);
    /** Waits for things that take milliseconds when all is well (events processed, commands read). */
    static final Duration WAIT = Duration.ofSeconds(30);

    private final Namespace namespace;
    private final MongoCollection<Document> collection;
    private final TopicReader deletes;
    private final Supplier<TtlStreamsApp> processor;

    /**
     * @param deletes the reader of the delete topic, which probes of other collections of the pipeline may share
     * @param processor the processor running now (restarts replace it)
     */
    ExpiryProbe(MongoClient mongo, Namespace namespace, TopicReader deletes, Supplier<TtlStreamsApp> processor) {
        this.namespace = namespace;
        this.collection = mongo.getDatabase(namespace.database()).getCollection(namespace.collection());
        this.deletes = deletes;
        this.processor = processor;
    }

    /** The collection. */
    MongoCollection<Document> collection() {
        return collection;
    }

    /** A deadline {@code seconds} from now, in the millisecond precision of a BSON date. */
    static Instant deadlineIn(long seconds) {
        return Instant.now().plusSeconds(seconds).truncatedTo(ChronoUnit.MILLIS);
    }

    void insertExpiring(Object id, Instant deadline) {
        collection.insertOne(new Document("_id", id).append("expireAt", Date.from(deadline)));
    }

    boolean exists(Object id) {
        return collection.countDocuments(eq("_id", id)) > 0;
    }

    /** The document key {@code {"_id": id}} as BSON, as it appears in delete commands and the schedule. */
    static BsonDocument documentKey(Object id) {
        return new Document("_id", id).toBsonDocument(Document.class, MongoClientSettings.getDefaultCodecRegistry());
    }

    /** Whether {@code command} is a delete command for document {@code id} of this collection. */
    boolean isCommandFor(ConsumerRecord<String, String> command, Object id) {
        BsonDocument value = BsonDocument.parse(command.value());
        return BsonDocument.parse(command.key()).equals(documentKey(id))
                && value.getDocument(DeleteCommand.NAMESPACE_FIELD)
                        .getString("coll")
                        .getValue()
                        .equals(namespace.collection());
    }

    static Instant deadlineOf(ConsumerRecord<String, String> command) {
        return Instant.ofEpochMilli(BsonDocument.parse(command.value())
                .getDateTime(DeleteCommand.DEADLINE_FIELD)
                .getValue());
    }

    /** Asserts the document is there until its deadline and gone within {@link #WITHIN} after it. */
    void assertExpiresOnTime(Object id, Instant deadline) {
        assertExpireOnTime(List.of(id), deadline);
    }

    /**
     * Asserts that none of the documents is deleted before their common deadline and that all are gone within {@link
     * #WITHIN} after it. The collection is polled throughout: a query that has returned read the collection before
     * it returned, so a document it misses before the deadline was deleted early.
     */
    void assertExpireOnTime(List<Object> ids, Instant deadline) {
        assertExpireOnTime(collection, ids, deadline, WITHIN);
    }

    /** As {@link #assertExpireOnTime(List, Instant)}, for any collection and allowance. */
    static void assertExpireOnTime(
            MongoCollection<Document> collection, List<?> ids, Instant deadline, Duration within) {
        Duration left = Duration.between(Instant.now(), deadline.plus(within));
        await(ids + " deleted after their deadline " + deadline + " and within " + within)
                .atMost(left.isNegative() ? Duration.ofMillis(1) : left.plusMillis(1))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    long present = collection.countDocuments(in("_id", ids));
                    Instant read = Instant.now();
                    if (present < ids.size() && read.isBefore(deadline)) {
                        throw new AssertionError(
                                "Deleted before the deadline " + deadline + " (seen at " + read + "): some of " + ids);
                    }
                    return present == 0;
                });
    }

    /**
     * Every delete command for {@code id} read before its command for {@code deadline}, which is the barrier: a
     * command for an earlier deadline would have been emitted, and read, before it.
     */
    List<ConsumerRecord<String, String>> commandsBeforeItsCommand(Object id, Instant deadline) {
        return deletes
                .readUntil(
                        "the delete command for " + id + " at " + deadline,
                        r -> isCommandFor(r, id) && deadlineOf(r).equals(deadline),
                        WAIT)
                .stream()
                .filter(r -> isCommandFor(r, id))
                .toList();
    }

    /** Every delete command for {@code id} read before a barrier due just after {@code deadline}. */
    List<ConsumerRecord<String, String>> commandsBeforeBarrier(Object id, Instant deadline) {
        return beforeBarrier(id + "-barrier", deadline).stream()
                .filter(r -> isCommandFor(r, id))
                .toList();
    }

    /**
     * Every delete command (of any collection) read before the barrier: document {@code barrier} of this collection,
     * inserted now, due just after {@code deadline}, whose command is awaited. The barrier is deleted too, and
     * awaited, so that the sink has applied whatever came before it.
     */
    List<ConsumerRecord<String, String>> beforeBarrier(String barrier, Instant deadline) {
        insertExpiring(barrier, deadline.plus(BARRIER_AFTER));
        List<ConsumerRecord<String, String>> before =
                deletes.readUntil("the delete command for " + barrier, r -> isCommandFor(r, barrier), WAIT);
        await(barrier + " deleted").atMost(WAIT).until(() -> !exists(barrier));
        return before;
    }

    /**
     * The deadline the running processor has scheduled for the document (interactive queries on the stores of the
     * partition its events are keyed to, {@code {"_id": ...}}: each task numbers its namespaces its own way).
     */
    Optional<Instant> scheduledDeadline(Object id) {
        KafkaStreams streams = processor.get().streams();
        int partition = streams.queryMetadataForKey(
                        ScheduleStores.INDEX,
                        CanonicalJson.of(documentKey(id)),
                        Serdes.String().serializer())
                .partition();
        return ScheduleQueries.find(
                        streams.store(StoreQueryParameters.fromNameAndType(
                                        ScheduleStores.INDEX, QueryableStoreTypes.<Bytes, IndexEntry>keyValueStore())
                                .withPartition(partition)),
                        streams.store(StoreQueryParameters.fromNameAndType(
                                        ScheduleStores.SCHEDULE,
                                        QueryableStoreTypes.<Bytes, ScheduleEntry>keyValueStore())
                                .withPartition(partition)),
                        streams.store(StoreQueryParameters.fromNameAndType(
                                        ScheduleStores.TASK, QueryableStoreTypes.<Bytes, TaskRecord>keyValueStore())
                                .withPartition(partition)),
                        namespace,
                        documentKey(id),
                        rule -> OptionalLong.empty())
                .map(ScheduleQueries.ScheduledDocument::deadline);
    }

    void awaitScheduled(Object id, Instant deadline) {
        await(id + " scheduled for " + deadline)
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptionsInstanceOf(InvalidStateStoreException.class)
                .until(() -> scheduledDeadline(id), scheduled -> scheduled.equals(Optional.of(deadline)));
    }
}
