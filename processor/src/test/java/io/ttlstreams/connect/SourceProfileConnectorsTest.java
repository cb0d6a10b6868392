package io.ttlstreams.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.kafka.connect.source.MongoSourceConfig;
import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The source connectors each {@link SourceProfile} renders, checked against what the service's documentation states
 * (docs/compatible-services.md cites it): the pipeline stages it lists, the shape Cosmos DB requires, one connector per
 * collection where only collections are watched, updateLookup everywhere; and every configuration the connector
 * itself accepts.
 */
class SourceProfileConnectorsTest {

    private static final String URI = "mongodb://mongo:27017/?replicaSet=rs0&retryWrites=false";

    /** Stages each service documents for change-stream pipelines (null: MongoDB, every stage used). */
    private static final Map<SourceProfile, Set<String>> DOCUMENTED_STAGES = Map.of(
            SourceProfile.COSMOSDB, Set.of("$match", "$project"),
            SourceProfile.DOCUMENTDB, Set.of("$match", "$project", "$redact", "$addFields", "$replaceRoot"),
            SourceProfile.FIRESTORE,
                    Set.of("$addFields", "$match", "$project", "$replaceRoot", "$replaceWith", "$set", "$unset"),
            SourceProfile.AZURE_DOCUMENTDB, Set.of("$match", "$project"));

    private static TtlStreamsConfig config(SourceProfile profile) {
        return TestConfigs.config(
                "ttl.source.profile", profile.configValue(),
                "ttl.mongodb.uri", URI,
                "ttl.rules", "sessions,events",
                "ttl.rule.events.namespace", "app.events",
                "ttl.rule.events.mode", "last-modified",
                "ttl.rule.events.expire.after.seconds", "3600",
                "ttl.rule.events.document.ttl.field", "ttl");
    }

    private static List<BsonDocument> stages(ConnectorDefinition source) {
        return BsonArray.parse(source.config().get("pipeline")).stream()
                .map(BsonValue::asDocument)
                .toList();
    }

    @ParameterizedTest
    @EnumSource(SourceProfile.class)
    void shouldRenderOnlyPipelineStagesTheServiceDocumentsWhenAProfileIsSet(SourceProfile profile) {
        for (ConnectorDefinition source :
                ConnectorConfigs.render(config(profile), URI, false).sources()) {
            Set<String> documented = DOCUMENTED_STAGES.get(profile);
            for (BsonDocument stage : stages(source)) {
                assertThat(stage.keySet()).hasSize(1);
                if (documented != null) {
                    assertThat(documented).as(profile + " documents the stage").contains(stage.getFirstKey());
                    assertThat(stage.toJson())
                            .as("no $expr/$bsonSize, which " + profile.service() + " does not document")
                            .doesNotContain("$bsonSize");
                }
            }
            assertThat(source.config()).containsEntry("change.stream.full.document", "updateLookup");
            // The connector parses and cross-checks every option, the pipeline's JSON included.
            assertThat(new MongoSourceConfig(new HashMap<>(source.config())).getKeyOutputFormat())
                    .isEqualTo(MongoSourceConfig.OutputFormat.JSON);
        }
    }

    @ParameterizedTest
    @EnumSource(SourceProfile.class)
    void shouldRenderAConnectorPerCollectionWhereTheServiceWatchesCollectionsOnly(SourceProfile profile) {
        List<ConnectorDefinition> sources =
                ConnectorConfigs.render(config(profile), URI, false).sources();
        if (profile.watchesDatabases()) {
            assertThat(sources).extracting(ConnectorDefinition::name).containsExactly("mongo-source-app");
            assertThat(sources.get(0).config()).doesNotContainKey("collection");
        } else {
            assertThat(sources)
                    .extracting(ConnectorDefinition::name)
                    .containsExactly("mongo-source-app.sessions", "mongo-source-app.events");
            assertThat(sources).extracting(s -> s.config().get("collection")).containsExactly("sessions", "events");
        }
    }

