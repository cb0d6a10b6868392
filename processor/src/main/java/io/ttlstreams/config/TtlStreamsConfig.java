package io.ttlstreams.config;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.NamespacePattern;
import io.ttlstreams.contract.SigningKey;
import io.ttlstreams.processor.DeadLetterExceptionHandler;
import io.ttlstreams.processor.SendFailureHandler;
import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.rules.TtlRules;
import io.ttlstreams.secrets.BasicCredentials;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The ttl-streams configuration: the TTL rules, the topics, the scheduler's budget, the embedded stack's ports, and
 * the Kafka Streams settings, which are every key outside {@code ttl.} and {@code embedded.}.
 *
 * <p>Everything is validated when the object is built, and each {@link ConfigException} names the offending option:
 * a bad value, a missing required option, an option of the other TTL mode, or an unknown {@code ttl.*} or
 * {@code embedded.*} key (Kafka would ignore it, so that a typo would silently change what gets deleted).
 */
public final class TtlStreamsConfig extends AbstractConfig {

    private static final String RULES_GROUP = "Rules";
    private static final String SOURCE_GROUP = "Source topics";
    private static final String OUTPUT_GROUP = "Output topics";
    private static final String SCHEDULER_GROUP = "Scheduler";
    private static final String CONNECT_GROUP = "Kafka Connect";
    private static final String EMBEDDED_GROUP = "Embedded local stack";
    private static final String SECURITY_GROUP = "Security";
    private static final String FAILURE_GROUP = "Failure handling";
    private static final String RESYNC_GROUP = "Resync";
    private static final String OPERATIONS_GROUP = "HTTP and operations";

    public static final String RULES_CONFIG = "ttl.rules";
    public static final String RULES_DOC = "Names of the TTL rules, each configured under ttl.rule.<name>. (see the"
            + " rule options). Names use letters, digits, '-' and '_'.";

    public static final String SOURCE_TOPICS_CONFIG = "ttl.source.topics";
    public static final String SOURCE_TOPICS_DOC = "Change-event topics to read. Empty: derived from the rules'"
            + " namespaces as the MongoDB source connector names topics, <topic.prefix>.<db>.<coll> or <db>.<coll>"
            + " (a db.* rule then needs the topics listed here).";

    public static final String SOURCE_TOPIC_PREFIX_CONFIG = "ttl.source.topic.prefix";
    public static final String SOURCE_TOPIC_PREFIX_DOC =
            "The source connector's topic.prefix; empty when it has" + " none.";

    public static final String SOURCE_TOPIC_NAMESPACE_MAP_CONFIG = "ttl.source.topic.namespace.map";
    public static final String SOURCE_TOPIC_NAMESPACE_MAP_DOC = "Entries topic=db.coll for topics whose name does not"
            + " follow the connector's convention; used to find a topic's namespace, to check the ns its events"
            + " name, and to derive source topics.";

    public static final String EVENT_TIME_MAX_FUTURE_SKEW_MS_CONFIG = "ttl.event.time.max.future.skew.ms";
    public static final String EVENT_TIME_MAX_FUTURE_SKEW_MS_DOC = "How far, in milliseconds, a change event's"
            + " wallTime or clusterTime may lie after its record's timestamp (capped at the processor's clock) before"
            + " the event is dead-lettered as implausible: the clock skew between MongoDB and the source connector's"
            + " worker, plus the second a clusterTime rounds to. At most a day.";
    public static final long EVENT_TIME_MAX_FUTURE_SKEW_MS_DEFAULT = 30_000L;

    public static final String EVENT_TIME_MAX_LAG_MS_CONFIG = "ttl.event.time.max.lag.ms";
    public static final String EVENT_TIME_MAX_LAG_MS_DOC = "How far, in milliseconds, a change event's wallTime or"
            + " clusterTime may lie before its record's timestamp before the event is dead-lettered as implausible:"
            + " longer than the source connector can lag, which is bounded by the oplog window it resumes within.";
    public static final long EVENT_TIME_MAX_LAG_MS_DEFAULT = 7L * 24 * 60 * 60 * 1000;

    public static final String DELETE_TOPIC_CONFIG = "ttl.delete.topic";
    public static final String DELETE_TOPIC_DOC =
            "Topic of the delete commands, which the MongoDB sink connector" + " applies.";

    public static final String AUDIT_TOPIC_CONFIG = "ttl.audit.topic";
    public static final String AUDIT_TOPIC_DOC = "Topic of an audit event per expiry; empty disables auditing.";

    public static final String DLQ_TOPIC_CONFIG = "ttl.dlq.topic";
    public static final String DLQ_TOPIC_DOC = "Dead-letter topic for change events that cannot be processed.";

    public static final String CONTROL_TOPIC_CONFIG = "ttl.control.topic";
    public static final String CONTROL_TOPIC_DOC = "Topic that carries namespace-wide events (drop, dropDatabase,"
            + " rename, invalidate) to every task, so that each cancels its share of the namespace. Created at"
            + " start-up with as many partitions as the largest source topic.";

    public static final String PUNCTUATE_INTERVAL_MS_CONFIG = "ttl.punctuate.interval.ms";
    public static final String PUNCTUATE_INTERVAL_MS_DOC = "How often, in milliseconds of wall-clock time, each task"
            + " looks for due documents; the main contributor to deletion latency.";

    public static final String PUNCTUATE_MAX_ENTRIES_CONFIG = "ttl.punctuate.max.entries";
    public static final String PUNCTUATE_MAX_ENTRIES_DOC = "At most this many schedule entries handled (delete"
            + " commands emitted or retried) per punctuation and task; with the time budget, what bounds how long a"
            + " mass expiry holds the task's other work.";

    public static final String PUNCTUATE_MAX_DURATION_MS_CONFIG = "ttl.punctuate.max.duration.ms";
    public static final String PUNCTUATE_MAX_DURATION_MS_DOC = "Time budget of one punctuation in milliseconds; the"
            + " rest of a backlog waits for the next one. Under exactly-once it must stay below half the producer's"
            + " transaction.timeout.ms (10 s in Kafka Streams), or a long punctuation would abort its transaction;"
            + " start-up refuses a larger value.";

    public static final String MAX_DELETES_PER_SECOND_CONFIG = "ttl.max.deletes.per.second";
    public static final String MAX_DELETES_PER_SECOND_DOC = "Throttle for the whole application: at most this many"
            + " delete commands (retries included) in any one-second window, to spare the database when a mass expiry"
            + " comes due. Each task gets a whole share by its partition (the shares add up to this number), so it"
            + " must be at least the number of source partitions; start-up refuses a smaller value. Unset:"
            + " unthrottled.";

