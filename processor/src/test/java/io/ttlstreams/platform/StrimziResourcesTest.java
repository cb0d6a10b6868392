package io.ttlstreams.platform;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.ttlstreams.connect.ConnectorDefinition;
import io.ttlstreams.connect.RepositoryFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The Strimzi resources validate against Strimzi's own v1 CRD schemas (../shared/schemas/strimzi, beside the
 * repository, or {@code STRIMZI_SCHEMAS}; the test skips, saying so, where that folder is absent), strictly: a field the schema does not know
 * fails, as Kubernetes would silently prune it.
 */
class StrimziResourcesTest {

    /** Beside the repository, as CI lays it out; {@code STRIMZI_SCHEMAS=DIR} points elsewhere (a git worktree). */
    private static final Path SCHEMAS = Path.of(Optional.ofNullable(System.getenv("STRIMZI_SCHEMAS"))
                    .orElse(RepositoryFiles.root()
                            .resolve("../shared/schemas/strimzi")
                            .toString()))
            .normalize();

    private static final Map<String, String> CRD_FILES = Map.of(
            "KafkaConnect", "041-Crd-kafkaconnect.yaml",
            "KafkaTopic", "043-Crd-kafkatopic.yaml",
            "KafkaUser", "044-Crd-kafkauser.yaml",
            "KafkaConnector", "047-Crd-kafkaconnector.yaml");
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The rendered YAML stream, read back as documents. */
    static List<JsonNode> documents(String yaml) throws IOException {
        List<JsonNode> documents = new ArrayList<>();
        try (var parser = new YAMLFactory().createParser(yaml)) {
            Iterator<JsonNode> values = YAML.readValues(parser, JsonNode.class);
            values.forEachRemaining(documents::add);
        }
        return documents;
    }

    @Test
    void shouldValidateEveryResourceAgainstTheStrimziSchemasWhenRenderedFromTheExample() throws IOException {
        Assumptions.assumeTrue(
                Files.isDirectory(SCHEMAS),
                "Strimzi's CRD schemas are not at " + SCHEMAS + ": the rendered resources are not validated");
        Map<String, Schema> schemas = new HashMap<>();
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4);
        for (Map.Entry<String, String> crd : CRD_FILES.entrySet()) {
            JsonNode definition = YAML.readTree(SCHEMAS.resolve(crd.getValue()).toFile());
            JsonNode schema = null;
            for (JsonNode version : definition.path("spec").path("versions")) {
                if (version.path("name").asText().equals("v1")) {
                    schema = version.path("schema").path("openAPIV3Schema");
                }
            }
            assertThat(schema).as("v1 schema of %s", crd.getKey()).isNotNull();
            schemas.put(
                    crd.getKey(),
                    registry.getSchema(JSON.writeValueAsString(strict(schema.deepCopy())), InputFormat.JSON));
        }

        List<JsonNode> documents = documents(StrimziResources.render(ExamplePlatform.example()));

