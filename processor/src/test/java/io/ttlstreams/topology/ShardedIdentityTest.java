package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.readback.DocumentReadBack;
import io.ttlstreams.readback.MapDocumentReader;
import io.ttlstreams.state.ScheduleQueries.ScheduledDocument;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/**
 * A document of a sharded collection is one document whatever its {@code documentKey}'s shape: the events are those
 * the stand-in's {@code ShardKeys} plays (and {@code ShardedCollectionFidelityTest} checks against the manual), {@code
 * {_id}} before {@code shardCollection}, {@code {tenant, _id}} after, and a move to another shard as a delete and an
 * insert at one clusterTime.
 */
class ShardedIdentityTest {

    private static final String NAMESPACE = "app.events";
    private static final BsonString ID = new BsonString("s1");
    private static final BsonString TENANT = new BsonString("t1");
    private static final BsonDocument UNSHARDED_KEY = new BsonDocument("_id", ID);
    private static final BsonDocument SHARDED_KEY = new BsonDocument("tenant", TENANT).append("_id", ID);

    /** The MongoDB the read-back reads, for the tests that have one. */
    private final MapDocumentReader mongo = new MapDocumentReader();

    private final DocumentReadBack readBack = new DocumentReadBack(mongo, 100, 1_000);

    /** A last-modified rule without a witness ({@code modified.field}): its command pins nothing but the key. */
    private static TopologyFixture lastModifiedWithoutWitness() {
        return new TopologyFixture(TopologyFixture.eventsSettings("ttl.rule.events.expire.after.seconds", "60"));
    }

    private static BsonDocument document(int version) {
        return new BsonDocument("_id", ID).append("tenant", TENANT).append("v", new BsonInt32(version));
    }

    /**
     * MongoDB leaves {@code _id} uniqueness across shards to the application: two documents sharing an {@code _id} on
     * two shards share one entry, the later event's, whose command pins that document's shard key value, so it can
     * never match the other one (late for that one, never early).
     */
    @Test
    void shouldPinTheLaterDocumentsShardKeyWhenTwoDocumentsShareAnIdOnDifferentShards() {
        try (TopologyFixture fixture = lastModifiedWithoutWitness()) {
            ChangeEvents events = new ChangeEvents(NAMESPACE, START);
            TestInputTopic<String, String> input = fixture.input(NAMESPACE);
            input.pipeInput(SHARDED_KEY.toJson(), events.insert(SHARDED_KEY, document(1)));
            BsonString other = new BsonString("t2");
            BsonDocument otherKey = new BsonDocument("tenant", other).append("_id", ID);
            input.pipeInput(
                    otherKey.toJson(),
                    events.at(START.plusSeconds(30))
                            .insert(otherKey, document(1).append("tenant", other)));

            assertDeletedOnceAtLastTouchPlusTtl(fixture, otherKey);
        }
    }

    /** {@link #lastModifiedWithoutWitness} with a MongoDB to read, answering from {@code mongo}. */
    private TopologyFixture lastModifiedWithoutWitnessReading() {
        return new TopologyFixture(
                TopologyFixture.eventsSettings(
                        "ttl.rule.events.expire.after.seconds", "60", "ttl.mongodb.uri", ReadBackTest.MONGODB_URI),
                Optional.of(readBack));
    }

    /**
     * Inserts the document at {@code START}, then, at 30 s, an update whose lookup under the old documentKey missed it,
     * has the read-back read what that asked, and runs the clock to 31 s, where the answer is applied.
     */
    private void insertThenUpdateWhoseLookupMissed(TopologyFixture fixture) {
        ChangeEvents events = new ChangeEvents(NAMESPACE, START);
        TestInputTopic<String, String> input = fixture.input(NAMESPACE);
        input.pipeInput(SHARDED_KEY.toJson(), events.insert(SHARDED_KEY, document(1)));
        input.pipeInput(SHARDED_KEY.toJson(), events.at(START.plusSeconds(30)).updateLookupMissed(SHARDED_KEY));
        readBack.readQueued();
        fixture.wallClockAt(Duration.ofSeconds(31));
    }

