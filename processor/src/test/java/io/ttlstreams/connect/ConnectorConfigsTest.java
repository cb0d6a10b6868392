package io.ttlstreams.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.kafka.connect.sink.MongoSinkConfig;
import com.mongodb.kafka.connect.source.MongoSourceConfig;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.CanonicalJson;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

class ConnectorConfigsTest {

    private static final String URI = "mongodb://mongo:27017/?replicaSet=rs0";

    private static final TtlStreamsConfig TWO_COLLECTIONS = TestConfigs.config(
            "ttl.rules", "sessions,events",
            "ttl.rule.sessions.field", "session.expiresAt",
            "ttl.rule.events.namespace", "app.events",
            "ttl.rule.events.mode", "last-modified",
            "ttl.rule.events.expire.after.seconds", "3600",
            "ttl.rule.events.document.ttl.field", "ttl");

    private static BsonArray pipeline(ConnectorDefinition source) {
        return BsonArray.parse(source.config().get("pipeline"));
    }

    private static BsonDocument stage(ConnectorDefinition source, String operator) {
        return pipeline(source).stream()
                .map(BsonValue::asDocument)
                .filter(stage -> stage.containsKey(operator))
                .findFirst()
                .orElseThrow()
                .getDocument(operator);
    }

    @Test
    void shouldAskForAndKeepThePreImageWhenARuleWantsItInItsExpiredRecords() {
        ConnectorDefinition plain =
                ConnectorConfigs.render(TWO_COLLECTIONS, URI, false).sources().get(0);
        assertThat(plain.config()).doesNotContainKey("change.stream.full.document.before.change");
        assertThat(stage(plain, "$project")).doesNotContainKey("fullDocumentBeforeChange");

        TtlStreamsConfig preImages = TestConfigs.config(
                "ttl.expired.topic", "ttl.expired", "ttl.rule.sessions.expired.document", "pre-image");
        ConnectorDefinition source =
                ConnectorConfigs.render(preImages, URI, false).sources().get(0);

        assertThat(source.config()).containsEntry("change.stream.full.document.before.change", "whenAvailable");
        assertThat(stage(source, "$project"))
                .as("the projection that keeps large documents out of Kafka must not drop the pre-image")
                .containsEntry("fullDocumentBeforeChange", new BsonInt32(1));
    }

    @Test
    void shouldReplaceAPreImageOverTheBoundByItsRuleFieldsAndLetTheProducerSendTheLargestEventWhenPreImagesAreKept() {
        TtlStreamsConfig preImages = TestConfigs.config(
                "ttl.expired.topic", "ttl.expired", "ttl.rule.sessions.expired.document", "pre-image");
        ConnectorDefinition source =
                ConnectorConfigs.render(preImages, URI, false).sources().get(0);
        String marker = ChangeStreamPipeline.PRE_IMAGE_TOO_LARGE;

        assertThat(stage(source, "$addFields"))
                .as("a copy of the pre-image, for the marker")
                .isEqualTo(new BsonDocument(marker, new BsonString("$fullDocumentBeforeChange")));
        assertThat(stage(source, "$project"))
                .as("the marker: the pre-image's _id and what the rules read")
                .containsEntry(marker + "._id", new BsonInt32(1))
                .containsEntry(marker + ".expireAt", new BsonInt32(1))
                .doesNotContainKey(marker);
        String fits = "{\"$lte\": [{\"$bsonSize\": \"$fullDocumentBeforeChange\"}, "
                + ChangeStreamPipeline.PRE_IMAGE_MAX_BYTES + "]}";
        String markerFits = "{\"$lte\": [{\"$bsonSize\": \"$" + marker + "\"}, "
                + ChangeStreamPipeline.RULE_FIELDS_MAX_BYTES + "]}";
        assertThat(stage(source, "$set"))
                .as(
                        "the whole pre-image when it fits, else the marker (cut to its _id if that is too large); never both")
                .containsEntry(
                        "fullDocumentBeforeChange",
                        BsonDocument.parse("{\"$cond\": [" + fits + ", \"$fullDocumentBeforeChange\", \"$$REMOVE\"]}"))
                .containsEntry(
                        marker,
                        BsonDocument.parse("{\"$cond\": [" + fits + ", \"$$REMOVE\", {\"$cond\": [" + markerFits
                                + ", \"$" + marker + "\", {\"_id\": \"$" + marker + "._id\"}]}]}"));

        int limit = Integer.parseInt(source.config().get(ConnectorConfigs.SOURCE_MAX_REQUEST_SIZE));
        assertThat(limit)
                .as("the largest pre-image kept, as extended JSON at its worst")
                .isGreaterThan(ChangeStreamPipeline.PRE_IMAGE_MAX_BYTES * CanonicalJson.MAX_GROWTH)
                .isEqualTo(ChangeStreamPipeline.maxRecordBytes(OperationsOptions.DOCUMENT_KEY_MAX_BYTES_DEFAULT, true));
        assertThat(Integer.parseInt(ConnectorConfigs.render(TWO_COLLECTIONS, URI, false)
                        .sources()
                        .get(0)
                        .config()
                        .get(ConnectorConfigs.SOURCE_MAX_REQUEST_SIZE)))
                .as("without pre-images, less")
                .isLessThan(limit);
    }

