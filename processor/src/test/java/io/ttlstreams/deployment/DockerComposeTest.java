package io.ttlstreams.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.kafka.connect.MongoSinkConnector;
import io.ttlstreams.config.ConfigLayers;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.connect.RepositoryFiles;
import io.ttlstreams.contract.SigningKey;
import io.ttlstreams.http.OperationsServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Static checks of docker-compose.yml and the Dockerfiles it builds. No Docker engine is available where the unit
 * tests run, so this cannot start the stack; it catches what breaks silently instead: a renamed or missing file, a
 * dependency on a service that does not exist or waits on a condition it can never reach, and versions that drifted
 * from the ones the code is built and tested against.
 */
class DockerComposeTest {

    private static final Path ROOT = RepositoryFiles.root();

    private static Map<String, Map<String, Object>> services;

    @BeforeAll
    @SuppressWarnings("unchecked") // the YAML tree is untyped
    static void parse() throws IOException {
        Map<String, Object> compose = new Yaml().load(Files.readString(ROOT.resolve("docker-compose.yml")));
        services = (Map<String, Map<String, Object>>) compose.get("services");
    }

    @Test
    void shouldDefineTheWholeStack() {
        assertThat(services).containsOnlyKeys("kafka", "kafka-init", "mongo", "connect", "processor");
    }

    @Test
    void shouldBuildFromExistingContextsAndDockerfiles() throws IOException {
        for (String name : List.of("connect", "processor")) {
            Map<?, ?> build = (Map<?, ?>) services.get(name).get("build");
            Path context = ROOT.resolve((String) build.get("context")).normalize();
            Path dockerfile = context.resolve((String) build.get("dockerfile"));
            assertThat(context).as(name + " build context").isDirectory();
            assertThat(dockerfile).as(name + " Dockerfile").isRegularFile();
            // COPY sources are relative to the context; a missing one fails only at build time.
            for (String source : copySources(dockerfile)) {
                assertThat(context.resolve(source))
                        .as(name + ": COPY " + source)
                        .exists();
            }
        }
    }

    @Test
    void shouldBuildTheProcessorImageFromTheProductionModulesOnly() throws IOException {
        Path dockerfile = ROOT.resolve("processor/Dockerfile");
        assertCopiesEveryPomAndOnlyTheseSources(dockerfile, List.of("schemas", "contract", "sink-guard", "processor"));
        assertThat(Files.readString(dockerfile)).contains("package -pl processor -am");
    }

    @Test
    void shouldInstallTheSinkGuardPluginBuiltFromThisRepository() throws IOException {
        Path dockerfile = ROOT.resolve("connect/Dockerfile");
        assertCopiesEveryPomAndOnlyTheseSources(dockerfile, List.of("contract", "sink-guard"));
        // The plugin directory is where sink-guard's assembly puts it (finalName, then the base directory).
        assertThat(Files.readString(ROOT.resolve("sink-guard/pom.xml")))
                .contains("<finalName>ttl-streams-sink-guard-plugin</finalName>");
        assertThat(Files.readString(ROOT.resolve("sink-guard/src/assembly/connect-plugin.xml")))
                .contains("<baseDirectory>ttl-streams-sink-guard</baseDirectory>");
        assertThat(Files.readString(dockerfile))
                .contains("package -pl sink-guard -am")
                .contains(
                        "COPY --from=guard /src/sink-guard/target/ttl-streams-sink-guard-plugin/ttl-streams-sink-guard"
                                + " \\\n    /opt/connect-plugins/ttl-streams-sink-guard\n");
        assertThat(Files.readString(ROOT.resolve("sink-guard/src/main/resources/META-INF/services/"
                                + "org.apache.kafka.connect.transforms.Transformation"))
                        .strip()
                        .lines())
                .containsExactly(ConnectorConfigs.SINK_GUARD, ConnectorConfigs.SOURCE_KEY);
    }

