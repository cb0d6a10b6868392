package io.ttlstreams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.RepositoryFiles;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/topology.md's description of the topology equal to what {@link TtlTopology} builds for the bundled
 * configuration of {@code run} and {@code demo}, so that the page cannot drift from the code.
 */
class TopologyDescriptionTest {

    private static final Path ROOT = RepositoryFiles.root();
    private static final Path BUNDLED = ROOT.resolve(io.ttlstreams.app.BundledConfig.PATH);
    private static final Path PAGE = ROOT.resolve("docs/topology.md");
    private static final String START = "<!-- topology-description:start -->\n```\n";
    private static final String END = "```\n<!-- topology-description:end -->";

    @Test
    void shouldShowTheTopologyOfTheBundledConfigurationWhenTheDocsDescribeIt() throws IOException {
        String generated =
                TtlTopology.build(bundledConfig()).describe().toString().strip() + "\n";
        String page = Files.readString(PAGE);
        int start = page.indexOf(START);
        int end = page.indexOf(END);
        assertThat(start).as("docs/topology.md has the description markers").isNotNegative();
        assertThat(end)
                .as("docs/topology.md has the end marker after the start")
                .isGreaterThan(start);

        String documented = page.substring(start + START.length(), end);
        if (!documented.equals(generated)) {
            // The page is stale: leave the fresh description where the assertion message points.
            Files.writeString(Path.of("target", "topology-description.txt"), generated);
        }
        assertThat(documented)
                .as("docs/topology.md is stale: paste processor/target/topology-description.txt between the markers")
                .isEqualTo(generated);
    }

    @Test
    void shouldDrawEveryProcessorAndStoreInTtlTopologysDiagramWhenTheTopologyHasThem() throws IOException {
        String source =
                Files.readString(ROOT.resolve("processor/src/main/java/io/ttlstreams/topology/TtlTopology.java"));
        String diagram = source.substring(source.indexOf("<pre>"), source.indexOf("</pre>"));
        Set<String> drawnStores = new TreeSet<>();
        Matcher stores =
                Pattern.compile("\\(stores: ([^)]*)\\)", Pattern.DOTALL).matcher(diagram);
        assertThat(stores.find()).as("the diagram lists the scheduler's stores").isTrue();
        Matcher names = Pattern.compile("[a-z][a-z-]*").matcher(stores.group(1));
        while (names.find()) {
            drawnStores.add(names.group());
        }
        Set<String> builtStores = new TreeSet<>();
        for (TopologyDescription.Subtopology subtopology :
                TtlTopology.build(bundledConfig()).describe().subtopologies()) {
            for (TopologyDescription.Node node : subtopology.nodes()) {
                if (node instanceof TopologyDescription.Processor processor) {
                    assertThat(diagram)
                            .as("the diagram draws processor %s", node.name())
                            .contains(node.name());
                    builtStores.addAll(processor.stores());
                }
            }
        }
        assertThat(drawnStores).as("the stores the diagram lists").isEqualTo(builtStores);
    }

    private static TtlStreamsConfig bundledConfig() throws IOException {
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(BUNDLED)) {
            props.load(in);
        }
        return new TtlStreamsConfig(props);
    }
}