    @Test
    void shouldDropAFullDocumentOverTheBoundAndSaySoWhenTheProfileTakesTheFullPipeline() {
        ConnectorDefinition source =
                ConnectorConfigs.render(TWO_COLLECTIONS, URI, false).sources().get(0);
        String fits =
                "{\"$lte\": [{\"$bsonSize\": \"$fullDocument\"}, " + ChangeStreamPipeline.RULE_FIELDS_MAX_BYTES + "]}";

        assertThat(stage(source, "$set"))
                .as("after the projection, the rule fields bounded; the processor dead-letters what was dropped")
                .isEqualTo(BsonDocument.parse("{\"fullDocument\": {\"$cond\": [" + fits
                        + ", \"$fullDocument\", \"$$REMOVE\"]}, \"" + ChangeStreamPipeline.FULL_DOCUMENT_TOO_LARGE
                        + "\": {\"$cond\": [" + fits + ", \"$$REMOVE\", {\"$bsonSize\": \"$fullDocument\"}]}}"));
        assertThat(pipeline(source).stream()
                        .map(stage -> stage.asDocument().getFirstKey())
                        .toList())
                .containsExactly("$match", "$match", "$project", "$set");
    }

    @Test
    void shouldLetTheSinkApplyExactlyTheMarksOfMarkRulesWithTheGuardPluginsWriteModel() {
        assertThat(ConnectorConfigs.render(TWO_COLLECTIONS, URI, false).sink().config())
                .doesNotContainKey("transforms.guard.mark.fields")
                .containsEntry(
                        "writemodel.strategy",
                        "com.mongodb.kafka.connect.sink.writemodel.strategy.DeleteOneBusinessKeyStrategy");

        TtlStreamsConfig marks =
                TestConfigs.config("ttl.rule.sessions.action", "mark", "ttl.rule.sessions.mark.field", "expiredAt");
        ConnectorDefinition source =
                ConnectorConfigs.render(marks, URI, false).sources().get(0);

        assertThat(ConnectorConfigs.render(marks, URI, false).sink().config())
                .containsEntry("transforms.guard.mark.fields", "app.sessions=expiredAt")
                .containsEntry("writemodel.strategy", "io.ttlstreams.guard.CommandWriteModel");
        assertThat(stage(source, "$project"))
                .as("the mark's confirmation needs the field")
                .containsKey("fullDocument.expiredAt");
    }

    @Test
    void shouldMatchExactNamespacesWithNsCollIn() {
        ConnectorDefinition source =
                ConnectorConfigs.render(TWO_COLLECTIONS, URI, false).sources().get(0);

        assertThat(source.config()).containsEntry("database", "app").doesNotContainKey("collection");
        BsonDocument match = stage(source, "$match");
        assertThat(match.getDocument("operationType").getArray("$in"))
                .extracting(v -> v.asString().getValue())
                .containsExactly(
                        "insert", "update", "replace", "delete", "drop", "dropDatabase", "rename", "invalidate");
        assertThat(match.getArray("$or"))
                .containsExactly(
                        BsonDocument.parse("{\"ns.coll\": {\"$in\": [\"sessions\", \"events\"]}}"),
                        BsonDocument.parse("{\"to.coll\": {\"$in\": [\"sessions\", \"events\"]}}"),
                        BsonDocument.parse("{\"operationType\": {\"$in\": [\"dropDatabase\", \"invalidate\"]}}"));
    }

    @Test
    void shouldMatchEveryCollectionWhenARuleCoversTheWholeDatabase() {
        TtlStreamsConfig config = TestConfigs.config(
                "ttl.rules", "all,sessions",
                "ttl.rule.all.namespace", "app.*",
                "ttl.rule.all.field", "expireAt",
                "ttl.source.topics", "app.sessions,app.carts");

        ConnectorDefinition source =
                ConnectorConfigs.render(config, URI, false).sources().get(0);

        assertThat(stage(source, "$match").keySet()).containsExactly("operationType");
    }

