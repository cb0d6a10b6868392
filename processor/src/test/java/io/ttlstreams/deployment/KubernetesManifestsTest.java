package io.ttlstreams.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.ConfigLayers;
import io.ttlstreams.config.ConnectOptions;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.RepositoryFiles;
import io.ttlstreams.contract.SigningKey;
import io.ttlstreams.health.Health;
import io.ttlstreams.http.OperationsServer;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * Static checks of deploy/kubernetes: every manifest parses, and what the pods are told matches what the code does
 * (the probes' paths and port, the scrape annotations, the state volume at the configured state.dir, the
 * configuration file at the path the container reads, application.server from the environment).
 */
@SuppressWarnings("unchecked") // the YAML tree is untyped
class KubernetesManifestsTest {

    private static final Path DIRECTORY = RepositoryFiles.root().resolve("deploy/kubernetes");

    private static final Map<String, Map<String, Object>> byKind = new HashMap<>();
    private static Map<String, Object> statefulSet;
    private static Map<String, Object> pod;
    private static Map<String, Object> container;

    @BeforeAll
    @SuppressWarnings("unchecked") // the YAML tree is untyped
    static void parse() throws IOException {
        Map<String, Object> kustomization = new Yaml().load(Files.readString(DIRECTORY.resolve("kustomization.yaml")));
        for (Object resource : (List<Object>) kustomization.get("resources")) {
            for (Object document : new Yaml().loadAll(Files.readString(DIRECTORY.resolve(resource.toString())))) {
                Map<String, Object> manifest = (Map<String, Object>) document;
                byKind.put((String) manifest.get("kind"), manifest);
            }
        }
        statefulSet = byKind.get("StatefulSet");
        pod = map(map(statefulSet, "spec", "template"), "spec");
        container = (Map<String, Object>) list(pod, "containers").get(0);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> parent, String... path) {
        Map<String, Object> node = parent;
        for (String key : path) {
            node = (Map<String, Object>) node.get(key);
        }
        return node;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Map<String, Object> parent, String key) {
        return (List<Object>) parent.get(key);
    }

    @Test
    void shouldGiveAStoppingPodMoreGraceThanKafkaStreamsHasToCloseWhenRolled() {
        // A close cut short by SIGKILL leaves the pod's transaction open and its tasks unserved until its session
        // times out: the grace must never be what bounds the close.
        assertThat(((Number) pod.get("terminationGracePeriodSeconds")).longValue())
                .isGreaterThan(TtlStreamsApp.CLOSE_TIMEOUT.toSeconds());
    }

    private static Properties processorProperties() throws IOException {
        Properties properties = new Properties();
        properties.load(
                new StringReader((String) map(byKind.get("ConfigMap"), "data").get("processor.properties")));
        return properties;
    }

    @Test
    void shouldListEveryManifestOnce() throws IOException {
        assertThat(byKind).containsOnlyKeys("ConfigMap", "Service", "StatefulSet", "PodDisruptionBudget");
        try (var files = Files.list(DIRECTORY)) {
            assertThat(files.map(file -> file.getFileName().toString()))
                    .containsExactlyInAnyOrder(
                            "kustomization.yaml",
                            "configmap.yaml",
                            "service.yaml",
                            "statefulset.yaml",
                            "poddisruptionbudget.yaml");
        }
    }

    /** The project's version, as the root pom states it. */
    private static String projectVersion() throws Exception {
        var pom = DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(RepositoryFiles.root().resolve("pom.xml").toFile());
        return XPathFactory.newInstance().newXPath().evaluate("/project/version", pom);
    }

    @Test
    void shouldRunTheImageTheBuildTagsWhenTheProjectVersionChanges() throws Exception {
        String image = "ttl-streams-processor:" + projectVersion();

        assertThat(container.get("image")).as("statefulset.yaml").isEqualTo(image);
        Map<String, Object> compose =
                new Yaml().load(Files.readString(RepositoryFiles.root().resolve("docker-compose.yml")));
        assertThat(map(compose, "services", "processor"))
                .as("docker compose build tags the processor's image so")
                .containsEntry("image", image)
                .containsKey("build");
        assertThat(Files.readString(RepositoryFiles.root().resolve("processor/Dockerfile")))
                .as("the build command processor/Dockerfile documents")
                .contains("-t \"ttl-streams-processor:$(mvn -q help:evaluate -Dexpression=project.version"
                        + " -DforceStdout)\" .")
                .contains("-t " + image + " .");
    }

