package io.ttlstreams.embedded.app;

import io.ttlstreams.config.ConfigFragment;
import io.ttlstreams.config.OptionGroup;
import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.embedded.KafkaSecurity;
import io.ttlstreams.embedded.standin.ServerVersion;
import io.ttlstreams.embedded.standin.StandInSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The options of the embedded local stack behind {@code run --embedded}: its ports, data directory, partitions and
 * how its MongoDB stand-in plays MongoDB. A
 * {@link ConfigFragment}, so that the processor's configuration validates and documents them wherever this module is
 * on the classpath, and refuses them where it is not.
 */
public final class EmbeddedOptions implements ConfigFragment {

    private static final String GROUP = "Embedded local stack";

    public static final String EMBEDDED_MONGODB_PORT_CONFIG = "embedded.mongodb.port";
    public static final String EMBEDDED_MONGODB_PORT_DOC =
            "Embedded stack: port of the MongoDB stand-in; 0 picks a" + " free port.";
    public static final int EMBEDDED_MONGODB_PORT_DEFAULT = 27017;

    public static final String EMBEDDED_MONGODB_VERSION_CONFIG = "embedded.mongodb.version";
    public static final String EMBEDDED_MONGODB_VERSION_DOC = "Embedded stack: the MongoDB release the stand-in"
            + " plays: 5.0, 6.0, 7.0 or 8.0. It reports that release in buildInfo and hello (maxWireVersion 13, 17, 21,"
            + " 25) and refuses what the release lacks as it does: before 6.0, fullDocumentBeforeChange and"
            + " showExpandedEvents in $changeStream, changeStreamPreAndPostImages in create and collMod, and the"
            + " cluster-parameter commands. Otherwise it behaves alike in every release.";
    public static final String EMBEDDED_MONGODB_VERSION_DEFAULT = "7.0";

    public static final String EMBEDDED_MONGODB_CURSOR_TIMEOUT_MS_CONFIG = "embedded.mongodb.cursor.timeout.ms";
    public static final String EMBEDDED_MONGODB_CURSOR_TIMEOUT_MS_DOC = "Embedded stack: how long a cursor of the"
            + " MongoDB stand-in may stay idle (no getMore) before it is killed and a getMore of it answers"
            + " CursorNotFound (43), as MongoDB's cursorTimeoutMillis. Cursors opened with noCursorTimeout are exempt.";
    public static final long EMBEDDED_MONGODB_CURSOR_TIMEOUT_MS_DEFAULT = 600_000L;

    public static final String EMBEDDED_MONGODB_CLOCK_OFFSET_MS_CONFIG = "embedded.mongodb.clock.offset.ms";
    public static final String EMBEDDED_MONGODB_CLOCK_OFFSET_MS_DOC = "Embedded stack: how far the MongoDB"
            + " stand-in's clock is off the machine's, in milliseconds, positive ahead and negative behind: every time"
            + " it stamps (clusterTime, wallTime, operationTime, $$NOW, hello's localTime) follows it, as on a primary"
            + " whose clock is off the Connect worker's.";
    public static final long EMBEDDED_MONGODB_CLOCK_OFFSET_MS_DEFAULT = 0L;

    public static final String EMBEDDED_KAFKA_PORT_CONFIG = "embedded.kafka.port";
    public static final String EMBEDDED_KAFKA_PORT_DOC =
            "Embedded stack: port of the Kafka broker; 0 picks a free" + " port.";
    public static final int EMBEDDED_KAFKA_PORT_DEFAULT = 9092;

    public static final String EMBEDDED_CONNECT_PORT_CONFIG = "embedded.connect.port";
    public static final String EMBEDDED_CONNECT_PORT_DOC =
            "Embedded stack: port of the Kafka Connect REST API; 0" + " picks a free port.";
    public static final int EMBEDDED_CONNECT_PORT_DEFAULT = 8083;

    public static final String EMBEDDED_DATA_DIR_CONFIG = "embedded.data.dir";
    public static final String EMBEDDED_DATA_DIR_DOC = "Embedded stack: directory for the broker's and Connect's data;"
            + " empty for a fresh temporary directory.";
    public static final String EMBEDDED_DATA_DIR_DEFAULT = "";

    public static final String EMBEDDED_PARTITIONS_CONFIG = "embedded.partitions";
    public static final String EMBEDDED_PARTITIONS_DOC = "Embedded stack: partitions of every topic it creates (and"
            + " the broker's default for others), so that several processor instances can share the work.";
    public static final int EMBEDDED_PARTITIONS_DEFAULT = 2;

