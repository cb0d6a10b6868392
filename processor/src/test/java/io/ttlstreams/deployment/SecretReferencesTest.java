package io.ttlstreams.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.ttlstreams.connect.RepositoryFiles;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every secret that deploy/strimzi refers to has the shape the reference needs: a connector's {@code
 * ${file:<dir>/<file>:<key>}} finds, at {@code <dir>}, a mounted Secret with an entry {@code <file>} whose properties
 * hold {@code <key>}; a {@code ${directory:<dir>:<key>}} finds a mounted Secret with an entry {@code <key>}; the
 * processor's {@code secretKeyRef}s and mounted files name entries their Secrets have. The Secrets are those of
 * secrets.example.yaml, or those Strimzi writes (a KafkaUser's, the cluster CA's), whose entries Strimzi documents.
 */
class SecretReferencesTest {

    private static final Path STRIMZI = RepositoryFiles.root().resolve("deploy/strimzi");
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Pattern FILE_REFERENCE = Pattern.compile("\\$\\{file:([^:}]+)/([^/:}]+):([^}]+)}");
    private static final Pattern DIRECTORY_REFERENCE = Pattern.compile("\\$\\{directory:([^:}]+):([^}]+)}");
    /** The entries of a SCRAM-SHA-512 KafkaUser's Secret, as Strimzi's User Operator writes it. */
    private static final Set<String> SCRAM_USER_ENTRIES = Set.of("password", "sasl.jaas.config");
    /** The entries of a cluster's {@code <cluster>-cluster-ca-cert} Secret, as Strimzi writes it. */
    private static final Set<String> CLUSTER_CA_ENTRIES = Set.of("ca.crt", "ca.p12", "ca.password");

    /** Each Secret a reference may name: its name and what its entries hold (null where Strimzi writes them). */
    private static final Map<String, Map<String, String>> secrets = new LinkedHashMap<>();

    private static JsonNode connect;
    private static final List<JsonNode> connectors = new ArrayList<>();

    @BeforeAll
    static void read() throws IOException {
        for (JsonNode secret : documents(STRIMZI.resolve("secrets.example.yaml"))) {
            assertThat(secret.path("kind").asText()).isEqualTo("Secret");
            Map<String, String> entries = new HashMap<>();
            secret.path("stringData")
                    .fields()
                    .forEachRemaining(entry ->
                            entries.put(entry.getKey(), entry.getValue().asText()));
            secrets.put(secret.path("metadata").path("name").asText(), entries);
        }
        for (JsonNode resource : documents(STRIMZI.resolve("platform.yaml"))) {
            switch (resource.path("kind").asText()) {
                case "KafkaUser" -> {
                    assertThat(resource.path("spec")
                                    .path("authentication")
                                    .path("type")
                                    .asText())
                            .isEqualTo("scram-sha-512");
                    Map<String, String> entries = new HashMap<>();
                    SCRAM_USER_ENTRIES.forEach(entry -> entries.put(entry, null));
                    secrets.put(resource.path("metadata").path("name").asText(), entries);
                }
                case "KafkaConnect" -> connect = resource;
                case "KafkaConnector" -> connectors.add(resource);
                default -> {}
            }
        }
    }

    private static List<JsonNode> documents(Path file) throws IOException {
        try (MappingIterator<JsonNode> all = YAML.readValues(YAML.createParser(file.toFile()), JsonNode.class)) {
            return all.readAll().stream().filter(node -> !node.isNull()).toList();
        }
    }

    /** The entries of the Secret mounted at {@code directory} by a pod's volumes and a container's mounts. */
    private static Map<String, String> mountedAt(String directory, JsonNode volumes, JsonNode mounts) {
        String volume = null;
        for (JsonNode mount : mounts) {
            if (mount.path("mountPath").asText().equals(directory)) {
                volume = mount.path("name").asText();
            }
        }
        assertThat(volume).as("a volume mounted at " + directory).isNotNull();
        for (JsonNode each : volumes) {
            if (each.path("name").asText().equals(volume)) {
                String secret = each.path("secret").path("secretName").asText();
                if (secret.endsWith("-cluster-ca-cert")) {
                    Map<String, String> entries = new HashMap<>();
                    CLUSTER_CA_ENTRIES.forEach(entry -> entries.put(entry, null));
                    return entries;
                }
                assertThat(secrets)
                        .as("Secret " + secret + " of volume " + volume)
                        .containsKey(secret);
                return secrets.get(secret);
            }
        }
        throw new AssertionError("no volume " + volume);
    }