    @Test
    void shouldGiveTheGuardAndTheProcessorTheSameSigningKey() throws IOException {
        String secretFile = "./connect/secrets/ttl-signing.properties:/secrets/ttl-signing.properties:ro";
        assertThat(services.get("connect").get("volumes").toString()).contains(secretFile);
        assertThat(services.get("processor").get("volumes").toString())
                .contains(secretFile)
                .contains("./connect-config/example-processor-signing.properties:/config/signing.properties:ro");
        assertThat(services.get("processor").get("entrypoint").toString())
                .contains("cat /config/processor.properties /config/signing.properties > /tmp/processor.properties")
                .contains("run --config /tmp/processor.properties");
        assertThat(ConnectorConfigs.DEFAULT_SIGNING_KEY).isEqualTo("${file:/secrets/ttl-signing.properties:key}");

        // The processor's configuration as the container assembles it, with /secrets where compose mounts it from.
        String processorProperties = Files.readString(ROOT.resolve("connect-config/example-processor.properties"))
                + Files.readString(ROOT.resolve("connect-config/example-processor-signing.properties"))
                        .replace("/secrets/", ROOT.resolve("connect/secrets").toString() + "/");
        Path assembled = Files.createTempFile("processor", ".properties");
        try {
            Files.writeString(assembled, processorProperties);
            java.util.Properties secret = new java.util.Properties();
            try (var reader = Files.newBufferedReader(ROOT.resolve("connect/secrets/ttl-signing.properties"))) {
                secret.load(reader);
            }
            assertThat(ConfigLayers.load(assembled, Map.of(), List.of()).commandSigningKey())
                    .map(SigningKey::id)
                    .contains(SigningKey.of(secret.getProperty("key")).id());
        } finally {
            Files.delete(assembled);
        }
    }

    @Test
    void shouldMountExistingFiles() {
        List<String> checked = new ArrayList<>();
        services.forEach((name, service) -> {
            for (Object volume : (List<?>) service.getOrDefault("volumes", List.of())) {
                String source = volume.toString().split(":")[0];
                if (source.startsWith("./")) {
                    assertThat(ROOT.resolve(source))
                            .as(name + " mounts " + source)
                            .exists();
                    checked.add(source);
                }
            }
        });
        assertThat(checked)
                .contains(
                        "./connect-config/example-processor.properties",
                        "./connect/secrets/mongo.properties",
                        "./connect/secrets/ttl-signing.properties",
                        "./connect/secrets/connect-users.properties",
                        "./connect-config/example-processor-signing.properties");
    }

    @Test
    void shouldDependOnServicesThatExistAndCanReachTheAwaitedCondition() {
        services.forEach((name, service) -> dependencies(service).forEach((dependency, condition) -> {
            assertThat(services).as(name + " depends on " + dependency).containsKey(dependency);
            Map<String, Object> target = services.get(dependency);
            if (condition.equals("service_healthy")) {
                assertThat(target).as(dependency + " needs a healthcheck").containsKey("healthcheck");
            } else if (condition.equals("service_completed_successfully")) {
                assertThat(target.get("restart"))
                        .as(dependency + " must be one-shot")
                        .isEqualTo("no");
            }
        }));
        assertThat(cycleFrom(services.keySet())).isEmpty();
    }

    @Test
    void shouldStartEachServiceAfterWhatItNeeds() {
        assertThat(dependencies(services.get("connect")))
                .containsEntry("kafka", "service_healthy")
                .containsEntry("mongo", "service_healthy");
        assertThat(dependencies(services.get("kafka-init"))).containsEntry("kafka", "service_healthy");
        // run registers the connectors, retrying while Connect starts; the DLQ topic must exist before the sink is
        // registered, or Connect creates it with 3 replicas and fails.
        assertThat(dependencies(services.get("processor")))
                .containsEntry("kafka", "service_healthy")
                .containsEntry("kafka-init", "service_completed_successfully")
                .containsEntry("connect", "service_started");
        assertThat(dependencies(services.get("mongo"))).isEmpty();
    }

    @Test
    void shouldRunTheProcessorOnTheExampleConfigurationAtThePathItsImageExpects() throws IOException {
        assertThat(services.get("processor").get("volumes").toString())
                .contains("./connect-config/example-processor.properties:/config/processor.properties:ro");
        assertThat(Files.readString(ROOT.resolve("processor/Dockerfile")))
                .contains("CMD [\"run\", \"--config\", \"/config/processor.properties\"]")
                .contains("FROM maven:3-eclipse-temurin-17 AS build")
                .contains("FROM eclipse-temurin:17-jre");
        TtlStreamsConfig example =
                ConfigLayers.load(ROOT.resolve("connect-config/example-processor.properties"), Map.of(), List.of());
        assertThat(example.streamsProperties().getProperty("bootstrap.servers")).isEqualTo("kafka:9092");
        assertThat(services.get("kafka").get("environment").toString()).contains("PLAINTEXT://kafka:9092");
    }

