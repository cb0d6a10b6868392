package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocument;
import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.connect.ChangeStreamPipeline;
import io.ttlstreams.contract.Namespace;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stand-in playing Cosmos DB ({@link CosmosDbEmulation}): the change streams Cosmos DB refuses are refused, and
 * the one it requires, which the embedded stack's Cosmos DB source connector opens, reports no deletes.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class CosmosDbEmulationTest {

    private static final Namespace DOCS = Namespace.parse("ttl.docs");

    @TempDir
    Path dataDir;

    private EmbeddedMongo mongo;
    private MongoClient client;
    private MongoCollection<Document> docs;

    @BeforeEach
    void start() {
        mongo = EmbeddedMongo.start(0, dataDir, SourceProfile.COSMOSDB);
        client = MongoClients.create(mongo.connectionString());
        docs = client.getDatabase(DOCS.database()).getCollection(DOCS.collection());
    }

    @AfterEach
    void stop() {
        client.close();
        mongo.close();
    }

    private static List<BsonDocument> stages(String json) {
        return BsonArray.parse(json).stream().map(BsonValue::asDocument).toList();
    }

    @Test
    void shouldRefuseTheChangeStreamMongoDbGetsWhenPlayingCosmosDb() {
        // What a MongoDB source gets: delete events included, no $project.
        List<BsonDocument> mongoDbPipeline = stages(
                "[{\"$match\": {\"operationType\": {\"$in\": [\"insert\", \"update\", \"replace\", \"delete\"]}}}]");

        assertThatThrownBy(() -> docs.watch(mongoDbPipeline)
                        .fullDocument(FullDocument.UPDATE_LOOKUP)
                        .cursor())
                .isInstanceOf(MongoCommandException.class)
                .hasMessageContaining("Cosmos DB emulation");
        assertThatThrownBy(() -> docs.watch(stages("[" + String.join(",", ChangeStreamPipeline.cosmosStages()) + "]"))
                        .cursor())
                .as("without updateLookup")
                .isInstanceOf(MongoCommandException.class);
        assertThatThrownBy(() -> client.getDatabase(DOCS.database())
                        .watch(stages("[" + String.join(",", ChangeStreamPipeline.cosmosStages()) + "]"))
                        .fullDocument(FullDocument.UPDATE_LOOKUP)
                        .cursor())
                .as("a database watch")
                .isInstanceOf(MongoCommandException.class);
    }

    @Test
    void shouldReportNoDeleteOnTheChangeStreamCosmosDbRequires() {
        List<BsonDocument> cosmos = stages("[" + String.join(",", ChangeStreamPipeline.cosmosStages()) + "]");
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = docs.watch(cosmos)
                .fullDocument(FullDocument.UPDATE_LOOKUP)
                .maxAwaitTime(200, TimeUnit.MILLISECONDS)
                .cursor()) {
            docs.insertOne(new Document("_id", "d1").append("v", 1));
            docs.deleteOne(Filters.eq("_id", "d1"));
            docs.insertOne(new Document("_id", "marker"));

            assertThat(cursor.next().getDocumentKey())
                    .isEqualTo(new BsonDocument("_id", new org.bson.BsonString("d1")));
            ChangeStreamDocument<Document> next = cursor.next();
            assertThat(next.getDocumentKey())
                    .as("the marker written after the delete comes next: the delete was not reported")
                    .isEqualTo(new BsonDocument("_id", new org.bson.BsonString("marker")));
            assertThat(next.getOperationTypeString())
                    .as("projected away, as on Cosmos DB")
                    .isNull();
        }
    }
}