    @Test
    void shouldRenderExactlyTheChangeStreamCosmosDbRequiresWithoutHeartbeats() {
        ConnectorDefinition source = ConnectorConfigs.render(config(SourceProfile.COSMOSDB), URI, false)
                .sources()
                .get(0);

        // As in "Change streams in Azure Cosmos DB's API for MongoDB": $match on these operations, $project of these
        // four fields, fullDocument updateLookup.
        assertThat(stages(source))
                .containsExactly(
                        BsonDocument.parse("{\"$match\": {\"operationType\": {\"$in\": [\"insert\", \"update\","
                                + " \"replace\"]}}}"),
                        BsonDocument.parse(
                                "{\"$project\": {\"_id\": 1, \"fullDocument\": 1, \"ns\": 1, \"documentKey\": 1}}"));
        assertThat(source.config()).doesNotContainKeys("heartbeat.interval.ms", "heartbeat.topic.name");
    }

    @Test
    void shouldKeepDeleteEventsAndHeartbeatsWhereTheServiceReportsThem() {
        for (SourceProfile profile : List.of(SourceProfile.DOCUMENTDB, SourceProfile.FIRESTORE)) {
            ConnectorDefinition source = ConnectorConfigs.render(config(profile), URI, false)
                    .sources()
                    .get(0);
            BsonDocument match = stages(source).get(0).getDocument("$match");
            assertThat(match.getDocument("operationType").getArray("$in"))
                    .extracting(value -> value.asString().getValue())
                    .contains("delete", "drop");
            assertThat(source.config()).containsEntry("heartbeat.topic.name", "__mongodb_heartbeats.app");
        }
        assertThat(ConnectorConfigs.render(config(SourceProfile.AZURE_DOCUMENTDB), URI, false)
                        .sources()
                        .get(0)
                        .config())
                .as("a heartbeat topic per collection's connector, so that one live stream cannot mask another")
                .containsEntry("heartbeat.topic.name", "__mongodb_heartbeats.app.sessions");
    }

    @ParameterizedTest
    @EnumSource(
            value = SourceProfile.class,
            names = {"FIRESTORE", "DOCUMENTDB"})
    void shouldRenderRetryableWritesOffIntoALiteralUriWhereTheServiceRefusesThem(SourceProfile profile) {
        assertThat(sinkUri(profile, "mongodb://mongo:27017")).isEqualTo("mongodb://mongo:27017/?retryWrites=false");
        assertThat(sinkUri(profile, "mongodb://mongo:27017/app?tls=true"))
                .isEqualTo("mongodb://mongo:27017/app?tls=true&retryWrites=false");
        assertThat(sinkUri(profile, URI)).as("already off").isEqualTo(URI);
        assertThat(sinkUri(profile, ConnectorConfigs.DEFAULT_MONGODB_URI))
                .as("a secret's reference: its secret must carry it, checked on ttl.mongodb.uri at start-up")
                .isEqualTo(ConnectorConfigs.DEFAULT_MONGODB_URI);
        assertThatThrownBy(() -> sinkUri(profile, "mongodb://mongo:27017/?retryWrites=true"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retryWrites=false")
                .hasMessageContaining(profile.service());
    }

    @Test
    void shouldLeaveTheUriAsItIsWhereTheServiceRetriesWrites() {
        assertThat(sinkUri(SourceProfile.MONGODB, "mongodb://mongo:27017")).isEqualTo("mongodb://mongo:27017");
    }

    /** The sink's and every source's connection.uri, checked equal, rendered from {@code uri}. */
    private static String sinkUri(SourceProfile profile, String uri) {
        ConnectorConfigs rendered = ConnectorConfigs.render(config(profile), uri, false);
        String sink = rendered.sink().config().get("connection.uri");
        assertThat(rendered.sources())
                .allSatisfy(source ->
                        assertThat(source.config().get("connection.uri")).isEqualTo(sink));
        return sink;
    }
}