    @Test
    void shouldCheckTheProcessorsReadinessAndPublishItsHttpPort() throws IOException {
        Map<String, Object> processor = services.get("processor");
        String readyUrl = "http://localhost:" + OperationsOptions.HTTP_PORT_DEFAULT + OperationsServer.READY_PATH;
        List<Object> healthcheck = list(((Map<?, ?>) processor.get("healthcheck")).get("test"));
        assertThat(healthcheck.get(0)).isEqualTo("CMD");
        assertThat(healthcheck).contains("curl", readyUrl);
        assertThat(list(processor.get("ports")))
                .contains(OperationsOptions.HTTP_PORT_DEFAULT + ":" + OperationsOptions.HTTP_PORT_DEFAULT);
        String dockerfile = Files.readString(ROOT.resolve("processor/Dockerfile"));
        assertThat(dockerfile)
                .contains("EXPOSE " + OperationsOptions.HTTP_PORT_DEFAULT)
                .contains(readyUrl);
        // The image's healthcheck needs curl, which eclipse-temurin installs; a slimmer base would break it.
        assertThat(dockerfile).contains("FROM eclipse-temurin:17-jre");
    }

    @Test
    void shouldHaveTheProcessorWatchTheConnectorsThroughTheEnvironment() {
        Map<?, ?> environment = (Map<?, ?>) services.get("processor").get("environment");
        Map<String, String> variables = new java.util.HashMap<>();
        environment.forEach((name, value) -> variables.put(name.toString(), value.toString()));

        TtlStreamsConfig config =
                ConfigLayers.load(ROOT.resolve("connect-config/example-processor.properties"), variables, List.of());

        assertThat(config.connectUrl()).hasValue("http://connect:8083");
    }

    @Test
    void shouldKeepConnectsRestApiOffTheHostAndBehindBasicAuthentication() throws IOException {
        // Whoever reaches the REST API can rewrite the sink without its guard: nothing publishes it.
        assertThat(services.get("connect")).doesNotContainKey("ports");
        services.forEach((name, service) -> assertThat(String.valueOf(service.get("ports")))
                .as(name + " ports")
                .doesNotContain("8083"));
        assertThat(Files.readString(ROOT.resolve("connect/worker.properties")))
                .contains("rest.extension.classes="
                        + "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension");
        String jaasPath = "/opt/kafka/config/ttl-connect-jaas.conf";
        assertThat(Files.readString(ROOT.resolve("connect/Dockerfile")))
                .contains("COPY connect/connect-jaas.conf " + jaasPath)
                .contains("ENV KAFKA_OPTS=-Djava.security.auth.login.config=" + jaasPath);
        String users = "/secrets/connect-users.properties";
        assertThat(Files.readString(ROOT.resolve("connect/connect-jaas.conf")))
                .contains("KafkaConnect {")
                .contains("org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required")
                .contains("file=\"" + users + "\"");
        String mount = "./connect/secrets/connect-users.properties:" + users + ":ro";
        for (String name : List.of("connect", "processor")) {
            assertThat(services.get(name).get("volumes").toString()).as(name).contains(mount);
        }
        assertThat(Files.readString(ROOT.resolve("connect/register-connectors.sh")))
                .contains("users_file=\"${CONNECT_USERS_FILE:-" + users + "}\"")
                .doesNotContain("| curl")
                .doesNotContain("$(curl");
    }

    @Test
    void shouldGiveTheProcessorTheCredentialsConnectChecks() throws IOException {
        Map<String, String> variables = new java.util.HashMap<>();
        ((Map<?, ?>) services.get("processor").get("environment"))
                // $$ is compose's escape for $; /secrets is where compose mounts the secret files from.
                .forEach((name, value) -> variables.put(
                        name.toString(),
                        value.toString()
                                .replace("$$", "$")
                                .replace("/secrets/", ROOT.resolve("connect/secrets") + "/")));
        String processorProperties = Files.readString(ROOT.resolve("connect-config/example-processor.properties"))
                + Files.readString(ROOT.resolve("connect-config/example-processor-signing.properties"))
                        .replace("/secrets/", ROOT.resolve("connect/secrets") + "/");
        java.util.Properties users = new java.util.Properties();
        try (var reader = Files.newBufferedReader(ROOT.resolve("connect/secrets/connect-users.properties"))) {
            users.load(reader);
        }
        Path assembled = Files.createTempFile("processor", ".properties");
        try {
            Files.writeString(assembled, processorProperties);

            TtlStreamsConfig config = ConfigLayers.load(assembled, variables, List.of());

            assertThat(config.connectCredentials()).hasValueSatisfying(credentials -> {
                assertThat(credentials.username()).isEqualTo("ttl-streams");
                assertThat(credentials.password().value()).isNotBlank().isEqualTo(users.getProperty("ttl-streams"));
            });
        } finally {
            Files.delete(assembled);
        }
    }

