package io.ttlstreams.app;

import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.platform.KafkaCliScript;
import io.ttlstreams.platform.Platform;
import io.ttlstreams.platform.PlatformJson;
import io.ttlstreams.platform.PlatformSettings;
import io.ttlstreams.platform.StrimziResources;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code ttl-streams platform}: renders every topic, principal, ACL and connector a processor configuration needs,
 * as Strimzi resources, a {@code kafka-topics}/{@code kafka-acls} script or JSON (see docs/deployment.md).
 */
@Command(
        name = "platform",
        mixinStandardHelpOptions = true,
        description = {
            "Render the topics (with the reason for each setting), one Kafka user per role with exactly its ACLs,"
                    + " and the connectors of a processor configuration.",
            "Formats: strimzi (KafkaTopic, KafkaUser, KafkaConnect with build.plugins, KafkaConnector),"
                    + " kafka-cli (a reviewable kafka-topics/kafka-acls script), json."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:rendered", "2:invalid configuration or arguments"})
final class PlatformCommand implements Callable<Integer> {

    /** The output formats. */
    enum Format {
        STRIMZI,
        KAFKA_CLI,
        JSON;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    @Spec
    private CommandSpec spec;

    @Mixin
    private ConfigSource config;

    @Option(
            names = "--format",
            required = true,
            paramLabel = "FORMAT",
            converter = FormatConverter.class,
            description = "strimzi, kafka-cli or json.")
    private Format format;

    @Option(
            names = "--partitions",
            paramLabel = "N",
            defaultValue = "6",
            description = "Partitions of each source topic, and so of the control and delete topics"
                    + " (default: ${DEFAULT-VALUE}).")
    private int partitions;

    @Option(
            names = "--replication-factor",
            paramLabel = "N",
            defaultValue = "3",
            description = "Every topic's replication factor (default: ${DEFAULT-VALUE}).")
    private int replicationFactor;

    @Option(
            names = "--kafka-cluster",
            paramLabel = "NAME",
            defaultValue = "my-cluster",
            description = "strimzi: the Kafka cluster's name (default: ${DEFAULT-VALUE}).")
    private String kafkaCluster;

    @Option(
            names = "--connect-cluster",
            paramLabel = "NAME",
            defaultValue = PlatformSettings.DEFAULT_CONNECT_CLUSTER,
            description = "The Kafka Connect cluster's name, group.id and internal topic prefix"
                    + " (default: ${DEFAULT-VALUE}).")
    private String connectCluster;

    @Option(
            names = "--connect-image",
            paramLabel = "IMAGE",
            defaultValue = "registry.example.com/ttl-streams/connect:latest",
            description =
                    "strimzi: the image Strimzi builds for Connect and pushes (default: a placeholder to replace).")
    private String connectImage;

    @Option(
            names = "--sink-guard-url",
            paramLabel = "URL",
            defaultValue = "https://artifacts.example.com/ttl-streams/ttl-streams-sink-guard-plugin.zip",
            description = "strimzi: where the sink guard's plugin zip (built by mvn package in sink-guard/target) is"
                    + " published (default: a placeholder to replace).")
    private String sinkGuardUrl;

    @Option(
            names = "--sink-guard-sha512",
            paramLabel = "HEX",
            description = "strimzi: the zip's SHA-512, which mvn package writes beside it.")
    private String sinkGuardSha512;

    @Override
    public Integer call() {
        PlatformSettings settings = new PlatformSettings(
                partitions,
                replicationFactor,
                kafkaCluster,
                connectCluster,
                connectImage,
                sinkGuardUrl,
                Optional.ofNullable(sinkGuardSha512));
        Platform platform = Platform.of(
                config.load(),
                settings,
                format == Format.STRIMZI ? StrimziResources.MONGODB_URI : ConnectorConfigs.DEFAULT_MONGODB_URI);
        String rendered = switch (format) {
            case STRIMZI -> StrimziResources.render(platform);
            case KAFKA_CLI -> KafkaCliScript.render(platform);
            case JSON -> PlatformJson.render(platform);
        };
        spec.commandLine().getOut().print(rendered);
        spec.commandLine().getOut().flush();
        return 0;
    }

    /** Reads {@code kafka-cli} as well as the enum's own names. */
    static final class FormatConverter implements ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            for (Format candidate : Format.values()) {
                if (candidate.toString().equals(value)) {
                    return candidate;
                }
            }
            throw new TypeConversionException("'" + value + "' is not a format: strimzi, kafka-cli or json");
        }
    }
}