    @Test
    void shouldProjectTheEventFieldsAndOnlyTheFieldsTheRulesRead() {
        TtlStreamsConfig config = TestConfigs.config(
                "ttl.rules",
                "sessions,events",
                "ttl.rule.sessions.field",
                "session.expiresAt",
                "ttl.rule.sessions.partial.filter",
                "{\"$and\": [{\"status\": \"active\"}, {\"meta.tier\": {\"$in\": [1, 2]}}], \"kind\": {\"$exists\": true}}",
                "ttl.rule.events.namespace",
                "app.events",
                "ttl.rule.events.mode",
                "last-modified",
                "ttl.rule.events.expire.after.seconds",
                "60",
                "ttl.rule.events.document.ttl.field",
                "meta");

        BsonDocument project =
                stage(ConnectorConfigs.render(config, URI, false).sources().get(0), "$project");

        // meta.tier lies under meta, which is projected whole: MongoDB rejects the pair as a path collision.
        assertThat(project.keySet())
                .containsExactly(
                        "_id",
                        "operationType",
                        "ns",
                        "documentKey",
                        "clusterTime",
                        "wallTime",
                        "to",
                        "fullDocument._id",
                        "fullDocument.kind",
                        "fullDocument.meta",
                        "fullDocument.session.expiresAt",
                        "fullDocument.status");
        assertThat(project.values())
                .allMatch(value -> value.isInt32() && value.asInt32().getValue() == 1);
    }

    @Test
    void shouldProjectThePathsOfOrClausesWhichThePartialFilterReads() {
        TtlStreamsConfig config = TestConfigs.config(
                "ttl.rule.sessions.partial.filter", "{\"$or\": [{\"status\": \"active\"}, {\"tier\": {\"$gte\": 2}}]}");

        BsonDocument project =
                stage(ConnectorConfigs.render(config, URI, false).sources().get(0), "$project");

        assertThat(project.keySet()).contains("fullDocument.status", "fullDocument.tier");
    }

    @Test
    void shouldProjectTheModifiedFieldWhichTheDeleteFilterPins() {
        TtlStreamsConfig config = TestConfigs.exactly(
                "ttl.rules", "events",
                "ttl.rule.events.namespace", "app.events",
                "ttl.rule.events.mode", "last-modified",
                "ttl.rule.events.expire.after.seconds", "60",
                "ttl.rule.events.modified.field", "meta.updatedAt");

        BsonDocument project =
                stage(ConnectorConfigs.render(config, URI, false).sources().get(0), "$project");

        // Without it every event's document lacks the field, and the filter pins {"$exists": false}: no delete.
        assertThat(project.keySet()).contains("fullDocument.meta.updatedAt");
    }

    @Test
    void shouldRenderOneSourceConnectorPerDatabase() {
        TtlStreamsConfig config = TestConfigs.exactly(
                "ttl.rules",
                "a,b,c",
                "ttl.rule.a.namespace",
                "app.sessions",
                "ttl.rule.a.field",
                "expireAt",
                "ttl.rule.b.namespace",
                "audit.log",
                "ttl.rule.b.field",
                "at",
                "ttl.rule.c.namespace",
                "app.carts",
                "ttl.rule.c.field",
                "until");

        ConnectorConfigs connectors = ConnectorConfigs.render(config, URI, false);

        assertThat(connectors.sources())
                .extracting(ConnectorDefinition::name)
                .containsExactly("mongo-source-app", "mongo-source-audit");
        assertThat(stage(connectors.sources().get(0), "$project").keySet())
                .contains("fullDocument.expireAt", "fullDocument.until")
                .doesNotContain("fullDocument.at");
        assertThat(connectors.files().keySet())
                .containsExactly("mongo-source-app.json", "mongo-source-audit.json", "mongo-ttl-sink.json");
    }

    @Test
    void shouldStartAtTheLatestEventUnlessCopyExistingIsAsked() {
        Map<String, String> latest = ConnectorConfigs.render(TWO_COLLECTIONS, URI, false)
                .sources()
                .get(0)
                .config();
        assertThat(latest)
                .containsEntry("startup.mode", "latest")
                .doesNotContainKey("startup.mode.copy.existing.namespace.regex");

        Map<String, String> copy = ConnectorConfigs.render(TWO_COLLECTIONS, URI, true)
                .sources()
                .get(0)
                .config();
        assertThat(copy).containsEntry("startup.mode", "copy_existing");
        // The connector applies the regex with find(), so it must be anchored.
        Pattern regex = Pattern.compile(copy.get("startup.mode.copy.existing.namespace.regex"));
        assertThat(List.of("app.sessions", "app.events"))
                .allMatch(ns -> regex.asPredicate().test(ns));
        assertThat(List.of("app.sessions2", "xapp.events", "app.other", "appxsessions"))
                .noneMatch(ns -> regex.asPredicate().test(ns));
    }

