package io.ttlstreams.config;

import io.ttlstreams.rules.ConfigValues;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The options of the scheduler: how often and how much each task punctuates, the delete throttle, how delete commands
 * await confirmation (read-back included), dry runs, and the blast-radius guard, which holds a rule's documents that
 * come due on arrival (their deadline had passed when the schedule learnt of it) once more of them arrive in a window
 * than the limit lets through, until an operator approves or rejects them. Each rule may override the guard's settings
 * ({@link RuleConfig}).
 */
public final class SchedulerOptions {

    /** The producer's {@code transaction.timeout.ms} Kafka Streams sets under exactly-once. */
    private static final long STREAMS_TRANSACTION_TIMEOUT_MS = 10_000;

    public static final String PUNCTUATE_INTERVAL_MS_CONFIG = "ttl.punctuate.interval.ms";
    public static final String PUNCTUATE_INTERVAL_MS_DOC = "How often, in milliseconds of wall-clock time, each task"
            + " looks for due documents; the main contributor to deletion latency.";
    public static final long PUNCTUATE_INTERVAL_MS_DEFAULT = 100L;

    public static final String PUNCTUATE_MAX_ENTRIES_CONFIG = "ttl.punctuate.max.entries";
    public static final String PUNCTUATE_MAX_ENTRIES_DOC = "At most this many schedule entries handled (delete"
            + " commands emitted or retried) per punctuation and task; with the time budget, what bounds how long a"
            + " mass expiry holds the task's other work.";
    public static final int PUNCTUATE_MAX_ENTRIES_DEFAULT = 100_000;

    public static final String PUNCTUATE_MAX_DURATION_MS_CONFIG = "ttl.punctuate.max.duration.ms";
    public static final String PUNCTUATE_MAX_DURATION_MS_DOC = "Time budget of one punctuation in milliseconds; the"
            + " rest of a backlog waits for the next one. Under exactly-once a stream thread punctuates all its tasks"
            + " in one transaction, so their punctuations share half the producer's transaction.timeout.ms (10 s in"
            + " Kafka Streams): each gets at most this budget and at most that half divided by the thread's tasks,"
            + " and start-up refuses a budget larger than the half.";
    public static final long PUNCTUATE_MAX_DURATION_MS_DEFAULT = 1_000L;

    public static final String MAX_DELETES_PER_SECOND_CONFIG = "ttl.max.deletes.per.second";
    public static final String MAX_DELETES_PER_SECOND_DOC = "Throttle for the whole application: at most this many"
            + " delete commands (retries included) in any one-second window, to spare the database when a mass expiry"
            + " comes due. Each task gets a whole share by its partition (the shares add up to this number), so it"
            + " must be at least the number of source partitions; start-up refuses a smaller value. Unset:"
            + " unthrottled.";

    public static final String OUTAGE_DELETES_PER_SECOND_CONFIG = "ttl.outage.deletes.per.second";
    public static final String OUTAGE_DELETES_PER_SECOND_DOC = "Pacing while MongoDB cannot be written: while the"
            + " sink does not write (its task FAILED, as the connector monitor sees it, or its dead letters report"
            + " write-concern errors or an unreachable MongoDB, both until ttl.connect.sink.recovery.ms after the"
            + " last), each task emits at most this many delete commands per second, probing, instead of its whole"
            + " backlog; once the sink writes again, each task's limit doubles every second until it exceeds what"
            + " the task can emit anyway (ttl.punctuate.max.entries per punctuation), so that a recovering primary"
            + " is not met by the whole backlog at once. Pacing only ever delays a command, never brings one"
            + " forward; ttl.max.deletes.per.second applies as well.";
    public static final int OUTAGE_DELETES_PER_SECOND_DEFAULT = 10;

    public static final String CONFIRM_TIMEOUT_MS_CONFIG = "ttl.confirm.timeout.ms";
    public static final String CONFIRM_TIMEOUT_MS_DOC = "How long, in milliseconds, a delete command awaits the change"
            + " stream's delete event before it is emitted again (same filter); each further wait doubles, up to an"
            + " hour.";
    public static final long CONFIRM_TIMEOUT_MS_DEFAULT = 30_000L;

