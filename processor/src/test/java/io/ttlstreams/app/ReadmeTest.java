package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TtlStreamsConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Keeps the README's configuration reference equal to what the ConfigDef generates. */
class ReadmeTest {

    private static final String START = "<!-- config-reference:start -->\n";
    private static final String END = "<!-- config-reference:end -->";

    @Test
    void shouldCarryTheGeneratedConfigurationReference() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        int start = readme.indexOf(START);
        int end = readme.indexOf(END);
        assertThat(start).as("README has the reference markers").isNotNegative();
        assertThat(readme.substring(start + START.length(), end))
                .as("README is stale: paste the output of ./ttl-streams config-docs between the markers")
                .isEqualTo(TtlStreamsConfig.configReferenceMarkdown());
    }
}