    @Test
    void shouldProbeTheHealthEndpointsOnTheHttpPort() throws IOException {
        int port = Integer.parseInt(processorProperties().getProperty(OperationsOptions.HTTP_PORT_CONFIG));
        assertThat(port).isEqualTo(OperationsOptions.HTTP_PORT_DEFAULT);
        Map<String, Object> http =
                map((Map<String, Object>) list(container, "ports").get(0));
        assertThat(http).containsEntry("name", "http").containsEntry("containerPort", port);
        assertThat(map(container, "readinessProbe", "httpGet"))
                .containsEntry("path", OperationsServer.READY_PATH)
                .containsEntry("port", "http");
        assertThat(map(container, "livenessProbe", "httpGet"))
                .containsEntry("path", OperationsServer.LIVE_PATH)
                .containsEntry("port", "http");
        assertThat(map(container, "startupProbe", "httpGet")).containsEntry("path", OperationsServer.LIVE_PATH);
        assertThat(Files.readString(DIRECTORY.resolve("statefulset.yaml")))
                .as("a shared dependency's failure must not fail a probe")
                .doesNotContain("path: " + Health.DEPENDENCIES_PATH);
        assertThat(map(statefulSet, "spec", "template", "metadata", "annotations"))
                .containsEntry("prometheus.io/scrape", "true")
                .containsEntry("prometheus.io/port", Integer.toString(port))
                .containsEntry("prometheus.io/path", OperationsServer.METRICS_PATH);
        Map<String, Object> service = byKind.get("Service");
        assertThat(map(service, "spec")).containsEntry("clusterIP", "None");
        assertThat(map((Map<String, Object>) list(map(service, "spec"), "ports").get(0)))
                .containsEntry("port", port)
                .containsEntry("targetPort", "http");
    }

    @Test
    void shouldKeepTheStateOnAPersistentVolumeAtTheConfiguredStateDir() throws IOException {
        String stateDir = processorProperties().getProperty("state.dir");
        Map<String, Object> claim = (Map<String, Object>)
                list(map(statefulSet, "spec"), "volumeClaimTemplates").get(0);
        String claimName = (String) map(claim, "metadata").get("name");
        assertThat(list(container, "volumeMounts"))
                .anySatisfy(mount -> assertThat((Map<String, Object>) mount)
                        .containsEntry("name", claimName)
                        .containsEntry("mountPath", stateDir));
        assertThat(map(statefulSet, "spec"))
                .containsEntry(
                        "serviceName", map(byKind.get("Service"), "metadata").get("name"));
        assertThat(map(pod, "securityContext"))
                .as("the image's user (processor/Dockerfile: USER 10001) owns the volume")
                .containsEntry("runAsUser", 10001)
                .containsEntry("fsGroup", 10001);
        assertThat(Files.readString(RepositoryFiles.root().resolve("processor/Dockerfile")))
                .contains("USER 10001");
        assertThat(Integer.parseInt(processorProperties().getProperty("num.standby.replicas")))
                .isPositive()
                .isLessThan((Integer) map(statefulSet, "spec").get("replicas"));
    }

    @Test
    void shouldRunOnAValidConfigurationWithApplicationServerFromTheEnvironment(@TempDir Path directory)
            throws IOException {
        assertThat(container.get("args")).isEqualTo(List.of("run", "--config", "/config/processor.properties"));
        assertThat(list(container, "volumeMounts"))
                .anySatisfy(mount -> assertThat((Map<String, Object>) mount)
                        .containsEntry("name", "config")
                        .containsEntry("mountPath", "/config"));
        Map<String, String> environment = new HashMap<>();
        for (Object variable : list(container, "env")) {
            Map<String, Object> entry = (Map<String, Object>) variable;
            if (entry.containsKey("value")) {
                environment.put((String) entry.get("name"), (String) entry.get("value"));
            }
        }
        String applicationServer = environment.get(TestConfigs.variableOf("application.server"));
        assertThat(applicationServer).isEqualTo("$(POD_IP):" + OperationsOptions.HTTP_PORT_DEFAULT);

        Path file = Files.writeString(directory.resolve("processor.properties"), (String)
                map(byKind.get("ConfigMap"), "data").get("processor.properties"));
        environment.put(TestConfigs.variableOf("application.server"), "10.0.0.7:8080");
        TtlStreamsConfig config = ConfigLayers.load(file, environment, new ArrayList<>());
        assertThat(config.streamsProperties().getProperty("application.server")).isEqualTo("10.0.0.7:8080");
        assertThat(config.httpPort()).isEqualTo(OperationsOptions.HTTP_PORT_DEFAULT);
    }