    public static final String CONFIRM_MAX_ATTEMPTS_CONFIG = "ttl.confirm.max.attempts";
    public static final String CONFIRM_MAX_ATTEMPTS_DOC = "Delete commands emitted for one document, the first"
            + " included, before ttl-streams gives up on it: counted as deletes-unconfirmed, logged at WARN and"
            + " audited as UNCONFIRMED.";
    public static final int CONFIRM_MAX_ATTEMPTS_DEFAULT = 10;

    public static final String CONFIRM_MODE_CONFIG = "ttl.confirm.mode";
    public static final String CONFIRM_MODE_DOC = "How a delete command is confirmed. change-stream: by the"
            + " document's delete event only; one that does not come within ttl.confirm.timeout.ms gets the command"
            + " again. auto: as change-stream, but a late confirmation first reads the document back from"
            + " ttl.mongodb.uri (the primary, majority read concern): a document gone is confirmed; one still holding"
            + " the values its command pins gets the command again; one holding other values (renewed while its"
            + " event was lost) is scheduled by what it holds; a read that fails or goes unanswered within another"
            + " ttl.confirm.timeout.ms emits the command again. read-back: for sources that report no deletes, the"
            + " document is read back ttl.confirm.read.delay.ms after each command (doubling per attempt) with the"
            + " same verdicts, and a read that fails only delays the confirmation: it is read again, never counted as"
            + " an attempt. Unset: auto when ttl.mongodb.uri is set, else change-stream. auto and read-back need"
            + " ttl.mongodb.uri.";

    public static final String CONFIRM_READ_DELAY_MS_CONFIG = "ttl.confirm.read.delay.ms";
    public static final String CONFIRM_READ_DELAY_MS_DOC = "read-back mode: how long, in milliseconds, after a delete"
            + " command its document is first read back (the sink's usual time to apply it); each further attempt"
            + " doubles it, up to an hour.";
    public static final long CONFIRM_READ_DELAY_MS_DEFAULT = 2_000L;

    public static final String CONFIRM_READ_MAX_PER_SECOND_CONFIG = "ttl.confirm.read.max.per.second";
    public static final String CONFIRM_READ_MAX_PER_SECOND_DOC = "Read-back: at most this many look-ups (each of up"
            + " to ttl.confirm.read.batch.size documents) per second per instance, to spare the database; reads"
            + " beyond it wait in the queue.";
    public static final int CONFIRM_READ_MAX_PER_SECOND_DEFAULT = 50;

    public static final String CONFIRM_READ_BATCH_SIZE_CONFIG = "ttl.confirm.read.batch.size";
    public static final String CONFIRM_READ_BATCH_SIZE_DOC = "Read-back: at most this many documents of one"
            + " collection per look-up (find by _id with $in); the instance's requests wait in a queue of 20 such"
            + " batches, and one that does not fit is emitted again instead of read.";
    public static final int CONFIRM_READ_BATCH_SIZE_DEFAULT = 100;

    public static final String DRY_RUN_CONFIG = "ttl.dry.run";
    public static final String DRY_RUN_DOC = "Schedule and audit as usual but emit no delete command (audit outcome"
            + " DRY_RUN), so that a new rule can be watched before it deletes anything.";
    public static final boolean DRY_RUN_DEFAULT = false;

    public static final String GUARD_MAX_DUE_ON_ARRIVAL_CONFIG = "ttl.guard.max.due.on.arrival";
    public static final String GUARD_MAX_DUE_ON_ARRIVAL_DOC = "Per rule: at most this many documents due on arrival"
            + " (their deadline had already passed when the schedule learnt of it: a shortened offset, a resync of"
            + " old data, a unit mistake) are deleted within ttl.guard.window.ms; past it, the rule's due-on-arrival"
            + " documents are held (no delete command) until `ttl-streams approve --rule NAME` releases or rejects"
            + " them, while its deadlines that come due organically keep expiring. Each task allows its share by the"
            + " number of source partitions, at least 1. 0 turns the guard off; ttl.rule.<name>.guard.max.due.on.arrival"
            + " overrides it per rule.";
    public static final int GUARD_MAX_DUE_ON_ARRIVAL_DEFAULT = 1_000;

