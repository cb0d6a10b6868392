package io.ttlstreams.embedded.app;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.connect.ConnectorDefinition;
import io.ttlstreams.embedded.EmbeddedConnect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.mongodb.MongoDBContainer;

/**
 * The scenarios against a real MongoDB replica set and a real Kafka broker in containers, with the
 * production connector configs that {@code ttl-streams connect-config} renders (no stand-in
 * workaround anywhere), in a Kafka Connect worker. Skipped, with a message, where no Docker engine
 * runs.
 */
@Testcontainers(disabledWithoutDocker = true)
class RealMongoPipelineIT extends PipelineScenarios {

    private static final String GUARD_SIGNING_KEY = "transforms.guard.signing.key";

    @Container
    static final MongoDBContainer MONGO = new MongoDBContainer("mongo:7.0");

    @Container
    static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:4.1.1");

    @TempDir
    static Path dataDir;

    private EmbeddedConnect connect;
    private TtlStreamsConfig config;
    private TtlStreamsApp processor;
    private MongoClient client;

    @Override
    protected void startPipeline() throws Exception {
        Map<String, String> settings = new HashMap<>(RULES);
        settings.put("bootstrap.servers", KAFKA.getBootstrapServers());
        settings.put("state.dir", dataDir.resolve("streams").toString());
        settings.put("ttl.http.port", "0");
        settings.put("ttl.http.bind.address", "127.0.0.1");
        // The processor signs with this key and the rendered sink's guard verifies with it; the rendered default,
        // a config provider reference to a secret file, needs a worker with a FileConfigProvider and the file.
        String signingKey = "real-mongo-pipeline-signing-key-" + UUID.randomUUID();
        settings.put(OperationsOptions.COMMAND_SIGNING_KEY_CONFIG, signingKey);
        config = new TtlStreamsConfig(settings);
        connect = EmbeddedConnect.start(KAFKA.getBootstrapServers(), dataDir.resolve("connect"), 0);
        Map<String, Map<String, String>> connectors = new LinkedHashMap<>();
        for (ConnectorDefinition connector : ConnectorConfigs.render(config, MONGO.getReplicaSetUrl(), false)
                .files()
                .values()) {
            Map<String, String> connectorConfig = new LinkedHashMap<>(connector.config());
            connectorConfig.computeIfPresent(GUARD_SIGNING_KEY, (key, reference) -> signingKey);
            connectors.put(connector.name(), connectorConfig);
        }
        connect.createConnectors(connectors, Duration.ofMinutes(1));
        client = MongoClients.create(MONGO.getReplicaSetUrl());
        startProcessor();
    }

    @Override
    protected void stopPipeline() {
        stopProcessor();
        if (client != null) {
            client.close();
        }
        if (connect != null) {
            connect.close();
        }
    }

    @Override
    protected MongoClient mongo() {
        return client;
    }

    @Override
    protected String bootstrapServers() {
        return KAFKA.getBootstrapServers();
    }

    @Override
    protected TtlStreamsConfig processorConfig() {
        return config;
    }

    @Override
    protected TtlStreamsApp processor() {
        return processor;
    }

    @Override
    protected void stopProcessor() {
        if (processor != null) {
            processor.close();
            processor = null;
        }
    }

    @Override
    protected void startProcessor() throws InterruptedException {
        processor = new TtlStreamsApp(config, java.util.Optional.empty()).start();
        processor.awaitRunning(Duration.ofMinutes(1));
    }
}