    public static final String EMBEDDED_PROFILE_CONFIG = "embedded.profile";
    public static final String EMBEDDED_PROFILE_DOC = "Embedded stack: the service the MongoDB stand-in plays. mongodb,"
            + " or cosmosdb: an emulation of Cosmos DB's documented change-stream constraints (collection watches"
            + " only, its required $match and $project, so no delete events), with the processor in"
            + " ttl.source.profile=cosmosdb confirming by read-back. Not Cosmos DB itself.";
    public static final String EMBEDDED_PROFILE_DEFAULT = "mongodb";

    public static final String EMBEDDED_KAFKA_SECURITY_CONFIG = "embedded.kafka.security";
    public static final String EMBEDDED_KAFKA_SECURITY_DOC = "Embedded stack: none, or scram-acls: the broker"
            + " authenticates every client with SCRAM-SHA-512 on a SASL_PLAINTEXT listener and authorizes it with"
            + " Kafka's StandardAuthorizer (allow.everyone.if.no.acl.found=false), with exactly the users and ACLs"
            + " ttl-streams platform renders for this configuration. The Connect worker (distributed, group"
            + " ttl-connect), the source and sink connectors, the processor, resync and approve each log in as their"
            + " own user, their credentials in <data dir>/kafka-users/<user>/ (sasl.jaas.config, password), owner"
            + " only; the stack's set-up alone uses a separate loopback listener as the super user.";
    public static final String EMBEDDED_KAFKA_SECURITY_DEFAULT = KafkaSecurity.NONE.configValue();

    public static final String EMBEDDED_KAFKA_BROKERS_CONFIG = "embedded.kafka.brokers";
    public static final String EMBEDDED_KAFKA_BROKERS_DOC = "Embedded stack: Kafka brokers. 1 runs one KRaft node that"
            + " is broker and controller, every topic with one replica. More run that many broker-only nodes beside a"
            + " quorum of three controller-only nodes (which survives the loss of any one, the active controller"
            + " included), every topic, internal ones and Kafka Streams' included, at replication factor min(3,"
            + " brokers) and min.insync.replicas as ttl-streams platform renders it (2 from three brokers on). The"
            + " first broker listens on embedded.kafka.port, the others on free ports. Only 1 with"
            + " embedded.kafka.security=scram-acls.";
    public static final int EMBEDDED_KAFKA_BROKERS_DEFAULT = 1;

    /** Port validity, as for the processor's own ports: 0 picks a free one. */
    private static final Range PORT = Range.between(0, 65535);

    /** For {@link java.util.ServiceLoader}. */
    public EmbeddedOptions() {}