    public static final String CONFIRM_TIMEOUT_MS_CONFIG = "ttl.confirm.timeout.ms";
    public static final String CONFIRM_TIMEOUT_MS_DOC = "How long, in milliseconds, a delete command awaits the change"
            + " stream's delete event before it is emitted again (same filter); each further wait doubles, up to an"
            + " hour.";

    public static final String CONFIRM_MAX_ATTEMPTS_CONFIG = "ttl.confirm.max.attempts";
    public static final String CONFIRM_MAX_ATTEMPTS_DOC = "Delete commands emitted for one document, the first"
            + " included, before ttl-streams gives up on it: counted as deletes-unconfirmed, logged at WARN and"
            + " audited as UNCONFIRMED.";

    public static final String CONFIRM_READ_BACK_CONFIG = "ttl.confirm.read.back";
    public static final String CONFIRM_READ_BACK_DOC = "When a delete command awaits its delete event longer than"
            + " ttl.confirm.timeout.ms, read the document back from ttl.mongodb.uri (the primary, majority read"
            + " concern) before emitting it again: a document gone is confirmed; one still holding the values its"
            + " command pins gets the command again; one holding other values (renewed while its event was lost, or"
            + " scheduled from an event that claimed values it never held) is scheduled by what it holds. A read that"
            + " fails or is not answered within another ttl.confirm.timeout.ms emits the command again, as without"
            + " read-back. Takes effect only with ttl.mongodb.uri set; true without it fails at start-up.";

    public static final String CONFIRM_READ_BATCH_SIZE_CONFIG = "ttl.confirm.read.batch.size";
    public static final String CONFIRM_READ_BATCH_SIZE_DOC = "Read-back: at most this many documents of one"
            + " collection per look-up (find by _id with $in); the instance's requests wait in a queue of 20 such"
            + " batches, and one that does not fit is emitted again instead of read.";

    public static final String DRY_RUN_CONFIG = "ttl.dry.run";
    public static final String DRY_RUN_DOC = "Schedule and audit as usual but emit no delete command (audit outcome"
            + " DRY_RUN), so that a new rule can be watched before it deletes anything.";

    public static final String CONNECT_URL_CONFIG = "ttl.connect.url";
    public static final String CONNECT_URL_DOC = "REST URL of the Kafka Connect cluster whose connectors ttl-streams"
            + " manages; empty for none. User info (http://user:password@host:8083, percent-encoded) is sent as HTTP"
            + " Basic authentication and never printed.";

    public static final String CONNECT_USERNAME_CONFIG = "ttl.connect.username";
    public static final String CONNECT_USERNAME_DOC = "User name for HTTP Basic authentication to the Kafka Connect"
            + " REST API, with ttl.connect.password; instead of user info in ttl.connect.url, not besides it.";

    public static final String CONNECT_PASSWORD_CONFIG = "ttl.connect.password";
    public static final String CONNECT_PASSWORD_DOC = "Password for HTTP Basic authentication to the Kafka Connect"
            + " REST API, with ttl.connect.username. Never printed or logged; a config provider reference such as"
            + " ${file:/secrets/connect.properties:password} keeps it out of this file.";

    public static final String EMBEDDED_MONGODB_PORT_CONFIG = "embedded.mongodb.port";
    public static final String EMBEDDED_MONGODB_PORT_DOC =
            "Embedded stack: port of the MongoDB stand-in; 0 picks a" + " free port.";

    public static final String EMBEDDED_KAFKA_PORT_CONFIG = "embedded.kafka.port";
    public static final String EMBEDDED_KAFKA_PORT_DOC =
            "Embedded stack: port of the Kafka broker; 0 picks a free" + " port.";

    public static final String EMBEDDED_CONNECT_PORT_CONFIG = "embedded.connect.port";
    public static final String EMBEDDED_CONNECT_PORT_DOC =
            "Embedded stack: port of the Kafka Connect REST API; 0" + " picks a free port.";

    public static final String EMBEDDED_DATA_DIR_CONFIG = "embedded.data.dir";
    public static final String EMBEDDED_DATA_DIR_DOC = "Embedded stack: directory for the broker's and Connect's data;"
            + " empty for a fresh temporary directory.";

    /** The producer's {@code transaction.timeout.ms} Kafka Streams sets under exactly-once. */
    private static final long STREAMS_TRANSACTION_TIMEOUT_MS = 10_000;

    public static final String COMMAND_SIGNING_KEY_CONFIG = "ttl.command.signing.key";
    public static final String COMMAND_SIGNING_KEY_DOC = "Secret with which the processor signs every delete command"
            + " (HMAC-SHA256 over key and value, in the headers ttl.signature and ttl.signature.key.id), so that the"
            + " sink guard applies only commands the processor made. At least 32 bytes, e.g. from openssl rand -base64"
            + " 48. Keep it out of this file: with config.providers=file (and config.providers.file.class="
            + "org.apache.kafka.common.config.provider.FileConfigProvider) write ${file:/secrets/ttl-signing.properties:key},"
            + " or use the env provider. Unset: commands are unsigned, and a guarded sink refuses them.";
    public static final String EMBEDDED_PARTITIONS_CONFIG = "embedded.partitions";
    public static final String EMBEDDED_PARTITIONS_DOC = "Embedded stack: partitions of every topic it creates (and"
            + " the broker's default for others), so that several processor instances can share the work.";

    public static final String THREAD_REPLACEMENTS_MAX_CONFIG = "ttl.thread.replacements.max";
    public static final String THREAD_REPLACEMENTS_MAX_DOC = "A stream thread that dies of an unexpected error is"
            + " replaced, resuming from its last commit, at most this many times within"
            + " ttl.thread.replacements.window.ms; one more failure stops the processor with a non-zero exit code,"
            + " for the orchestrator to restart it and an operator to notice. 0 stops at the first failure.";

    public static final String THREAD_REPLACEMENTS_WINDOW_MS_CONFIG = "ttl.thread.replacements.window.ms";
    public static final String THREAD_REPLACEMENTS_WINDOW_MS_DOC =
            "The sliding window, in milliseconds, over which" + " ttl.thread.replacements.max counts thread failures.";

    public static final String DOCUMENT_KEY_MAX_BYTES_CONFIG = "ttl.document.key.max.bytes";
    public static final String DOCUMENT_KEY_MAX_BYTES_DOC = "The largest document key, in bytes of BSON (as MongoDB's"
            + " $bsonSize counts), that ttl-streams schedules; a change event with a larger key is dead-lettered with"
            + " its size and never scheduled. A delete command carries the key twice, as extended JSON, and must fit"
            + " in one Kafka record; MongoDB itself allows _id values of up to the 16 MiB document limit. The"
            + " rendered source connectors drop such events already in the change stream (see connect-config/).";
    /** {@value #DOCUMENT_KEY_MAX_BYTES_CONFIG} unless configured: far above any real key, far below a record. */
    public static final int DOCUMENT_KEY_MAX_BYTES_DEFAULT = 16 * 1024;

