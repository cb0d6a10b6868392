package io.ttlstreams.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The options of failure handling: how often a dying stream thread is replaced before the processor stops, and the
 * largest document key scheduled.
 */
public final class FailureHandlingOptions {

    private static final String GROUP = "Failure handling";

    public static final String THREAD_REPLACEMENTS_MAX_CONFIG = "ttl.thread.replacements.max";
    public static final String THREAD_REPLACEMENTS_MAX_DOC = "A stream thread that dies of an unexpected error is"
            + " replaced, resuming from its last commit, at most this many times within"
            + " ttl.thread.replacements.window.ms; one more failure stops the processor with a non-zero exit code,"
            + " for the orchestrator to restart it and an operator to notice. 0 stops at the first failure.";
    public static final int THREAD_REPLACEMENTS_MAX_DEFAULT = 3;

    public static final String THREAD_REPLACEMENTS_WINDOW_MS_CONFIG = "ttl.thread.replacements.window.ms";
    public static final String THREAD_REPLACEMENTS_WINDOW_MS_DOC =
            "The sliding window, in milliseconds, over which" + " ttl.thread.replacements.max counts thread failures.";
    public static final long THREAD_REPLACEMENTS_WINDOW_MS_DEFAULT = 300_000L;

    public static final String DOCUMENT_KEY_MAX_BYTES_CONFIG = "ttl.document.key.max.bytes";
    public static final String DOCUMENT_KEY_MAX_BYTES_DOC = "The largest document key, in bytes of BSON (as MongoDB's"
            + " $bsonSize counts), that ttl-streams schedules; a change event with a larger key is dead-lettered with"
            + " its size and never scheduled. A delete command carries the key twice, as extended JSON, and must fit"
            + " in one Kafka record; MongoDB itself allows _id values of up to the 16 MiB document limit. The"
            + " rendered source connectors drop such events already in the change stream (see connect-config/).";
    /** {@value #DOCUMENT_KEY_MAX_BYTES_CONFIG} unless configured: far above any real key, far below a record. */
    public static final int DOCUMENT_KEY_MAX_BYTES_DEFAULT = 16 * 1024;

    private FailureHandlingOptions() {}

    static void embedInto(ConfigDef definition) {
        new OptionGroup(definition, GROUP)
                .define(
                        THREAD_REPLACEMENTS_MAX_CONFIG,
                        Type.INT,
                        THREAD_REPLACEMENTS_MAX_DEFAULT,
                        Range.atLeast(0),
                        Importance.MEDIUM,
                        THREAD_REPLACEMENTS_MAX_DOC)
                .define(
                        THREAD_REPLACEMENTS_WINDOW_MS_CONFIG,
                        Type.LONG,
                        THREAD_REPLACEMENTS_WINDOW_MS_DEFAULT,
                        Range.atLeast(1),
                        Importance.LOW,
                        THREAD_REPLACEMENTS_WINDOW_MS_DOC)
                .define(
                        DOCUMENT_KEY_MAX_BYTES_CONFIG,
                        Type.INT,
                        DOCUMENT_KEY_MAX_BYTES_DEFAULT,
                        // 64 bytes hold any ObjectId, UUID or short compound key; 16 MiB is MongoDB's document limit.
                        Range.between(64, 16 * 1024 * 1024),
                        Importance.LOW,
                        DOCUMENT_KEY_MAX_BYTES_DOC);
    }
}