    @Test
    void shouldCopyEveryCollectionOfAWildcardDatabase() {
        TtlStreamsConfig config = TestConfigs.exactly(
                "ttl.rules",
                "all",
                "ttl.rule.all.namespace",
                "a-b.*",
                "ttl.rule.all.field",
                "x",
                "ttl.source.topics",
                "t");

        assertThat(ConnectorConfigs.render(config, URI, true).sources().get(0).config())
                .containsEntry("startup.mode.copy.existing.namespace.regex", "^a\\-b\\..+$");
    }

    @Test
    void shouldKeepDeletesKeysAndResumeTokensHonest() {
        Map<String, String> source = ConnectorConfigs.render(TWO_COLLECTIONS, URI, false)
                .sources()
                .get(0)
                .config();

        assertThat(source)
                .containsEntry("connector.class", "com.mongodb.kafka.connect.MongoSourceConnector")
                .containsEntry("connection.uri", URI)
                .containsEntry("change.stream.full.document", "updateLookup")
                .containsEntry("publish.full.document.only", "false")
                .containsEntry("change.stream.document.key.as.key", "true")
                .containsEntry("output.format.key", "json")
                .containsEntry("output.format.value", "json")
                .containsEntry("output.json.formatter", "com.mongodb.kafka.connect.source.json.formatter.ExtendedJson")
                .containsEntry("heartbeat.interval.ms", "10000")
                .containsEntry("heartbeat.topic.name", "__mongodb_heartbeats.app")
                .containsEntry("mongo.errors.tolerance", "none")
                .doesNotContainKey("topic.prefix");
    }

    @Test
    void shouldSkipEventsTheWorkerCannotProduceButNeverResetALostResumeToken() {
        Map<String, String> source = ConnectorConfigs.render(TWO_COLLECTIONS, URI, false)
                .sources()
                .get(0)
                .config();

        assertThat(source)
                .as("Connect's tolerance: a record over the producer's limit is skipped, logged and counted")
                .containsEntry("errors.tolerance", "all")
                .containsEntry("errors.log.enable", "true")
                .as("the connector's own: it overrides errors.tolerance, and a lost resume token fails the task")
                .containsEntry("mongo.errors.tolerance", "none");
    }

    @Test
    void shouldDropEventsWhoseDocumentKeyIsLargerThanTheProcessorSchedules() {
        TtlStreamsConfig config = TestConfigs.exactly(
                "ttl.rules", "s",
                "ttl.rule.s.namespace", "app.s",
                "ttl.rule.s.field", "expireAt",
                "ttl.document.key.max.bytes", "4096");

        BsonArray pipeline =
                pipeline(ConnectorConfigs.render(config, URI, false).sources().get(0));

        assertThat(pipeline).hasSize(4);
        assertThat(pipeline.get(0).asDocument()).containsKey("$match");
        assertThat(pipeline.get(1).asDocument())
                .isEqualTo(BsonDocument.parse(
                        "{\"$match\": {\"$expr\": {\"$lte\": [{\"$bsonSize\": \"$documentKey\"}, 4096]}}}"));
        assertThat(pipeline.get(2).asDocument()).containsKey("$project");
        assertThat(pipeline(ConnectorConfigs.render(TWO_COLLECTIONS, URI, false)
                                .sources()
                                .get(0))
                        .get(1)
                        .asDocument()
                        .getDocument("$match")
                        .toJson())
                .as("the default bound")
                .contains("16384");
    }

    @Test
    void shouldUseTheProcessorsTopicPrefix() {
        TtlStreamsConfig config = TestConfigs.exactly(
                "ttl.rules",
                "s",
                "ttl.rule.s.namespace",
                "app.s",
                "ttl.rule.s.field",
                "x",
                "ttl.source.topic.prefix",
                "mongo");

        assertThat(ConnectorConfigs.render(config, URI, false).sources().get(0).config())
                .containsEntry("topic.prefix", "mongo");
        assertThat(config.sourceTopics()).containsExactly("mongo.app.s");
    }

