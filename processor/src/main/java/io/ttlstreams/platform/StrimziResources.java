package io.ttlstreams.platform;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.connect.ConnectorDefinition;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.commons.codec.digest.DigestUtils;

/**
 * The deployment as Strimzi resources ({@code kafka.strimzi.io/v1}): a {@code KafkaTopic} per topic, a {@code
 * KafkaUser} per role with its ACLs, the {@code KafkaConnect} cluster whose {@code build.plugins} installs the MongoDB
 * connector and the sink guard, and a {@code KafkaConnector} per connector. Plain maps written as YAML, each resource
 * under comments giving the reasons for its settings; a test validates every resource against Strimzi's CRD schemas.
 *
 * <p>Strimzi mounts additional volumes under {@code /mnt} only, so the connectors' secrets are read from there: the
 * Secret {@value #CONNECT_SECRET} (keys {@code mongo.properties} with {@code uri=...} and {@code
 * ttl-signing.properties} with {@code key=...}) at {@value #SECRETS_DIR}, and each connector user's Secret, which the
 * User Operator writes, through {@code DirectoryConfigProvider}.
 */
public final class StrimziResources {

    /** The API version of every rendered resource. */
    public static final String API_VERSION = "kafka.strimzi.io/v1";

    /** The MongoDB connector's version the resources install (the build's, see build.properties). */
    public static final String MONGO_CONNECTOR_VERSION = "2.0.1";

    /**
     * The SHA-512 of {@code mongo-kafka-connect-2.0.1-all.jar} on Maven Central; a test fails when the build's
     * connector version moves away from {@link #MONGO_CONNECTOR_VERSION}.
     */
    static final String MONGO_CONNECTOR_SHA512 = "90194ff3aeed3b5b57440e806d2fa7c13685e7d4b939bcd617d0d733ca0764a0"
            + "1a5ec1217be9247cf0cf75d1d037f8253d7d30db9a3acf808be0fd4a234592cf";

    /** The Secret holding the connectors' MongoDB URI and the signing key, as files. */
    public static final String CONNECT_SECRET = "ttl-connect-secrets";

    /** Where {@value #CONNECT_SECRET} is mounted in the Connect pods. */
    public static final String SECRETS_DIR = "/mnt/ttl-secrets";

    /** The connectors' {@code connection.uri}: a reference into {@value #CONNECT_SECRET}. */
    public static final String MONGODB_URI = "${file:" + SECRETS_DIR + "/mongo.properties:uri}";

    private static final String SIGNING_KEY = "${file:" + SECRETS_DIR + "/ttl-signing.properties:key}";
    /** Where each connector user's Secret is mounted, in a directory named after the user. */
    private static final String USERS_DIR = "/mnt/kafka-users";

    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .build();

    private StrimziResources() {}

    /** One resource and the comment lines above it. */
    private record Resource(List<String> comments, Map<String, Object> body) {}

    /** The YAML stream: every resource, separated by {@code ---}. */
    public static String render(Platform platform) {
        StringBuilder yaml = new StringBuilder();
        for (Resource resource : resources(platform)) {
            yaml.append("---\n");
            resource.comments().forEach(line -> yaml.append("# ").append(line).append('\n'));
            try {
                yaml.append(YAML.writeValueAsString(resource.body()));
            } catch (JsonProcessingException e) {
                throw new UncheckedIOException(e);
            }
        }
        return yaml.toString();
    }

    /** The resources: topics, users, the Connect cluster, then the connectors. */
    private static List<Resource> resources(Platform platform) {
        List<Resource> resources = new ArrayList<>();
        PlatformSettings settings = platform.settings();
        for (TopicSpec topic : platform.topics().topics()) {
            resources.add(topic(topic, settings.kafkaCluster()));
        }
        for (KafkaPrincipal principal : platform.acls().principals()) {
            resources.add(user(principal, settings.kafkaCluster()));
        }
        resources.add(connect(platform));
        for (ConnectorDefinition source : platform.connectors().sources()) {
            resources.add(connector(
                    source,
                    settings.connectCluster(),
                    1,
                    ConnectorConfigs.runAs(USERS_DIR, AclPlan.SOURCE_USER, ConnectorConfigs.SOURCE_CLIENTS)));
        }
        resources.add(connector(
                platform.connectors().sink(),
                settings.connectCluster(),
                settings.partitions(),
                ConnectorConfigs.runAs(USERS_DIR, AclPlan.SINK_USER, ConnectorConfigs.SINK_CLIENTS)));
        return resources;
    }

