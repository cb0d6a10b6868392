package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.kafka.connect.MongoSinkConnector;
import com.mongodb.kafka.connect.MongoSourceConnector;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.NamespacePattern;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/** The connector configurations as the 2.0.1 connectors themselves validate them, against a live stand-in. */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class DeleteSinkConfigsTest {

    private static final String SECRET = "a-signing-secret-of-at-least-32-bytes";

    private static Map<String, String> forTopic(String connectionString) {
        return DeleteSinkConfigs.forTopic(
                "ttl.deletes",
                "ttl.sink.dlq",
                connectionString,
                List.of(NamespacePattern.parse("app.sessions"), NamespacePattern.parse("audit.*")),
                SECRET);
    }

    @Test
    void shouldBeAcceptedByTheSinkConnectorAndApplyDeleteCommandsAsTheContractSays() {
        Map<String, String> config = forTopic("mongodb://h:1");

        assertThat(config)
                .containsEntry("topics", "ttl.deletes")
                .containsEntry(
                        "writemodel.strategy",
                        "com.mongodb.kafka.connect.sink.writemodel.strategy.DeleteOneBusinessKeyStrategy")
                .containsEntry(
                        "document.id.strategy",
                        "com.mongodb.kafka.connect.sink.processor.id.strategy.ProvidedInValueStrategy")
                .containsEntry("namespace.mapper.value.database.field", "ns.db")
                .containsEntry("namespace.mapper.value.collection.field", "ns.coll")
                .containsEntry("consumer.override.isolation.level", "read_committed")
                .containsEntry("errors.deadletterqueue.topic.name", "ttl.sink.dlq")
                .containsEntry("errors.deadletterqueue.topic.replication.factor", "1")
                .containsEntry("transforms.guard.type", "io.ttlstreams.guard.DeleteCommandGuard")
                .containsEntry("transforms.guard.allowed.namespaces", "app.sessions,audit.*")
                .containsEntry("transforms.guard.signing.key", SECRET);
        try (EmbeddedMongo mongo = EmbeddedMongo.start(0)) {
            assertThat(errors(new MongoSinkConnector()
                            .validate(forTopic(mongo.connectionString()))
                            .configValues()))
                    .isEmpty();
        }
    }

    @Test
    void shouldHaveStandInSourceConfigsTheSourceConnectorAccepts() {
        try (EmbeddedMongo mongo = EmbeddedMongo.start(0)) {
            assertThat(errors(new MongoSourceConnector()
                            .validate(StandInSourceConfigs.forNamespace(
                                    Namespace.parse("app.sessions"), mongo.connectionString()))
                            .configValues()))
                    .isEmpty();
        }
    }

    private static java.util.List<String> errors(java.util.List<ConfigValue> values) {
        return values.stream()
                .filter(v -> !v.errorMessages().isEmpty())
                .map(v -> v.name() + ": " + v.errorMessages())
                .toList();
    }
}