    @Override
    public void embedInto(ConfigDef definition) {
        new OptionGroup(definition, GROUP)
                .define(
                        EMBEDDED_MONGODB_PORT_CONFIG,
                        Type.INT,
                        EMBEDDED_MONGODB_PORT_DEFAULT,
                        PORT,
                        Importance.LOW,
                        EMBEDDED_MONGODB_PORT_DOC)
                .define(
                        EMBEDDED_MONGODB_VERSION_CONFIG,
                        Type.STRING,
                        EMBEDDED_MONGODB_VERSION_DEFAULT,
                        ConfigDef.ValidString.in(ServerVersion.configValues().toArray(String[]::new)),
                        Importance.LOW,
                        EMBEDDED_MONGODB_VERSION_DOC)
                .define(
                        EMBEDDED_MONGODB_CURSOR_TIMEOUT_MS_CONFIG,
                        Type.LONG,
                        EMBEDDED_MONGODB_CURSOR_TIMEOUT_MS_DEFAULT,
                        Range.between(1L, Duration.ofDays(1).toMillis()),
                        Importance.LOW,
                        EMBEDDED_MONGODB_CURSOR_TIMEOUT_MS_DOC)
                .define(
                        EMBEDDED_MONGODB_CLOCK_OFFSET_MS_CONFIG,
                        Type.LONG,
                        EMBEDDED_MONGODB_CLOCK_OFFSET_MS_DEFAULT,
                        Range.between(
                                -Duration.ofDays(365).toMillis(),
                                Duration.ofDays(365).toMillis()),
                        Importance.LOW,
                        EMBEDDED_MONGODB_CLOCK_OFFSET_MS_DOC)
                .define(
                        EMBEDDED_KAFKA_PORT_CONFIG,
                        Type.INT,
                        EMBEDDED_KAFKA_PORT_DEFAULT,
                        PORT,
                        Importance.LOW,
                        EMBEDDED_KAFKA_PORT_DOC)
                .define(
                        EMBEDDED_CONNECT_PORT_CONFIG,
                        Type.INT,
                        EMBEDDED_CONNECT_PORT_DEFAULT,
                        PORT,
                        Importance.LOW,
                        EMBEDDED_CONNECT_PORT_DOC)
                .define(
                        EMBEDDED_DATA_DIR_CONFIG,
                        Type.STRING,
                        EMBEDDED_DATA_DIR_DEFAULT,
                        null,
                        Importance.LOW,
                        EMBEDDED_DATA_DIR_DOC)
                .define(
                        EMBEDDED_PARTITIONS_CONFIG,
                        Type.INT,
                        EMBEDDED_PARTITIONS_DEFAULT,
                        Range.between(1, 1000),
                        Importance.LOW,
                        EMBEDDED_PARTITIONS_DOC)
                .define(
                        EMBEDDED_PROFILE_CONFIG,
                        Type.STRING,
                        EMBEDDED_PROFILE_DEFAULT,
                        ConfigDef.ValidString.in(
                                SourceProfile.MONGODB.configValue(), SourceProfile.COSMOSDB.configValue()),
                        Importance.LOW,
                        EMBEDDED_PROFILE_DOC)
                .define(
                        EMBEDDED_KAFKA_BROKERS_CONFIG,
                        Type.INT,
                        EMBEDDED_KAFKA_BROKERS_DEFAULT,
                        Range.between(1, 9),
                        Importance.LOW,
                        EMBEDDED_KAFKA_BROKERS_DOC)
                .define(
                        EMBEDDED_KAFKA_SECURITY_CONFIG,
                        Type.STRING,
                        EMBEDDED_KAFKA_SECURITY_DEFAULT,
                        ConfigDef.ValidString.in(
                                KafkaSecurity.NONE.configValue(), KafkaSecurity.SCRAM_ACLS.configValue()),
                        Importance.LOW,
                        EMBEDDED_KAFKA_SECURITY_DOC);
    }

    public static int mongodbPort(TtlStreamsConfig config) {
        return config.getInt(EMBEDDED_MONGODB_PORT_CONFIG);
    }

    /** How the MongoDB stand-in plays MongoDB. */
    public static StandInSettings standIn(TtlStreamsConfig config) {
        return new StandInSettings(
                ServerVersion.of(config.getString(EMBEDDED_MONGODB_VERSION_CONFIG)),
                Duration.ofMillis(config.getLong(EMBEDDED_MONGODB_CURSOR_TIMEOUT_MS_CONFIG)),
                Duration.ofMillis(config.getLong(EMBEDDED_MONGODB_CLOCK_OFFSET_MS_CONFIG)));
    }

    public static int kafkaPort(TtlStreamsConfig config) {
        return config.getInt(EMBEDDED_KAFKA_PORT_CONFIG);
    }

    public static int connectPort(TtlStreamsConfig config) {
        return config.getInt(EMBEDDED_CONNECT_PORT_CONFIG);
    }

    /** The embedded stack's data directory; empty for a fresh temporary one. */
    public static Optional<Path> dataDir(TtlStreamsConfig config) {
        String dir = config.getString(EMBEDDED_DATA_DIR_CONFIG);
        return dir == null || dir.isBlank() ? Optional.empty() : Optional.of(Path.of(dir));
    }

    /** Partitions of the topics the embedded stack creates. */
    public static int partitions(TtlStreamsConfig config) {
        return config.getInt(EMBEDDED_PARTITIONS_CONFIG);
    }

    /** How many Kafka brokers the embedded stack runs. */
    public static int kafkaBrokers(TtlStreamsConfig config) {
        return config.getInt(EMBEDDED_KAFKA_BROKERS_CONFIG);
    }

    /** Whether the embedded broker authenticates its clients and enforces the plan's ACLs. */
    public static KafkaSecurity kafkaSecurity(TtlStreamsConfig config) {
        return KafkaSecurity.of(config.getString(EMBEDDED_KAFKA_SECURITY_CONFIG));
    }

    /** The service the stand-in plays. */
    public static SourceProfile profile(TtlStreamsConfig config) {
        String value = config.getString(EMBEDDED_PROFILE_CONFIG);
        return value.equals(SourceProfile.COSMOSDB.configValue()) ? SourceProfile.COSMOSDB : SourceProfile.MONGODB;
    }
}
