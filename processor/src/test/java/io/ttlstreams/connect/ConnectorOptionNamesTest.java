package io.ttlstreams.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.kafka.connect.MongoSinkConnector;
import com.mongodb.kafka.connect.MongoSourceConnector;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.guard.DeleteCommandGuard;
import io.ttlstreams.guard.SinkGuardConfig;
import io.ttlstreams.sourcekey.DocumentIdKey;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.connect.converters.ByteArrayConverter;
import org.apache.kafka.connect.runtime.ConnectorConfig;
import org.apache.kafka.connect.runtime.SinkConnectorConfig;
import org.apache.kafka.connect.runtime.SourceConnectorConfig;
import org.junit.jupiter.api.Test;

/**
 * Every rendered key must be an option that exists: in the connector's own ConfigDef (from the mongo-kafka-connect
 * jar on the classpath, the version the Dockerfile installs) or in Kafka Connect's connector-level ConfigDef. A
 * misspelt key is otherwise ignored by Connect without a word, and the setting silently falls back to its default.
 */
class ConnectorOptionNamesTest {

    private static final String URI = "mongodb://mongo:27017/?replicaSet=rs0";

    /** Covers the optional keys too: a topic prefix and copy_existing. */
    private static final ConnectorConfigs CONNECTORS = ConnectorConfigs.render(
            TestConfigs.exactly(
                    "ttl.rules",
                    "s,w",
                    "ttl.rule.s.namespace",
                    "app.s",
                    "ttl.rule.s.field",
                    "x",
                    "ttl.rule.w.namespace",
                    "other.*",
                    "ttl.rule.w.field",
                    "y",
                    "ttl.source.topics",
                    "mongo.app.s",
                    "ttl.source.topic.prefix",
                    "mongo"),
            URI,
            true);

    @Test
    void shouldRenderOnlySourceOptionsTheConnectorOrConnectDefines() {
        Set<String> defined = new HashSet<>(new MongoSourceConnector().config().names());
        defined.addAll(SourceConnectorConfig.configDef().names());
        defined.add("transforms.documentIdKey.type");
        new DocumentIdKey<>().config().names().forEach(name -> defined.add("transforms.documentIdKey." + name));

        for (ConnectorDefinition source : CONNECTORS.sources()) {
            assertThat(undefined(source.config(), defined)).as(source.name()).isEmpty();
        }
    }

    @Test
    void shouldKeySourceRecordsThroughTheDocumentIdKeyTransformationNamedByItsClass() {
        for (ConnectorDefinition source : CONNECTORS.sources()) {
            assertThat(source.config())
                    .as(source.name())
                    .containsEntry("transforms", "documentIdKey")
                    .containsEntry("transforms.documentIdKey.type", DocumentIdKey.class.getName())
                    .containsEntry("output.format.key", "json")
                    .containsEntry("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        }
    }

    @Test
    void shouldRenderOnlySinkOptionsTheConnectorOrConnectDefines() {
        Set<String> defined = new HashSet<>(new MongoSinkConnector().config().names());
        defined.addAll(SinkConnectorConfig.configDef().names());
        // A transformation's options live under transforms.<alias>., next to Connect's own "type".
        defined.add("transforms.guard.type");
        new DeleteCommandGuard<>().config().names().forEach(name -> defined.add("transforms.guard." + name));

        assertThat(undefined(CONNECTORS.sink().config(), defined)).isEmpty();
    }

    @Test
    void shouldNameTheGuardByItsClassAndGiveItEveryOptionItRequires() {
        Map<String, String> sink = CONNECTORS.sink().config();

        assertThat(sink)
                .containsEntry("transforms", "guard")
                .containsEntry("transforms.guard.type", DeleteCommandGuard.class.getName())
                .containsEntry("header.converter", ByteArrayConverter.class.getName());
        Map<String, Object> guardSettings = new HashMap<>();
        sink.forEach((key, value) -> {
            if (key.startsWith("transforms.guard.") && !key.equals("transforms.guard.type")) {
                guardSettings.put(key.substring("transforms.guard.".length()), value);
            }
        });
        // The rendered key is a provider reference, which the worker resolves before the guard sees it.
        guardSettings.put("signing.key", "a-resolved-secret-of-at-least-32-bytes");
        assertThat(new SinkGuardConfig(guardSettings).allowedNamespaces())
                .extracting(Object::toString)
                .containsExactly("app.s", "other.*");
    }

    @Test
    void shouldTakeTheSinkSpecificOptionsFromTheConnectorItself() {
        // Guards the test above against passing only because Connect defines a key of the same name.
        Set<String> connector = new MongoSinkConnector().config().names();
        assertThat(connector)
                .contains(
                        "document.id.strategy",
                        "document.id.strategy.overwrite.existing",
                        "writemodel.strategy",
                        "namespace.mapper",
                        "namespace.mapper.value.database.field",
                        "namespace.mapper.value.collection.field",
                        "namespace.mapper.error.if.invalid",
                        "database",
                        "collection",
                        "errors.tolerance",
                        "mongo.errors.tolerance",
                        "bulk.write.ordered",
                        "errors.log.enable");
        assertThat(new MongoSourceConnector().config().names())
                .contains(
                        "pipeline",
                        "change.stream.full.document",
                        "publish.full.document.only",
                        "change.stream.document.key.as.key",
                        "output.json.formatter",
                        "heartbeat.interval.ms",
                        "heartbeat.topic.name",
                        "startup.mode",
                        "startup.mode.copy.existing.namespace.regex",
                        "mongo.errors.tolerance",
                        "topic.prefix");
        assertThat(SinkConnectorConfig.configDef().names())
                .contains("errors.deadletterqueue.topic.name", "errors.deadletterqueue.context.headers.enable");
    }

    /** Keys neither defined nor a client override whose remainder is a consumer or producer option. */
    private static Set<String> undefined(Map<String, String> config, Set<String> defined) {
        Set<String> undefined = new HashSet<>();
        for (String key : config.keySet()) {
            String prefix = ConnectorConfig.CONNECTOR_CLIENT_CONSUMER_OVERRIDES_PREFIX;
            boolean consumerOverride =
                    key.startsWith(prefix) && ConsumerConfig.configNames().contains(key.substring(prefix.length()));
            String producerPrefix = ConnectorConfig.CONNECTOR_CLIENT_PRODUCER_OVERRIDES_PREFIX;
            boolean producerOverride = key.startsWith(producerPrefix)
                    && ProducerConfig.configNames().contains(key.substring(producerPrefix.length()));
            if (!defined.contains(key) && !consumerOverride && !producerOverride) {
                undefined.add(key);
            }
        }
        return undefined;
    }
}
