package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TtlStreamsConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps the configuration reference in docs/configuration.md equal to what the ConfigDef generates, and the README a
 * short first page that states the test command CI runs.
 */
class ReadmeTest {

    private static final String START = "<!-- config-reference:start -->\n";
    private static final String END = "<!-- config-reference:end -->";
    /** A newcomer's first page; user guides belong in docs/. */
    private static final int README_MAX_LINES = 250;

    @Test
    void shouldCarryTheGeneratedConfigurationReference() throws IOException {
        String page = Files.readString(Path.of("..", "docs", "configuration.md"));
        int start = page.indexOf(START);
        int end = page.indexOf(END);
        assertThat(start).as("docs/configuration.md has the reference markers").isNotNegative();
        assertThat(page.substring(start + START.length(), end))
                .as("docs/configuration.md is stale: paste the output of ./ttl-streams config-docs between the markers")
                .isEqualTo(TtlStreamsConfig.configReferenceMarkdown());
    }

    @Test
    void shouldStayAShortFirstPageWhenTheGuidesLiveInDocs() throws IOException {
        List<String> readme = Files.readAllLines(Path.of("..", "README.md"));
        assertThat(readme.size())
                .as("README.md has %d lines: move user guides to docs/ and link them", readme.size())
                .isLessThanOrEqualTo(README_MAX_LINES);
    }

    @Test
    void shouldStateTheTestCommandWhenCiRunsIt() throws IOException {
        String ci = Files.readString(Path.of("..", ".ci", "run"));
        String readme = Files.readString(Path.of("..", "README.md"));
        assertThat(ci).as(".ci/run runs the README's test command").contains("\nmvn -B verify\n");
        assertThat(readme).contains("mvn -B verify");
    }
}