    private static Resource topic(TopicSpec spec, String cluster) {
        List<String> comments = new ArrayList<>();
        comments.add(spec.name() + ": " + spec.role().purpose());
        comments.add("partitions " + spec.partitions() + ": " + spec.partitionsReason());
        Map<String, Object> config = new LinkedHashMap<>();
        for (TopicSetting setting : spec.settings()) {
            comments.add(setting.name() + "=" + setting.value() + ": " + setting.reason());
            config.put(setting.name(), setting.value());
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("topicName", spec.name());
        body.put("partitions", spec.partitions());
        spec.replicationFactor().ifPresent(factor -> body.put("replicas", factor));
        body.put("config", config);
        return new Resource(comments, resource("KafkaTopic", resourceName(spec.name()), cluster, body));
    }

    private static Resource user(KafkaPrincipal principal, String cluster) {
        List<String> comments = new ArrayList<>();
        comments.add(principal.principal() + ": " + principal.role());
        List<Map<String, Object>> acls = new ArrayList<>();
        for (Acl acl : principal.acls()) {
            comments.add(String.join(", ", acl.operations()) + " on "
                    + acl.resource().strimziType() + " " + acl.name() + (acl.prefixed() ? "*" : "") + ": "
                    + acl.reason());
            Map<String, Object> resource = new LinkedHashMap<>();
            resource.put("type", acl.resource().strimziType());
            resource.put("name", acl.name());
            resource.put("patternType", acl.prefixed() ? "prefix" : "literal");
            acls.add(map("resource", resource, "operations", acl.operations()));
        }
        Map<String, Object> body = map(
                "authentication", map("type", "scram-sha-512"),
                "authorization", map("type", "simple", "acls", acls));
        return new Resource(comments, resource("KafkaUser", principal.user(), cluster, body));
    }

    private static Resource connect(Platform platform) {
        PlatformSettings settings = platform.settings();
        String group = settings.connectCluster();
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("config.providers", "file,directory");
        config.put("config.providers.file.class", "org.apache.kafka.common.config.provider.FileConfigProvider");
        config.put(
                "config.providers.directory.class", "org.apache.kafka.common.config.provider.DirectoryConfigProvider");
        config.put("connector.client.config.override.policy", "All");
        for (String topic : List.of("config", "offset", "status")) {
            config.put(topic + ".storage.replication.factor", settings.replicationFactor());
        }
        Map<String, Object> guard = new LinkedHashMap<>();
        guard.put("type", "zip");
        guard.put("url", settings.sinkGuardUrl());
        settings.sinkGuardSha512().ifPresent(sha -> guard.put("sha512sum", sha));
        List<Map<String, Object>> plugins = List.of(
                map(
                        "name",
                        "mongo-kafka-connect",
                        "artifacts",
                        List.of(map(
                                "type",
                                "jar",
                                "url",
                                "https://repo1.maven.org/maven2/org/mongodb/kafka/mongo-kafka-connect/"
                                        + MONGO_CONNECTOR_VERSION + "/mongo-kafka-connect-" + MONGO_CONNECTOR_VERSION
                                        + "-all.jar",
                                "sha512sum",
                                MONGO_CONNECTOR_SHA512))),
                map("name", "ttl-streams-sink-guard", "artifacts", List.of(guard)));
        List<Map<String, Object>> volumes = new ArrayList<>();
        List<Map<String, Object>> mounts = new ArrayList<>();
        volumes.add(map("name", "ttl-secrets", "secret", map("secretName", CONNECT_SECRET)));
        mounts.add(map("name", "ttl-secrets", "mountPath", SECRETS_DIR, "readOnly", true));
        for (String user : List.of(AclPlan.SOURCE_USER, AclPlan.SINK_USER)) {
            volumes.add(map("name", user, "secret", map("secretName", user)));
            mounts.add(map("name", user, "mountPath", USERS_DIR + "/" + user, "readOnly", true));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("replicas", 2);
        body.put("bootstrapServers", settings.kafkaCluster() + "-kafka-bootstrap:9093");
        body.put("groupId", group);
        body.put("configStorageTopic", group + "-configs");
        body.put("offsetStorageTopic", group + "-offsets");
        body.put("statusStorageTopic", group + "-status");
        body.put(
                "tls",
                map(
                        "trustedCertificates",
                        List.of(map("secretName", settings.kafkaCluster() + "-cluster-ca-cert", "pattern", "*.crt"))));
        body.put(
                "authentication",
                map(
                        "type",
                        "scram-sha-512",
                        "username",
                        AclPlan.CONNECT_USER,
                        "passwordSecret",
                        map("secretName", AclPlan.CONNECT_USER, "password", "password")));
        body.put("config", config);
        body.put("build", map("output", map("type", "docker", "image", settings.connectImage()), "plugins", plugins));
        body.put("template", map("pod", map("volumes", volumes), "connectContainer", map("volumeMounts", mounts)));
        Map<String, Object> connect = resource("KafkaConnect", settings.connectCluster(), null, body);
        // The connectors are the KafkaConnector resources below, not REST calls.
        metadata(connect).put("annotations", map("strimzi.io/use-connector-resources", "true"));
        return new Resource(
                List.of(
                        "The Connect cluster: Strimzi builds " + settings.connectImage() + " with the MongoDB connector"
                                + " and the sink guard.",
                        "connector.client.config.override.policy=All: the sink reads read_committed and each connector"
                                + " runs as its own user (producer/consumer/admin.override.*).",
                        "Secret " + CONNECT_SECRET + " holds mongo.properties (uri=...) and ttl-signing.properties"
                                + " (key=..., the processor's ttl.command.signing.key)."),
                connect);
    }

    private static Resource connector(
            ConnectorDefinition connector, String connectCluster, int tasks, Map<String, String> overrides) {
        checkName("connector", connector.name());
        Map<String, Object> config = new LinkedHashMap<>();
        connector.config().forEach((key, value) -> {
            if (!key.equals("connector.class")) {
                config.put(key, strimziValue(key, value));
            }
        });
        config.putAll(overrides);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("class", connector.config().get("connector.class"));
        body.put("tasksMax", tasks);
        body.put("config", config);
        return new Resource(
                List.of("Connector " + connector.name() + ", as connect-config renders it, secrets read from "
                        + SECRETS_DIR + ", running as its own Kafka user."),
                resource("KafkaConnector", connector.name(), connectCluster, body));
    }

    /** The secrets' references as the Connect pods see them (Strimzi mounts under /mnt only). */
    private static String strimziValue(String key, String value) {
        if (key.equals("connection.uri") && value.equals(ConnectorConfigs.DEFAULT_MONGODB_URI)) {
            return MONGODB_URI;
        }
        if (key.equals("transforms.guard.signing.key") && value.equals(ConnectorConfigs.DEFAULT_SIGNING_KEY)) {
            return SIGNING_KEY;
        }
        return value;
    }

    private static Map<String, Object> resource(String kind, String name, String cluster, Map<String, Object> spec) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", name);
        if (cluster != null) {
            metadata.put("labels", map("strimzi.io/cluster", cluster));
        }
        return map("apiVersion", API_VERSION, "kind", kind, "metadata", metadata, "spec", spec);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> metadata(Map<String, Object> resource) {
        return (Map<String, Object>) resource.get("metadata");
    }

    /**
     * A Kubernetes name for topic {@code topic}: lower case, {@code [-a-z0-9.]}; a name that had to change gets a
     * short hash of the original, so that two topics never share one.
     */
    static String resourceName(String topic) {
        if (NAME.matcher(topic).matches()) {
            return topic;
        }
        String cleaned =
                topic.toLowerCase(Locale.ROOT).replaceAll("[^-a-z0-9.]", "-").replaceAll("^[-.]+|[-.]+$", "");
        String hash = DigestUtils.sha256Hex(topic).substring(0, 8);
        return (cleaned.isEmpty() ? "topic" : cleaned.substring(0, Math.min(cleaned.length(), 200))) + "-" + hash;
    }

    /**
     * Fails unless {@code name} is a Kubernetes resource name: Strimzi names a connector after its resource, so one
     * that is not cannot be declared as is.
     */
    static void checkName(String what, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " name '" + name + "' is not a Kubernetes resource name (lower"
                    + " case letters, digits, '-' and '.', starting and ending with a letter or digit)");
        }
    }

    /** A map of the key-value pairs, in order. */
    private static Map<String, Object> map(Object... pairs) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], pairs[i + 1]);
        }
        return map;
    }
}