    @Test
    void shouldFindEveryConnectorsSecretReferenceInTheSecretMountedWhereItPoints() throws IOException {
        JsonNode pod = connect.path("spec").path("template").path("pod");
        JsonNode mounts =
                connect.path("spec").path("template").path("connectContainer").path("volumeMounts");
        JsonNode workerConfig = connect.path("spec").path("config");
        assertThat(workerConfig.path("config.providers.file.class").asText())
                .isEqualTo("org.apache.kafka.common.config.provider.FileConfigProvider");
        assertThat(workerConfig.path("config.providers.directory.class").asText())
                .isEqualTo("org.apache.kafka.common.config.provider.DirectoryConfigProvider");

        int references = 0;
        for (JsonNode connector : connectors) {
            for (var field : (Iterable<Map.Entry<String, JsonNode>>)
                    () -> connector.path("spec").path("config").fields()) {
                String value = field.getValue().asText();
                String where = connector.path("metadata").path("name").asText() + " " + field.getKey();
                Matcher file = FILE_REFERENCE.matcher(value);
                while (file.find()) {
                    Map<String, String> secret = mountedAt(file.group(1), pod.path("volumes"), mounts);
                    assertThat(secret).as(where).containsKey(file.group(2));
                    Properties properties = new Properties();
                    properties.load(new StringReader(secret.get(file.group(2))));
                    assertThat(properties).as(where).containsKey(file.group(3));
                    references++;
                }
                Matcher directory = DIRECTORY_REFERENCE.matcher(value);
                while (directory.find()) {
                    assertThat(mountedAt(directory.group(1), pod.path("volumes"), mounts))
                            .as(where)
                            .containsKey(directory.group(2));
                    references++;
                }
            }
        }
        assertThat(references)
                .as("the example's connectors read their secrets by reference")
                .isGreaterThan(3);
    }

    @Test
    void shouldGiveTheProcessorAndTheSinkGuardTheSameSigningKeyFromSecretsOfTheRightShape() throws IOException {
        JsonNode patch = YAML.readTree(STRIMZI.resolve("processor-patch.yaml").toFile())
                .path("spec")
                .path("template")
                .path("spec");
        JsonNode base = YAML.readTree(RepositoryFiles.root()
                        .resolve("deploy/kubernetes/statefulset.yaml")
                        .toFile())
                .path("spec")
                .path("template")
                .path("spec");
        // The processor's environment once kustomize applied the patch: entries by name, "$patch: delete" removes.
        Map<String, JsonNode> env = new LinkedHashMap<>();
        base.path("containers")
                .get(0)
                .path("env")
                .forEach(each -> env.put(each.path("name").asText(), each));
        for (JsonNode each : patch.path("containers").get(0).path("env")) {
            if (each.path("$patch").asText().equals("delete")) {
                env.remove(each.path("name").asText());
            } else {
                env.put(each.path("name").asText(), each);
            }
        }
        for (JsonNode each : env.values()) {
            JsonNode reference = each.path("valueFrom").path("secretKeyRef");
            if (!reference.isMissingNode()) {
                String secret = reference.path("name").asText();
                assertThat(secrets).as(each.path("name").asText()).containsKey(secret);
                assertThat(secrets.get(secret))
                        .as(each.path("name").asText())
                        .containsKey(reference.path("key").asText());
            }
        }
        String truststore =
                env.get("TTL_STREAMS_SSL_TRUSTSTORE_LOCATION").path("value").asText();
        int slash = truststore.lastIndexOf('/');
        assertThat(mountedAt(
                        truststore.substring(0, slash),
                        patch.path("volumes"),
                        patch.path("containers").get(0).path("volumeMounts")))
                .containsKey(truststore.substring(slash + 1));

        // The sink guard verifies with the key the processor signs with: both Secrets carry the same one.
        JsonNode signing =
                env.get("TTL_STREAMS_TTL_COMMAND_SIGNING_KEY").path("valueFrom").path("secretKeyRef");
        String processorKey = secrets.get(signing.path("name").asText())
                .get(signing.path("key").asText());
        Properties guard = new Properties();
        guard.load(new StringReader(secrets.get("ttl-connect-secrets").get("ttl-signing.properties")));
        assertThat(guard.getProperty("key")).isEqualTo(processorKey);
    }
}
