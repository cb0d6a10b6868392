package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README a short first page that states the test command CI runs. (The configuration reference in
 * docs/configuration.md is module embedded's to check, where its options join the processor's.)
 */
class ReadmeTest {

    /** A newcomer's first page; user guides belong in docs/. */
    private static final int README_MAX_LINES = 250;

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

    @Test
    void shouldLinkTheOperatorGuidesFromTheFirstScreenWhenTheyExist() throws IOException {
        List<String> firstScreen =
                Files.readAllLines(Path.of("..", "README.md")).subList(0, 45);
        String guides = Files.readString(Path.of("..", "docs", "guides.md"));

        assertThat(String.join("\n", firstScreen)).contains("(docs/guides.md)");
        // Which guides there are is the guides page's to say (DocsLinksTest checks every link into it).
        assertThat(guides).as("docs/guides.md has its guides").contains("\n## ");
    }
}
