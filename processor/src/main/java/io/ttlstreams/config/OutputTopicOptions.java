package io.ttlstreams.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/** The options of the topics the processor writes: delete commands, audit events, expired records, dead letters, control events. */
public final class OutputTopicOptions {

    private static final String GROUP = "Output topics";

    public static final String DELETE_TOPIC_CONFIG = "ttl.delete.topic";
    public static final String DELETE_TOPIC_DOC =
            "Topic of the delete commands, which the MongoDB sink connector" + " applies.";
    public static final String DELETE_TOPIC_DEFAULT = "ttl.deletes";

    public static final String AUDIT_TOPIC_CONFIG = "ttl.audit.topic";
    public static final String AUDIT_TOPIC_DOC = "Topic of an audit event per expiry; empty disables auditing.";
    public static final String AUDIT_TOPIC_DEFAULT = "";

    public static final String EXPIRED_TOPIC_CONFIG = "ttl.expired.topic";
    public static final String EXPIRED_TOPIC_DOC = "Topic of the expired records: one JSON record per confirmed"
            + " expiry (namespace, key, rule, deadline, confirmation, and with ttl.rule.<name>.expired.document=pre-image"
            + " the document as it was just before its delete), keyed by the document key, exactly once; empty turns"
            + " them off. The contract is in docs/expiry-events.md.";
    public static final String EXPIRED_TOPIC_DEFAULT = "";

    public static final String DLQ_TOPIC_CONFIG = "ttl.dlq.topic";
    public static final String DLQ_TOPIC_DOC = "Dead-letter topic for change events that cannot be processed.";
    public static final String DLQ_TOPIC_DEFAULT = "ttl.dlq";

    public static final String CONTROL_TOPIC_CONFIG = "ttl.control.topic";
    public static final String CONTROL_TOPIC_DOC = "Topic that carries namespace-wide events (drop, dropDatabase,"
            + " rename, invalidate) to every task, so that each cancels its share of the namespace. Created at"
            + " start-up with as many partitions as the largest source topic.";
    public static final String CONTROL_TOPIC_DEFAULT = "ttl.control";

    public static final String TOPICS_CREATE_CONFIG = "ttl.topics.create";
    public static final String TOPICS_CREATE_DOC = "Whether start-up creates missing topics, with the settings"
            + " ttl-streams platform renders (partitions: the broker's default, ttl.control as many as the largest"
            + " source topic). false: nothing is created; every topic the processor uses must exist with those"
            + " settings, or start-up stops naming each topic, setting, expected and actual value.";
    public static final boolean TOPICS_CREATE_DEFAULT = true;

    private OutputTopicOptions() {}

    static void embedInto(ConfigDef definition) {
        new OptionGroup(definition, GROUP)
                .define(
                        DELETE_TOPIC_CONFIG,
                        Type.STRING,
                        DELETE_TOPIC_DEFAULT,
                        Validators.topic(),
                        Importance.HIGH,
                        DELETE_TOPIC_DOC)
                .define(
                        AUDIT_TOPIC_CONFIG,
                        Type.STRING,
                        AUDIT_TOPIC_DEFAULT,
                        Validators.blankOr(Validators.topic()),
                        Importance.MEDIUM,
                        AUDIT_TOPIC_DOC)
                .define(
                        EXPIRED_TOPIC_CONFIG,
                        Type.STRING,
                        EXPIRED_TOPIC_DEFAULT,
                        Validators.blankOr(Validators.topic()),
                        Importance.MEDIUM,
                        EXPIRED_TOPIC_DOC)
                .define(
                        DLQ_TOPIC_CONFIG,
                        Type.STRING,
                        DLQ_TOPIC_DEFAULT,
                        Validators.topic(),
                        Importance.MEDIUM,
                        DLQ_TOPIC_DOC)
                .define(
                        CONTROL_TOPIC_CONFIG,
                        Type.STRING,
                        CONTROL_TOPIC_DEFAULT,
                        Validators.topic(),
                        Importance.LOW,
                        CONTROL_TOPIC_DOC)
                .define(
                        TOPICS_CREATE_CONFIG,
                        Type.BOOLEAN,
                        TOPICS_CREATE_DEFAULT,
                        null,
                        Importance.MEDIUM,
                        TOPICS_CREATE_DOC);
    }
}
