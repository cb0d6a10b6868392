package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.app.TtlStreamsCli;
import io.ttlstreams.config.OutputTopicOptions;
import io.ttlstreams.config.SourceOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.embedded.PrometheusText;
import io.ttlstreams.platform.KafkaCliScript;
import io.ttlstreams.platform.Platform;
import io.ttlstreams.platform.PlatformSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * The platform files against a running pipeline: the topics {@code platform --format kafka-cli} declares are the ones
 * the processor accepts with {@code ttl.topics.create=false}, a missing or too narrow control topic stops {@code run}
 * with exit code 2 naming it, and every metric the dashboard and the alert rules (deploy/monitoring/) name is one
 * {@code /metrics} exports.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class PlatformFilesIT {

    private static final int PARTITIONS = 2;

    /** The metric names in a PromQL expression: ours, and Kafka Streams' task-level ones. */
    private static final Pattern METRIC = Pattern.compile("\\b(?:ttl|kafka_stream)_[a-z0-9_]+\\b");

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(PipelineScenarios.RULES);

    private final OperationsHttp http = new OperationsHttp(PIPELINE::pipeline);

    private static Path repository() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("deploy/monitoring")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "No repository root above " + Path.of("").toAbsolutePath());
    }

    /** A processor of its own on the pipeline's broker, whose topics (prefix {@code name}) nobody created yet. */
    private Map<String, String> declaredProcessor(String name) {
        Map<String, String> props = PIPELINE.instanceSettings();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ttl-streams-" + name);
        props.put(SourceOptions.SOURCE_TOPICS_CONFIG, "");
        props.put(SourceOptions.SOURCE_TOPIC_PREFIX_CONFIG, name);
        props.put(OutputTopicOptions.CONTROL_TOPIC_CONFIG, name + ".control");
        props.put(OutputTopicOptions.DELETE_TOPIC_CONFIG, name + ".deletes");
        props.put(OutputTopicOptions.DLQ_TOPIC_CONFIG, name + ".dlq");
        props.put(OutputTopicOptions.TOPICS_CREATE_CONFIG, "false");
        return props;
    }

    /**
     * Does what the script's {@code kafka-topics --create --if-not-exists} calls do, through the Admin API, but for
     * the topics in {@code skip}; returns the topics created.
     */
    private List<String> runTopicCalls(String script, Set<String> skip) throws Exception {
        List<NewTopic> topics = new ArrayList<>();
        for (String call : script.replace("\\\n", " ").split("\n")) {
            if (!call.startsWith("kafka-topics ")) {
                continue;
            }
            List<String> words = List.of(call.trim().split("\\s+"));
            assertThat(words.subList(0, 4))
                    .containsExactly("kafka-topics", "\"${admin[@]}\"", "--create", "--if-not-exists");
            Map<String, String> configs = new HashMap<>();
            String name = null;
            int partitions = 0;
            short replication = 0;
            for (int i = 4; i < words.size(); i += 2) {
                String value = words.get(i + 1);
                switch (words.get(i)) {
                    case "--topic" -> name = value;
                    case "--partitions" -> partitions = Integer.parseInt(value);
                    case "--replication-factor" -> replication = Short.parseShort(value);
                    case "--config" ->
                        configs.put(value.substring(0, value.indexOf('=')), value.substring(value.indexOf('=') + 1));
                    default -> throw new AssertionError("unexpected option " + words.get(i) + " in " + call);
                }
            }
            if (!skip.contains(name)) {
                topics.add(new NewTopic(name, partitions, replication).configs(configs));
            }
        }
        try (Admin admin = Admin.create(
                Map.of("bootstrap.servers", PIPELINE.pipeline().stack().bootstrapServers()))) {
            Set<String> existing = admin.listTopics().names().get();
            topics.removeIf(topic -> existing.contains(topic.name()));
            admin.createTopics(topics).all().get();
        }
        return topics.stream().map(NewTopic::name).toList();
    }

    private static String kafkaCli(Map<String, String> props) {
        PlatformSettings settings = new PlatformSettings(
                PARTITIONS,
                1,
                "my-cluster",
                "ttl-connect",
                "connect:latest",
                "https://example.com/guard.zip",
                Optional.empty());
        return KafkaCliScript.render(
                Platform.of(new TtlStreamsConfig(props), settings, ConnectorConfigs.DEFAULT_MONGODB_URI));
    }

    @Test
    void shouldAcceptTheTopicsTheKafkaCliScriptCreatesWhenCreationIsOff() throws Exception {
        Map<String, String> props = declaredProcessor("declared");
        String script = kafkaCli(props);

        assertThatThrownBy(() -> new TtlStreamsApp(new TtlStreamsConfig(props), Optional.empty()).close())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("topic declared.app.sessions: expected to exist");
        List<String> created = runTopicCalls(script, Set.of());

        assertThat(created).contains("declared.app.sessions", "declared.control", "declared.deletes", "declared.dlq");
        try (TtlStreamsApp app = new TtlStreamsApp(new TtlStreamsConfig(props), Optional.empty())) {
            assertThat(app.config().getBoolean(OutputTopicOptions.TOPICS_CREATE_CONFIG))
                    .isFalse();
        }
    }

    @Test
    void shouldExitWithTwoNamingTheControlTopicWhenItIsMissingOrNarrowerThanTheSources() throws Exception {
        Map<String, String> props = declaredProcessor("narrow");
        runTopicCalls(kafkaCli(props), Set.of("narrow.control"));
        Path file = PIPELINE.propertiesFile(props);

        StringWriter missing = new StringWriter();
        assertThat(run(file, missing)).isEqualTo(2);
        assertThat(missing.toString().lines())
                .containsExactly(
                        "ttl-streams run: topic narrow.control: expected to exist (namespace-wide events (drop,"
                                + " rename, invalidate) for every task), actual: missing; declare it as ttl-streams platform"
                                + " renders it, or set ttl.topics.create=true");

        try (Admin admin = Admin.create(
                Map.of("bootstrap.servers", PIPELINE.pipeline().stack().bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("narrow.control", 1, (short) 1)))
                    .all()
                    .get();
        }
        StringWriter narrow = new StringWriter();
        assertThat(run(file, narrow)).isEqualTo(2);
        assertThat(narrow.toString().lines())
                .singleElement()
                .asString()
                .startsWith("ttl-streams run: topic narrow.control: partitions expected at least " + PARTITIONS
                        + ", actual 1");
    }

    private static int run(Path config, StringWriter err) {
        CommandLine commandLine = TtlStreamsCli.commandLine();
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute("run", "--config", config.toString());
    }

    @Test
    void shouldExportEveryMetricTheDashboardAndTheAlertRulesName() throws Exception {
        Path monitoring = repository().resolve("deploy/monitoring");
        Set<String> named = new TreeSet<>();
        for (String file : List.of("grafana-dashboard.json", "ttl-streams-rules.yml", "prometheus-rule.yaml")) {
            Matcher metric = METRIC.matcher(Files.readString(monitoring.resolve(file)));
            while (metric.find()) {
                named.add(metric.group());
            }
        }
        assertThat(named).contains("ttl_schedule_due", "ttl_expiry_lag_seconds_bucket", "ttl_connector_failures");

        String scrape = http.get("/metrics").body();
        Set<String> exported = new TreeSet<>();
        PrometheusText.parse(scrape);
        for (String line : scrape.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                exported.add(line.split("[{ ]", 2)[0]);
            }
        }
        assertThat(exported).as("metrics /metrics exports").containsAll(named);
    }
}