    public static final String MONGODB_URI_CONFIG = "ttl.mongodb.uri";
    public static final String MONGODB_URI_DOC = "MongoDB connection string from which ttl-streams resync, the"
            + " periodic sweep and the read-back of unconfirmed deletes (ttl.confirm.read.back) read the rules'"
            + " documents (mongodb:// or mongodb+srv://); its user needs the find action on the rules' namespaces. It"
            + " carries credentials: never printed or logged, and a config provider reference such as"
            + " ${file:/secrets/mongo.properties:uri} keeps it out of this file. Empty: no resync, no read-back.";

    public static final String RESYNC_INTERVAL_MS_CONFIG = "ttl.resync.interval.ms";
    public static final String RESYNC_INTERVAL_MS_DOC = "Periodic sweep: every this many milliseconds (counted from"
            + " the end of the previous sweep) run re-reads every rule's documents from ttl.mongodb.uri and publishes"
            + " them as resync events, as ttl-streams resync does, for deployments where the change stream may lose"
            + " events (a lost resume token, a processor started after the events' retention). The first sweep comes"
            + " one interval after start-up. 0: off.";

    public static final String RESYNC_BATCH_SIZE_CONFIG = "ttl.resync.batch.size";
    public static final String RESYNC_BATCH_SIZE_DOC = "Documents a resync reads from MongoDB per batch; each batch"
            + " is stamped with a cluster time taken just before it is read.";
    public static final String HTTP_PORT_CONFIG = "ttl.http.port";
    public static final String HTTP_PORT_DOC = "Port of the HTTP server: health checks, Prometheus metrics, schedule"
            + " queries and the status page; 0 picks a free port. The embedded stack uses a free port unless this is"
            + " set.";
    /** The HTTP port unless the configuration sets one; the Dockerfile, compose file and manifests expose it. */
    public static final int DEFAULT_HTTP_PORT = 8080;

    public static final String HTTP_BIND_ADDRESS_CONFIG = "ttl.http.bind.address";
    public static final String HTTP_BIND_ADDRESS_DOC = "Address the HTTP server listens on; 0.0.0.0 for every"
            + " interface. The embedded stack uses 127.0.0.1 unless this is set. Other instances reach this one at"
            + " Kafka Streams' application.server, which defaults to this address (this host's address for 0.0.0.0)"
            + " and the HTTP port.";

    public static final String HTTP_REQUEST_TIMEOUT_MS_CONFIG = "ttl.http.request.timeout.ms";
    public static final String HTTP_REQUEST_TIMEOUT_MS_DOC = "Milliseconds a client has to send a request's line and"
            + " headers once it started; a connection still sending after that is closed, so that half-sent requests"
            + " cannot hold the HTTP server's threads.";

    public static final String HTTP_AUTH_TOKEN_CONFIG = "ttl.http.auth.token";
    /** The shortest {@value #HTTP_AUTH_TOKEN_CONFIG} accepted: 16 random characters are beyond guessing. */
    public static final int HTTP_AUTH_TOKEN_MIN_LENGTH = 16;

    public static final String HTTP_AUTH_TOKEN_DOC = "Bearer token the HTTP server asks for on /v1/* and the status"
            + " page (Authorization: Bearer <token>; a browser may send it as the password of HTTP Basic"
            + " authentication, any user name), and sends when it forwards a query to another instance: every"
            + " instance needs the same. At least " + HTTP_AUTH_TOKEN_MIN_LENGTH + " characters, e.g. from openssl rand"
            + " -base64 32; keep it out of this file with a config provider reference. Unset: no authentication.";

    public static final String HTTP_AUTH_PROBES_CONFIG = "ttl.http.auth.probes";
    public static final String HTTP_AUTH_PROBES_DOC = "Whether /health/live and /health/ready ask for"
            + " ttl.http.auth.token too (the probes must then send it, e.g. Kubernetes' httpHeaders).";

    public static final String HTTP_AUTH_METRICS_CONFIG = "ttl.http.auth.metrics";
    public static final String HTTP_AUTH_METRICS_DOC = "Whether /metrics asks for ttl.http.auth.token too (Prometheus"
            + " then needs authorization: credentials or bearer_token_file in its scrape configuration).";

    public static final String HEALTH_INTERVAL_MS_CONFIG = "ttl.health.interval.ms";
    public static final String HEALTH_INTERVAL_MS_DOC = "How often, in milliseconds, the status of the managed"
            + " Kafka Connect connectors and the freshness of the source topics are checked, for readiness and"
            + " metrics.";

    public static final String LOG_FORMAT_CONFIG = "ttl.log.format";
    public static final String LOG_FORMAT_DOC = "text: one line per log event; json: one JSON object per line"
            + " (Elastic Common Schema, log4j's JSON Template Layout) for log shippers. Applied by run when the"
            + " configuration is read, before anything is logged.";
    /** The values of {@value #LOG_FORMAT_CONFIG}. */
    public static final List<String> LOG_FORMATS = List.of("text", "json");

    /** Kafka Streams' {@code application.id} unless the configuration sets one. */
    public static final String DEFAULT_APPLICATION_ID = "ttl-streams";
    /** The consumer's {@code session.timeout.ms} unless the configuration sets one. */
    public static final int DEFAULT_SESSION_TIMEOUT_MS = 10_000;
    /** The consumer's {@code heartbeat.interval.ms} unless the configuration sets one. */
    public static final int DEFAULT_HEARTBEAT_INTERVAL_MS = 3_000;

    /** Letters, digits, '-' and '_': a rule name becomes one dot-free segment of its option keys. */
    private static final Pattern RULE_NAME = Pattern.compile("[A-Za-z0-9_-]+");

    private static final ConfigDef BASE = baseDefinition();

    /**
     * {@value #RULES_CONFIG} alone, which the definition depends on. Read before config providers resolve
     * {@code ${...}} references, so no other option is validated then.
     */
    private static final ConfigDef RULE_NAMES =
            new ConfigDef().define(BASE.configKeys().get(RULES_CONFIG));

    private final TtlRules rules;
    private final TopicNamespaceMapping topicNamespaceMapping;
    private final List<String> sourceTopics;
    private final Optional<BasicCredentials> connectCredentials;
    private final Optional<SigningKey> commandSigningKey;
    private final Optional<String> httpAuthToken;