    /**
     * Issue 44 point 2: an update of a refined shard key field does not move the document, but its lookup under the old
     * documentKey finds nothing, so the event comes without the document. The document is read again by {@code _id}
     * and expires 60 s after that read, which comes after its last touch: never at the insert's deadline, never missed.
     */
    @Test
    void shouldDeleteAfterTheReadAgainWhenAnUpdatesLookupMissedTheDocument() {
        mongo.put(Namespace.parse(NAMESPACE), document(2).append("region", new BsonString("eu")));
        try (TopologyFixture fixture = lastModifiedWithoutWitnessReading()) {
            insertThenUpdateWhoseLookupMissed(fixture);

            fixture.wallClockAt(Duration.ofSeconds(30 + 60).minusMillis(1));
            assertThat(fixture.deletes())
                    .as("nothing before the last touch + TTL")
                    .isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(120));
            List<TestRecord<String, String>> commands = fixture.deletes();
            assertThat(commands).as("deleted once, after the read").hasSize(1);
            // By _id alone: the shard key the event named is no longer the document's.
            assertThat(filterOf(commands.get(0))).isEqualTo(UNSHARDED_KEY);
        }
    }

    @Test
    void shouldLeaveTheDocumentUnscheduledWhenTheReadAgainFindsItGone() {
        try (TopologyFixture fixture = lastModifiedWithoutWitnessReading()) {
            insertThenUpdateWhoseLookupMissed(fixture);

            assertThat(mongo.lookUps()).as("read again, found gone").hasSize(1);
            assertThat(fixture.scheduled(NAMESPACE, ID)).isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(120));
            assertThat(fixture.deletes()).isEmpty();
        }
    }

    /**
     * The document has one entry, due 60 s after its last touch (30 s): nothing is deleted before (the first event's
     * deadline, 60 s, passes too), then one command whose filter pins {@code latestKey}, the latest documentKey.
     */
    private static void assertDeletedOnceAtLastTouchPlusTtl(TopologyFixture fixture, BsonDocument latestKey) {
        assertThat(fixture.documentEntries()).isEqualTo(1);
        // Found by its _id (as /v1/documents asks), named by the latest documentKey.
        ScheduledDocument scheduled = fixture.scheduled(NAMESPACE, ID).orElseThrow();
        assertThat(scheduled.deadline()).isEqualTo(START.plusSeconds(30 + 60));
        assertThat(scheduled.documentKey()).isEqualTo(latestKey);
        fixture.wallClockAt(Duration.ofSeconds(89));
        assertThat(fixture.deletes()).isEmpty();
        fixture.wallClockAt(Duration.ofSeconds(90));
        List<TestRecord<String, String>> commands = fixture.deletes();
        assertThat(commands).hasSize(1);
        assertThat(filterOf(commands.get(0))).isEqualTo(latestKey);
    }

    private static BsonDocument filterOf(TestRecord<String, String> command) {
        return DeleteCommand.parse(command.key(), command.value()).filter();
    }

    @Test
    void shouldKeepOneEntryRenewedByTheLaterEventWhenTheCollectionIsShardedBetweenTwoEvents() {
        try (TopologyFixture fixture = lastModifiedWithoutWitness()) {
            ChangeEvents events = new ChangeEvents(NAMESPACE, START);
            TestInputTopic<String, String> input = fixture.input(NAMESPACE);
            input.pipeInput(UNSHARDED_KEY.toJson(), events.insert(UNSHARDED_KEY, document(1)));
            // shardCollection {tenant: 1}: the same document's next event carries the shard key.
            input.pipeInput(
                    SHARDED_KEY.toJson(), events.at(START.plusSeconds(30)).updateKeyed(SHARDED_KEY, document(2)));

            assertDeletedOnceAtLastTouchPlusTtl(fixture, SHARDED_KEY);
        }
    }

    @Test
    void shouldKeepTheDocumentScheduledAndDeleteNothingEarlyWhenAShardKeyChangeMovesIt() {
        try (TopologyFixture fixture = lastModifiedWithoutWitness()) {
            ChangeEvents events = new ChangeEvents(NAMESPACE, START);
            TestInputTopic<String, String> input = fixture.input(NAMESPACE);
            input.pipeInput(SHARDED_KEY.toJson(), events.insert(SHARDED_KEY, document(1)));
            // tenant t1 -> t2 moves the document to another shard: a delete and an insert at one clusterTime.
            BsonString moved = new BsonString("t2");
            BsonDocument movedKey = new BsonDocument("tenant", moved).append("_id", ID);
            BsonDocument after = document(2).append("tenant", moved);
            List<String> move = events.at(START.plusSeconds(30)).moveKeyed(SHARDED_KEY, movedKey, after);
            input.pipeInput(SHARDED_KEY.toJson(), move.get(0));
            input.pipeInput(movedKey.toJson(), move.get(1));

            assertDeletedOnceAtLastTouchPlusTtl(fixture, movedKey);
        }
    }
}
