package io.ttlstreams.platform;

import io.ttlstreams.config.ConfigLayers;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.connect.RepositoryFiles;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The deployment of connect-config/example-processor.properties, with the platform command's defaults. */
public final class ExamplePlatform {

    public static final Path EXAMPLE = RepositoryFiles.root().resolve("connect-config/example-processor.properties");

    static final PlatformSettings SETTINGS = new PlatformSettings(
            6,
            3,
            "my-cluster",
            "ttl-connect",
            "registry.example.com/ttl-streams/connect:latest",
            "https://artifacts.example.com/ttl-streams/ttl-streams-sink-guard-plugin.zip",
            Optional.empty());

    private ExamplePlatform() {}

    public static Platform example() {
        return Platform.of(
                ConfigLayers.load(EXAMPLE, Map.of(), List.of()), SETTINGS, ConnectorConfigs.DEFAULT_MONGODB_URI);
    }

    static Platform of(Map<String, Object> props) {
        return Platform.of(new TtlStreamsConfig(props), SETTINGS, ConnectorConfigs.DEFAULT_MONGODB_URI);
    }
}