    @Test
    void shouldApplyDeleteCommandsAsConditionalDeletesInTheirNamespace() {
        TtlStreamsConfig config = TestConfigs.exactly(
                "ttl.rules",
                "s",
                "ttl.rule.s.namespace",
                "app.s",
                "ttl.rule.s.field",
                "x",
                "ttl.delete.topic",
                "my.deletes");

        ConnectorDefinition sink = ConnectorConfigs.render(config, URI, false).sink();

        assertThat(sink.name()).isEqualTo("mongo-ttl-sink");
        assertThat(sink.config())
                .containsEntry("connector.class", "com.mongodb.kafka.connect.MongoSinkConnector")
                .containsEntry("topics", "my.deletes")
                .containsEntry("key.converter", "org.apache.kafka.connect.storage.StringConverter")
                .containsEntry("value.converter", "org.apache.kafka.connect.storage.StringConverter")
                .containsEntry(
                        "document.id.strategy",
                        "com.mongodb.kafka.connect.sink.processor.id.strategy.ProvidedInValueStrategy")
                .containsEntry(
                        "writemodel.strategy",
                        "com.mongodb.kafka.connect.sink.writemodel.strategy.DeleteOneBusinessKeyStrategy")
                .containsEntry(
                        "namespace.mapper", "com.mongodb.kafka.connect.sink.namespace.mapping.FieldPathNamespaceMapper")
                .containsEntry("namespace.mapper.value.database.field", "ns.db")
                .containsEntry("namespace.mapper.value.collection.field", "ns.coll")
                .containsEntry("namespace.mapper.error.if.invalid", "true")
                .containsEntry("database", ConnectorConfigs.UNUSED_DEFAULT_NAMESPACE)
                .containsEntry("collection", ConnectorConfigs.UNUSED_DEFAULT_NAMESPACE)
                .containsEntry("consumer.override.isolation.level", "read_committed")
                .containsEntry("bulk.write.ordered", "false")
                .containsEntry("errors.tolerance", "all")
                .containsEntry("mongo.errors.tolerance", "data")
                .containsEntry("errors.deadletterqueue.topic.name", "ttl.sink.dlq")
                .containsEntry("errors.deadletterqueue.context.headers.enable", "true")
                .containsEntry("errors.log.enable", "true");
    }

    @Test
    void shouldGuardTheSinkWithTheRulesNamespacesAndTheSigningKeyFromASecretFile() {
        TtlStreamsConfig config = TestConfigs.exactly(
                "ttl.rules", "a,b,c",
                "ttl.rule.a.namespace", "app.sessions",
                "ttl.rule.a.field", "expireAt",
                "ttl.rule.b.namespace", "audit.*",
                "ttl.rule.b.field", "at",
                "ttl.rule.c.namespace", "app.sessions",
                "ttl.rule.c.mode", "last-modified",
                "ttl.rule.c.expire.after.seconds", "60",
                "ttl.source.topics", "audit.log");

        Map<String, String> sink =
                ConnectorConfigs.render(config, URI, false).sink().config();

        assertThat(sink)
                .containsEntry("transforms", "guard")
                .containsEntry("transforms.guard.type", "io.ttlstreams.guard.DeleteCommandGuard")
                .containsEntry("transforms.guard.allowed.namespaces", "app.sessions,audit.*")
                .containsEntry("transforms.guard.signing.key", "${file:/secrets/ttl-signing.properties:key}")
                .containsEntry("header.converter", "org.apache.kafka.connect.converters.ByteArrayConverter")
                .doesNotContainKey("transforms.guard.allow.unsigned");
        assertThatThrownBy(() -> ConnectorConfigs.sink("t", "d", URI, List.of(), "k"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed namespace");
    }

    @Test
    void shouldBeAcceptedByTheConnectorsOwnValidation() {
        ConnectorConfigs connectors = ConnectorConfigs.render(TWO_COLLECTIONS, URI, true);

        // The constructors parse and cross-check every option: the pipeline's JSON, the strategies' classes, the
        // namespace mapper's fields, the startup mode.
        MongoSourceConfig source =
                new MongoSourceConfig(new HashMap<>(connectors.sources().get(0).config()));
        assertThat(source.getKeyOutputFormat()).isEqualTo(MongoSourceConfig.OutputFormat.JSON);
        MongoSinkConfig sink =
                new MongoSinkConfig(new HashMap<>(connectors.sink().config()));
        assertThat(sink.getTopics()).contains(List.of("ttl.deletes"));
        assertThat(sink.getMongoSinkTopicConfig("ttl.deletes")
                        .getWriteModelStrategy()
                        .getClass()
                        .getSimpleName())
                .isEqualTo("DeleteOneBusinessKeyStrategy");
    }

    @Test
    void shouldRejectABlankUri() {
        assertThatThrownBy(() -> ConnectorConfigs.render(TWO_COLLECTIONS, " ", false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("URI");
    }
}