    public static final String GUARD_WINDOW_MS_CONFIG = "ttl.guard.window.ms";
    public static final String GUARD_WINDOW_MS_DOC = "The sliding window, in milliseconds, over which"
            + " ttl.guard.max.due.on.arrival counts; ttl.rule.<name>.guard.window.ms overrides it per rule.";
    public static final long GUARD_WINDOW_MS_DEFAULT = 60_000L;

    /** The shortest window: a sliding count over less than a second is no count of a mass. */
    static final long MIN_WINDOW_MS = 1_000L;

    private SchedulerOptions() {}

    static void embedInto(ConfigDef definition) {
        new OptionGroup(definition, "Scheduler")
                .define(
                        PUNCTUATE_INTERVAL_MS_CONFIG,
                        Type.LONG,
                        PUNCTUATE_INTERVAL_MS_DEFAULT,
                        Range.atLeast(1),
                        Importance.MEDIUM,
                        PUNCTUATE_INTERVAL_MS_DOC)
                .define(
                        PUNCTUATE_MAX_ENTRIES_CONFIG,
                        Type.INT,
                        PUNCTUATE_MAX_ENTRIES_DEFAULT,
                        Range.atLeast(1),
                        Importance.LOW,
                        PUNCTUATE_MAX_ENTRIES_DOC)
                .define(
                        PUNCTUATE_MAX_DURATION_MS_CONFIG,
                        Type.LONG,
                        PUNCTUATE_MAX_DURATION_MS_DEFAULT,
                        Range.atLeast(1),
                        Importance.LOW,
                        PUNCTUATE_MAX_DURATION_MS_DOC)
                .define(
                        MAX_DELETES_PER_SECOND_CONFIG,
                        Type.INT,
                        null, // unthrottled
                        Validators.nullOr(Range.atLeast(1)),
                        Importance.MEDIUM,
                        MAX_DELETES_PER_SECOND_DOC)
                .define(
                        OUTAGE_DELETES_PER_SECOND_CONFIG,
                        Type.INT,
                        OUTAGE_DELETES_PER_SECOND_DEFAULT,
                        Range.between(1, 1_000_000),
                        Importance.LOW,
                        OUTAGE_DELETES_PER_SECOND_DOC)
                .define(
                        CONFIRM_TIMEOUT_MS_CONFIG,
                        Type.LONG,
                        CONFIRM_TIMEOUT_MS_DEFAULT,
                        Range.atLeast(1),
                        Importance.MEDIUM,
                        CONFIRM_TIMEOUT_MS_DOC)
                .define(
                        CONFIRM_MAX_ATTEMPTS_CONFIG,
                        Type.INT,
                        CONFIRM_MAX_ATTEMPTS_DEFAULT,
                        Range.atLeast(1),
                        Importance.LOW,
                        CONFIRM_MAX_ATTEMPTS_DOC)
                .define(
                        CONFIRM_MODE_CONFIG,
                        Type.STRING,
                        null, // the profile's, by whether there is a MongoDB to read
                        Validators.nullOr(ConfigDef.ValidString.in(
                                ConfigValues.spellings(ConfirmMode.class).toArray(String[]::new))),
                        Importance.MEDIUM,
                        CONFIRM_MODE_DOC)
                .define(
                        CONFIRM_READ_DELAY_MS_CONFIG,
                        Type.LONG,
                        CONFIRM_READ_DELAY_MS_DEFAULT,
                        Range.between(1, 3_600_000),
                        Importance.LOW,
                        CONFIRM_READ_DELAY_MS_DOC)
                .define(
                        CONFIRM_READ_MAX_PER_SECOND_CONFIG,
                        Type.INT,
                        CONFIRM_READ_MAX_PER_SECOND_DEFAULT,
                        Range.between(1, 10_000),
                        Importance.LOW,
                        CONFIRM_READ_MAX_PER_SECOND_DOC)
                .define(
                        CONFIRM_READ_BATCH_SIZE_CONFIG,
                        Type.INT,
                        CONFIRM_READ_BATCH_SIZE_DEFAULT,
                        Range.between(1, 1_000),
                        Importance.LOW,
                        CONFIRM_READ_BATCH_SIZE_DOC)
                .define(DRY_RUN_CONFIG, Type.BOOLEAN, DRY_RUN_DEFAULT, null, Importance.MEDIUM, DRY_RUN_DOC);
        new OptionGroup(definition, "Blast-radius guard")
                .define(
                        GUARD_MAX_DUE_ON_ARRIVAL_CONFIG,
                        Type.INT,
                        GUARD_MAX_DUE_ON_ARRIVAL_DEFAULT,
                        Range.atLeast(0),
                        Importance.HIGH,
                        GUARD_MAX_DUE_ON_ARRIVAL_DOC)
                .define(
                        GUARD_WINDOW_MS_CONFIG,
                        Type.LONG,
                        GUARD_WINDOW_MS_DEFAULT,
                        Range.atLeast(MIN_WINDOW_MS),
                        Importance.MEDIUM,
                        GUARD_WINDOW_MS_DOC);
    }