    /**
     * @param props the whole configuration: ttl-streams options and Kafka Streams settings
     * @throws ConfigException naming the option on any bad value, missing required option or unknown ttl-streams
     *                         key
     */
    public TtlStreamsConfig(Map<?, ?> props) {
        super(definition(props), props);
        this.commandSigningKey = signingKey();
        this.httpAuthToken = httpAuthTokenValue();
        this.rules = new TtlRules(getList(RULES_CONFIG).stream()
                .map(name -> RuleConfig.toRule(name, this))
                .toList());
        this.topicNamespaceMapping = new TopicNamespaceMapping(
                parseNamespaceMap(getList(SOURCE_TOPIC_NAMESPACE_MAP_CONFIG)), getString(SOURCE_TOPIC_PREFIX_CONFIG));
        this.sourceTopics = deriveSourceTopics();
        this.connectCredentials = connectCredentials(
                nonEmpty(getString(CONNECT_URL_CONFIG)).map(URI::create),
                nonEmpty(getString(CONNECT_USERNAME_CONFIG)),
                Optional.ofNullable(getPassword(CONNECT_PASSWORD_CONFIG))
                        .filter(password -> !password.value().isEmpty()));
        checkPunctuationFitsTransactions();
        checkReadBackHasMongo();
    }

    /** Read-back asked for explicitly needs a deployment to read: failing beats silently retrying blind. */
    private void checkReadBackHasMongo() {
        if (originals().containsKey(CONFIRM_READ_BACK_CONFIG)
                && getBoolean(CONFIRM_READ_BACK_CONFIG)
                && mongodbUri().isEmpty()) {
            throw new ConfigException(
                    CONFIRM_READ_BACK_CONFIG,
                    true,
                    "Read-back reads documents from " + MONGODB_URI_CONFIG + ", which is not set: set it, or set"
                            + " this option to false");
        }
    }

