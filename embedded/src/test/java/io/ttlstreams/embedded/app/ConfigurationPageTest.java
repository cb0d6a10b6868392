package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.ConfigReference;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps the configuration reference in docs/configuration.md equal to what the ConfigDefs generate; here, where module
 * embedded's options join the processor's, as in the ttl-streams launcher.
 */
class ConfigurationPageTest {

    private static final String START = "<!-- config-reference:start -->\n";
    private static final String END = "<!-- config-reference:end -->";

    @Test
    void shouldCarryTheGeneratedConfigurationReference() throws IOException {
        String page = Files.readString(Path.of("..", "docs", "configuration.md"));
        int start = page.indexOf(START);
        int end = page.indexOf(END);
        assertThat(start).as("docs/configuration.md has the reference markers").isNotNegative();
        assertThat(page.substring(start + START.length(), end))
                .as("docs/configuration.md is stale: paste the output of ./ttl-streams config-docs between the markers")
                .isEqualTo(ConfigReference.everyOption());
    }
}
