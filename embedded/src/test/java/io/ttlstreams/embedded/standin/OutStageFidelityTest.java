package io.ttlstreams.embedded.standin;

import static io.ttlstreams.embedded.standin.StandInFixture.collectionUuid;
import static io.ttlstreams.embedded.standin.StandInFixture.json;
import static io.ttlstreams.embedded.standin.StandInFixture.listedUuid;
import static io.ttlstreams.embedded.standin.StandInFixture.next;
import static io.ttlstreams.embedded.standin.StandInFixture.open;
import static io.ttlstreams.embedded.standin.StandInFixture.stable;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Filters;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MongoDB manual, "$out (aggregation)", Behaviors: an existing target is replaced by a temporary collection
 * ({@code tmp.agg_out.<UUID>}, server {@code document_source_out.cpp}) that receives the results and is then renamed
 * over it with {@code dropTarget}; so a database stream sees the temporary collection's {@code create} (expanded),
 * one {@code insert} per result under the temporary namespace and one {@code rename} naming the target in {@code to},
 * never a {@code drop} of the target, and a stream on the target sees the {@code rename} and its {@code invalidate}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class OutStageFidelityTest {

    @RegisterExtension
    final StandInFixture standIn = new StandInFixture();

    private MongoCollection<Document> sessions() {
        return standIn.app.getCollection("sessions");
    }

    @Test
    void shouldReplaceTheTargetThroughATemporaryCollectionRenamedOverItWhenAnAggregateEndsInOut() {
        sessions().insertMany(List.of(new Document("_id", 1).append("n", 1), new Document("_id", 2).append("n", 2)));
        UUID replaced = listedUuid(standIn.app, "sessions");
        try (var database = open(standIn.app.watch().showExpandedEvents(true));
                var target = open(sessions().watch())) {
            sessions()
                    .aggregate(List.of(Aggregates.match(Filters.gte("n", 2)), Aggregates.out("sessions")))
                    .toCollection();

            List<BsonDocument> events = next(database, 3);
            String temporary = events.get(0).getDocument("ns").getString("coll").getValue();
            assertThat(temporary).matches("tmp\\.agg_out\\.[0-9a-f-]{36}");
            assertThat(stable(events.get(0)).getString("operationType").getValue())
                    .isEqualTo("create");
            assertThat(stable(events.get(1)))
                    .isEqualTo(json("{operationType: 'insert', ns: {db: 'app', coll: '" + temporary + "'},"
                            + " documentKey: {_id: 2}, fullDocument: {_id: 2, n: 2}}"));
            assertThat(stable(events.get(2)))
                    .isEqualTo(json("{operationType: 'rename', ns: {db: 'app', coll: '" + temporary + "'},"
                            + " to: {db: 'app', coll: 'sessions'}, operationDescription: {to: {db: 'app',"
                            + " coll: 'sessions'}, dropTarget: {$uuid: '" + replaced + "'}}}"));
            assertThat(listedUuid(standIn.app, "sessions"))
                    .isEqualTo(collectionUuid(events.get(0)))
                    .isNotEqualTo(replaced);
            assertThat(sessions().find().into(new ArrayList<>()))
                    .containsExactly(new Document("_id", 2).append("n", 2));
            assertThat(standIn.app.listCollectionNames().into(new ArrayList<>()))
                    .containsExactly("sessions");
            assertThat(next(target, 2))
                    .extracting(event -> event.getString("operationType").getValue())
                    .containsExactly("rename", "invalidate");
        }
    }

    @Test
    void shouldCreateTheTargetWhenItDoesNotExistAndWriteIntoAnotherDatabase() {
        sessions().insertOne(new Document("_id", 1).append("n", 1));

        sessions().aggregate(List.of(Aggregates.out("archive", "copies"))).toCollection();

        assertThat(standIn.client
                        .getDatabase("archive")
                        .getCollection("copies")
                        .find()
                        .into(new ArrayList<>()))
                .containsExactly(new Document("_id", 1).append("n", 1));
        assertThat(standIn.client.getDatabase("archive").listCollectionNames().into(new ArrayList<>()))
                .containsExactly("copies");
        assertThat(sessions().countDocuments()).isEqualTo(1);
    }
}