    /**
     * Under exactly-once, a punctuation runs inside the task's open transaction: one that outlasts the producer's
     * {@code transaction.timeout.ms} gets it aborted by the broker, and the emitted commands with it. Half the timeout
     * leaves room for the records processed around it.
     */
    private void checkPunctuationFitsTransactions() {
        Properties streams = streamsProperties();
        if (StreamsConfig.AT_LEAST_ONCE.equals(streams.getProperty(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))) {
            return;
        }
        String timeout = streams.getProperty(
                StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG),
                streams.getProperty(
                        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, String.valueOf(STREAMS_TRANSACTION_TIMEOUT_MS)));
        long transactionTimeoutMs;
        try {
            transactionTimeoutMs = Long.parseLong(timeout.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, timeout, "Not a number");
        }
        long budget = getLong(PUNCTUATE_MAX_DURATION_MS_CONFIG);
        if (budget * 2 > transactionTimeoutMs) {
            throw new ConfigException(
                    PUNCTUATE_MAX_DURATION_MS_CONFIG,
                    budget,
                    "Under exactly-once a punctuation must end well within the transaction timeout: at most half of"
                            + " the producer's transaction.timeout.ms (" + transactionTimeoutMs + " ms)");
        }
    }

    /**
     * Reads a Java properties file (UTF-8). Trailing comments such as {@code key=value   # note} are removed when
     * the {@code #} follows whitespace outside a double-quoted JSON string; write {@code \#} to keep one.
     *
     * @throws ConfigException naming the file when it cannot be read, or an option as the constructor does
     */
    public static TtlStreamsConfig load(Path propertiesFile) {
        return new TtlStreamsConfig(PropertiesFiles.read(propertiesFile));
    }

    /**
     * Reads a properties file as {@link #load(Path)} does, then applies the environment's options and the command
     * line's, as {@link ConfigLayers} describes.
     *
     * @param environment the process environment, usually {@link System#getenv()}
     * @param overrides {@code key=value} assignments from the command line
     * @throws ConfigException naming the file, variable, assignment or option that is wrong
     */
    public static TtlStreamsConfig load(Path propertiesFile, Map<String, String> environment, List<String> overrides) {
        return new TtlStreamsConfig(ConfigLayers.merge(PropertiesFiles.read(propertiesFile), environment, overrides));
    }

    /**
     * This configuration with the environment's options and the command line's applied over it, as {@link
     * ConfigLayers} describes: for a bundled configuration that has no file.
     */
    public TtlStreamsConfig layered(Map<String, String> environment, List<String> overrides) {
        return new TtlStreamsConfig(ConfigLayers.merge(originals(), environment, overrides));
    }

    /** The options other than the per-rule ones, for tools and documentation; a copy. */
    public static ConfigDef configDef() {
        return new ConfigDef(BASE);
    }

    /** The Markdown reference of every option, generated from the ConfigDefs, as the README shows it. */
    public static String configReferenceMarkdown() {
        return "## ttl-streams options\n\n" + ConfigReference.markdown(BASE, "")
                + "## Rule options\n\nOne set per name in " + RULES_CONFIG + ".\n\n"
                + ConfigReference.markdown(RuleConfig.configDef(), RuleConfig.PREFIX + "<name>.");
    }

    /** The TTL rules, in the order of {@value #RULES_CONFIG}. */
    public TtlRules rules() {
        return rules;
    }

    /** The change-event topics: {@value #SOURCE_TOPICS_CONFIG}, or those derived from the rules' namespaces. */
    public List<String> sourceTopics() {
        return sourceTopics;
    }

    /** How to find the namespace of a source topic. */
    public TopicNamespaceMapping topicNamespaceMapping() {
        return topicNamespaceMapping;
    }

    /** How far a change event's times may lie after its record's timestamp. */
    public Duration eventTimeMaxFutureSkew() {
        return Duration.ofMillis(getLong(EVENT_TIME_MAX_FUTURE_SKEW_MS_CONFIG));
    }

    /** How far a change event's times may lie before its record's timestamp. */
    public Duration eventTimeMaxLag() {
        return Duration.ofMillis(getLong(EVENT_TIME_MAX_LAG_MS_CONFIG));
    }

    public String deleteTopic() {
        return getString(DELETE_TOPIC_CONFIG);
    }

    /** The audit topic; empty when auditing is disabled. */
    public Optional<String> auditTopic() {
        return nonEmpty(getString(AUDIT_TOPIC_CONFIG));
    }

    public String dlqTopic() {
        return getString(DLQ_TOPIC_CONFIG);
    }

    public String controlTopic() {
        return getString(CONTROL_TOPIC_CONFIG);
    }

    public Duration punctuateInterval() {
        return Duration.ofMillis(getLong(PUNCTUATE_INTERVAL_MS_CONFIG));
    }

    public int punctuateMaxEntries() {
        return getInt(PUNCTUATE_MAX_ENTRIES_CONFIG);
    }

    public Duration punctuateMaxDuration() {
        return Duration.ofMillis(getLong(PUNCTUATE_MAX_DURATION_MS_CONFIG));
    }

    /** The application-wide delete throttle; empty when unthrottled. */
    public OptionalInt maxDeletesPerSecond() {
        Integer limit = getInt(MAX_DELETES_PER_SECOND_CONFIG);
        return limit == null ? OptionalInt.empty() : OptionalInt.of(limit);
    }

    /** The key that signs delete commands; empty when commands go unsigned. */
    public Optional<SigningKey> commandSigningKey() {
        return commandSigningKey;
    }

    /** How long a delete command first awaits confirmation. */
    public Duration confirmTimeout() {
        return Duration.ofMillis(getLong(CONFIRM_TIMEOUT_MS_CONFIG));
    }

    /** Delete commands emitted for one document before giving up. */
    public int confirmMaxAttempts() {
        return getInt(CONFIRM_MAX_ATTEMPTS_CONFIG);
    }

    /**
     * Whether unconfirmed deletes' documents are read back from {@value #MONGODB_URI_CONFIG}: on by default whenever
     * it is set.
     */
    public boolean confirmReadBack() {
        return getBoolean(CONFIRM_READ_BACK_CONFIG) && mongodbUri().isPresent();
    }

    /** Read-back: documents of one collection per look-up. */
    public int confirmReadBatchSize() {
        return getInt(CONFIRM_READ_BATCH_SIZE_CONFIG);
    }

    /** Whether delete commands are suppressed. */
    public boolean dryRun() {
        return getBoolean(DRY_RUN_CONFIG);
    }

    /**
     * The MongoDB connection string resyncs read from, credentials and all: never print it. Empty when none is
     * configured.
     */
    public Optional<String> mongodbUri() {
        return Optional.ofNullable(getPassword(MONGODB_URI_CONFIG))
                .map(Password::value)
                .filter(uri -> !uri.isBlank());
    }

    /** The interval of the periodic resync sweep; empty when it is off. */
    public Optional<Duration> resyncInterval() {
        long millis = getLong(RESYNC_INTERVAL_MS_CONFIG);
        return millis == 0 ? Optional.empty() : Optional.of(Duration.ofMillis(millis));
    }

    /** Documents a resync reads per batch. */
    public int resyncBatchSize() {
        return getInt(RESYNC_BATCH_SIZE_CONFIG);
    }

    /**
     * The Kafka Connect REST URL whose connectors ttl-streams manages, without user info, so safe to print; empty for
     * none.
     */
    public Optional<String> connectUrl() {
        return nonEmpty(getString(CONNECT_URL_CONFIG))
                .map(url -> BasicCredentials.withoutUserInfo(URI.create(url)).toString());
    }

    /**
     * The HTTP Basic credentials for {@link #connectUrl()}: from its user info, or from {@value
     * #CONNECT_USERNAME_CONFIG} and {@value #CONNECT_PASSWORD_CONFIG}; empty when Connect needs none.
     */
    public Optional<BasicCredentials> connectCredentials() {
        return connectCredentials;
    }

    public int embeddedMongodbPort() {
        return getInt(EMBEDDED_MONGODB_PORT_CONFIG);
    }

    public int embeddedKafkaPort() {
        return getInt(EMBEDDED_KAFKA_PORT_CONFIG);
    }

    public int embeddedConnectPort() {
        return getInt(EMBEDDED_CONNECT_PORT_CONFIG);
    }

    /** Partitions of the topics the embedded stack creates. */
    public int embeddedPartitions() {
        return getInt(EMBEDDED_PARTITIONS_CONFIG);
    }

    /** The largest document key, bytes of BSON, that is scheduled. */
    public int documentKeyMaxBytes() {
        return getInt(DOCUMENT_KEY_MAX_BYTES_CONFIG);
    }

    /** How many stream threads may be replaced within {@link #threadReplacementsWindow()}. */
    public int threadReplacementsMax() {
        return getInt(THREAD_REPLACEMENTS_MAX_CONFIG);
    }

    /** The window over which {@link #threadReplacementsMax()} counts. */
    public Duration threadReplacementsWindow() {
        return Duration.ofMillis(getLong(THREAD_REPLACEMENTS_WINDOW_MS_CONFIG));
    }

    /** The embedded stack's data directory; empty for a fresh temporary one. */
    public Optional<Path> embeddedDataDir() {
        return nonEmpty(getString(EMBEDDED_DATA_DIR_CONFIG)).map(Path::of);
    }

    public int httpPort() {
        return getInt(HTTP_PORT_CONFIG);
    }

    public String httpBindAddress() {
        return getString(HTTP_BIND_ADDRESS_CONFIG);
    }

    /** How long a client may take to send a request's line and headers. */
    public Duration httpRequestTimeout() {
        return Duration.ofMillis(getLong(HTTP_REQUEST_TIMEOUT_MS_CONFIG));
    }

    /** The HTTP server's bearer token; empty when it asks for none. */
    public Optional<String> httpAuthToken() {
        return httpAuthToken;
    }

    /** Whether the probes ask for {@link #httpAuthToken()} too. */
    public boolean httpAuthProbes() {
        return getBoolean(HTTP_AUTH_PROBES_CONFIG);
    }

    /** Whether {@code /metrics} asks for {@link #httpAuthToken()} too. */
    public boolean httpAuthMetrics() {
        return getBoolean(HTTP_AUTH_METRICS_CONFIG);
    }

    public Duration healthInterval() {
        return Duration.ofMillis(getLong(HEALTH_INTERVAL_MS_CONFIG));
    }

    /** {@code text} or {@code json}. */
    public String logFormat() {
        return getString(LOG_FORMAT_CONFIG);
    }

    /**
     * The Kafka Streams settings: every key outside {@code ttl.} and {@code embedded.}, over these defaults:
     *
     * <ul>
     *   <li>{@code application.id=ttl-streams};</li>
     *   <li>{@code processing.guarantee=exactly_once_v2}: deletes and schedule updates commit together;</li>
     *   <li>{@code max.task.idle.ms=-1}: every task also reads the control topic, which is nearly always empty, and
     *       waiting on it would only delay change events; their order against namespace drops is settled by
     *       clusterTime (see the namespace-epochs store), not by arrival;</li>
     *   <li>{@code session.timeout.ms=10000} and {@code heartbeat.interval.ms=3000} (Kafka's: 45 s and 3 s): an
     *       instance that dies without leaving the group holds its partitions until the session times out, and
     *       every document due meanwhile is late by that much;</li>
     *   <li>{@code num.standby.replicas=1}: another instance keeps a warm copy of each task's stores, so that a
     *       takeover does not first replay the changelogs (no effect with a single instance);</li>
     *   <li>{@code processing.exception.handler}: {@link DeadLetterExceptionHandler}, which dead-letters a record
     *       whose processing threw and counts failed punctuations, with the dead-letter topic passed on as
     *       {@value DeadLetterExceptionHandler#DLQ_TOPIC_CONFIG};</li>
     *   <li>{@code production.exception.handler}: {@link SendFailureHandler}, which dead-letters, logs and counts a
     *       record of the processor's topics the producer failed to send (such as one over {@code
     *       max.request.size}) instead of failing the stream thread.</li>
     * </ul>
     *
     * {@code bootstrap.servers} has no default: pointing at a broker by accident is worse than failing. A fresh copy
     * on each call.
     */
    public Properties streamsProperties() {
        Properties properties = new Properties();
        properties.put(StreamsConfig.APPLICATION_ID_CONFIG, DEFAULT_APPLICATION_ID);
        properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        properties.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, Long.toString(StreamsConfig.MAX_TASK_IDLE_MS_DISABLED));
        // Unprefixed, so that a user's session.timeout.ms, consumer.session.timeout.ms or
        // main.consumer.session.timeout.ms wins, as Kafka Streams lets the more specific setting win.
        properties.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Integer.toString(DEFAULT_SESSION_TIMEOUT_MS));
        properties.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Integer.toString(DEFAULT_HEARTBEAT_INTERVAL_MS));
        properties.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, "1");
        properties.put(
                StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterExceptionHandler.class.getName());
        properties.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, SendFailureHandler.class.getName());
        originals().forEach((key, value) -> {
            if (!UnknownKeys.isOwn(key) && value != null) {
                properties.put(key, value);
            }
        });
        properties.put(DeadLetterExceptionHandler.DLQ_TOPIC_CONFIG, dlqTopic());
        return properties;
    }

    /**
     * The base options plus, for each name in {@value #RULES_CONFIG}, the rule options under
     * {@code ttl.rule.<name>.}: the definition depends on the values, as Kafka Connect's does for transforms.
     */
    private static ConfigDef definition(Map<?, ?> props) {
        @SuppressWarnings("unchecked") // LIST options parse to List<String>
        List<String> ruleNames = (List<String>) RULE_NAMES.parse(props).get(RULES_CONFIG);
        ConfigDef definition = new ConfigDef(BASE);
        ruleNames.forEach(name -> RuleConfig.embedInto(definition, name));
        UnknownKeys.reject(props, definition, ruleNames);
        return definition;
    }

    private static ConfigDef baseDefinition() {
        ConfigDef definition = new ConfigDef();
        new Group(definition, RULES_GROUP)
                .define(
                        RULES_CONFIG,
                        Type.LIST,
                        ConfigDef.NO_DEFAULT_VALUE,
                        Validators.of(
                                "distinct names of letters, digits, - and _, at least one",
                                TtlStreamsConfig::checkRuleNames),
                        Importance.HIGH,
                        RULES_DOC);
        new Group(definition, SOURCE_GROUP)
                .define(
                        SOURCE_TOPICS_CONFIG,
                        Type.LIST,
                        List.of(),
                        Validators.topics(),
                        Importance.HIGH,
                        SOURCE_TOPICS_DOC)
                .define(
                        SOURCE_TOPIC_PREFIX_CONFIG,
                        Type.STRING,
                        "",
                        Validators.blankOr(Validators.topic()),
                        Importance.MEDIUM,
                        SOURCE_TOPIC_PREFIX_DOC)
                .define(
                        SOURCE_TOPIC_NAMESPACE_MAP_CONFIG,
                        Type.LIST,
                        List.of(),
                        Validators.of("topic=db.coll entries", value -> parseNamespaceMap((List<?>) value)),
                        Importance.MEDIUM,
                        SOURCE_TOPIC_NAMESPACE_MAP_DOC)
                .define(
                        EVENT_TIME_MAX_FUTURE_SKEW_MS_CONFIG,
                        Type.LONG,
                        EVENT_TIME_MAX_FUTURE_SKEW_MS_DEFAULT,
                        Range.between(0, Duration.ofDays(1).toMillis()),
                        Importance.LOW,
                        EVENT_TIME_MAX_FUTURE_SKEW_MS_DOC)
                .define(
                        EVENT_TIME_MAX_LAG_MS_CONFIG,
                        Type.LONG,
                        EVENT_TIME_MAX_LAG_MS_DEFAULT,
                        Range.atLeast(Duration.ofMinutes(1).toMillis()),
                        Importance.LOW,
                        EVENT_TIME_MAX_LAG_MS_DOC);
        new Group(definition, OUTPUT_GROUP)
                .define(
                        DELETE_TOPIC_CONFIG,
                        Type.STRING,
                        "ttl.deletes",
                        Validators.topic(),
                        Importance.HIGH,
                        DELETE_TOPIC_DOC)
                .define(
                        AUDIT_TOPIC_CONFIG,
                        Type.STRING,
                        "",
                        Validators.blankOr(Validators.topic()),
                        Importance.MEDIUM,
                        AUDIT_TOPIC_DOC)
                .define(DLQ_TOPIC_CONFIG, Type.STRING, "ttl.dlq", Validators.topic(), Importance.MEDIUM, DLQ_TOPIC_DOC)
                .define(
                        CONTROL_TOPIC_CONFIG,
                        Type.STRING,
                        "ttl.control",
                        Validators.topic(),
                        Importance.LOW,
                        CONTROL_TOPIC_DOC);
        new Group(definition, SCHEDULER_GROUP)
                .define(
                        PUNCTUATE_INTERVAL_MS_CONFIG,
                        Type.LONG,
                        100L,
                        Range.atLeast(1),
                        Importance.MEDIUM,
                        PUNCTUATE_INTERVAL_MS_DOC)
                .define(
                        PUNCTUATE_MAX_ENTRIES_CONFIG,
                        Type.INT,
                        100_000,
                        Range.atLeast(1),
                        Importance.LOW,
                        PUNCTUATE_MAX_ENTRIES_DOC)
                .define(
                        PUNCTUATE_MAX_DURATION_MS_CONFIG,
                        Type.LONG,
                        1_000L,
                        Range.atLeast(1),
                        Importance.LOW,
                        PUNCTUATE_MAX_DURATION_MS_DOC)
                .define(
                        MAX_DELETES_PER_SECOND_CONFIG,
                        Type.INT,
                        null,
                        Validators.nullOr(Range.atLeast(1)),
                        Importance.MEDIUM,
                        MAX_DELETES_PER_SECOND_DOC)
                .define(
                        CONFIRM_TIMEOUT_MS_CONFIG,
                        Type.LONG,
                        30_000L,
                        Range.atLeast(1),
                        Importance.MEDIUM,
                        CONFIRM_TIMEOUT_MS_DOC)
                .define(
                        CONFIRM_MAX_ATTEMPTS_CONFIG,
                        Type.INT,
                        10,
                        Range.atLeast(1),
                        Importance.LOW,
                        CONFIRM_MAX_ATTEMPTS_DOC)
                .define(CONFIRM_READ_BACK_CONFIG, Type.BOOLEAN, true, null, Importance.MEDIUM, CONFIRM_READ_BACK_DOC)
                .define(
                        CONFIRM_READ_BATCH_SIZE_CONFIG,
                        Type.INT,
                        100,
                        Range.between(1, 1_000),
                        Importance.LOW,
                        CONFIRM_READ_BATCH_SIZE_DOC)
                .define(DRY_RUN_CONFIG, Type.BOOLEAN, false, null, Importance.MEDIUM, DRY_RUN_DOC);
        new Group(definition, CONNECT_GROUP)
                .define(
                        CONNECT_URL_CONFIG,
                        Type.STRING,
                        "",
                        Validators.blankOr(Validators.httpUrl()),
                        Importance.MEDIUM,
                        CONNECT_URL_DOC)
                .define(CONNECT_USERNAME_CONFIG, Type.STRING, "", null, Importance.MEDIUM, CONNECT_USERNAME_DOC)
                .define(CONNECT_PASSWORD_CONFIG, Type.PASSWORD, null, null, Importance.MEDIUM, CONNECT_PASSWORD_DOC);
        new Group(definition, EMBEDDED_GROUP)
                .define(
                        EMBEDDED_MONGODB_PORT_CONFIG,
                        Type.INT,
                        27017,
                        port(),
                        Importance.LOW,
                        EMBEDDED_MONGODB_PORT_DOC)
                .define(EMBEDDED_KAFKA_PORT_CONFIG, Type.INT, 9092, port(), Importance.LOW, EMBEDDED_KAFKA_PORT_DOC)
                .define(EMBEDDED_CONNECT_PORT_CONFIG, Type.INT, 8083, port(), Importance.LOW, EMBEDDED_CONNECT_PORT_DOC)
                .define(EMBEDDED_DATA_DIR_CONFIG, Type.STRING, "", null, Importance.LOW, EMBEDDED_DATA_DIR_DOC)
                .define(
                        EMBEDDED_PARTITIONS_CONFIG,
                        Type.INT,
                        2,
                        Range.between(1, 1000),
                        Importance.LOW,
                        EMBEDDED_PARTITIONS_DOC);
        new Group(definition, FAILURE_GROUP)
                .define(
                        THREAD_REPLACEMENTS_MAX_CONFIG,
                        Type.INT,
                        3,
                        Range.atLeast(0),
                        Importance.MEDIUM,
                        THREAD_REPLACEMENTS_MAX_DOC)
                .define(
                        THREAD_REPLACEMENTS_WINDOW_MS_CONFIG,
                        Type.LONG,
                        300_000L,
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
        new Group(definition, SECURITY_GROUP)
                .define(
                        COMMAND_SIGNING_KEY_CONFIG,
                        Type.PASSWORD,
                        null,
                        Validators.of(
                                "null or a secret of at least " + SigningKey.MIN_LENGTH_BYTES + " bytes",
                                TtlStreamsConfig::checkSigningKey),
                        Importance.HIGH,
                        COMMAND_SIGNING_KEY_DOC);
        new Group(definition, RESYNC_GROUP)
                .define(
                        MONGODB_URI_CONFIG,
                        Type.PASSWORD,
                        null,
                        Validators.nullOr(Validators.mongodbUri()),
                        Importance.MEDIUM,
                        MONGODB_URI_DOC)
                .define(
                        RESYNC_INTERVAL_MS_CONFIG,
                        Type.LONG,
                        0L,
                        Range.atLeast(0),
                        Importance.LOW,
                        RESYNC_INTERVAL_MS_DOC)
                .define(
                        RESYNC_BATCH_SIZE_CONFIG,
                        Type.INT,
                        1_000,
                        Range.atLeast(1),
                        Importance.LOW,
                        RESYNC_BATCH_SIZE_DOC);
        new Group(definition, OPERATIONS_GROUP)
                .define(HTTP_PORT_CONFIG, Type.INT, DEFAULT_HTTP_PORT, port(), Importance.MEDIUM, HTTP_PORT_DOC)
                .define(
                        HTTP_BIND_ADDRESS_CONFIG,
                        Type.STRING,
                        "0.0.0.0",
                        Validators.host(),
                        Importance.MEDIUM,
                        HTTP_BIND_ADDRESS_DOC)
                .define(
                        HTTP_REQUEST_TIMEOUT_MS_CONFIG,
                        Type.LONG,
                        10_000L,
                        Range.between(1, 600_000),
                        Importance.LOW,
                        HTTP_REQUEST_TIMEOUT_MS_DOC)
                .define(
                        HTTP_AUTH_TOKEN_CONFIG,
                        Type.PASSWORD,
                        null,
                        Validators.of(
                                "null or a token of at least " + HTTP_AUTH_TOKEN_MIN_LENGTH + " characters",
                                TtlStreamsConfig::checkHttpAuthToken),
                        Importance.MEDIUM,
                        HTTP_AUTH_TOKEN_DOC)
                .define(HTTP_AUTH_PROBES_CONFIG, Type.BOOLEAN, false, null, Importance.LOW, HTTP_AUTH_PROBES_DOC)
                .define(HTTP_AUTH_METRICS_CONFIG, Type.BOOLEAN, false, null, Importance.LOW, HTTP_AUTH_METRICS_DOC)
                .define(
                        HEALTH_INTERVAL_MS_CONFIG,
                        Type.LONG,
                        10_000L,
                        Range.atLeast(100),
                        Importance.LOW,
                        HEALTH_INTERVAL_MS_DOC)
                .define(
                        LOG_FORMAT_CONFIG,
                        Type.STRING,
                        "text",
                        ConfigDef.ValidString.in(LOG_FORMATS.toArray(String[]::new)),
                        Importance.LOW,
                        LOG_FORMAT_DOC);
        return definition;
    }

    /**
     * The length check. A config provider reference passes here: the ConfigDef is first applied to the raw values
     * (to learn the rule names), and the resolved value is checked again, and an unresolved one refused, in
     * {@link #signingKey()}.
     */
    private static void checkSigningKey(Object value) {
        String secret = value == null ? "" : ((Password) value).value();
        if (!secret.isEmpty() && !SigningKey.isUnresolvedReference(secret)) {
            SigningKey.of(secret);
        }
    }

    private Optional<SigningKey> signingKey() {
        Password secret = getPassword(COMMAND_SIGNING_KEY_CONFIG);
        if (secret == null || secret.value().isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(SigningKey.of(secret.value()));
        } catch (IllegalArgumentException invalid) {
            throw new ConfigException(COMMAND_SIGNING_KEY_CONFIG, secret, invalid.getMessage());
        }
    }

    /** The length check; a config provider reference is checked once resolved, in {@link #httpAuthTokenValue()}. */
    private static void checkHttpAuthToken(Object value) {
        String token = value == null ? "" : ((Password) value).value();
        if (!token.isEmpty() && !SigningKey.isUnresolvedReference(token)) {
            checkHttpAuthTokenLength(token);
        }
    }

    private static void checkHttpAuthTokenLength(String token) {
        if (token.length() < HTTP_AUTH_TOKEN_MIN_LENGTH || !token.strip().equals(token)) {
            throw new IllegalArgumentException("A token needs at least " + HTTP_AUTH_TOKEN_MIN_LENGTH
                    + " characters and no surrounding spaces, this one has " + token.length()
                    + " (generate one with: openssl rand -base64 32)");
        }
    }

    private Optional<String> httpAuthTokenValue() {
        Password token = getPassword(HTTP_AUTH_TOKEN_CONFIG);
        if (token == null || token.value().isEmpty()) {
            return Optional.empty();
        }
        try {
            if (SigningKey.isUnresolvedReference(token.value())) {
                throw new IllegalArgumentException("The token is an unresolved config provider reference; the"
                        + " configuration needs config.providers");
            }
            checkHttpAuthTokenLength(token.value());
            return Optional.of(token.value());
        } catch (IllegalArgumentException invalid) {
            throw new ConfigException(HTTP_AUTH_TOKEN_CONFIG, token, invalid.getMessage());
        }
    }

    private static ConfigDef.Validator port() {
        return Range.between(0, 65535);
    }

    private static void checkRuleNames(Object value) {
        List<String> names = Validators.distinct((List<?>) value);
        if (names.isEmpty()) {
            throw new IllegalArgumentException("List at least one rule");
        }
        for (String name : names) {
            if (!RULE_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("Rule name '" + name + "' may use only letters, digits, - and _");
            }
        }
    }

    /**
     * Parses {@code topic=db.coll} entries.
     *
     * @throws IllegalArgumentException describing the first bad entry
     */
    private static Map<String, Namespace> parseNamespaceMap(List<?> entries) {
        Map<String, Namespace> map = new LinkedHashMap<>();
        for (Object entry : entries) {
            String text = entry.toString();
            int equals = text.indexOf('=');
            if (equals < 0) {
                throw new IllegalArgumentException("Entry '" + text + "' is not topic=db.coll");
            }
            String topic = text.substring(0, equals).trim();
            Validators.checkTopic(topic);
            NamespacePattern pattern =
                    NamespacePattern.parse(text.substring(equals + 1).trim());
            Namespace namespace = pattern.exactNamespace()
                    .orElseThrow(() -> new IllegalArgumentException("Entry '" + text + "' maps to a database"
                            + " wildcard; a topic carries one collection, db.coll"));
            if (map.put(topic, namespace) != null) {
                throw new IllegalArgumentException("Topic '" + topic + "' is mapped twice");
            }
        }
        return map;
    }

    /**
     * The credentials from the URL's user info or from the options, checking that they come one way and complete.
     *
     * @throws ConfigException naming the options when both ways are used, or one option lacks the other
     */
    private static Optional<BasicCredentials> connectCredentials(
            Optional<URI> url, Optional<String> username, Optional<Password> password) {
        if (url.isEmpty()) {
            if (username.isPresent() || password.isPresent()) {
                throw new ConfigException(
                        (username.isPresent() ? CONNECT_USERNAME_CONFIG : CONNECT_PASSWORD_CONFIG) + " is set but "
                                + CONNECT_URL_CONFIG + " is not: name the Kafka Connect REST API to authenticate to");
            }
            return Optional.empty();
        }
        Optional<BasicCredentials> fromUrl = BasicCredentials.fromUserInfo(url.get());
        if (fromUrl.isPresent() && (username.isPresent() || password.isPresent())) {
            throw new ConfigException("Kafka Connect credentials are given twice, as user info in " + CONNECT_URL_CONFIG
                    + " and as " + CONNECT_USERNAME_CONFIG + "/" + CONNECT_PASSWORD_CONFIG + ": keep one");
        }
        if (username.isPresent() != password.isPresent()) {
            throw new ConfigException((username.isPresent() ? CONNECT_PASSWORD_CONFIG : CONNECT_USERNAME_CONFIG)
                    + " is missing: " + CONNECT_USERNAME_CONFIG + " and " + CONNECT_PASSWORD_CONFIG
                    + " are set together");
        }
        return fromUrl.or(() -> username.map(name -> new BasicCredentials(name, password.orElseThrow())));
    }

    private List<String> deriveSourceTopics() {
        List<String> explicit = getList(SOURCE_TOPICS_CONFIG);
        if (!explicit.isEmpty()) {
            return List.copyOf(explicit);
        }
        Set<String> topics = new LinkedHashSet<>();
        for (TtlRule rule : rules.rules()) {
            if (rule.namespace().collection() == null) {
                throw new ConfigException(
                        SOURCE_TOPICS_CONFIG,
                        explicit,
                        "Rule " + rule.name() + " covers every" + " collection of " + rule.namespace()
                                + ", so its topics cannot be derived: list them here");
            }
            for (String topic : topicNamespaceMapping.topicsOf(
                    rule.namespace().exactNamespace().orElseThrow())) {
                try {
                    Validators.checkTopic(topic);
                } catch (IllegalArgumentException illegal) {
                    throw new ConfigException(
                            SOURCE_TOPICS_CONFIG,
                            explicit,
                            "The topic derived for rule "
                                    + rule.name() + " is illegal: " + illegal.getMessage()
                                    + "; list the topics here or map"
                                    + " them with " + SOURCE_TOPIC_NAMESPACE_MAP_CONFIG);
                }
                topics.add(topic);
            }
        }
        return List.copyOf(topics);
    }

    private static Optional<String> nonEmpty(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }

    /**
     * Defines options in one documentation group, numbering them in order, which ConfigDef wants for its generated
     * documentation but nobody should count by hand.
     */
    private static final class Group {

        private final ConfigDef definition;
        private final String name;
        private int order;

        Group(ConfigDef definition, String name) {
            this.definition = definition;
            this.name = name;
        }

        Group define(
                String key,
                Type type,
                Object defaultValue,
                ConfigDef.Validator validator,
                Importance importance,
                String documentation) {
            definition.define(
                    key, type, defaultValue, validator, importance, documentation, name, ++order, Width.MEDIUM, key);
            return this;
        }
    }
}