    /**
     * Under exactly-once, a stream thread runs the punctuations of all its tasks inside its one open transaction (one
     * producer per thread): one that outlasts the producer's {@code transaction.timeout.ms} gets it aborted by the
     * broker, and the emitted commands with it. The thread's punctuations may take half the timeout, which leaves
     * room for the records processed around them. Empty under at-least-once, where no transaction bounds them.
     *
     * @param streams the Kafka Streams settings
     * @return how long one stream thread's punctuations may take in all between two commits
     * @throws ConfigException naming {@code transaction.timeout.ms} when it is not a number
     */
    static Optional<Duration> threadPunctuationMaxDuration(Properties streams) {
        if (StreamsConfig.AT_LEAST_ONCE.equals(streams.getProperty(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))) {
            return Optional.empty();
        }
        String timeout = transactionTimeout(streams);
        try {
            return Optional.of(Duration.ofMillis(Long.parseLong(timeout) / 2));
        } catch (NumberFormatException e) {
            throw new ConfigException(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, timeout, "Not a number");
        }
    }

    /** The producer's {@code transaction.timeout.ms} as written, Kafka Streams' own when unset. */
    private static String transactionTimeout(Properties streams) {
        return streams.getProperty(
                        StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG),
                        streams.getProperty(
                                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                                String.valueOf(STREAMS_TRANSACTION_TIMEOUT_MS)))
                .trim();
    }

    /**
     * Checks that one task's punctuation fits a thread's share of a transaction ({@link
     * #threadPunctuationMaxDuration}); a thread with more tasks splits that share among them as it runs.
     *
     * @param budget the configured {@value #PUNCTUATE_MAX_DURATION_MS_CONFIG}
     * @param streams the Kafka Streams settings
     * @throws ConfigException naming {@value #PUNCTUATE_MAX_DURATION_MS_CONFIG} when it does not fit
     */
    static void checkPunctuationFitsTransactions(long budget, Properties streams) {
        Optional<Duration> share = threadPunctuationMaxDuration(streams);
        if (share.isPresent() && budget > share.get().toMillis()) {
            throw new ConfigException(
                    PUNCTUATE_MAX_DURATION_MS_CONFIG,
                    budget,
                    "Under exactly-once a punctuation must end well within the transaction timeout: at most half of"
                            + " the producer's transaction.timeout.ms (" + transactionTimeout(streams) + " ms)");
        }
    }
}