    /** The container's environment variable {@code option} is set from, which must come from a Secret. */
    private static Map<String, Object> secretVariable(String option) {
        String variable = TestConfigs.variableOf(option);
        Map<String, Object> entry = list(container, "env").stream()
                .map(each -> (Map<String, Object>) each)
                .filter(each -> variable.equals(each.get("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + variable + " in the container's environment"));
        assertThat(entry).as(variable).doesNotContainKey("value");
        assertThat(map(map(entry, "valueFrom"), "secretKeyRef")).as(variable).containsKeys("name", "key");
        return map(map(entry, "valueFrom"), "secretKeyRef");
    }

    @Test
    void shouldAuthenticateToConnectWithTheCredentialsOfASecret(@TempDir Path directory) throws IOException {
        Map<String, Object> username = secretVariable(ConnectOptions.CONNECT_USERNAME_CONFIG);
        Map<String, Object> password = secretVariable(ConnectOptions.CONNECT_PASSWORD_CONFIG);
        assertThat(username.get("name")).isEqualTo(password.get("name"));
        String properties = (String) map(byKind.get("ConfigMap"), "data").get("processor.properties");
        assertThat(properties)
                .doesNotContain(ConnectOptions.CONNECT_USERNAME_CONFIG + "=")
                .doesNotContain(ConnectOptions.CONNECT_PASSWORD_CONFIG + "=")
                .contains("rest.extension.classes="
                        + "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension");

        Path file = Files.writeString(directory.resolve("processor.properties"), properties);
        TtlStreamsConfig config = ConfigLayers.load(
                file,
                Map.of(
                        TestConfigs.variableOf(ConnectOptions.CONNECT_USERNAME_CONFIG), "ttl-streams",
                        TestConfigs.variableOf(ConnectOptions.CONNECT_PASSWORD_CONFIG), "pw"),
                new ArrayList<>());
        assertThat(config.connectUrl()).isPresent();
        assertThat(config.connectCredentials())
                .hasValueSatisfying(
                        credentials -> assertThat(credentials.username()).isEqualTo("ttl-streams"));
    }

    @Test
    void shouldSignCommandsWithTheKeyOfASecret(@TempDir Path directory) throws IOException {
        String variable = TestConfigs.variableOf(OperationsOptions.COMMAND_SIGNING_KEY_CONFIG);
        secretVariable(OperationsOptions.COMMAND_SIGNING_KEY_CONFIG);
        assertThat((String) map(byKind.get("ConfigMap"), "data").get("processor.properties"))
                .doesNotContain(OperationsOptions.COMMAND_SIGNING_KEY_CONFIG);

        Path file = Files.writeString(directory.resolve("processor.properties"), (String)
                map(byKind.get("ConfigMap"), "data").get("processor.properties"));
        TtlStreamsConfig config =
                ConfigLayers.load(file, Map.of(variable, "k".repeat(SigningKey.MIN_LENGTH_BYTES)), new ArrayList<>());
        assertThat(config.commandSigningKey()).isPresent();
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldRollOnePodAtATimeOnSpreadNodesLeavingTheGroupWhenDisrupted() {
        Map<String, Object> budget = byKind.get("PodDisruptionBudget");
        assertThat(map(budget, "spec")).containsEntry("maxUnavailable", 1);
        assertThat(map(budget, "spec", "selector")).isEqualTo(map(statefulSet, "spec", "selector"));

        Map<String, Object> term = (Map<String, Object>) ((Map<String, Object>)
                        list(map(pod, "affinity", "podAntiAffinity"), "preferredDuringSchedulingIgnoredDuringExecution")
                                .get(0))
                .get("podAffinityTerm");
        assertThat(term).containsEntry("topologyKey", "kubernetes.io/hostname");
        assertThat(map(term, "labelSelector")).isEqualTo(map(statefulSet, "spec", "selector"));

        List<Map<String, Object>> env = list(container, "env").stream()
                .map(each -> (Map<String, Object>) each)
                .toList();
        // Dynamic membership, as measured best with standbys (docs/reliability.md): a static member stays in the
        // group when its pod stops, and its tasks wait for it instead of moving to their standbys.
        assertThat(env)
                .noneSatisfy(
                        each -> assertThat(each).containsEntry("name", TestConfigs.variableOf("group.instance.id")));
        assertThat((String) map(byKind.get("ConfigMap"), "data").get("processor.properties"))
                .doesNotContain("group.instance.id");
    }
}
