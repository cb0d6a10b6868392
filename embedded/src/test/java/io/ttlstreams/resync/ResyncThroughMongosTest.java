package io.ttlstreams.resync;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.connection.ClusterType;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.EmbeddedMongo;
import io.ttlstreams.embedded.standin.StandInSettings;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A resync of a sharded collection read through {@code mongos}, as an application reads it: the stand-in answers as
 * a {@code mongos} ({@link StandInSettings#asMongos()}), so the driver describes a sharded cluster, and the collection
 * is sharded on {@code tenant}, so the sharding catalog ({@code config.collections}) holds its shard key. Resync
 * before issue 44 read that catalog on a sharded cluster and skipped the collection.
 */
class ResyncThroughMongosTest {

    private static final Namespace DOCS = Namespace.parse("app.docs");

    private static final List<BsonValue> IDS =
            IntStream.range(0, 7).mapToObj(i -> (BsonValue) new BsonInt32(i)).toList();

    private EmbeddedMongo mongo;
    private MongoClient client;

    @BeforeEach
    void start() {
        mongo = EmbeddedMongo.start(0, 200, StandInSettings.DEFAULTS.asMongos());
        client = MongoClients.create(mongo.connectionString());
        client.getDatabase("admin")
                .runCommand(new Document("shardCollection", DOCS.toString()).append("key", new Document("tenant", 1)));
        for (BsonValue id : IDS) {
            client.getDatabase("app")
                    .getCollection("docs", BsonDocument.class)
                    .insertOne(new BsonDocument("_id", id)
                            .append("tenant", new BsonString("t" + id.asInt32().getValue() % 3))
                            .append("expireAt", new BsonInt32(id.asInt32().getValue())));
        }
    }

    @AfterEach
    void stop() {
        client.close();
        mongo.close();
    }

    @Test
    void shouldPublishEveryDocumentOfAShardedCollectionWhenReadThroughMongos() {
        TtlStreamsConfig config = new TtlStreamsConfig(Map.of(
                "ttl.rules",
                "docs",
                "ttl.rule.docs.namespace",
                DOCS.toString(),
                "ttl.rule.docs.field",
                "expireAt",
                "ttl.mongodb.uri",
                mongo.connectionString()));
        ListSink sink = new ListSink();

        ResyncReport report = new Resync(config, client, Clock.systemUTC())
                .run(ResyncSelection.ALL, Optional.of(sink), ResyncProgress.none());

        assertThat(client.getClusterDescription().getType())
                .as("the driver sees a sharded cluster")
                .isEqualTo(ClusterType.SHARDED);
        assertThat(report.skipped()).isEmpty();
        assertThat(sink.events.stream()
                        .map(event -> BsonDocument.parse(event.value())
                                .getDocument("documentKey")
                                .get("_id"))
                        .toList())
                .containsExactlyElementsOf(IDS);
        assertThat(report.namespaces().get(DOCS).published()).isEqualTo(IDS.size());
    }
}