        assertThat(documents)
                .extracting(document -> document.path("kind").asText())
                .contains("KafkaTopic", "KafkaUser", "KafkaConnect", "KafkaConnector");
        for (JsonNode document : documents) {
            String kind = document.path("kind").asText();
            assertThat(document.path("apiVersion").asText()).isEqualTo("kafka.strimzi.io/v1");
            assertThat(schemas).containsKey(kind);
            assertThat(schemas.get(kind).validate(JSON.writeValueAsString(document), InputFormat.JSON))
                    .as("%s %s", kind, document.path("metadata").path("name").asText())
                    .isEmpty();
        }
    }

    @Test
    void shouldRefuseAFieldTheSchemaDoesNotKnowWhenValidatedStrictly() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(SCHEMAS), "Strimzi's CRD schemas are not at " + SCHEMAS);
        JsonNode schema = YAML.readTree(
                        SCHEMAS.resolve(CRD_FILES.get("KafkaTopic")).toFile())
                .path("spec")
                .path("versions")
                .get(0)
                .path("schema")
                .path("openAPIV3Schema");
        Schema topic = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4)
                .getSchema(JSON.writeValueAsString(strict(schema.deepCopy())), InputFormat.JSON);

        assertThat(topic.validate(
                        "{\"apiVersion\":\"kafka.strimzi.io/v1\",\"kind\":\"KafkaTopic\",\"metadata\":{},"
                                + "\"spec\":{\"partition\":3}}",
                        InputFormat.JSON))
                .isNotEmpty();
    }

    @Test
    void shouldCarryEachConnectorsConfigurationAsStringsWhenWrittenAsAKafkaConnector() throws IOException {
        Platform platform = ExamplePlatform.example();
        Map<String, JsonNode> connectors = new HashMap<>();
        for (JsonNode document : documents(StrimziResources.render(platform))) {
            if (document.path("kind").asText().equals("KafkaConnector")) {
                connectors.put(document.path("metadata").path("name").asText(), document.path("spec"));
            }
        }
        List<ConnectorDefinition> expected =
                new ArrayList<>(platform.connectors().sources());
        expected.add(platform.connectors().sink());

        assertThat(connectors.keySet())
                .containsExactlyInAnyOrderElementsOf(
                        expected.stream().map(ConnectorDefinition::name).toList());
        for (ConnectorDefinition connector : expected) {
            JsonNode spec = connectors.get(connector.name());
            assertThat(spec.path("class").asText()).isEqualTo(connector.config().get("connector.class"));
            connector.config().forEach((key, value) -> {
                if (!key.equals("connector.class") && !value.startsWith("${file:")) {
                    assertThat(spec.path("config").path(key).isTextual())
                            .as(key)
                            .isTrue();
                    assertThat(spec.path("config").path(key).asText()).as(key).isEqualTo(value);
                }
            });
        }
        assertThat(connectors
                        .get("mongo-ttl-sink")
                        .path("config")
                        .path("transforms.guard.signing.key")
                        .asText())
                .isEqualTo("${file:/mnt/ttl-secrets/ttl-signing.properties:key}");
    }

    @Test
    void shouldNameTopicsKubernetesCanStoreWhenTheirNamesHaveUnderscores() {
        assertThat(StrimziResources.resourceName("ttl.deletes")).isEqualTo("ttl.deletes");
        String heartbeat = StrimziResources.resourceName("__mongodb_heartbeats.app");
        assertThat(heartbeat).matches("mongodb-heartbeats\\.app-[0-9a-f]{8}");
        assertThat(StrimziResources.resourceName("__mongodb-heartbeats.app")).isNotEqualTo(heartbeat);
    }

    @Test
    void shouldPinTheChecksumOfTheBuildsMongoConnectorWhenItsVersionMoves() throws Exception {
        Properties build = new Properties();
        try (InputStream in = getClass().getResourceAsStream("/io/ttlstreams/app/build.properties")) {
            build.load(in);
        }
        assertThat(build.getProperty("mongo-kafka-connect.version"))
                .as("the build's connector version moved: update StrimziResources.MONGO_CONNECTOR_VERSION and its"
                        + " SHA-512 (of mongo-kafka-connect-<version>-all.jar)")
                .isEqualTo(StrimziResources.MONGO_CONNECTOR_VERSION);
        Path jar = Path.of(
                System.getProperty("user.home"),
                ".m2/repository/org/mongodb/kafka/mongo-kafka-connect",
                StrimziResources.MONGO_CONNECTOR_VERSION,
                "mongo-kafka-connect-" + StrimziResources.MONGO_CONNECTOR_VERSION + "-all.jar");
        Assumptions.assumeTrue(Files.isRegularFile(jar), jar + " is not downloaded: its checksum is not compared");
        assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-512").digest(Files.readAllBytes(jar))))
                .isEqualTo(StrimziResources.MONGO_CONNECTOR_SHA512);
    }

    /**
     * Forbids, in every object schema reached through {@code properties} and {@code items} that lists its properties,
     * the properties it does not list (unless it preserves unknown fields), so that a misspelt field fails instead of
     * being pruned. The branches of {@code oneOf} and the like only add constraints to their parent, so stay open.
     */
    private static JsonNode strict(JsonNode schema) {
        if (schema instanceof ObjectNode object) {
            if (object.has("properties")
                    && !object.has("additionalProperties")
                    && !object.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
                object.put("additionalProperties", false);
            }
            object.path("properties").elements().forEachRemaining(StrimziResourcesTest::strict);
            strict(object.path("items"));
        }
        return schema;
    }
}
