package io.ttlstreams.processor;

import io.ttlstreams.contract.SinkRefusal;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Why the sink connector dead-lettered a delete command, as the processor counts it: the sink guard's {@link
 * SinkRefusal} labels, plus what else can put a command into {@code ttl.sink.dlq}. A closed set, so that the metric
 * tagged with it stays small whatever the records say. Each comes with the first thing to check, for the one ERROR
 * line the processor logs per reason.
 */
enum SinkDeadLetterReason {
    SIGNATURE(
            SinkRefusal.SIGNATURE,
            "the processor's ttl.command.signing.key is missing or differs from the sink guard's signing.key"),
    FORMAT(
            SinkRefusal.FORMAT,
            "the sink's converters: StringConverter for key and value, ByteArrayConverter"
                    + " for headers (connect-config renders them)"),
    GRAMMAR(
            SinkRefusal.GRAMMAR,
            "the processor and sink guard versions, or a writer of ttl.deletes other than" + " the processor"),
    NAMESPACE(
            SinkRefusal.NAMESPACE,
            "the guard's allowed.namespaces lag the rules: register the sink again (run, or connect-config)"),
    NOT_DUE(SinkRefusal.NOT_DUE, "the processor's clock runs ahead of the Connect worker's (NTP on both)"),
    NO_ISSUE_TIME(
            SinkRefusal.NO_ISSUE_TIME,
            "a writer of ttl.deletes other than this processor (every command it sends has an issue time)"),
    STALE(
            SinkRefusal.STALE,
            "the sink lagged more than command.max.age.ms behind the processor; unconfirmed"
                    + " documents get fresh commands from the confirmation retries"),
    ISSUED_AHEAD(SinkRefusal.ISSUED_AHEAD, "the processor's clock runs ahead of the Connect worker's (NTP on both)"),
    /** A refusal of a guard that wrote no label yet (an older sink-guard jar). */
    GUARD("guard", "the reason in the record's __connect.errors.exception.message header", false),
    /**
     * MongoDB applied the write but could not confirm it at the sink's write concern in time (mongo-kafka parks every
     * command of such a batch, with no write error of its own, as {@code dlq.WriteConcernException}): not the command's
     * own failure, and it may yet be deleted; its confirmation decides.
     */
    WRITE_CONCERN(
            "write-concern",
            "the replica set's members (down or lagging, so the sink's w:majority is not met in time) and the sink's"
                    + " writeConcern in its connection string; unconfirmed commands wait, spending no attempt",
            true),
    /**
     * The sink could not reach MongoDB (no primary, a socket error, a refused login), from a sink that parks such
     * failures (errors.tolerance=all without mongo.errors.tolerance=data): not the command's own failure.
     */
    UNREACHABLE(
            "unreachable",
            "MongoDB's availability from the Connect workers, and the sink's mongo.errors.tolerance=data (connect-config"
                    + " renders it), with which such a failure fails the task to be restarted instead of parking the"
                    + " commands",
            true),
    /** MongoDB refused the delete (authorisation, a failed write). */
    MONGODB("mongodb", "the sink's MongoDB user may remove on the TTL namespaces; the cluster's health", false),
    /** Anything else the sink connector dead-lettered, or a record without Connect's error headers. */
    OTHER(
            "other",
            "the record's __connect.errors.* headers (errors.deadletterqueue.context.headers.enable=true)",
            false);

    /** Connect's dead-letter header holding the failure's message. */
    static final String MESSAGE_HEADER = "__connect.errors.exception.message";
    /** Connect's dead-letter header holding the failure's exception class. */
    static final String EXCEPTION_HEADER = "__connect.errors.exception.class.name";

    /** The exception mongo-kafka (2.0.1, {@code AnalyzedBatchFailedWithBulkWriteException}) parks such records with. */
    private static final String SINK_WRITE_CONCERN = "com.mongodb.kafka.connect.sink.dlq.WriteConcernException";
    /** The driver's, for a single write's write-concern error. */
    private static final String DRIVER_WRITE_CONCERN = "com.mongodb.MongoWriteConcernException";
    /** The driver's exceptions for a MongoDB it cannot reach or write: socket ones by this prefix. */
    private static final String DRIVER_SOCKET = "com.mongodb.MongoSocket";

    private static final Set<String> DRIVER_UNREACHABLE = Set.of(
            "com.mongodb.MongoTimeoutException",
            "com.mongodb.MongoNotPrimaryException",
            "com.mongodb.MongoNodeIsRecoveringException",
            "com.mongodb.MongoSecurityException",
            "com.mongodb.MongoConnectionPoolClearedException");

    private final String label;
    private final SinkRefusal refusal;
    private final String check;
    private final boolean notTheCommands;

    SinkDeadLetterReason(SinkRefusal refusal, String check) {
        this.label = refusal.label();
        this.refusal = refusal;
        this.check = check;
        this.notTheCommands = false;
    }

    SinkDeadLetterReason(String label, String check, boolean notTheCommands) {
        this.label = label;
        this.refusal = null;
        this.check = check;
        this.notTheCommands = notTheCommands;
    }

    /** The label, as the metric's {@code reason} tag. */
    String label() {
        return label;
    }

    /** What to check first. */
    String check() {
        return check;
    }

    /**
     * Whether the write failed for a reason that is not the command's own (MongoDB's state, not what the command
     * says): the sink then does not count as writing ({@link SinkWriteFailures}), and the command is not refused.
     */
    boolean notTheCommands() {
        return notTheCommands;
    }

    /**
     * The reason of a dead letter with Connect's headers {@code message} and {@code exceptionClass}, either null when
     * absent.
     */
    static SinkDeadLetterReason of(String message, String exceptionClass) {
        if (message != null) {
            Optional<SinkRefusal> refusal = SinkRefusal.of(message);
            for (SinkDeadLetterReason reason : values()) {
                if (refusal.isPresent() && reason.refusal == refusal.get()) {
                    return reason;
                }
            }
            if (message.startsWith(SinkRefusal.PREFIX)) {
                return GUARD;
            }
        }
        if (exceptionClass == null) {
            return OTHER;
        }
        if (exceptionClass.equals(SINK_WRITE_CONCERN) || exceptionClass.equals(DRIVER_WRITE_CONCERN)) {
            return WRITE_CONCERN;
        }
        if (exceptionClass.startsWith(DRIVER_SOCKET) || DRIVER_UNREACHABLE.contains(exceptionClass)) {
            return UNREACHABLE;
        }
        if (exceptionClass.toLowerCase(Locale.ROOT).startsWith("com.mongodb")) {
            return MONGODB;
        }
        return OTHER;
    }
}
