package io.ttlstreams.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.ConfigLayers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The committed connect-config/*.json files are exactly what the renderer produces for the committed example
 * configuration, so that they never drift from the code; and the README explains every key they set.
 */
class ExampleConnectConfigTest {

    private static final Path DIR = RepositoryFiles.root().resolve("connect-config");

    private static ConnectorConfigs example() {
        return ConnectorConfigs.render(
                ConfigLayers.load(DIR.resolve("example-processor.properties"), Map.of(), List.of()),
                ConnectorConfigs.DEFAULT_MONGODB_URI,
                false);
    }

    @Test
    void shouldMatchTheCommittedFiles() throws IOException {
        Map<String, ConnectorDefinition> files = example().files();

        assertThat(files.keySet()).containsExactly("mongo-source.json", "mongo-ttl-sink.json");
        for (Map.Entry<String, ConnectorDefinition> file : files.entrySet()) {
            assertThat(Files.readString(DIR.resolve(file.getKey())))
                    .as(
                            "%s is stale: regenerate with ./ttl-streams connect-config --config"
                                    + " connect-config/example-processor.properties --out connect-config",
                            file.getKey())
                    .isEqualTo(file.getValue().toJson());
        }
        try (Stream<Path> json = Files.list(DIR).filter(path -> path.toString().endsWith(".json"))) {
            assertThat(json.map(path -> path.getFileName().toString()))
                    .containsExactlyInAnyOrderElementsOf(files.keySet());
        }
    }

    @Test
    void shouldExplainEveryKeyInTheReadme() throws IOException {
        String readme = Files.readString(DIR.resolve("README.md"));
        ConnectorConfigs example = ConnectorConfigs.render(
                ConfigLayers.load(DIR.resolve("example-processor.properties"), Map.of(), List.of()), "x", true);

        Stream.concat(example.sources().stream(), Stream.of(example.sink()))
                .flatMap(connector -> connector.config().keySet().stream())
                .forEach(key -> assertThat(readme).as("README explains " + key).contains("`" + key + "`"));
        assertThat(readme).contains("connector.client.config.override.policy=All");
    }
}
