package io.ttlstreams.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.ttlstreams.config.ConfigLayers;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.RepositoryFiles;
import io.ttlstreams.platform.AclPlan;
import io.ttlstreams.platform.ExamplePlatform;
import io.ttlstreams.platform.Platform;
import io.ttlstreams.platform.StrimziResources;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/strimzi is what {@code platform --format strimzi} renders for the example configuration, and the processor
 * it patches into deploy/kubernetes runs the example's rules on the topics it declares, as the users it declares.
 */
class StrimziExampleTest {

    private static final Path DIR = RepositoryFiles.root().resolve("deploy/strimzi");
    private static final YAMLMapper YAML = new YAMLMapper();

    @Test
    void shouldEqualTheRenderedResourcesWhenTheExampleRulesChange() throws Exception {
        assertThat(Files.readString(DIR.resolve("platform.yaml")))
                .as(
                        "deploy/strimzi/platform.yaml is stale: regenerate with ./ttl-streams platform --config"
                                + " connect-config/example-processor.properties --format strimzi > deploy/strimzi/platform.yaml")
                .isEqualTo(StrimziResources.render(ExamplePlatform.example()));
    }

    @Test
    void shouldRunTheExampleRulesOnTheDeclaredTopicsWhenPatchedIntoTheKubernetesProcessor(@TempDir Path temp)
            throws Exception {
        JsonNode configMap = YAML.readTree(RepositoryFiles.root()
                .resolve("deploy/kubernetes/configmap.yaml")
                .toFile());
        Path properties = Files.writeString(
                temp.resolve("processor.properties"),
                configMap.path("data").path("processor.properties").asText());
        Map<String, String> environment = new HashMap<>();
        JsonNode container = YAML.readTree(DIR.resolve("processor-patch.yaml").toFile())
                .path("spec")
                .path("template")
                .path("spec")
                .path("containers")
                .get(0);
        for (JsonNode variable : container.path("env")) {
            if (variable.has("value")) {
                environment.put(
                        variable.path("name").asText(), variable.path("value").asText());
            }
        }
        environment.put("TTL_STREAMS_TTL_COMMAND_SIGNING_KEY", "k".repeat(64));
        TtlStreamsConfig processor = ConfigLayers.load(properties, environment, List.of());
        TtlStreamsConfig example = ConfigLayers.load(ExamplePlatform.EXAMPLE, Map.of(), List.of());

        assertThat(processor.sourceTopics()).isEqualTo(example.sourceTopics());
        assertThat(processor.rules().rules()).isEqualTo(example.rules().rules());
        assertThat(List.of(processor.deleteTopic(), processor.controlTopic(), processor.dlqTopic()))
                .isEqualTo(List.of(example.deleteTopic(), example.controlTopic(), example.dlqTopic()));
        assertThat(processor.connectUrl()).isEmpty();
        assertThat(processor.getBoolean("ttl.topics.create")).isFalse();
        assertThat(Platform.applicationId(processor)).isEqualTo(Platform.applicationId(example));
        assertThat(processor.streamsProperties().getProperty("security.protocol"))
                .isEqualTo("SASL_SSL");
        assertThat(container.path("env").findValuesAsText("name")).contains("TTL_STREAMS_SASL_JAAS_CONFIG");
        assertThat(container.path("env").toString()).contains("\"name\":\"" + AclPlan.PROCESSOR_USER + "\"");
    }
}