    @Test
    void shouldUseTheKafkaAndConnectorVersionsTheCodeIsBuiltWith() throws IOException {
        // The jars on the test classpath are the versions the code is compiled and tested against.
        String kafkaImage = "apache/kafka:" + jarName(Admin.class).replaceAll("^kafka-clients-|\\.jar$", "");
        assertThat(services.get("kafka").get("image")).isEqualTo(kafkaImage);
        assertThat(services.get("kafka-init").get("image")).isEqualTo(kafkaImage);
        String connectDockerfile = Files.readString(ROOT.resolve("connect/Dockerfile"));
        assertThat(connectDockerfile).contains("FROM " + kafkaImage);
        // ConnectorOptionNamesTest checked the rendered keys against this connector version's ConfigDefs.
        assertThat(connectDockerfile).contains(jarName(MongoSinkConnector.class).replace(".jar", "-all.jar"));
        assertThat(services.get("mongo").get("command").toString()).contains("--replSet");
    }

    @Test
    void shouldGiveTheConnectorsTheUriTheirConfigsReference() throws IOException {
        String worker = Files.readString(ROOT.resolve("connect/worker.properties"));
        assertThat(worker)
                .contains(
                        "config.providers=file",
                        "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider",
                        "connector.client.config.override.policy=All",
                        "plugin.path=/opt/connect-plugins");
        assertThat(ConnectorConfigs.DEFAULT_MONGODB_URI).contains("/secrets/mongo.properties:uri");
        assertThat(Files.readString(ROOT.resolve("connect/secrets/mongo.properties")))
                .contains("uri=mongodb://mongo:27017/?replicaSet=rs0");
    }

    /**
     * Maven reads every module's pom, even when it builds only some of them, so {@code dockerfile} must copy each;
     * and it may copy the sources of the {@code built} modules only.
     */
    private static void assertCopiesEveryPomAndOnlyTheseSources(Path dockerfile, List<String> built)
            throws IOException {
        List<String> copied = copySources(dockerfile);
        String rootPom = Files.readString(ROOT.resolve("pom.xml"));
        java.util.regex.Matcher modules =
                java.util.regex.Pattern.compile("<module>([^<]+)</module>").matcher(rootPom);
        while (modules.find()) {
            String module = modules.group(1);
            assertThat(copied)
                    .as(dockerfile + ": COPY of module " + module)
                    .anyMatch(source -> source.equals(module) || source.equals(module + "/pom.xml"));
            if (!built.contains(module)) {
                assertThat(copied)
                        .as(dockerfile + ": sources of module " + module)
                        .noneMatch(source -> source.startsWith(module + "/src") || source.equals(module));
            }
        }
    }

    private static List<Object> list(Object yaml) {
        return List.copyOf((List<?>) yaml);
    }

    private static String jarName(Class<?> type) {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().getPath())
                .getFileName()
                .toString();
    }

    /** Service name to condition; the short list form means service_started. */
    private static Map<String, String> dependencies(Map<String, Object> service) {
        Object dependsOn = service.get("depends_on");
        Map<String, String> dependencies = new java.util.LinkedHashMap<>();
        if (dependsOn instanceof List<?> list) {
            list.forEach(name -> dependencies.put(name.toString(), "service_started"));
        } else if (dependsOn instanceof Map<?, ?> map) {
            map.forEach((name, spec) ->
                    dependencies.put(name.toString(), String.valueOf(((Map<?, ?>) spec).get("condition"))));
        }
        return dependencies;
    }

    /** A dependency cycle (compose refuses to start one), or empty. */
    private static List<String> cycleFrom(Set<String> names) {
        for (String start : names) {
            List<String> cycle = walk(start, new ArrayList<>(), new HashSet<>());
            if (!cycle.isEmpty()) {
                return cycle;
            }
        }
        return List.of();
    }

    private static List<String> walk(String name, List<String> path, Set<String> done) {
        if (path.contains(name)) {
            List<String> cycle = new ArrayList<>(path);
            cycle.add(name);
            return cycle;
        }
        if (!done.add(name) || !services.containsKey(name)) {
            return List.of();
        }
        path.add(name);
        for (String next : dependencies(services.get(name)).keySet()) {
            List<String> cycle = walk(next, path, done);
            if (!cycle.isEmpty()) {
                return cycle;
            }
        }
        path.remove(path.size() - 1);
        return List.of();
    }

    /** Sources of the Dockerfile's COPY instructions from the build context (not from another stage). */
    private static List<String> copySources(Path dockerfile) throws IOException {
        List<String> sources = new ArrayList<>();
        for (String line : Files.readAllLines(dockerfile)) {
            String[] words = line.trim().split("\\s+");
            if (words[0].equals("COPY") && !line.contains("--from=")) {
                for (int i = 1; i < words.length - 1; i++) {
                    if (!words[i].startsWith("--")) {
                        sources.add(words[i]);
                    }
                }
            }
        }
        return sources;
    }
}
