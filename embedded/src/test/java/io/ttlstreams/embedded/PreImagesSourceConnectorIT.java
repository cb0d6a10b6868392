package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.Namespace;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

/**
 * Pre- and post-images through the official MongoDB source connector (mongo-kafka-connect 2.0.1) on the stand-in, as
 * a source with {@code change.stream.full.document.before.change=required} and {@code
 * change.stream.full.document=whenAvailable} publishes them from a collection created with {@code
 * changeStreamPreAndPostImages}: each update, replace and delete carries the document as it was before, each update the
 * document right after it, an insert no pre-image. The connector's other settings are those of the production source.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class PreImagesSourceConnectorIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Namespace IMAGES = Namespace.parse("app.images");
    private static final String CONNECTOR = "pre-images-source";
    private static final String TOPIC = "preimages." + IMAGES;
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String OWNER = "someone-with-a-rather-long-name@example.com";

    private EmbeddedStack stack;
    private MongoClient client;

    @BeforeAll
    void start() throws Exception {
        stack = EmbeddedStack.builder().rules(TestRules.expireAt(SESSIONS)).start();
        client = MongoClients.create(stack.mongoConnectionString());
        client.getDatabase(IMAGES.database())
                .createCollection(
                        IMAGES.collection(),
                        new CreateCollectionOptions()
                                .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));
        Properties admin = new Properties();
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        try (Admin topics = Admin.create(admin)) {
            topics.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)))
                    .all()
                    .get();
        }
        Map<String, String> production = ConnectorConfigs.render(
                        TestRules.expireAt(SESSIONS), stack.mongoConnectionString(), false)
                .sources()
                .get(0)
                .config();
        Map<String, String> config = new HashMap<>(production);
        config.put("collection", IMAGES.collection());
        config.put("pipeline", "[]");
        config.put("topic.prefix", "preimages");
        config.put("heartbeat.interval.ms", "0");
        config.put("change.stream.full.document", "whenAvailable");
        config.put("change.stream.full.document.before.change", "required");
        stack.connect().createConnector(CONNECTOR, config, WAIT);
    }

    @AfterAll
    void stop() {
        if (client != null) {
            client.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    private static BsonDocument document(String json) {
        return BsonDocument.parse(json);
    }

    @Test
    void shouldPublishThePreAndPostImagesTheCollectionRecorded() {
        MongoCollection<Document> images = client.getDatabase(IMAGES.database()).getCollection(IMAGES.collection());
        try (TopicReader reader = new TopicReader(stack.bootstrapServers(), TOPIC)) {
            // Large enough that MongoDB logs its pipeline update as a delta (an update event), not a replacement.
            images.insertOne(new Document("_id", "i1").append("v", 1).append("owner", OWNER));
            images.updateOne(Filters.eq("_id", "i1"), Updates.set("v", 2));
            images.updateOne(
                    Filters.eq("_id", "i1"),
                    List.of(new Document("$set", new Document("renewedAt", "$$NOW").append("v", 3))));
            images.replaceOne(Filters.eq("_id", "i1"), new Document("w", true));
            images.deleteOne(Filters.eq("_id", "i1"));

            List<BsonDocument> events = await("five change events on " + TOPIC)
                    .atMost(WAIT)
                    .until(() -> reader.poll(r -> true), records -> records.size() >= 5)
                    .stream()
                    .map(ConsumerRecord::value)
                    .map(BsonDocument::parse)
                    .toList();

            assertThat(events)
                    .extracting(event -> event.getString("operationType").getValue())
                    .containsExactly("insert", "update", "update", "replace", "delete");
            assertThat(events.get(0)).doesNotContainKey("fullDocumentBeforeChange");
            assertThat(events.subList(1, 5))
                    .extracting(event ->
                            event.getDocument("fullDocumentBeforeChange").toJson())
                    .containsExactly(
                            document("{_id: 'i1', v: 1, owner: '" + OWNER + "'}")
                                    .toJson(),
                            document("{_id: 'i1', v: 2, owner: '" + OWNER + "'}")
                                    .toJson(),
                            events.get(2).getDocument("fullDocument").toJson(),
                            document("{_id: 'i1', w: true}").toJson());
            assertThat(events.get(1).getDocument("fullDocument"))
                    .isEqualTo(document("{_id: 'i1', v: 2, owner: '" + OWNER + "'}"));
            assertThat(events.get(2).getDocument("fullDocument").getInt32("v").getValue())
                    .isEqualTo(3);
        }
        assertThat(stack.connect().status(CONNECTOR).isRunning()).isTrue();
    }
}
