package io.ttlstreams.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/** The options of the embedded local stack behind {@code run --embedded}: its ports, data directory and partitions. */
public final class EmbeddedOptions {

    private static final String GROUP = "Embedded local stack";

    public static final String EMBEDDED_MONGODB_PORT_CONFIG = "embedded.mongodb.port";
    public static final String EMBEDDED_MONGODB_PORT_DOC =
            "Embedded stack: port of the MongoDB stand-in; 0 picks a" + " free port.";
    public static final int EMBEDDED_MONGODB_PORT_DEFAULT = 27017;

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

    private EmbeddedOptions() {}

    static void embedInto(ConfigDef definition) {
        new OptionGroup(definition, GROUP)
                .define(
                        EMBEDDED_MONGODB_PORT_CONFIG,
                        Type.INT,
                        EMBEDDED_MONGODB_PORT_DEFAULT,
                        Validators.port(),
                        Importance.LOW,
                        EMBEDDED_MONGODB_PORT_DOC)
                .define(
                        EMBEDDED_KAFKA_PORT_CONFIG,
                        Type.INT,
                        EMBEDDED_KAFKA_PORT_DEFAULT,
                        Validators.port(),
                        Importance.LOW,
                        EMBEDDED_KAFKA_PORT_DOC)
                .define(
                        EMBEDDED_CONNECT_PORT_CONFIG,
                        Type.INT,
                        EMBEDDED_CONNECT_PORT_DEFAULT,
                        Validators.port(),
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
                        EMBEDDED_PARTITIONS_DOC);
    }
}
