package io.ttlstreams.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/** The options of resync: the MongoDB deployment read, the periodic sweep and its batches. */
public final class ResyncOptions {

    private static final String GROUP = "Resync";

    public static final String MONGODB_URI_CONFIG = "ttl.mongodb.uri";
    public static final String MONGODB_URI_DOC = "MongoDB connection string from which ttl-streams resync, the"
            + " periodic sweep and the read-back of unconfirmed deletes (ttl.confirm.mode) read the rules'"
            + " documents (mongodb:// or mongodb+srv://); its user needs the find action on the rules' namespaces. It"
            + " carries credentials: never printed or logged, and a config provider reference such as"
            + " ${file:/secrets/mongo.properties:uri} keeps it out of this file. Empty: no resync, no read-back.";

    public static final String RESYNC_INTERVAL_MS_CONFIG = "ttl.resync.interval.ms";
    public static final String RESYNC_INTERVAL_MS_DOC = "Periodic sweep: every this many milliseconds (counted from"
            + " the end of the previous sweep) run re-reads every rule's documents from ttl.mongodb.uri and publishes"
            + " them as resync events, as ttl-streams resync does, for deployments where the change stream may lose"
            + " events (a lost resume token, a processor started after the events' retention). The first sweep comes"
            + " one interval after start-up. 0: off.";
    public static final long RESYNC_INTERVAL_MS_DEFAULT = 0L;

    public static final String RESYNC_BATCH_SIZE_CONFIG = "ttl.resync.batch.size";
    public static final String RESYNC_BATCH_SIZE_DOC = "Documents a resync reads from MongoDB per batch; each batch"
            + " is stamped with a cluster time taken just before it is read.";
    public static final int RESYNC_BATCH_SIZE_DEFAULT = 1_000;

    public static final String REWRITE_CHECK_INTERVAL_MS_CONFIG = "ttl.resync.rewrite.check.interval.ms";
    public static final String REWRITE_CHECK_INTERVAL_MS_DOC = "Automatic resync after a rewrite: every this many"
            + " milliseconds run lists the collections of the rules' databases on ttl.mongodb.uri (the listCollections"
            + " action) and compares each covered collection's UUID with the last list's. A collection that appeared or"
            + " whose UUID changed was replaced ($out, a rename into it) or dropped and"
            + " re-created (drop, dropDatabase), which the change stream does not report to the processor, or reports"
            + " before it restarts without its resume token: it is resynced, alone, ttl.resync.rewrite.delay.ms later."
            + " 0: off. Needs ttl.mongodb.uri; without it, off.";
    public static final long REWRITE_CHECK_INTERVAL_MS_DEFAULT = 5_000L;

    public static final String REWRITE_DELAY_MS_CONFIG = "ttl.resync.rewrite.delay.ms";
    public static final String REWRITE_DELAY_MS_DOC = "How long after a rewrite is seen its collection's automatic"
            + " resync waits, so that the source connector's change stream, restarted without its resume token after"
            + " an invalidate, is open again when the collection is read: writes after the read then arrive as change"
            + " events. Longer than the connector's poll.await.time.ms (5000 by default) plus one poll; a later"
            + " rewrite of the same collection moves its resync later again.";
    public static final long REWRITE_DELAY_MS_DEFAULT = 15_000L;

    public static final String REWRITE_MAX_DOCUMENTS_CONFIG = "ttl.resync.rewrite.max.documents";
    public static final String REWRITE_MAX_DOCUMENTS_DOC = "The largest collection, by its estimated document count,"
            + " an automatic resync reads; a larger one is left out with a WARN naming it (run ttl-streams resync"
            + " --namespace for it when MongoDB can afford the read).";
    public static final long REWRITE_MAX_DOCUMENTS_DEFAULT = 1_000_000L;

    private ResyncOptions() {}

    static void embedInto(ConfigDef definition) {
        new OptionGroup(definition, GROUP)
                .define(
                        MONGODB_URI_CONFIG,
                        Type.PASSWORD,
                        null, // no resync, no read-back
                        Validators.nullOr(Validators.mongodbUri()),
                        Importance.MEDIUM,
                        MONGODB_URI_DOC)
                .define(
                        RESYNC_INTERVAL_MS_CONFIG,
                        Type.LONG,
                        RESYNC_INTERVAL_MS_DEFAULT,
                        Range.atLeast(0),
                        Importance.LOW,
                        RESYNC_INTERVAL_MS_DOC)
                .define(
                        RESYNC_BATCH_SIZE_CONFIG,
                        Type.INT,
                        RESYNC_BATCH_SIZE_DEFAULT,
                        Range.atLeast(1),
                        Importance.LOW,
                        RESYNC_BATCH_SIZE_DOC)
                .define(
                        REWRITE_CHECK_INTERVAL_MS_CONFIG,
                        Type.LONG,
                        REWRITE_CHECK_INTERVAL_MS_DEFAULT,
                        Range.atLeast(0),
                        Importance.LOW,
                        REWRITE_CHECK_INTERVAL_MS_DOC)
                .define(
                        REWRITE_DELAY_MS_CONFIG,
                        Type.LONG,
                        REWRITE_DELAY_MS_DEFAULT,
                        Range.atLeast(0),
                        Importance.LOW,
                        REWRITE_DELAY_MS_DOC)
                .define(
                        REWRITE_MAX_DOCUMENTS_CONFIG,
                        Type.LONG,
                        REWRITE_MAX_DOCUMENTS_DEFAULT,
                        Range.atLeast(1),
                        Importance.LOW,
                        REWRITE_MAX_DOCUMENTS_DOC);
    }
}
