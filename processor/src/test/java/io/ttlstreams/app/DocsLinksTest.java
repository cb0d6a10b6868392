package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.connect.RepositoryFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The user and contributor pages link to files that exist and to headings those pages have, and the README, the
 * newcomer's first page, links to every page under docs/.
 */
class DocsLinksTest {

    private static final Path ROOT = RepositoryFiles.root();
    /** A Markdown link or image: the target up to the closing parenthesis, without a title. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    @Test
    void shouldPointEveryRelativeLinkAtAnExistingFileAndHeadingWhenThePagesAreRead() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            for (String target : links(page)) {
                if (target.matches("^(https?|mailto):.*")) {
                    continue;
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved =
                        file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
                } else if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).as("broken relative links").isEmpty();
    }

    @Test
    void shouldLinkEveryDocsPageWhenTheReadmeIsRead() throws IOException {
        Set<String> linked = new HashSet<>();
        Path readme = ROOT.resolve("README.md");
        for (String target : links(readme)) {
            linked.add(readme.getParent()
                    .resolve(target.replaceFirst("#.*", ""))
                    .normalize()
                    .toString());
        }
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            assertThat(docs.filter(path -> path.toString().endsWith(".md")).map(Path::toString))
                    .isNotEmpty()
                    .allSatisfy(page ->
                            assertThat(linked).as("README links to " + page).contains(page));
        }
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(
                ROOT.resolve("README.md"),
                ROOT.resolve("CONTRIBUTING.md"),
                ROOT.resolve("bench/README.md"),
                ROOT.resolve("connect-config/README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The link targets of a page, outside fenced code blocks. */
    private static List<String> links(Path page) throws IOException {
        List<String> targets = new ArrayList<>();
        for (String line : prose(page)) {
            Matcher link = LINK.matcher(line);
            while (link.find()) {
                targets.add(link.group(1));
            }
        }
        return targets;
    }

    /** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new HashSet<>();
        if (!page.toString().endsWith(".md")) {
            return anchors;
        }
        for (String line : prose(page)) {
            if (line.matches("^#{1,6} .*")) {
                anchors.add(line.replaceFirst("^#+ ", "")
                        .toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "")
                        .replace(' ', '-'));
            }
        }
        return anchors;
    }

    private static List<String> prose(Path page) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced) {
                lines.add(line);
            }
        }
        return lines;
    }
}
