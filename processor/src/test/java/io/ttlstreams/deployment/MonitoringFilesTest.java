package io.ttlstreams.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.ttlstreams.connect.RepositoryFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The dashboard and alert rules in deploy/monitoring parse, and the PrometheusRule carries the plain rules file's
 * groups. That each metric they name is exported is PlatformFilesIT's, against a running instance.
 */
class MonitoringFilesTest {

    private static final Path DIR = RepositoryFiles.root().resolve("deploy/monitoring");
    private static final YAMLMapper YAML = new YAMLMapper();

    @Test
    void shouldPassPromtoolWhenTheRulesFileIsChecked() throws Exception {
        Process probe;
        try {
            probe = new ProcessBuilder("promtool", "--version")
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException absent) {
            Assumptions.abort("promtool is not installed (Debian package prometheus): the rules are not checked");
            return;
        }
        probe.getInputStream().readAllBytes();
        assertThat(probe.waitFor(30, TimeUnit.SECONDS)).isTrue();

        Process check = new ProcessBuilder(
                        "promtool",
                        "check",
                        "rules",
                        DIR.resolve("ttl-streams-rules.yml").toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(check.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(check.exitValue()).as(output).isZero();
        assertThat(output).contains("SUCCESS: 8 rules found");
    }

    @Test
    void shouldCarryThePlainRulesWhenWrittenAsAPrometheusRule() throws Exception {
        JsonNode plain = YAML.readTree(DIR.resolve("ttl-streams-rules.yml").toFile());
        JsonNode resource = YAML.readTree(DIR.resolve("prometheus-rule.yaml").toFile());

        assertThat(resource.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(resource.path("kind").asText()).isEqualTo("PrometheusRule");
        assertThat(resource.path("spec").path("groups")).isEqualTo(plain.path("groups"));
    }

    @Test
    void shouldQueryPrometheusInEveryPanelWhenTheDashboardIsImported() throws Exception {
        JsonNode dashboard = new ObjectMapper()
                .readTree(DIR.resolve("grafana-dashboard.json").toFile());

        assertThat(dashboard.path("uid").asText()).isEqualTo("ttl-streams");
        assertThat(dashboard.path("panels")).hasSizeGreaterThanOrEqualTo(9);
        for (JsonNode panel : dashboard.path("panels")) {
            assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
            panel.path("targets")
                    .forEach(target -> assertThat(target.path("expr").asText())
                            .as(panel.path("title").asText())
                            .containsPattern("\\b(ttl|kafka_stream)_[a-z_]+"));
        }
        assertThat(Files.readString(RepositoryFiles.root().resolve("docs/operating.md")))
                .contains("deploy/monitoring/grafana-dashboard.json");
    }

    /**
     * docs/operating.md's import steps hold: the file asks for no input on import, and every panel and query reads
     * the data source its {@code datasource} variable picks, a Prometheus one.
     */
    @Test
    void shouldReadTheDataSourceOfItsVariableWhenImportedAsTheDocsSay() throws Exception {
        JsonNode dashboard = new ObjectMapper()
                .readTree(DIR.resolve("grafana-dashboard.json").toFile());

        assertThat(dashboard.has("__inputs")).as("an input no panel uses").isFalse();
        assertThat(dashboard.path("templating").path("list")).anySatisfy(variable -> {
            assertThat(variable.path("name").asText()).isEqualTo("datasource");
            assertThat(variable.path("type").asText()).isEqualTo("datasource");
            assertThat(variable.path("query").asText()).isEqualTo("prometheus");
        });
        for (JsonNode panel : dashboard.path("panels")) {
            List<JsonNode> sources = new ArrayList<>(List.of(panel.path("datasource")));
            panel.path("targets").forEach(target -> sources.add(target.path("datasource")));
            assertThat(sources).as(panel.path("title").asText()).allSatisfy(source -> {
                assertThat(source.path("type").asText()).isEqualTo("prometheus");
                assertThat(source.path("uid").asText()).isEqualTo("${datasource}");
            });
        }
        assertThat(Files.readString(RepositoryFiles.root().resolve("docs/operating.md")))
                .contains("**Dashboards**, **New**, **Import**", "`datasource` variable", "grafana_dashboard=1");
    }
}
